// Argument checks of the data path (docs/design.md §4): on when Context::kCheckArgs is set (debug
// builds and SYMMETRA_CHECK=1). A failed check prints "[pe N] op: what was wrong" and ends the job:
// on the CPU through host_fatal, on the GPU by printf and trap.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>

#include "symmetra/core/platform.hpp"
#include "symmetra/device/context.hpp"
#include "symmetra/device/impl/host_hooks.hpp"

#if SYMMETRA_DEVICE_PASS
#define SYMMETRA_FATAL(ctx, op, fmt, ...)                              \
  do {                                                                 \
    printf("[pe %d] %s: " fmt "\n", (ctx).my_pe, (op), ##__VA_ARGS__); \
    __trap();                                                          \
  } while (0)
#else
#define SYMMETRA_FATAL(ctx, op, fmt, ...) \
  ::symmetra::device::detail::host_fatalf((ctx), (op), fmt, ##__VA_ARGS__)
#endif

namespace symmetra::device::detail {

SYMMETRA_INLINE bool checks_on(const Context& ctx) {
  return (ctx.flags & Context::kCheckArgs) != 0;
}

SYMMETRA_INLINE void check_pe(const Context& ctx, const char* op, int pe) {
  if (pe < 0 || pe >= ctx.n_pes)
    SYMMETRA_FATAL(ctx, op, "PE %d is out of range [0, %d)", pe, ctx.n_pes);
#if SYMMETRA_DEVICE_PASS
    // The CUDA backend turns these checks on for every kernel of a job with PEs on other hosts,
    // so that none computes an address in an unmapped slot: kernels reach such PEs only through
    // the proxy ring, which their remote branch (SYMMETRA_DEVICE_REMOTE=1) posts to.
#if SYMMETRA_DEVICE_REMOTE
  if (ctx.proxy.slots == nullptr && !ctx.reachable(pe))
    SYMMETRA_FATAL(ctx, op, "PE %d is on another host and this PE has no proxy ring to reach it",
                   pe);
#else
  if (!ctx.reachable(pe))
    SYMMETRA_FATAL(ctx, op,
                   "PE %d is on another host: kernels reach other hosts only when compiled with "
                   "SYMMETRA_DEVICE_REMOTE=1 (docs/proxy.md)",
                   pe);
#endif
#else
  if (ctx.remote == nullptr && !ctx.reachable(pe))
    SYMMETRA_FATAL(ctx, op, "PE %d is on another host and no remote transport is available", pe);
#endif
}

// A kernel's collective or sync over team descriptor `t` (checks on; the CUDA backend turns
// them on where the job spans hosts). Members on other hosts are reached through the proxy ring,
// by kernels compiled with SYMMETRA_DEVICE_REMOTE=1 (the library's own stream forms and
// collectives are); other kernels stop with a message instead of computing an address in an
// unmapped slot. Host code reaches them through the remote branch.
SYMMETRA_INLINE void check_team_local(const Context& ctx, const char* op, const TeamDesc& t) {
#if SYMMETRA_DEVICE_PASS && SYMMETRA_DEVICE_REMOTE
  if (t.local != t.size && ctx.proxy.slots == nullptr)
    SYMMETRA_FATAL(ctx, op,
                   "the team has PEs on other hosts and this PE has no proxy ring to reach them");
#elif SYMMETRA_DEVICE_PASS
  if (t.local != t.size)
    SYMMETRA_FATAL(ctx, op,
                   "the team has PEs on other hosts: syncs and collectives inside kernels reach "
                   "them only when compiled with SYMMETRA_DEVICE_REMOTE=1 (docs/proxy.md); the "
                   "host and stream forms cross hosts");
#else
  (void)ctx, (void)op, (void)t;
#endif
}

// `p .. p + bytes` must lie inside this PE's symmetric heap.
SYMMETRA_INLINE void check_symmetric(const Context& ctx, const char* op, const void* p,
                                     std::size_t bytes) {
  auto a = reinterpret_cast<std::uintptr_t>(p);
  auto lo = reinterpret_cast<std::uintptr_t>(ctx.heap_base);
  auto hi = lo + ctx.heap_extent();
  if (ctx.in_static(p)) {  // symmetric static data: checked against its own extent
    lo = ctx.static_lo;
    hi = lo + ctx.static_bytes;
  }
  if (a < lo || a >= hi)
    SYMMETRA_FATAL(ctx, op, "address %p is not in the symmetric heap [%p, %p)%s", p,
                   reinterpret_cast<void*>(lo), reinterpret_cast<void*>(hi),
                   ctx.static_bytes ? ""
                   : (ctx.flags & Context::kDeviceHeap) != 0
                       ? " (on the GPU backend only the heap is symmetric, in device memory: "
                         "global and static variables are not)"
                       : " (static data is symmetric only for OpenSHMEM programs of processes)");
  if (bytes > hi - a)
    SYMMETRA_FATAL(ctx, op, "range %p + %llu bytes runs past the end of the symmetric heap at %p",
                   p, static_cast<unsigned long long>(bytes), reinterpret_cast<void*>(hi));
}

SYMMETRA_INLINE void check_aligned(const Context& ctx, const char* op, const void* p,
                                   std::size_t align) {
  if (reinterpret_cast<std::uintptr_t>(p) % align != 0)
    SYMMETRA_FATAL(ctx, op, "address %p is not aligned to %llu bytes", p,
                   static_cast<unsigned long long>(align));
}

// The check of a one-sided access to `pe`'s copy of a symmetric range, always: the host forms
// (Runtime, the GPU backend's host and stream forms) make it in every build.
SYMMETRA_INLINE void check_access(const Context& ctx, const char* op, const void* sym,
                                  std::size_t bytes, int pe) {
  check_pe(ctx, op, pe);
  check_symmetric(ctx, op, sym, bytes);
}

// The same for the device forms: only where checks are on (debug builds, SYMMETRA_CHECK=1).
SYMMETRA_INLINE void check_remote(const Context& ctx, const char* op, const void* sym,
                                  std::size_t bytes, int pe) {
  if (checks_on(ctx)) check_access(ctx, op, sym, bytes, pe);
}

}  // namespace symmetra::device::detail
