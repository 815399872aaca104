// The remote branch of the data path (docs/transports.md): where an operation goes when its PE
// is not reachable by load and store (Context::reachable is false).
//
// On the host the device API calls the remote path (RemotePath: the transport, or the proxy's
// host producer): one virtual call, on the exception path only; the local branch stays inline
// (Sandia OpenSHMEM's rule). Every address is handed over as its offset in the heap slot, which
// is the same on the target.
// In device code the branch posts a request on the proxy ring (Context::proxy,
// device/impl/proxy_ring.hpp), which a CPU thread of the process drains into the transport
// (docs/proxy.md). Host-initiated operations of GPU PEs reach other hosts through the CUDA
// backend, which hands its device heap to this branch where the transport moves device memory
// itself, and stages device memory through pinned host memory otherwise.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "symmetra/core/atomic.hpp"
#include "symmetra/data_type.hpp"
#include "symmetra/device/context.hpp"
#include "symmetra/device/group.hpp"
#include "symmetra/device/impl/check.hpp"
#include "symmetra/device/impl/copy.hpp"
#include "symmetra/device/impl/proxy_ring.hpp"
#include "symmetra/device/impl/wait_core.hpp"
#include "symmetra/types.hpp"

namespace symmetra::device {

// A transport names a remote byte by its offset in that PE's heap slot. Where the data heap is
// device memory (the GPU backend), its slot's offsets start here, above every host heap's,
// which keeps the host heap's own (its header, where host-side syncs run) at theirs.
inline constexpr std::uint64_t kDeviceHeapOffset = std::uint64_t{1} << 62;

// The remote interface: how host code reaches a PE it cannot load and store. The transports
// implement it (src/transport/transport.hpp), and so does the proxy's host producer
// (src/proxy/proxy_ops.hpp), which posts each operation on a proxy ring instead; the branch below
// calls it through Context::remote, one virtual call on the exception path only.
//
// A remote byte is (PE, offset): its offset in that PE's heap slot, the same for a symmetric
// object on every PE (remote_offset). Threads: any thread of the PE (an implementation
// serializes what it must). Errors end the job with "[pe N] op: what" through `ctx`, as every
// data-path call does. Ordering: put completes locally on return (src may be reused) and at the
// target by quiet; get and atomic complete on return, get_nbi by quiet; fence orders this PE's
// earlier puts and atomics to each PE before its later ones to that PE; put_signal delivers the
// data before the signal.
class RemotePath {
 public:
  virtual ~RemotePath() = default;

  // Each naturally aligned 8-byte word of the destination arrives whole (LL packets rely on
  // it), and a put of 1, 2, 4 or 8 bytes to an address aligned to its size arrives whole.
  virtual void put(const Context& ctx, int pe, std::uint64_t offset, const void* src,
                   std::size_t bytes) = 0;
  virtual void get(const Context& ctx, int pe, void* dest, std::uint64_t offset,
                   std::size_t bytes) = 0;
  // A get that completes by the next quiet (dest must not be read before it): a path with a
  // network in between keeps several in flight. By default, get.
  virtual void get_nbi(const Context& ctx, int pe, void* dest, std::uint64_t offset,
                       std::size_t bytes) {
    get(ctx, pe, dest, offset, bytes);
  }
  // `op` on PE pe's word at `offset`, of `type`; value, cond and the old value carry the word's
  // bits in their low bytes.
  virtual std::uint64_t atomic(const Context& ctx, int pe, std::uint64_t offset, AmoOp op,
                               DataType type, std::uint64_t value, std::uint64_t cond) = 0;
  virtual void put_signal(const Context& ctx, int pe, std::uint64_t offset, const void* src,
                          std::size_t bytes, std::uint64_t sig_offset, std::uint64_t value,
                          SignalOp op) = 0;
  // A signal of the library's own synchronization (a team sync's round, a channel's sync, a
  // collective's credit): put_signal's signal with no data, ordered after this PE's earlier puts
  // to `pe` as put_signal's is. Its target waits for it within the same operation, so it is
  // delivered before that operation ends everywhere, and quiet need not complete it (UCX: no
  // flush request for it). By default, a put_signal of no data.
  virtual void sync_signal(const Context& ctx, int pe, std::uint64_t sig_offset,
                           std::uint64_t value, SignalOp op) {
    put_signal(ctx, pe, sig_offset, nullptr, 0, sig_offset, value, op);
  }
  virtual void fence(const Context& ctx) = 0;
  virtual void quiet(const Context& ctx) = 0;
  // Local completion (flush): this PE's earlier non-blocking operations no longer need its
  // buffers (a put's source may be reused, a get's destination holds the data); nothing is
  // promised about their visibility at the targets, which quiet gives. By default, a quiet.
  virtual void flush_local(const Context& ctx) { quiet(ctx); }
  // Serves this PE's side of operations that need the target's help (UCX over TCP runs RMA and
  // atomics as active messages); host waits call it as they poll. Cheap when there is nothing.
  virtual void progress() = 0;
  // Whether every delivery into this PE passes through this path's code on this PE (loopback:
  // the initiator's; UCX over TCP: the progress thread's), which then rings a waiter that sleeps
  // on the words. False where the network may write unseen (RDMA, shared memory): waits poll
  // instead of sleeping (host_wait.cpp).
  virtual bool deliveries_ring() const = 0;
  // Whether put, get, get_nbi and put_signal take a local buffer in this PE's device heap as it
  // is, and reach a peer's device heap without its CPU copying (UCX with CUDA). False: the CUDA
  // backend stages device memory through pinned host memory, and the target's CPU serves its
  // device heap.
  virtual bool moves_device_memory() const { return false; }

  // What the runtime tells the path in use about this PE before its first operation. Where the
  // data heap is device memory: its slot in this process, [device_heap, device_heap +
  // device_heap_bytes), whose addresses travel as kDeviceHeapOffset + their offset in it
  // (remote_offset); null on the CPU backend. And world PE -> the name of its host, for messages
  // about a PE of another host ("PE 3 (host 'node1') is gone").
  const std::byte* device_heap = nullptr;
  std::uint64_t device_heap_bytes = 0;
  const char* const* pe_host = nullptr;
};

// Whether [p, p + bytes) lies in this PE's slot of the device heap that the path reaches
// (RemotePath::device_heap), without a sum that could wrap. Host code.
inline bool in_device_heap(const RemotePath& r, const void* p, std::size_t bytes) {
  const auto* b = static_cast<const std::byte*>(p);
  return r.device_heap != nullptr && b >= r.device_heap && bytes <= r.device_heap_bytes &&
         static_cast<std::uint64_t>(b - r.device_heap) <= r.device_heap_bytes - bytes;
}

// The offset that names this PE's symmetric `p` to the remote path (RemotePath::device_heap
// says which slot). Host code.
inline std::uint64_t remote_offset(const Context& ctx, const void* p) {
  const RemotePath& r = *ctx.remote;
  if (in_device_heap(r, p, 1))  // the byte at p
    return kDeviceHeapOffset +
           static_cast<std::uint64_t>(static_cast<const std::byte*>(p) - r.device_heap);
  return ctx.offset_of(p);
}

// Whether the path takes this PE's `p` of `bytes` as it is, device memory included: in its
// device heap, where the path moves device memory itself (RemotePath::moves_device_memory).
// Host code.
inline bool moved_as_is(const RemotePath& r, const void* p, std::size_t bytes) {
  return in_device_heap(r, p, bytes) && r.moves_device_memory();
}

namespace detail {

#if SYMMETRA_DEVICE_PASS
// The transport's name for this PE's symmetric `p`: on the GPU every symmetric address is in
// the device heap, whose offsets start at kDeviceHeapOffset.
SYMMETRA_INLINE std::uint64_t device_offset(const Context& ctx, const void* p) {
  return kDeviceHeapOffset +
         static_cast<std::uint64_t>(static_cast<const std::byte*>(p) - ctx.heap_base);
}

// Ends the kernel: a wait on the proxy failed (docs/proxy.md, "Producers").
__device__ __noinline__ inline void proxy_failed(int my_pe, std::uint64_t timeout_ns,
                                                 const char* op, ProxyWait w, std::uint64_t end,
                                                 std::uint64_t done) {
  if (w == ProxyWait::kStopped)
    printf(
        "[pe %d] %s: the proxy thread has stopped (the runtime was finalized, or its transport "
        "failed: the proxy printed why)\n",
        my_pe, op);
  else
    printf(
        "[pe %d] %s: the proxy thread took no request for %llu s: it has done the ring up to "
        "position %llu, and this request ends at %llu (a stalled proxy; SYMMETRA_TIMEOUT_S sets "
        "the bound)\n",
        my_pe, op, static_cast<unsigned long long>(timeout_ns / 1000000000ull),
        static_cast<unsigned long long>(done), static_cast<unsigned long long>(end));
  __trap();
}

// proxy_call's body, out of line: one copy per kernel, and the local branch's callers keep
// their registers. It takes the ring and the Context's two words it needs by value, never the
// Context: a kernel's parameters have no address, so a Context passed by reference to a function
// that is not inlined made every kernel containing the call copy all of its Context to the stack
// (ptxas: a stack frame of 344 bytes, 176 since, against 48 without the branch), a cost the
// local branch paid as well.
__device__ __noinline__ inline std::uint64_t proxy_call_out(ProxyRing ring, int my_pe,
                                                            std::uint64_t timeout_ns,
                                                            const char* op, ProxyRequest r,
                                                            bool wait, int result_field) {
  std::uint64_t pos = 0, done = 0;
  ProxyWait w = proxy_reserve(ring, r.n, timeout_ns, &pos, &done);
  if (w != ProxyWait::kOk) proxy_failed(my_pe, timeout_ns, op, w, pos + r.n, done);
  if (result_field >= 0) r.e[result_field] = address_bits(proxy_result_word(ring, pos));
  proxy_write(ring, pos, r.e, r.n);
  if (result_field >= 0) {  // the slot stays this request's until its result is taken
    std::uint64_t v = 0;
    w = proxy_take_result(ring, pos, timeout_ns, &v, &done);
    if (w != ProxyWait::kOk) proxy_failed(my_pe, timeout_ns, op, w, pos + r.n, done);
    return v;
  }
  if (!wait) return 0;
  w = proxy_wait_done(ring, pos + r.n, timeout_ns, &done);
  if (w != ProxyWait::kOk) proxy_failed(my_pe, timeout_ns, op, w, pos + r.n, done);
  return 0;
}

// One thread's copy of a put's source into its request's outbox (over PCIe, where the outbox
// is), several 16-byte loads in flight before their stores where both ends allow. Under -rdc
// each function a kernel calls out of line gets registers of its own and the kernel gets the
// most of any (docs/nvshmem.md, "Registers under -rdc"): group_copy's four vectors and its
// unrolling took proxy_post_outboxed past the 64 registers a thread that a block of 1024
// threads has, and such kernels that could reach another host failed to launch. So there the
// copy is a function of its own with two vectors in flight (four are too many still), and a
// whole-program build, where ptxas allocates over the calls, keeps four.
#if defined(__CUDACC_RDC__)
inline constexpr int kOutboxInFlight = 2;
#else
inline constexpr int kOutboxInFlight = 4;
#endif
__device__ __noinline__ inline void outbox_copy(std::byte* box, const void* src,
                                                std::uint64_t bytes) {
  const auto* s = static_cast<const std::byte*>(src);
  std::uint64_t done = 0;
  if (((reinterpret_cast<std::uintptr_t>(s) | reinterpret_cast<std::uintptr_t>(box)) & 15) == 0) {
    const auto* sv = reinterpret_cast<const int4*>(s);
    auto* dv = reinterpret_cast<int4*>(box);
    const std::uint64_t vecs = bytes / 16;
    std::uint64_t i = 0;
#pragma unroll 1
    for (; i + kOutboxInFlight <= vecs; i += kOutboxInFlight) {
      int4 v[kOutboxInFlight];
#pragma unroll
      for (int k = 0; k < kOutboxInFlight; ++k) v[k] = sv[i + k];
#pragma unroll
      for (int k = 0; k < kOutboxInFlight; ++k) dv[i + k] = v[k];
    }
#pragma unroll 1
    for (; i < vecs; ++i) dv[i] = sv[i];
    done = vecs * 16;
  }
#pragma unroll 1
  for (std::uint64_t i = done; i < bytes; ++i) box[i] = s[i];
}

// Posts `r`, a put or put_signal whose source (field 2) is `src`, with the source's `bytes`
// copied into the request's outbox (proxy_outbox): the proxy reads them there, so nothing is
// staged and this thread does not wait. The caller checked that they fit.
__device__ __noinline__ inline void proxy_post_outboxed(ProxyRing ring, int my_pe,
                                                        std::uint64_t timeout_ns, const char* op,
                                                        ProxyRequest r, const void* src,
                                                        std::uint64_t bytes) {
  std::uint64_t pos = 0, done = 0;
  const ProxyWait w = proxy_reserve(ring, r.n, timeout_ns, &pos, &done);
  if (w != ProxyWait::kOk) proxy_failed(my_pe, timeout_ns, op, w, pos + r.n, done);
  std::byte* box = proxy_outbox(ring, pos);
  outbox_copy(box, src, bytes);
  r.e[2] = address_bits(box);
  proxy_write(ring, pos, r.e, r.n);  // released: the proxy that reads it sees the bytes
}

// Whether a request of `op` can carry `bytes` of source in its outbox.
SYMMETRA_INLINE bool fits_outbox(const Context& ctx, ProxyOp op, std::size_t bytes) {
  return ctx.proxy.outbox != nullptr && bytes <= proxy_entries(op) * kProxyOutboxBytes;
}

// Posts `r` on the ring from this one thread; with `wait`, returns once the proxy has done it.
// result_field >= 0: the request fetches (it waits), and that field gets the address of the
// request's result word (ProxyRing::results), whose value is returned.
SYMMETRA_INLINE std::uint64_t proxy_call(const Context& ctx, const char* op, ProxyRequest r,
                                         bool wait, int result_field) {
  return proxy_call_out(ctx.proxy, ctx.my_pe, ctx.timeout_ns, op, r, wait, result_field);
}

// One thread's remote operations through the ring. A put of a word's size or less carries its
// bytes in the request, and one of up to 1 KiB in the request's outbox, so neither waits for the
// proxy, which then stages nothing; a get of up to 8 bytes lands in the request's result word,
// so its destination may be any memory this thread writes (g's local variable). Larger sources
// and destinations are global memory (device or pinned host), which the proxy stages
// (docs/proxy.md, "Staging").
__device__ inline void device_put(const Context& ctx, const char* op, void* dest, const void* src,
                                  std::size_t bytes, int pe) {
  if (bytes <= 8 && (bytes & (bytes - 1)) == 0) {
    std::uint64_t v = 0;
    memcpy(&v, src, bytes);
    (void)proxy_call(
        ctx, op, proxy_put_inline(pe, device_offset(ctx, dest), v, static_cast<unsigned>(bytes)),
        false, -1);
    return;
  }
  if (fits_outbox(ctx, ProxyOp::kPut, bytes)) {
    proxy_post_outboxed(ctx.proxy, ctx.my_pe, ctx.timeout_ns, op,
                        proxy_put(pe, device_offset(ctx, dest), nullptr, bytes, false), src, bytes);
    return;
  }
  (void)proxy_call(ctx, op, proxy_put(pe, device_offset(ctx, dest), src, bytes, true), true, -1);
}
__device__ inline void device_get(const Context& ctx, const char* op, void* dest, const void* src,
                                  std::size_t bytes, int pe) {
  if (bytes <= 8) {
    const std::uint64_t v =
        proxy_call(ctx, op, proxy_get(pe, nullptr, device_offset(ctx, src), bytes, true), true, 1);
    memcpy(dest, &v, bytes);
    return;
  }
  (void)proxy_call(ctx, op, proxy_get(pe, dest, device_offset(ctx, src), bytes, true), true, -1);
}
#else
// The remote path of `ctx`, for an operation on PE `pe` that is not reachable.
inline RemotePath& host_remote(const Context& ctx, const char* op, int pe) {
  if (ctx.remote == nullptr)
    host_fatalf(ctx, op, "PE %d is on another host and no remote transport is available", pe);
  return *ctx.remote;
}

// The calls into the remote path, out of line and cold. Inlined, the remote branch made its
// callers too large for the compiler to inline them in turn: the host's 8-byte fetch_add took
// 1.5x as long, with no remote PE in the job (docs/transports.md, "The seam's cost").
#define SYMMETRA_COLD __attribute__((noinline, cold))
SYMMETRA_COLD inline void remote_put_bytes(const Context& ctx, const char* op, void* dest,
                                           const void* src, std::size_t bytes, int pe) {
  host_remote(ctx, op, pe).put(ctx, pe, remote_offset(ctx, dest), src, bytes);
}
SYMMETRA_COLD inline void remote_get_bytes(const Context& ctx, const char* op, void* dest,
                                           const void* src, std::size_t bytes, int pe) {
  host_remote(ctx, op, pe).get(ctx, pe, dest, remote_offset(ctx, src), bytes);
}
SYMMETRA_COLD inline void remote_get_nbi_bytes(const Context& ctx, const char* op, void* dest,
                                               const void* src, std::size_t bytes, int pe) {
  host_remote(ctx, op, pe).get_nbi(ctx, pe, dest, remote_offset(ctx, src), bytes);
}
SYMMETRA_COLD inline void remote_put_signal_bytes(const Context& ctx, void* dest, const void* src,
                                                  std::size_t bytes, std::uint64_t* sig,
                                                  std::uint64_t value, SignalOp sop, int pe) {
  host_remote(ctx, "put_signal", pe)
      .put_signal(ctx, pe, remote_offset(ctx, dest), src, bytes, remote_offset(ctx, sig), value,
                  sop);
}
SYMMETRA_COLD inline void remote_signal_bytes(const Context& ctx, const char* op, std::uint64_t* w,
                                              std::uint64_t value, SignalOp sop, bool awaited,
                                              int pe) {
  RemotePath& r = host_remote(ctx, op, pe);
  const std::uint64_t at = remote_offset(ctx, w);
  if (awaited) return r.sync_signal(ctx, pe, at, value, sop);
  r.put_signal(ctx, pe, at, nullptr, 0, at, value, sop);
}
SYMMETRA_COLD inline std::uint64_t remote_amo_bits(const Context& ctx, const char* op, AmoOp a,
                                                   DataType type, void* dest, std::uint64_t value,
                                                   std::uint64_t cond, int pe) {
  return host_remote(ctx, op, pe).atomic(ctx, pe, remote_offset(ctx, dest), a, type, value, cond);
}
#undef SYMMETRA_COLD
#endif

// Whether an operation on PE `pe` takes the remote branch. In device code only in kernels
// compiled with SYMMETRA_DEVICE_REMOTE=1, and there only where the job has a proxy ring (PEs on
// other hosts). Without it the branch is not compiled at all: its mere presence, never taken,
// slowed a small get in jobs that never leave the host (docs/proxy.md, "The branch's cost").
SYMMETRA_INLINE bool is_remote(const Context& ctx, int pe) {
#if SYMMETRA_DEVICE_PASS && !SYMMETRA_DEVICE_REMOTE
  (void)ctx, (void)pe;
  return false;
#elif SYMMETRA_DEVICE_PASS
  return ctx.proxy.slots != nullptr && !ctx.reachable(pe);
#else
  return !ctx.reachable(pe);
#endif
}

// Runs `fn` on thread 0 of `g` between two syncs of the group: how a group hands one remote
// operation to the transport, which takes one caller per operation.
template <class Group, class Fn>
SYMMETRA_INLINE void on_thread0(Group g, Fn&& fn) {
  g.sync();
  if (g.thread_rank() == 0) fn();
  g.sync();
}

template <class Group>
SYMMETRA_INLINE void remote_put(Group g, const Context& ctx, const char* op, void* dest,
                                const void* src, std::size_t bytes, int pe) {
#if SYMMETRA_DEVICE_PASS
  on_thread0(g, [&] { device_put(ctx, op, dest, src, bytes, pe); });
#else
  on_thread0(g, [&] { remote_put_bytes(ctx, op, dest, src, bytes, pe); });
#endif
}

template <class Group>
SYMMETRA_INLINE void remote_get(Group g, const Context& ctx, const char* op, void* dest,
                                const void* src, std::size_t bytes, int pe) {
#if SYMMETRA_DEVICE_PASS
  on_thread0(g, [&] { device_get(ctx, op, dest, src, bytes, pe); });
#else
  on_thread0(g, [&] { remote_get_bytes(ctx, op, dest, src, bytes, pe); });
#endif
}

template <class Group>
SYMMETRA_INLINE void remote_get_nbi(Group g, const Context& ctx, const char* op, void* dest,
                                    const void* src, std::size_t bytes, int pe) {
#if SYMMETRA_DEVICE_PASS
  // Complete on return, which a get_nbi may be.
  on_thread0(g, [&] { device_get(ctx, op, dest, src, bytes, pe); });
#else
  on_thread0(g, [&] { remote_get_nbi_bytes(ctx, op, dest, src, bytes, pe); });
#endif
}

template <class Group>
SYMMETRA_INLINE void remote_put_signal(Group g, const Context& ctx, void* dest, const void* src,
                                       std::size_t bytes, std::uint64_t* sig, std::uint64_t value,
                                       SignalOp sop, int pe) {
#if SYMMETRA_DEVICE_PASS
  // From the outbox, or waited for: the source may be reused on return.
  on_thread0(g, [&] {
    if (fits_outbox(ctx, ProxyOp::kPutSignal, bytes)) {
      proxy_post_outboxed(
          ctx.proxy, ctx.my_pe, ctx.timeout_ns, "put_signal",
          proxy_put_signal(pe, device_offset(ctx, dest), nullptr, bytes, device_offset(ctx, sig),
                           value, static_cast<unsigned>(sop), false),
          src, bytes);
      return;
    }
    (void)proxy_call(
        ctx, "put_signal",
        proxy_put_signal(pe, device_offset(ctx, dest), src, bytes, device_offset(ctx, sig), value,
                         static_cast<unsigned>(sop), true),
        true, -1);
  });
#else
  on_thread0(g, [&] { remote_put_signal_bytes(ctx, dest, src, bytes, sig, value, sop, pe); });
#endif
}

// `a` on PE pe's word `dest`; returns the old value (T{} where the op has none).
template <class T>
SYMMETRA_INLINE T remote_amo(const Context& ctx, const char* op, AmoOp a, T* dest, T value, T cond,
                             int pe) {
  std::uint64_t v = 0, c = 0;
  memcpy(&v, &value, sizeof(T));
  memcpy(&c, &cond, sizeof(T));
#if SYMMETRA_DEVICE_PASS
  // Any non-null result address asks for the old value; proxy_call puts the real one in.
  constexpr auto kType = static_cast<unsigned>(kDataTypeOf<T>);
  const std::uint64_t old =
      proxy_call(ctx, op,
                 proxy_amo(pe, device_offset(ctx, dest), static_cast<unsigned>(a), kType, v, c,
                           ctx.proxy.results),
                 true, 6);
  T r;
  memcpy(&r, &old, sizeof(T));
  return r;
#else
  const std::uint64_t old = remote_amo_bits(ctx, op, a, data_type_of<T>(), dest, v, c, pe);
  T r;
  std::memcpy(&r, &old, sizeof(T));
  return r;
#endif
}

// Sets (kSet) or adds to (kAdd) PE pe's word `w` where nothing needs the old value: a signal
// with no data, one message that the target applies after this PE's earlier puts to it (they
// travel in order: the transports, and the proxy's ring before them). On the GPU, posted and
// not waited for. `awaited`: the library's own synchronization, whose target waits for this
// word in the same operation; quiet need not complete it (RemotePath::sync_signal). Else
// complete by the next quiet. An atomic would wait for the target's answer: across hosts over
// TCP the target serves it, a round trip (and on a GPU heap a kernel of the target's) per sync
// round or credit (docs/transports.md, "Signals, not atomics").
SYMMETRA_INLINE void remote_signal(const Context& ctx, const char* op, std::uint64_t* w,
                                   std::uint64_t value, SignalOp sop, bool awaited, int pe) {
#if SYMMETRA_DEVICE_PASS
  const std::uint64_t at = device_offset(ctx, w);
  const unsigned s = static_cast<unsigned>(sop);
  (void)proxy_call(ctx, op,
                   awaited ? proxy_sync_signal(pe, at, value, s)
                           : proxy_put_signal(pe, at, nullptr, 0, at, value, s, false),
                   false, -1);
#else
  remote_signal_bytes(ctx, op, w, value, sop, awaited, pe);
#endif
}

// Sets PE pe's copy of this PE's symmetric word `w` to `value` (a release) and wakes a sleeper
// on it: the synchronization words of sync, channels and credits, on either branch.
SYMMETRA_INLINE void set_word(const Context& ctx, std::uint64_t* w, std::uint64_t value, int pe) {
  if (!is_remote(ctx, pe)) {
    atomic_store(ctx.peer(w, pe), value, kRelease);
    notify(ctx, pe, w, sizeof(*w));
  } else {
    remote_signal(ctx, "sync", w, value, SignalOp::kSet, true, pe);
  }
}

// Adds `value` to PE pe's copy of `w` with `order`, and wakes a sleeper on it.
SYMMETRA_INLINE void add_word(const Context& ctx, std::uint64_t* w, std::uint64_t value, int pe,
                              symmetra::detail::MemoryOrder order) {
  if (!is_remote(ctx, pe)) {
    AtomicRef<std::uint64_t>(*ctx.peer(w, pe)).fetch_add(value, order);
    notify(ctx, pe, w, sizeof(*w));
  } else {
    remote_signal(ctx, "signal", w, value, SignalOp::kAdd, true, pe);
  }
}

}  // namespace detail
}  // namespace symmetra::device
