// CPU side of the device API's waits, wake-ups and fatal errors (device/impl/host_hooks.hpp).
//
// A waiter spins briefly (the common case on an idle core), then yields (other PEs may share the
// core: CI runs 8 PEs on 2 cores), then sleeps on its heap's doorbell with a futex. Where PEs
// outnumber CPUs (Context::kOversubscribed) it yields almost at once: the PE it waits for may
// need this very CPU, and a 64-pause spin then only delays it (docs/perf_cpu.md#waits). A writer
// rings
// the doorbell only when `waiters` is non-zero, so the data path pays one load when nobody sleeps.
#include <linux/futex.h>
#include <sched.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <climits>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "core/blocked.hpp"
#include "core/clock.hpp"
#include "symmetra/core/atomic.hpp"
#include "symmetra/core/cpu_relax.hpp"
#include "symmetra/device/impl/heap_header.hpp"
#include "symmetra/device/impl/host_hooks.hpp"
#include "symmetra/device/impl/remote.hpp"
#include "symmetra/device/impl/wait_core.hpp"
#include "symmetra/error.hpp"

namespace symmetra::device::detail {
namespace {

using symmetra::detail::atomic_load;
using symmetra::detail::AtomicRef;
using symmetra::detail::cpu_relax;
using symmetra::detail::kSeqCst;
using symmetra::detail::steady_ns;

// Yield (letting another PE of an oversubscribed core run) for this long before sleeping: a
// futex sleep and wake-up costs microseconds, which short waits such as barriers should not pay.
constexpr std::uint64_t kYieldNs = 100'000;
// The longest futex sleep. Every store a waiter can wait on rings its doorbell (notify), a
// failing PE rings every doorbell (host_mark_abort), and the sleep ends at the wait's deadline,
// so this is only a safety net. It was 2 ms: 500 wake-ups a second per sleeping PE, which cost
// a PE sharing its core a few percent on long copies (docs/perf_cpu.md#waits).
constexpr std::uint64_t kSleepNs = 100'000'000;
// Where remote writes can land unseen (RemotePath::deliveries_ring false), an oversubscribed
// waiter sleeps this long between polls instead.
constexpr std::uint64_t kPollSleepNs = 50'000;

// Shared (not private) futex: the word may be mapped by several processes.
void futex_wait(std::uint32_t* word, std::uint32_t expected, std::uint64_t ns) {
  timespec ts{static_cast<time_t>(ns / 1'000'000'000), static_cast<long>(ns % 1'000'000'000)};
  syscall(SYS_futex, word, FUTEX_WAIT, expected, &ts, nullptr, 0);
}

void futex_wake_all(std::uint32_t* word) {
  syscall(SYS_futex, word, FUTEX_WAKE, INT_MAX, nullptr, nullptr, 0);
}

}  // namespace

void host_mark_header(HeapHeader* h, int failed_pe, std::uint32_t why) {
  std::int32_t none = 0;
  // abort_why is read after abort_pe is seen: written first; a second marker may overwrite it
  // with its own before losing the exchange, which words the message of the same stop.
  if (atomic_load(&h->abort_pe, symmetra::detail::kAcquire) == 0)
    AtomicRef<std::uint32_t>(h->abort_why).store(why, symmetra::detail::kRelease);
  AtomicRef<std::int32_t>(h->abort_pe).compare_exchange_strong(none, failed_pe + 1);
  host_wake(h);
}

void host_mark_abort(const Context& ctx, int failed_pe, std::uint32_t why) {
  // A GPU heap is not host memory; its PEs learn of the failure from the launcher instead.
  if (ctx.heap_base == nullptr || ctx.pe_index == nullptr || (ctx.flags & Context::kDeviceHeap))
    return;
  // PEs on other hosts: the same marks through the transport (PEs as processes also learn of a
  // failure from the rendezvous; PEs as threads only from these). Once per thread: a transport
  // that fails here ends the job through host_fatal, which marks again.
  static thread_local bool marking_remote = false;
  for (int pe = 0; pe < ctx.n_pes; ++pe) {
    if (ctx.pe_index[pe] >= 0) {
      host_mark_header(peer_header(ctx, pe), failed_pe, why);
    } else if (ctx.remote != nullptr && !marking_remote) {
      marking_remote = true;
      HeapHeader* h = my_header(ctx);  // the same words, at the same offsets, on PE pe
      ctx.remote->atomic(ctx, pe, remote_offset(ctx, &h->abort_why), AmoOp::kCompareSwap,
                         DataType::kUint32, why, 0);
      ctx.remote->atomic(ctx, pe, remote_offset(ctx, &h->abort_pe), AmoOp::kCompareSwap,
                         DataType::kInt32, static_cast<std::uint32_t>(failed_pe + 1), 0);
      marking_remote = false;
    }
  }
}

void host_wake(HeapHeader* h) {
  AtomicRef<std::uint32_t>(h->doorbell).fetch_add(1, kSeqCst);
  futex_wake_all(&h->doorbell);
}

void host_wake_nbi_targets(const Context& ctx, NbiTargets& t) {
  if (t.all) {
    for (int pe = 0; pe < ctx.n_pes; ++pe)
      if (ctx.pe_index == nullptr || ctx.pe_index[pe] >= 0)
        ring_if_watched(peer_header(ctx, pe), t.lo[0], t.hi[0]);
  } else {
    for (int i = 0; i < t.n; ++i) ring_if_watched(peer_header(ctx, t.pe[i]), t.lo[i], t.hi[i]);
  }
  t.n = 0;
  t.all = false;
}

void host_fatal(const Context& ctx, const char* op, const char* msg) {
  std::fprintf(stderr, "[pe %d] %s: %s\n", ctx.my_pe, op, msg);
  // A timeout's cause is often another thread's wait (core/blocked.hpp).
  const std::string blocked = symmetra::detail::blocked_threads();
  if (!blocked.empty()) std::fprintf(stderr, "[pe %d] blocked: %s\n", ctx.my_pe, blocked.c_str());
  std::fflush(stderr);
  host_mark_abort(ctx, ctx.my_pe);
  std::abort();
}

void host_timeout(const Context& ctx, const char* op, const char* msg) {
  std::string what = "[pe " + std::to_string(ctx.my_pe) + "] " + op + ": " + msg;
  const std::string blocked = symmetra::detail::blocked_threads();
  if (!blocked.empty()) what += " (blocked in this process: " + blocked + ")";
  // Said at once, as a failed check is: marking the other heaps can take long where a link is
  // down, and the launcher may end this process before the exception reaches anyone.
  std::fprintf(stderr, "%s\n", what.c_str());
  std::fflush(stderr);
  host_mark_abort(ctx, ctx.my_pe, static_cast<std::uint32_t>(AbortWhy::kTimedOut));
  throw symmetra::Timeout(what);
}

void host_timeoutf(const Context& ctx, const char* op, const char* fmt, ...) {
  char msg[512];
  va_list ap;
  va_start(ap, fmt);
  std::vsnprintf(msg, sizeof(msg), fmt, ap);
  va_end(ap);
  host_timeout(ctx, op, msg);
}

void host_fatalf(const Context& ctx, const char* op, const char* fmt, ...) {
  char msg[512];
  va_list ap;
  va_start(ap, fmt);
  std::vsnprintf(msg, sizeof(msg), fmt, ap);
  va_end(ap);
  host_fatal(ctx, op, msg);
}

// A waiter registers (waiter count and watched range) only once it is about to sleep: spinning
// waiters leave the header's cache line alone, so writers that check it do not bounce it.
// The watched range only widens while someone waits, and is cleared by the last waiter to leave;
// joining and leaving take the header's watch lock, so a leaving last waiter cannot clear the
// range that a joining one has just set (which left the joiner asleep until its next timed
// re-check). Writers read count and range without the lock: a writer that reads a value a
// joining waiter is about to replace stored its data before that read, and the waiter re-checks
// its condition after registering, so it sees the data instead of the ring.
HostWaiter::HostWaiter(const Context& ctx, const void* lo, const void* hi, const char* op)
    : ctx_(ctx), op_(op), h_(my_header(ctx)), start_ns_(steady_ns()) {
  const auto base = reinterpret_cast<std::uintptr_t>(ctx.heap_base);
  auto a = reinterpret_cast<std::uintptr_t>(lo), b = reinterpret_cast<std::uintptr_t>(hi);
  if (a >= base && b <= base + ctx.heap_extent() && a < b) {
    lo_ = a - base;
    hi_ = b - base;
  }
}

// Takes the watch lock. Only this PE's own threads take it, each for a few stores, so it is
// almost always free; false if the wait's deadline passed first, and the caller's wait then
// reports its timeout instead of hanging here.
bool HostWaiter::lock_watch() {
  AtomicRef<std::uint32_t> lock(h_->watch_lock);
  for (std::uint32_t tries = 0;; ++tries) {
    std::uint32_t free = 0;
    if (lock.compare_exchange_weak(free, 1, kSeqCst)) return true;
    if (tries < kHostSpinSteps) {
      cpu_relax();
    } else {
      sched_yield();  // the holder may be a thread of this PE preempted on this very CPU
      if (steady_ns() - start_ns_ > ctx_.timeout_ns) return false;
    }
  }
}

void HostWaiter::unlock_watch() {
  AtomicRef<std::uint32_t>(h_->watch_lock).store(0, kSeqCst);
}

void HostWaiter::register_waiter() {
  registered_ = true;
  const bool locked = lock_watch();
  AtomicRef<std::uint64_t> wlo(h_->watch_lo), whi(h_->watch_hi);
  if (AtomicRef<std::uint32_t>(h_->waiters).fetch_add(1, kSeqCst) == 0) {
    wlo.store(lo_, kSeqCst);
    whi.store(hi_, kSeqCst);
  } else {
    std::uint64_t cur = wlo.load(kSeqCst);
    while (lo_ < cur && !wlo.compare_exchange_weak(cur, lo_, kSeqCst)) {
    }
    cur = whi.load(kSeqCst);
    while (hi_ > cur && !whi.compare_exchange_weak(cur, hi_, kSeqCst)) {
    }
  }
  if (locked) unlock_watch();
}

HostWaiter::~HostWaiter() {
  if (!registered_) return;
  const bool locked = lock_watch();
  if (AtomicRef<std::uint32_t>(h_->waiters).fetch_sub(1, kSeqCst) == 1) {
    AtomicRef<std::uint64_t>(h_->watch_hi).store(0, kSeqCst);
    AtomicRef<std::uint64_t>(h_->watch_lo).store(0, kSeqCst);
  }
  if (locked) unlock_watch();
}

std::uint32_t HostWaiter::doorbell() const {
  return atomic_load(&h_->doorbell, kSeqCst);
}

void host_stop_if_marked(const Context& ctx, const char* op) {
  if (ctx.heap_base == nullptr) return;  // a context for messages only (transport_test)
  const HeapHeader* h = my_header(ctx);
  const std::int32_t failed = atomic_load(&h->abort_pe, symmetra::detail::kAcquire);
  if (failed == 0 || failed - 1 == ctx.my_pe) return;
  const auto why = static_cast<AbortWhy>(atomic_load(&h->abort_why, symmetra::detail::kAcquire));
  // PE n (none) with kHubGone: symrun, which hosts no PE, is gone.
  std::string who = "the job's launcher (its rendezvous) is gone";
  if (failed - 1 < ctx.n_pes) {
    who = "PE " + std::to_string(failed - 1);
    // A PE of another host: which one, so that a lost machine is recognized at once.
    if (ctx.remote != nullptr && ctx.remote->pe_host != nullptr && !ctx.reachable(failed - 1))
      who += std::string(" (host '") + ctx.remote->pe_host[failed - 1] + "')";
    who += std::string(" ") + abort_text(why);
  }
  throw symmetra::JobStopped("[pe " + std::to_string(ctx.my_pe) + "] " + op + ": stopping: " + who);
}

bool HostWaiter::park(std::uint32_t seen_doorbell) {
  host_stop_if_marked(ctx_, op_);
  const std::uint64_t waited = steady_ns() - start_ns_;
  // With PEs on other hosts, what this wait is for may need this PE's own progress (UCX over
  // TCP serves RMA as active messages). The progress thread serves it too, but a wait that
  // polls the worker itself does not pay that thread's wake-up.
  RemotePath* remote = ctx_.remote;
  if (remote != nullptr) remote->progress();
  if (waited < kYieldNs) {
    sched_yield();
  } else if (remote != nullptr && !remote->deliveries_ring()) {
    // A delivery may land without passing this PE's code (RDMA, shared memory), so nothing
    // would ring: poll. Where PEs share CPUs, in short sleeps that leave the CPU to them.
    if (ctx_.flags & Context::kOversubscribed)
      futex_wait(&h_->doorbell, seen_doorbell, kPollSleepNs);
    else
      sched_yield();
  } else if (!registered_) {
    register_waiter();  // the caller re-reads the doorbell and re-checks before we sleep
  } else if (waited <= ctx_.timeout_ns) {
    // Until rung, or until the deadline (plus a little, so that the next step sees it passed).
    futex_wait(&h_->doorbell, seen_doorbell,
               std::min(kSleepNs, ctx_.timeout_ns - waited + 1'000'000));
  }
  return waited <= ctx_.timeout_ns;
}

}  // namespace symmetra::device::detail
