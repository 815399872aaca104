// Out-of-line host functions that the device-API templates call in their CPU branch.
//
// They live in the library (src/core/host_wait.cpp) because they make system calls (futex,
// sched_yield) or end the job. Device passes never reference them.
#pragma once

#include <cstdint>

#include "symmetra/device/context.hpp"

namespace symmetra::device::detail {

struct HeapHeader;

// Prints "[pe N] op: msg", marks the job as failed in every reachable heap so that the other PEs
// stop waiting, and aborts the process. Threads: any.
[[noreturn]] void host_fatal(const Context& ctx, const char* op, const char* msg);

// printf-style front end of host_fatal.
[[noreturn]] void host_fatalf(const Context& ctx, const char* op, const char* fmt, ...)
    __attribute__((format(printf, 3, 4)));

// A host wait's timeout: prints "[pe N] op: msg" (and the threads of this process that are
// blocked) to stderr, marks the job failed by this PE (AbortWhy::kTimedOut) in every reachable
// heap, so that the other PEs stop, and throws symmetra::Timeout with the same message. Threads:
// any; the library's own threads catch it (the proxy reports it to its producers).
[[noreturn]] void host_timeout(const Context& ctx, const char* op, const char* msg);
[[noreturn]] void host_timeoutf(const Context& ctx, const char* op, const char* fmt, ...)
    __attribute__((format(printf, 3, 4)));

// Marks every reachable heap so that waiting PEs stop: PE `failed_pe` failed (or left, ...:
// `why` is an AbortWhy). The first mark of a heap stays. Threads: any.
void host_mark_abort(const Context& ctx, int failed_pe, std::uint32_t why = 0);
// Marks one heap header the same way (the bootstrap's watch of a process marks its own).
void host_mark_header(HeapHeader* h, int failed_pe, std::uint32_t why);

// Throws JobStopped ("[pe N] op: stopping: PE p (host 'h') is gone ...") if this PE's heap is
// marked: another PE failed or was lost. Waits call it as they back off. Threads: any.
void host_stop_if_marked(const Context& ctx, const char* op);

// Wakes the PE owning `h` if it sleeps in a wait. Call after a store that PE may wait on.
void host_wake(HeapHeader* h);

// The targets of this thread's putmem_nbi calls since its last quiet(): quiet() rings those
// with a sleeping waiter on the words stored (putmem_nbi itself skips the wake-up; rma_impl.hpp).
// Up to kPes PEs by range; past that, `all` with the union of the ranges.
struct NbiTargets {
  static constexpr int kPes = 4;
  int n = 0;
  bool all = false;
  int pe[kPes] = {};
  std::uint64_t lo[kPes] = {}, hi[kPes] = {};  // heap offsets stored, [lo, hi)
};
// Constant-initialized and initial-exec: every quiet() reads it, and in a shared library the
// default TLS model costs two calls per access (an init wrapper and __tls_get_addr), about 5 ns
// on an 8-byte put + quiet that takes 20. (nvcc's front end rejects the model attribute; its
// translation units access the variable the default way, which is correct, only slower.)
#if defined(__CUDACC__)
#define SYMMETRA_TLS_INITIAL_EXEC
#else
#define SYMMETRA_TLS_INITIAL_EXEC __attribute__((tls_model("initial-exec")))
#endif
// constinit where the includer compiles C++20; C++17 includers (nvshmem.h under nvcc's default)
// get the same constant initialization without the check.
#if __cplusplus >= 202002L
#define SYMMETRA_CONSTINIT constinit
#else
#define SYMMETRA_CONSTINIT
#endif
inline SYMMETRA_CONSTINIT thread_local NbiTargets nbi_targets SYMMETRA_TLS_INITIAL_EXEC;

// Rings the PEs in `t` whose sleepers watch a stored range, and empties it. Called by quiet()
// after its fence, with the caller's nbi_targets (each shared object has its own copy of an
// inline variable when symbols are hidden, so the library must not pick one itself).
void host_wake_nbi_targets(const Context& ctx, NbiTargets& t);

// How many pauses a host wait spins before it yields: 4 where PEs outnumber CPUs (the PE waited
// for is often the other one on this CPU), else 64. wait_for spins them inline, before it makes a
// HostWaiter (docs/perf_cpu.md#waits).
inline constexpr std::uint32_t kHostSpinSteps = 64, kHostOversubscribedSpinSteps = 4;
SYMMETRA_INLINE std::uint32_t host_spin_steps(const Context& ctx) {
  return (ctx.flags & Context::kOversubscribed) ? kHostOversubscribedSpinSteps : kHostSpinSteps;
}

// The slow phase of a CPU wait, after its caller spun (wait_for). Each step returns false once
// the wait exceeded ctx.timeout_ns: it yields, then sleeps on the doorbell until a writer rings
// it (at most 100 ms, and never past the deadline).
// Stops the job with a message if another PE failed.
class HostWaiter {
 public:
  // Registers as a waiter on this PE's words in [lo, hi); `op` names the wait in messages.
  HostWaiter(const Context& ctx, const void* lo, const void* hi, const char* op = "wait");
  ~HostWaiter();
  HostWaiter(const HostWaiter&) = delete;
  HostWaiter& operator=(const HostWaiter&) = delete;

  // The doorbell value to hand to park(); read it before re-checking the condition.
  std::uint32_t doorbell() const;
  bool park(std::uint32_t seen_doorbell);

 private:
  void register_waiter();
  bool lock_watch();
  void unlock_watch();

  const Context& ctx_;
  const char* op_;
  HeapHeader* h_;
  std::uint64_t start_ns_;
  std::uint64_t lo_ = 0, hi_ = ~std::uint64_t{0};  // heap offsets watched; all if not in the heap
  bool registered_ = false;
};

}  // namespace symmetra::device::detail
