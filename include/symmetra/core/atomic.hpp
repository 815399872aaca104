// The one place that spells an atomic (docs/style.md, libcu++ model).
//
// Symmetric memory holds plain integers; every atomic access to it goes through AtomicRef, which
// is cuda::atomic_ref at system scope in CUDA builds (device and host) and std::atomic_ref in
// plain C++ builds. Threads: any. Ordering: as the std::memory_order argument says.
#pragma once

#include <atomic>
#include <cstdint>

#include "symmetra/core/platform.hpp"

#if defined(__CUDACC__)
#include <cuda/atomic>
#endif

namespace symmetra::detail {

#if defined(__CUDACC__)
template <class T>
using AtomicRef = cuda::atomic_ref<T, cuda::thread_scope_system>;
using MemoryOrder = cuda::std::memory_order;
#else
template <class T>
using AtomicRef = std::atomic_ref<T>;
using MemoryOrder = std::memory_order;
#endif

#if defined(__CUDACC__)
namespace mo = cuda::std;
#else
namespace mo = std;
#endif
inline constexpr MemoryOrder kRelaxed = mo::memory_order_relaxed;
inline constexpr MemoryOrder kAcquire = mo::memory_order_acquire;
inline constexpr MemoryOrder kRelease = mo::memory_order_release;
inline constexpr MemoryOrder kAcqRel = mo::memory_order_acq_rel;
inline constexpr MemoryOrder kSeqCst = mo::memory_order_seq_cst;

// Unoptimized host builds (CI's AddressSanitizer tree): the compiler's atomic built-ins (what
// std::atomic_ref's members call) in functions inlined even there, where each std::atomic_ref
// load or store was a chain of calls that the tests spent much of their time in
// (docs/testing.md#where-the-test-time-goes). A memory order that is not a constant where the
// built-in sees it acts as seq_cst. Optimized builds and nvcc keep std::atomic_ref: their code
// is what it was.
#if defined(__CUDACC__) || defined(__OPTIMIZE__)
#define SYMMETRA_ATOMIC_INLINE SYMMETRA_INLINE
#define SYMMETRA_ATOMIC_BUILTINS 0
#else
#define SYMMETRA_ATOMIC_INLINE inline __attribute__((always_inline))
#define SYMMETRA_ATOMIC_BUILTINS 1
#endif

template <class T>
SYMMETRA_ATOMIC_INLINE T atomic_load(const T* p, MemoryOrder o = kAcquire) {
#if SYMMETRA_ATOMIC_BUILTINS
  T v;
  __atomic_load(p, &v, static_cast<int>(o));
  return v;
#else
  return AtomicRef<T>(*const_cast<T*>(p)).load(o);
#endif
}

template <class T>
SYMMETRA_ATOMIC_INLINE void atomic_store(T* p, T v, MemoryOrder o = kRelease) {
#if SYMMETRA_ATOMIC_BUILTINS
  __atomic_store(p, &v, static_cast<int>(o));
#else
  AtomicRef<T>(*p).store(v, o);
#endif
}

// A full fence between this thread's earlier and later accesses, system-wide.
SYMMETRA_INLINE void fence_seq_cst() {
#if SYMMETRA_DEVICE_PASS
  __threadfence_system();
#elif defined(__SANITIZE_THREAD__)
  // ThreadSanitizer does not model fences. A seq_cst read-modify-write is a full barrier on the
  // hardware, and the orderings tests rely on go through release/acquire operations it does see.
  static thread_local int word = 0;
  std::atomic_ref<int>(word).fetch_add(0, std::memory_order_seq_cst);
#elif defined(__x86_64__)
  // What compilers emit for a seq_cst fence (a locked no-op), aimed below the stack pointer
  // rather than at it, as LLVM and Linux's smp_mb do: (%rsp) was just written by a call or a
  // push, and the locked op then waits on that store as well (docs/perf_cpu.md#waits). Or-ing 0
  // leaves the word as it was, and signal handlers never get the red zone.
  __asm__ __volatile__("lock orq $0, -64(%%rsp)" ::: "memory", "cc");
#else
  std::atomic_thread_fence(std::memory_order_seq_cst);
#endif
}

// Starts a run of stores that publish what this thread wrote before (a request's entries, each
// read on its own by an acquire); returns the order to store them with. On the GPU: one
// system-scope release fence, then relaxed stores (in PTX's model a release fence followed by a
// strong write is a release pattern), where a release store per word costs a fence each. On the
// host: release stores, free on x86 and visible to ThreadSanitizer, which does not model fences.
SYMMETRA_INLINE MemoryOrder begin_release_stores() {
#if SYMMETRA_DEVICE_PASS
  cuda::atomic_thread_fence(cuda::std::memory_order_release, cuda::thread_scope_system);
  return kRelaxed;
#else
  return kRelease;
#endif
}

// Loads a word that a wait polls: acquire on the host (free on x86, and visible to TSan);
// relaxed on the GPU, where an acquire load per poll costs a system-scope fence, and
// acquire_after_poll() supplies the ordering once the condition holds.
template <class T>
SYMMETRA_ATOMIC_INLINE T poll_load(const T* p) {
#if SYMMETRA_DEVICE_PASS
  return AtomicRef<T>(*const_cast<T*>(p)).load(kRelaxed);
#elif SYMMETRA_ATOMIC_BUILTINS
  return atomic_load(p, kAcquire);
#else
  return AtomicRef<T>(*const_cast<T*>(p)).load(kAcquire);
#endif
}

// The words a PE waits on are in its own memory, and so is the data their writers ordered
// before them (puts target the receiver's memory): remote writers' stores reach this GPU's L2,
// so an acquire at GPU scope (which drops stale L1 lines) is enough, and costs far less than a
// system-scope one. Writers still release at system scope.
SYMMETRA_INLINE void acquire_after_poll() {
#if SYMMETRA_DEVICE_PASS
  cuda::atomic_thread_fence(cuda::std::memory_order_acquire, cuda::thread_scope_device);
#endif
}

// The acquire that ends a wait on words a CPU thread writes in host memory (the proxy's `done`
// and result words, polled with poll_load): system scope on the GPU, since what the proxy
// ordered before them may be host memory too; nothing on the host, where poll_load acquires.
SYMMETRA_INLINE void acquire_after_proxy() {
#if SYMMETRA_DEVICE_PASS
  cuda::atomic_thread_fence(cuda::std::memory_order_acquire, cuda::thread_scope_system);
#endif
}

// The acquire load that ends a one-word wait; GPU scope for the reason above.
template <class T>
SYMMETRA_ATOMIC_INLINE T acquire_load_local(const T* p) {
#if SYMMETRA_DEVICE_PASS
  return cuda::atomic_ref<T, cuda::thread_scope_device>(*const_cast<T*>(p)).load(kAcquire);
#elif SYMMETRA_ATOMIC_BUILTINS
  return atomic_load(p, kAcquire);
#else
  return AtomicRef<T>(*const_cast<T*>(p)).load(kAcquire);
#endif
}

}  // namespace symmetra::detail

// The device API's machinery spells these unqualified.
namespace symmetra::device::detail {
using symmetra::detail::acquire_after_poll;
using symmetra::detail::acquire_after_proxy;
using symmetra::detail::acquire_load_local;
using symmetra::detail::atomic_load;
using symmetra::detail::atomic_store;
using symmetra::detail::AtomicRef;
using symmetra::detail::begin_release_stores;
using symmetra::detail::fence_seq_cst;
using symmetra::detail::kAcqRel;
using symmetra::detail::kAcquire;
using symmetra::detail::kRelaxed;
using symmetra::detail::kRelease;
using symmetra::detail::kSeqCst;
using symmetra::detail::MemoryOrder;
using symmetra::detail::poll_load;
}  // namespace symmetra::device::detail
