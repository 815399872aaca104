// The bounded wait and the wake-up that pairs with it: the only loop that waits in the device API.
//
// CPU: a waiter registers in its heap header, re-checks, and parks (spin, yield, futex); a writer
// that stored into a PE's memory calls notify(), which rings that PE's doorbell only when a waiter
// is registered (a seq_cst fence on both sides makes this race-free, Dekker-style).
// GPU: spin with growing __nanosleep, bounded by %globaltimer, then print and trap.
#pragma once

#include <cstdint>

#include "symmetra/core/atomic.hpp"
#include "symmetra/core/cpu_relax.hpp"
#include "symmetra/core/platform.hpp"
#include "symmetra/device/context.hpp"
#include "symmetra/device/impl/check.hpp"
#include "symmetra/device/impl/heap_header.hpp"
#include "symmetra/device/impl/host_hooks.hpp"
#include "symmetra/types.hpp"

namespace symmetra::device::detail {

template <class T>
SYMMETRA_INLINE bool compare(T a, Cmp cmp, T b) {
  switch (cmp) {
    case Cmp::kEq:
      return a == b;
    case Cmp::kNe:
      return a != b;
    case Cmp::kGt:
      return a > b;
    case Cmp::kGe:
      return a >= b;
    case Cmp::kLt:
      return a < b;
    case Cmp::kLe:
      return a <= b;
  }
  return false;
}

#if !SYMMETRA_DEVICE_PASS
// Rings the doorbell of the PE owning `h` if a sleeper there watches any of the heap offsets
// [lo, hi). Call after a seq_cst fence that follows the stores (Dekker with the waiter's
// registration): notify() for each store, quiet() for put_nbi's (host_wake_nbi_targets).
inline void ring_if_watched(HeapHeader* h, std::uint64_t lo, std::uint64_t hi) {
  if (atomic_load(&h->waiters, kRelaxed) == 0) return;
  if (lo < atomic_load(&h->watch_hi, kRelaxed) && hi > atomic_load(&h->watch_lo, kRelaxed))
    host_wake(h);
}
#endif

// Tells PE `pe` that `bytes` at symmetric `addr` changed. Call after the store it may wait on.
SYMMETRA_INLINE void notify(const Context& ctx, int pe, const void* addr, std::size_t bytes) {
#if SYMMETRA_DEVICE_PASS
  (void)ctx;
  (void)pe;  // GPU waiters poll; nothing to ring.
  (void)addr;
  (void)bytes;
#else
  HeapHeader* h = peer_header(ctx, pe);
  fence_seq_cst();
  const auto off = static_cast<std::uint64_t>(static_cast<const std::byte*>(addr) - ctx.heap_base);
  ring_if_watched(h, off, off + bytes);
#endif
}

#if !SYMMETRA_DEVICE_PASS
// putmem_nbi's part of the wake-up: remembers what it stored where, for quiet() to announce
// (host_wake_nbi_targets). No fence and no load of the peer's header here: an 8-byte put_nbi
// costs about 11 ns, and a fence as much again.
inline void note_nbi(const Context& ctx, int pe, const void* addr, std::size_t bytes) {
  const auto lo = static_cast<std::uint64_t>(static_cast<const std::byte*>(addr) - ctx.heap_base);
  const std::uint64_t hi = lo + bytes;
  NbiTargets& t = nbi_targets;
  for (int i = 0; i < t.n && !t.all; ++i) {
    if (t.pe[i] == pe) {
      if (lo < t.lo[i]) t.lo[i] = lo;
      if (hi > t.hi[i]) t.hi[i] = hi;
      return;
    }
  }
  if (t.n < NbiTargets::kPes) {
    t.pe[t.n] = pe;
    t.lo[t.n] = lo;
    t.hi[t.n] = hi;
    ++t.n;
    return;
  }
  // More PEs than slots: slot 0 keeps the union of every range, for all PEs.
  if (!t.all) {
    t.all = true;
    for (int i = 1; i < t.n; ++i) {
      if (t.lo[i] < t.lo[0]) t.lo[0] = t.lo[i];
      if (t.hi[i] > t.hi[0]) t.hi[0] = t.hi[i];
    }
  }
  if (lo < t.lo[0]) t.lo[0] = lo;
  if (hi > t.hi[0]) t.hi[0] = hi;
}
#endif

#if SYMMETRA_DEVICE_PASS
__device__ __forceinline__ std::uint64_t global_ns() {
  std::uint64_t t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}
#endif

#if SYMMETRA_DEVICE_PASS
// Appended to a GPU timeout when another PE shares this GPU: the usual causes there are a peer's
// host thread blocked in a call that waits for the whole device, and a peer's kernel queued
// behind waiting work of another stream in a shared hardware queue; either way it never comes.
__device__ __noinline__ inline void print_shared_gpu_hint(const Context& ctx) {
  if (ctx.flags & Context::kSharedGpu)
    printf(
        "[pe %d] hint: PEs share this GPU; a PE whose host thread is in cudaDeviceSynchronize, "
        "cudaFree, cudaFreeHost, cudaHostUnregister or a lazily loaded kernel's first launch, "
        "or whose stream shares a hardware queue with a waiting stream (stream-ordered signal "
        "waits; graphs not launched by Runtime::launch_graph), never runs its kernel "
        "(docs/gpu_backend.md)\n",
        ctx.my_pe);
}

// The PE whose failure or departure the host marked in this PE's control header (Context::
// host_header, mapped host memory), plus one; 0 while the job runs. A system-scope read across
// the bus: backing-off waits only.
__device__ __forceinline__ int aborted_by(const Context& ctx) {
  if (ctx.host_header == nullptr) return 0;
  const auto* h = static_cast<const HeapHeader*>(ctx.host_header);
  const int failed = *reinterpret_cast<const volatile std::int32_t*>(&h->abort_pe);
  return failed != 0 && failed - 1 != ctx.my_pe ? failed : 0;
}

// The cold end of a GPU wait that another PE's failure stopped.
__device__ __noinline__ inline void report_abort(const Context& ctx, const char* op, int failed) {
  const auto* h = static_cast<const HeapHeader*>(ctx.host_header);
  const auto why =
      static_cast<AbortWhy>(*reinterpret_cast<const volatile std::uint32_t*>(&h->abort_why));
  if (failed - 1 < ctx.n_pes) {
    printf("[pe %d] %s: stopping: PE %d %s\n", ctx.my_pe, op, failed - 1, abort_text(why));
  } else {
    printf("[pe %d] %s: stopping: the job's launcher (its rendezvous) is gone\n", ctx.my_pe, op);
  }
  __trap();
}

// The cold end of a GPU wait, out of line so that the waiting loop stays small: describe the
// condition, print, trap.
template <class Describe>
__device__ __noinline__ void report_timeout(const Context& ctx, const char* op, Describe describe) {
  char what[160];
  describe(what, sizeof(what));
  printf("[pe %d] %s: timed out after %llu ms waiting for %s\n", ctx.my_pe, op,
         static_cast<unsigned long long>(ctx.timeout_ns / 1000000), what);
  print_shared_gpu_hint(ctx);
  __trap();
}

// GPU: waits until pred() holds, with no ordering added. Spins first: a waiting GPU thread costs
// little, and a sleep of even 32 ns adds its whole length to a round trip of about 1.5 us; backs
// off only for waits that last, bounded through %globaltimer.
template <class Pred, class Describe>
__device__ __forceinline__ void wait_relaxed(const Context& ctx, const char* op, Pred&& pred,
                                             Describe&& describe) {
  constexpr int kSpins = 4096;
  for (int i = 0; i < kSpins; ++i)
    if (pred()) return;
  const std::uint64_t start = global_ns();
  unsigned sleep_ns = 32;
  while (!pred()) {
    __nanosleep(sleep_ns);
    if (sleep_ns < 1024) sleep_ns *= 2;
    if (global_ns() - start > ctx.timeout_ns) report_timeout(ctx, op, describe);
    if (const int failed = aborted_by(ctx)) report_abort(ctx, op, failed);
  }
}
#endif

// Waits until pred() holds; pred() reads the words in [lo, hi) with poll_load. `describe(buf, n)`
// words the condition for the timeout message ("0x... >= 5, seen 3").
// Threads: the calling thread. Ordering: acquire once pred() holds.
template <class Pred, class Describe>
SYMMETRA_INLINE void wait_for(const Context& ctx, const char* op, const void* lo, const void* hi,
                              Pred&& pred, Describe&& describe) {
#if SYMMETRA_DEVICE_PASS
  (void)lo;
  (void)hi;
  wait_relaxed(ctx, op, pred, describe);
  acquire_after_poll();
#else
  if (pred()) return;
  // The spin steps inline: most waits of a collective between PEs on cores of their own end
  // here, without the waiter's clock read and out-of-line steps (docs/perf_cpu.md#waits).
  const std::uint32_t spins = host_spin_steps(ctx);
  for (std::uint32_t i = 0; i < spins; ++i) {
    symmetra::detail::cpu_relax();
    if (pred()) return;
  }
  HostWaiter waiter(ctx, lo, hi, op);
  for (;;) {
    const std::uint32_t bell = waiter.doorbell();
    if (pred()) return;
    if (!waiter.park(bell)) {
      char what[320];
      describe(what, sizeof(what));
      host_timeoutf(ctx, op,
                    "timed out after %llu s waiting for %s (SYMMETRA_TIMEOUT_S sets the bound)",
                    static_cast<unsigned long long>(ctx.timeout_ns / 1000000000ull), what);
    }
  }
#endif
}

// Formats "<addr> <cmp> <value>, seen <seen>" for integers and floating point alike.
template <class T>
SYMMETRA_INLINE void describe_cmp(char* buf, unsigned n, const void* addr, Cmp cmp, T value,
                                  T seen) {
  const char* ops[] = {"==", "!=", ">", ">=", "<", "<="};
  // snprintf exists on the host only; the device branch prints the numbers as integers.
#if SYMMETRA_DEVICE_PASS
  (void)n;
  buf[0] = 0;
  printf("%p %s %lld, seen %lld: ", addr, ops[static_cast<int>(cmp)], static_cast<long long>(value),
         static_cast<long long>(seen));
#else
  snprintf(buf, n, "%p %s %lld, seen %lld", addr, ops[static_cast<int>(cmp)],
           static_cast<long long>(value), static_cast<long long>(seen));
#endif
}

#if SYMMETRA_DEVICE_PASS
// The cold end of a one-word GPU wait; takes values, so the waiting loop keeps them in registers.
template <class T>
__device__ __noinline__ void report_value_timeout(const Context& ctx, const char* op, const T* ivar,
                                                  Cmp cmp, T value, T seen) {
  char what[1] = {0};
  describe_cmp(what, sizeof(what), ivar, cmp, value, seen);
  printf("[pe %d] %s: timed out after %llu ms waiting\n", ctx.my_pe, op,
         static_cast<unsigned long long>(ctx.timeout_ns / 1000000));
  print_shared_gpu_hint(ctx);
  __trap();
}
#endif

// What a wait adds to its timeout diagnostic: nothing by default (see team_sync_thread).
struct NoExplain {
  SYMMETRA_INLINE void operator()() const {}
};

// Waits until `*ivar <cmp> value` (ivar in this PE's memory) and returns the value seen. On a
// GPU timeout, explain() prints more before the trap; it must capture plain values only.
template <class T, class Explain = NoExplain>
SYMMETRA_INLINE T wait_value(const Context& ctx, const char* op, const T* ivar, Cmp cmp, T value,
                             Explain explain = {}) {
  T seen{};
#if SYMMETRA_DEVICE_PASS
  // One word, its own loop: plain values only (no lambda capturing them by reference, which
  // made them address-taken locals reloaded after every generic-address poll). Every poll is
  // the acquire load (GPU scope): the load that sees the value is the one that orders what
  // follows, with no second trip to L2 after a relaxed poll (docs/perf_gpu.md#ping-pong).
  constexpr int kSpins = 4096;
  std::uint64_t start = 0;
  unsigned sleep_ns = 32;
  for (int polls = 0;; ++polls) {
    seen = acquire_load_local(ivar);
    if (compare(seen, cmp, value)) return seen;
    if (polls >= kSpins) {
      if (start == 0) start = global_ns();
      __nanosleep(sleep_ns);
      if (sleep_ns < 1024) sleep_ns *= 2;
      if (global_ns() - start > ctx.timeout_ns) {
        explain();
        report_value_timeout(ctx, op, ivar, cmp, value, seen);
      }
      if (const int failed = aborted_by(ctx)) report_abort(ctx, op, failed);
    }
  }
#else
  (void)explain;  // the host's diagnostic names the word and the values
  wait_for(
      ctx, op, ivar, ivar + 1,
      [&] {
        seen = poll_load(ivar);
        return compare(seen, cmp, value);
      },
      [&](char* buf, unsigned n) { describe_cmp(buf, n, ivar, cmp, value, seen); });
  return seen;
#endif
}

}  // namespace symmetra::device::detail
