// The remote branch of the data path (docs/transports.md): where an operation goes when its PE
// is not reachable by load and store (Context::reachable is false).
//
// On the host the device API calls the transport through RemoteOps, which the runtime fills
// from its transport (src/runtime/remote_path.cpp): one indirect call, on the exception path
// only; the local branch stays inline (Sandia OpenSHMEM's rule). Every address handed over is
// this PE's symmetric address; the transport sends its offset, which is the same on the target.
// In device code a remote PE needs the proxy ring (not built yet): the branch ends the kernel
// with a message. Host-initiated operations of GPU PEs reach other hosts through the CUDA
// backend, which stages device memory through pinned host memory into this branch.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "symmetra/core/atomic.hpp"
#include "symmetra/data_type.hpp"
#include "symmetra/device/context.hpp"
#include "symmetra/device/impl/check.hpp"
#include "symmetra/device/impl/wait_core.hpp"
#include "symmetra/types.hpp"

namespace symmetra::device {

// A transport names a remote byte by its offset in that PE's heap slot. Where the data heap is
// device memory (the GPU backend), its slot's offsets start here, above every host heap's,
// which keeps the host heap's own (its header, where host-side syncs run) at theirs.
inline constexpr std::uint64_t kDeviceHeapOffset = std::uint64_t{1} << 62;

// The transport's entry points. Threads: any thread of the PE (the transport serializes what
// it must). Errors end the job with "[pe N] op: what", as every data-path call does.
struct RemoteOps {
  // Complete locally on return (src may be reused); at the target by the next quiet. Each
  // naturally aligned 8-byte word of dest arrives whole, so LL packets stay valid.
  void (*put)(const Context& ctx, void* dest, const void* src, std::size_t bytes, int pe);
  // Complete on return; get_nbi by the next quiet.
  void (*get)(const Context& ctx, void* dest, const void* src, std::size_t bytes, int pe);
  void (*get_nbi)(const Context& ctx, void* dest, const void* src, std::size_t bytes, int pe);
  // `op` on PE pe's word at `dest`, of `type`; value, cond and the old value travel as the
  // word's bits in their low bytes. Complete on return.
  std::uint64_t (*amo)(const Context& ctx, AmoOp op, DataType type, void* dest, std::uint64_t value,
                       std::uint64_t cond, int pe);
  // The data, then the signal: a PE that sees the signal sees the data.
  void (*put_signal)(const Context& ctx, void* dest, const void* src, std::size_t bytes,
                     std::uint64_t* sig, std::uint64_t value, SignalOp op, int pe);
  // fence: earlier puts and atomics to each PE arrive before later ones to it. quiet: every
  // earlier operation is complete at its target.
  void (*fence)(const Context& ctx);
  void (*quiet)(const Context& ctx);
  // Serves what peers aimed at this PE where the transport needs its help (UCX over TCP runs
  // RMA as active messages); host waits call it as they poll. Cheap when there is nothing.
  void (*progress)(const Context& ctx);
  // Whether every delivery into this PE passes its progress, which rings a sleeping waiter.
  // False (RDMA, shared memory): a remote write can land unseen, so waits poll instead of
  // sleeping (host_wait.cpp).
  bool deliveries_ring;
  void* transport;  // what they forward to
  // Where the data heap is device memory: its slot in this process, [device_heap,
  // device_heap + device_heap_bytes); addresses there travel as kDeviceHeapOffset + their offset
  // in it (remote_offset). Null on the CPU backend.
  const std::byte* device_heap;
  std::uint64_t device_heap_bytes;
  // World PE -> the name of its host, for messages about a PE of another host ("PE 3 (host
  // 'node1') is gone").
  const char* const* pe_host;
};

// The offset that names this PE's symmetric `p` to a transport (RemoteOps::device_heap says
// which slot). Host code.
inline std::uint64_t remote_offset(const Context& ctx, const void* p) {
  const auto* b = static_cast<const std::byte*>(p);
  const RemoteOps& r = *ctx.remote;
  if (r.device_heap != nullptr && b >= r.device_heap &&
      static_cast<std::uint64_t>(b - r.device_heap) < r.device_heap_bytes)
    return kDeviceHeapOffset + static_cast<std::uint64_t>(b - r.device_heap);
  return ctx.offset_of(p);
}

namespace detail {

#if SYMMETRA_DEVICE_PASS
// Ends the kernel: PE `pe` is on another host (unreachable while is_remote is false in device
// code; kept so that every remote_* form compiles for both targets).
__device__ __noinline__ inline void no_remote(const Context& ctx, const char* op, int pe) {
  printf(
      "[pe %d] %s: PE %d is on another host: GPU-initiated operations to it need the proxy "
      "ring, which this build does not have\n",
      ctx.my_pe, op, pe);
  __trap();
}
#else
// The remote ops of `ctx`, for an operation on PE `pe` that is not reachable.
inline const RemoteOps& host_remote(const Context& ctx, const char* op, int pe) {
  if (ctx.remote == nullptr)
    host_fatalf(ctx, op, "PE %d is on another host and no remote transport is available", pe);
  return *ctx.remote;
}

// The calls into the transport, out of line and cold. Inlined, the remote branch made its
// callers too large for the compiler to inline them in turn: the host's 8-byte fetch_add took
// 1.5x as long, with no remote PE in the job (docs/transports.md, "The seam's cost").
#define SYMMETRA_COLD __attribute__((noinline, cold))
SYMMETRA_COLD inline void remote_put_bytes(const Context& ctx, const char* op, void* dest,
                                           const void* src, std::size_t bytes, int pe) {
  host_remote(ctx, op, pe).put(ctx, dest, src, bytes, pe);
}
SYMMETRA_COLD inline void remote_get_bytes(const Context& ctx, const char* op, void* dest,
                                           const void* src, std::size_t bytes, int pe) {
  host_remote(ctx, op, pe).get(ctx, dest, src, bytes, pe);
}
SYMMETRA_COLD inline void remote_get_nbi_bytes(const Context& ctx, const char* op, void* dest,
                                               const void* src, std::size_t bytes, int pe) {
  host_remote(ctx, op, pe).get_nbi(ctx, dest, src, bytes, pe);
}
SYMMETRA_COLD inline void remote_put_signal_bytes(const Context& ctx, void* dest, const void* src,
                                                  std::size_t bytes, std::uint64_t* sig,
                                                  std::uint64_t value, SignalOp sop, int pe) {
  host_remote(ctx, "put_signal", pe).put_signal(ctx, dest, src, bytes, sig, value, sop, pe);
}
SYMMETRA_COLD inline std::uint64_t remote_amo_bits(const Context& ctx, const char* op, AmoOp a,
                                                   DataType type, void* dest, std::uint64_t value,
                                                   std::uint64_t cond, int pe) {
  return host_remote(ctx, op, pe).amo(ctx, a, type, dest, value, cond, pe);
}
#undef SYMMETRA_COLD
#endif

// Whether an operation on PE `pe` takes the remote branch. In device code never, for now: the
// Runtime refuses GPU PEs on other hosts until the proxy ring exists, and a branch here, even
// untaken, made the H200's 8-byte block get 20% slower (0.46 us to 0.56, bench/gpu_perf.cu's
// get_lat); the ring's branch must be measured against it (docs/transports.md).
SYMMETRA_INLINE bool is_remote(const Context& ctx, int pe) {
#if SYMMETRA_DEVICE_PASS
  (void)ctx, (void)pe;
  return false;
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
  (void)g, (void)dest, (void)src, (void)bytes;
  no_remote(ctx, op, pe);
#else
  on_thread0(g, [&] { remote_put_bytes(ctx, op, dest, src, bytes, pe); });
#endif
}

template <class Group>
SYMMETRA_INLINE void remote_get(Group g, const Context& ctx, const char* op, void* dest,
                                const void* src, std::size_t bytes, int pe) {
#if SYMMETRA_DEVICE_PASS
  (void)g, (void)dest, (void)src, (void)bytes;
  no_remote(ctx, op, pe);
#else
  on_thread0(g, [&] { remote_get_bytes(ctx, op, dest, src, bytes, pe); });
#endif
}

template <class Group>
SYMMETRA_INLINE void remote_get_nbi(Group g, const Context& ctx, const char* op, void* dest,
                                    const void* src, std::size_t bytes, int pe) {
#if SYMMETRA_DEVICE_PASS
  (void)g, (void)dest, (void)src, (void)bytes;
  no_remote(ctx, op, pe);
#else
  on_thread0(g, [&] { remote_get_nbi_bytes(ctx, op, dest, src, bytes, pe); });
#endif
}

template <class Group>
SYMMETRA_INLINE void remote_put_signal(Group g, const Context& ctx, void* dest, const void* src,
                                       std::size_t bytes, std::uint64_t* sig, std::uint64_t value,
                                       SignalOp sop, int pe) {
#if SYMMETRA_DEVICE_PASS
  (void)g, (void)dest, (void)src, (void)bytes, (void)sig, (void)value, (void)sop;
  no_remote(ctx, "put_signal", pe);
#else
  on_thread0(g, [&] { remote_put_signal_bytes(ctx, dest, src, bytes, sig, value, sop, pe); });
#endif
}

// `a` on PE pe's word `dest`; returns the old value (T{} where the op has none).
template <class T>
SYMMETRA_INLINE T remote_amo(const Context& ctx, const char* op, AmoOp a, T* dest, T value, T cond,
                             int pe) {
#if SYMMETRA_DEVICE_PASS
  (void)a, (void)dest, (void)value, (void)cond;
  no_remote(ctx, op, pe);
  return T{};
#else
  std::uint64_t v = 0, c = 0;
  std::memcpy(&v, &value, sizeof(T));
  std::memcpy(&c, &cond, sizeof(T));
  const std::uint64_t old = remote_amo_bits(ctx, op, a, data_type_of<T>(), dest, v, c, pe);
  T r;
  std::memcpy(&r, &old, sizeof(T));
  return r;
#endif
}

// Sets PE pe's copy of this PE's symmetric word `w` to `value` (a release) and wakes a sleeper
// on it: the synchronization words of sync, channels and credits, on either branch.
SYMMETRA_INLINE void set_word(const Context& ctx, std::uint64_t* w, std::uint64_t value, int pe) {
  if (!is_remote(ctx, pe)) {
    atomic_store(ctx.peer(w, pe), value, kRelease);
    notify(ctx, pe, w, sizeof(*w));
  } else {
    (void)remote_amo<std::uint64_t>(ctx, "sync", AmoOp::kSet, w, value, 0, pe);
  }
}

// Adds `value` to PE pe's copy of `w` with `order`, and wakes a sleeper on it.
SYMMETRA_INLINE void add_word(const Context& ctx, std::uint64_t* w, std::uint64_t value, int pe,
                              symmetra::detail::MemoryOrder order) {
  if (!is_remote(ctx, pe)) {
    AtomicRef<std::uint64_t>(*ctx.peer(w, pe)).fetch_add(value, order);
    notify(ctx, pe, w, sizeof(*w));
  } else {
    (void)remote_amo<std::uint64_t>(ctx, "signal", AmoOp::kFetchAdd, w, value, 0, pe);
  }
}

}  // namespace detail
}  // namespace symmetra::device
