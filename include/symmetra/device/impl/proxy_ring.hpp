// The proxy channel (docs/proxy.md): how a PE that cannot call the transport itself (a GPU
// thread) hands remote operations to a CPU thread of its process, the proxy (src/proxy/), which
// drains them into the transport. NVSHMEM's IBRC/UCX proxy design.
//
// The ring is 2^k entries of 8 bytes in memory both sides see (pinned, device-mapped host
// memory on the GPU). Bit 63 of each entry is its flag, and the flag flips on each lap of the
// ring (flag-in-data), so the proxy finds the next entry by its flag alone and needs no head
// pointer from the producers. A request is 1-7 consecutive entries; its first says what it is.
//
// A producer reserves its entries with one atomic add on `tail`, waits (bounded) until the
// proxy has freed them, and writes them. The proxy takes requests in ring order and issues each
// into the transport; `done` says how far it got: every request before position `done` has been
// issued (its source read: the producer may reuse it), and for a get, a fetching atomic or a
// quiet, completed (a quiet: every request before it is complete at its target). The proxy
// writes `done` in batches, and at once for a request that asks for it (kAck). A producer that
// needs its request done waits for `done` to pass the request's end.
//
// A request that fetches (an atomic's old value, a small get) has the proxy leave the value in
// the ring's result words of its first slot (proxy_take_result); `done` passes such a request
// only once its producer has taken the value, so no later request reuses the slot before.
//
// Threads: any number of producers (host threads or GPU threads) per ring; one proxy.
// Ordering: requests are issued in ring order; a fence request orders through the transport.
#pragma once

#include <cstddef>
#include <cstdint>

#include "symmetra/core/atomic.hpp"
#include "symmetra/core/platform.hpp"
#include "symmetra/device/context.hpp"
#include "symmetra/device/impl/wait_core.hpp"

#if !SYMMETRA_DEVICE_PASS
#include <chrono>
#include <thread>
#endif

namespace symmetra::device {

enum ProxyState : std::uint32_t {
  kProxyRunning = 0,
  kProxyStopped = 1,  // finalized: takes nothing more
  kProxyFailed = 2,   // its transport failed; the proxy printed why
};

// What a request asks for: the low byte of its first entry.
enum class ProxyOp : std::uint8_t {
  kPut = 1,        // dest offset, src address, bytes
  kPutInline = 2,  // dest offset, value lo32, value hi32; bytes (1, 2, 4, 8) in `sub`
  kGet = 3,        // dest address, src offset, bytes
  kAmo = 4,        // dest offset, value lo/hi, cond lo/hi, result address (0: none); AmoOp in
                   // `sub`, DataType in `type`
  kPutSignal = 5,  // dest offset, src address, bytes, signal offset, value lo/hi; SignalOp in sub
  kFence = 6,
  kQuiet = 7,  // completes every earlier request at its target; always kAck
  // signal offset, value lo/hi; SignalOp in sub: RemotePath::sync_signal, a signal of the
  // library's own synchronization that quiet need not complete
  kSyncSignal = 8,
};

// Why a producer's wait ended.
enum class ProxyWait : int { kOk, kTimeout, kStopped };

namespace detail {

inline constexpr std::uint64_t kProxyFlag = 1ull << 63;
inline constexpr std::uint64_t kProxyPayload = kProxyFlag - 1;
inline constexpr unsigned kProxyMaxEntries = 7;
// The first entry: op (bits 0-7), entry count (8-11), kAck (12), sub (16-23), type (24-31),
// PE (32-55).
inline constexpr std::uint64_t kProxyAck = 1ull << 12;

// Bytes of ProxyRing::outbox per slot: a request of n entries carries up to n times this.
inline constexpr std::size_t kProxyOutboxBytes = 256;

// Entries a request of `op` has, its first included; 0: no such op. Producers and the proxy
// both read this one table.
SYMMETRA_INLINE constexpr unsigned proxy_entries(ProxyOp op) {
  switch (op) {
    case ProxyOp::kPut:
    case ProxyOp::kPutInline:
    case ProxyOp::kGet:
    case ProxyOp::kSyncSignal:
      return 4;
    case ProxyOp::kAmo:
    case ProxyOp::kPutSignal:
      return 7;
    case ProxyOp::kFence:
    case ProxyOp::kQuiet:
      return 1;
  }
  return 0;
}

SYMMETRA_INLINE constexpr std::uint64_t proxy_head(ProxyOp op, bool ack, unsigned sub,
                                                   unsigned type, int pe) {
  return static_cast<std::uint64_t>(op) | (static_cast<std::uint64_t>(proxy_entries(op)) << 8) |
         (ack ? kProxyAck : 0) | (static_cast<std::uint64_t>(sub & 0xff) << 16) |
         (static_cast<std::uint64_t>(type & 0xff) << 24) |
         (static_cast<std::uint64_t>(static_cast<std::uint32_t>(pe) & 0xffffff) << 32);
}
SYMMETRA_INLINE constexpr ProxyOp head_op(std::uint64_t e) {
  return static_cast<ProxyOp>(e & 0xff);
}
SYMMETRA_INLINE constexpr unsigned head_entries(std::uint64_t e) {
  return static_cast<unsigned>((e >> 8) & 0xf);
}
SYMMETRA_INLINE constexpr bool head_ack(std::uint64_t e) {
  return (e & kProxyAck) != 0;
}
SYMMETRA_INLINE constexpr unsigned head_sub(std::uint64_t e) {
  return static_cast<unsigned>((e >> 16) & 0xff);
}
SYMMETRA_INLINE constexpr unsigned head_type(std::uint64_t e) {
  return static_cast<unsigned>((e >> 24) & 0xff);
}
SYMMETRA_INLINE constexpr int head_pe(std::uint64_t e) {
  return static_cast<int>((e >> 32) & 0xffffff);
}

// A request as its producer builds it: payloads only (bit 63 clear).
struct ProxyRequest {
  std::uint64_t e[kProxyMaxEntries];
  unsigned n;
};

// The request of `Op` with these fields after its first entry; their number is checked against
// proxy_entries at compile time.
template <ProxyOp Op, class... Fields>
SYMMETRA_INLINE ProxyRequest proxy_request(bool ack, unsigned sub, unsigned type, int pe,
                                           Fields... fields) {
  static_assert(1 + sizeof...(Fields) == proxy_entries(Op), "fields of a proxy request");
  return {{proxy_head(Op, ack, sub, type, pe), static_cast<std::uint64_t>(fields)...},
          proxy_entries(Op)};
}

SYMMETRA_INLINE std::uint64_t lo32(std::uint64_t v) {
  return v & 0xffffffffull;
}
SYMMETRA_INLINE std::uint64_t hi32(std::uint64_t v) {
  return v >> 32;
}
SYMMETRA_INLINE std::uint64_t address_bits(const void* p) {
  return static_cast<std::uint64_t>(reinterpret_cast<std::uintptr_t>(p));
}

// `bytes` from `src` (an address the proxy can read) to offset `dest` of PE pe.
SYMMETRA_INLINE ProxyRequest proxy_put(int pe, std::uint64_t dest, const void* src,
                                       std::uint64_t bytes, bool ack) {
  return proxy_request<ProxyOp::kPut>(ack, 0, 0, pe, dest, address_bits(src), bytes);
}
// The low `bytes` (1, 2, 4, 8) of `value`'s memory to offset `dest`: the source travels in the
// request, so nothing waits for the proxy.
SYMMETRA_INLINE ProxyRequest proxy_put_inline(int pe, std::uint64_t dest, std::uint64_t value,
                                              unsigned bytes) {
  return proxy_request<ProxyOp::kPutInline>(false, bytes, 0, pe, dest, lo32(value), hi32(value));
}
// With `ack`, complete when `done` passes it; without, by the next quiet (get_nbi).
SYMMETRA_INLINE ProxyRequest proxy_get(int pe, void* dest, std::uint64_t src, std::uint64_t bytes,
                                       bool ack) {
  return proxy_request<ProxyOp::kGet>(ack, 0, 0, pe, address_bits(dest), src, bytes);
}
// `op` on the word of `type` at offset `dest`; the old value to `*result` where not null.
SYMMETRA_INLINE ProxyRequest proxy_amo(int pe, std::uint64_t dest, unsigned op, unsigned type,
                                       std::uint64_t value, std::uint64_t cond,
                                       std::uint64_t* result) {
  return proxy_request<ProxyOp::kAmo>(result != nullptr, op, type, pe, dest, lo32(value),
                                      hi32(value), lo32(cond), hi32(cond), address_bits(result));
}
SYMMETRA_INLINE ProxyRequest proxy_put_signal(int pe, std::uint64_t dest, const void* src,
                                              std::uint64_t bytes, std::uint64_t sig,
                                              std::uint64_t value, unsigned sig_op, bool ack) {
  return proxy_request<ProxyOp::kPutSignal>(ack, sig_op, 0, pe, dest, address_bits(src), bytes, sig,
                                            lo32(value), hi32(value));
}
SYMMETRA_INLINE ProxyRequest proxy_sync_signal(int pe, std::uint64_t sig, std::uint64_t value,
                                               unsigned sig_op) {
  return proxy_request<ProxyOp::kSyncSignal>(false, sig_op, 0, pe, sig, lo32(value), hi32(value));
}
SYMMETRA_INLINE ProxyRequest proxy_fence() {
  return proxy_request<ProxyOp::kFence>(false, 0, 0, 0);
}
SYMMETRA_INLINE ProxyRequest proxy_quiet() {
  return proxy_request<ProxyOp::kQuiet>(true, 0, 0, 0);
}

// The flag that an entry at absolute position `pos` carries: set on lap 0 (the ring starts
// zeroed), clear on lap 1, and so on.
SYMMETRA_INLINE constexpr std::uint64_t proxy_flag(std::uint64_t pos, std::uint32_t log2_slots) {
  return ((pos >> log2_slots) & 1) ? 0 : kProxyFlag;
}

SYMMETRA_INLINE std::uint64_t proxy_now_ns() {
#if SYMMETRA_DEVICE_PASS
  return global_ns();
#else
  return static_cast<std::uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                        std::chrono::steady_clock::now().time_since_epoch())
                                        .count());
#endif
}

// One step of a bounded wait's back-off: spin first, then sleep (the proxy is a thread of this
// process, so a producer that spins on the host takes a CPU the proxy may need).
SYMMETRA_INLINE void proxy_backoff(unsigned& round) {
#if SYMMETRA_DEVICE_PASS
  // At most about 1 us between looks: the proxy's answer comes when the transport's does (a
  // quiet over TCP takes tens of us), and up to 8 us between looks (the cap before) added half
  // of that to every wait on average, about the device form's excess over the host form on the
  // H200 (docs/proxy.md, "Performance across hosts"). A look is one read over PCIe.
  __nanosleep(round < 5 ? 32u << round : 1024u);
#else
  if (round < 64) {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#endif
  } else if (round < 128) {
    std::this_thread::yield();
  } else {
    std::this_thread::sleep_for(std::chrono::microseconds(round < 256 ? 1 : 20));
  }
#endif
  ++round;
}

// The bounded wait of every producer: until `ready()` holds (kOk), the proxy stops, or the proxy
// completes nothing for timeout_ns: the clock restarts whenever `done` moves, so a long wait
// behind requests that are being served (a ring full of large gets on a slow link) goes on while
// they move (docs/proxy.md, Bounded waits). `ready` reads with poll_load (relaxed on the GPU:
// each look is a read over PCIe, and an acquire per look would order it behind the one before);
// one acquire fence follows success. The state word, `done` and the clock are read every 16th
// look. `done_seen` gets `done` when the wait fails (for its message).
template <class Ready>
SYMMETRA_INLINE ProxyWait proxy_wait_until(const ProxyRing& r, std::uint64_t timeout_ns,
                                           std::uint64_t* done_seen, Ready&& ready) {
  std::uint64_t start = 0, moved = 0;
  bool timing = false;
  for (unsigned round = 0;;) {
    if (ready()) {
      acquire_after_proxy();
      return ProxyWait::kOk;
    }
    if ((round & 15) == 15) {  // the clock is a system call's worth on some hosts
      ProxyWait w = ProxyWait::kOk;
      const std::uint64_t done = poll_load(r.done);
      if (atomic_load(r.state, kAcquire) != kProxyRunning) {
        w = ProxyWait::kStopped;
      } else if (!timing || done != moved) {
        start = proxy_now_ns();
        moved = done;
        timing = true;
      } else if (proxy_now_ns() - start > timeout_ns) {
        w = ProxyWait::kTimeout;
      }
      if (w != ProxyWait::kOk) {
        *done_seen = atomic_load(r.done, kAcquire);
        return w;
      }
    }
    proxy_backoff(round);
  }
}

// Waits until `done` reaches `pos`, the proxy stops, or timeout_ns passes.
SYMMETRA_INLINE ProxyWait proxy_wait_done(const ProxyRing& r, std::uint64_t pos,
                                          std::uint64_t timeout_ns, std::uint64_t* done_seen) {
  return proxy_wait_until(r, timeout_ns, done_seen, [&r, pos] { return poll_load(r.done) >= pos; });
}

// Reserves `n` entries at the ring's tail and waits (bounded) until the proxy has freed their
// slots. `*pos` gets the request's first position, `*done_seen` the proxy's progress when the
// wait failed.
SYMMETRA_INLINE ProxyWait proxy_reserve(const ProxyRing& r, unsigned n, std::uint64_t timeout_ns,
                                        std::uint64_t* pos, std::uint64_t* done_seen) {
  const std::uint64_t slots = 1ull << r.log2_slots;
  *pos = AtomicRef<std::uint64_t>(*r.tail).fetch_add(n, kRelaxed);
  // The slots of lap L - 1 at these places must have been taken: done >= pos + n - slots.
  if (*pos + n > slots) return proxy_wait_done(r, *pos + n - slots, timeout_ns, done_seen);
  return ProxyWait::kOk;
}

// Writes the `n` entries of `e` (payloads: bit 63 clear) at reserved position `pos`, each with
// its lap's flag. Everything this thread wrote before (a put's source) is visible to the proxy
// when it reads the request.
SYMMETRA_INLINE void proxy_write(const ProxyRing& r, std::uint64_t pos, const std::uint64_t* e,
                                 unsigned n) {
  const std::uint64_t mask = (1ull << r.log2_slots) - 1;
  // Released once for the request: the proxy's acquire of any entry's flag sees what this
  // thread wrote before (a put's source). The proxy checks every entry's own flag.
  const MemoryOrder order = begin_release_stores();
  for (unsigned i = 0; i < n; ++i) {
    const std::uint64_t p = pos + i;
    atomic_store(&r.slots[p & mask], (e[i] & kProxyPayload) | proxy_flag(p, r.log2_slots), order);
  }
}

// The result words of the request at `pos` (ProxyRing::results): its value, then its tag. The
// proxy stores the value, then the tag pos + 1 (release); the producer takes the value and
// stores the tag (pos + 1) | kProxyFlag, which hands the slot back.
SYMMETRA_INLINE std::uint64_t* proxy_result_word(const ProxyRing& r, std::uint64_t pos) {
  return &r.results[2 * (pos & ((1ull << r.log2_slots) - 1))];
}
SYMMETRA_INLINE constexpr std::uint64_t proxy_taken_tag(std::uint64_t pos) {
  return (pos + 1) | kProxyFlag;
}

// Waits (bounded) for the result of the request at `pos`, takes it into `*value` and hands the
// slot back. Until then the proxy holds `done` before the request, however long this producer
// stalls: the result cannot be overwritten by a request a lap later. `done_seen` as
// proxy_wait_done's.
SYMMETRA_INLINE ProxyWait proxy_take_result(const ProxyRing& r, std::uint64_t pos,
                                            std::uint64_t timeout_ns, std::uint64_t* value,
                                            std::uint64_t* done_seen) {
  std::uint64_t* word = proxy_result_word(r, pos);
  const ProxyWait w = proxy_wait_until(r, timeout_ns, done_seen,
                                       [word, pos] { return poll_load(&word[1]) == pos + 1; });
  if (w != ProxyWait::kOk) return w;
  *value = atomic_load(&word[0], kRelaxed);
  // Release: the value is read before the proxy may let the slot go.
  atomic_store(&word[1], proxy_taken_tag(pos), kRelease);
  return ProxyWait::kOk;
}

// The outbox of a ring of 2^log2_slots slots: its size, and where the request at `pos` may put
// its bytes (up to its entry count times kProxyOutboxBytes). The request's own slots guard them:
// the next request to use them (a lap later) waits until `done` has passed this one, whose
// source the proxy has then read.
SYMMETRA_INLINE constexpr std::size_t proxy_outbox_bytes(std::uint32_t log2_slots) {
  return ((std::size_t{1} << log2_slots) + kProxyMaxEntries) * kProxyOutboxBytes;
}
SYMMETRA_INLINE std::byte* proxy_outbox(const ProxyRing& r, std::uint64_t pos) {
  return r.outbox + (pos & ((1ull << r.log2_slots) - 1)) * kProxyOutboxBytes;
}

// Posts the `n` entries of `e` as one request: proxy_reserve, then proxy_write. `*end` gets the
// position after the request (wait for `done` to reach it to see it done).
SYMMETRA_INLINE ProxyWait proxy_post(const ProxyRing& r, const std::uint64_t* e, unsigned n,
                                     std::uint64_t timeout_ns, std::uint64_t* end,
                                     std::uint64_t* done_seen) {
  std::uint64_t pos = 0;
  const ProxyWait w = proxy_reserve(r, n, timeout_ns, &pos, done_seen);
  *end = pos + n;
  if (w == ProxyWait::kOk) proxy_write(r, pos, e, n);
  return w;
}

}  // namespace detail
}  // namespace symmetra::device
