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

// Marks every reachable heap so that waiting PEs stop: PE `failed_pe` failed. Threads: any.
void host_mark_abort(const Context& ctx, int failed_pe);

// Wakes the PE owning `h` if it sleeps in a wait. Call after a store that PE may wait on.
void host_wake(HeapHeader* h);

// One wait step on the CPU. Returns false once the wait exceeded ctx.timeout_ns. Spins first,
// then yields, then sleeps on the doorbell until a writer rings it (or a short timeout passes).
// Stops the job with a message if another PE failed.
class HostWaiter {
 public:
  // Registers as a waiter on this PE's words in [lo, hi).
  HostWaiter(const Context& ctx, const void* lo, const void* hi);
  ~HostWaiter();
  HostWaiter(const HostWaiter&) = delete;
  HostWaiter& operator=(const HostWaiter&) = delete;

  // The doorbell value to hand to park(); read it before re-checking the condition.
  std::uint32_t doorbell() const;
  bool park(std::uint32_t seen_doorbell);

 private:
  void register_waiter();

  const Context& ctx_;
  HeapHeader* h_;
  std::uint64_t start_ns_;
  std::uint64_t lo_ = 0, hi_ = ~std::uint64_t{0};  // heap offsets watched; all if not in the heap
  std::uint32_t steps_ = 0;
  bool registered_ = false;
};

}  // namespace symmetra::device::detail
