// The host API: one Runtime per PE (DESIGN §1.4, §1.6).
//
// A PE is a process (started by symrun, mpirun, srun or torchrun; Runtime::init reads the
// launcher's environment) or a thread (symmetra::launch_threads hands each thread its Runtime).
// Data-path methods are the device API (device/*.hpp) called with a one-thread group, so host and
// device calls share one implementation and one memory model (docs/memory_model.md).
//
// Threads: a Runtime belongs to its PE; call it from one thread at a time. Setup methods
// (allocation, teams, finalize) are collective: every PE of the world (or of the parent team)
// calls them in the same order. They throw symmetra::Error naming the PE on failure.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "symmetra/device.hpp"
#include "symmetra/error.hpp"
#include "symmetra/team.hpp"
#include "symmetra/types.hpp"

namespace symmetra {

namespace detail {
class Bootstrap;
class SymmetricHeap;
class Allocator;
struct Config;
}  // namespace detail

class Runtime {
 public:
  // Joins the job described by the launcher's environment (a job of one PE if none).
  static std::unique_ptr<Runtime> init();
  // Used by launch_threads and tests: joins through an existing bootstrap.
  explicit Runtime(std::unique_ptr<detail::Bootstrap> bootstrap);
  ~Runtime();
  Runtime(const Runtime&) = delete;
  Runtime& operator=(const Runtime&) = delete;

  // Collective: waits for every PE, then releases the heap. Called by the destructor if needed.
  void finalize();
  // Leaves without waiting for the other PEs, for error paths: releases what this PE owns.
  void abandon();

  int my_pe() const { return ctx_.my_pe; }
  int n_pes() const { return ctx_.n_pes; }
  // The context device code takes by value. Refresh after allocate (growth) or team changes.
  const device::Context& device_context() const { return ctx_; }

  // --- Symmetric memory (collective over the world; include a barrier, as OpenSHMEM's do) ---
  // Same `bytes` on every PE, else symmetra::Error naming both sizes and PEs. Never returns
  // null for bytes > 0; exhaustion throws naming SYMMETRA_SYMMETRIC_SIZE.
  void* allocate(std::size_t bytes);
  void* align(std::size_t alignment, std::size_t bytes);
  void* calloc(std::size_t count, std::size_t size);  // zero-filled
  // Moves the block to `bytes`, keeping min(old, new) bytes of content. null p: allocate.
  void* reallocate(void* p, std::size_t bytes);
  void free(void* p);
  template <class T>
  T* allocate_array(std::size_t n) {
    return static_cast<T*>(align(alignof(T) < 16 ? 16 : alignof(T), n * sizeof(T)));
  }

  // --- Heap queries ---
  std::size_t heap_size() const;  // bytes mapped per PE (grows)
  std::size_t heap_used() const;  // bytes in live allocations
  bool is_symmetric(const void* p) const;
  bool pe_accessible(int pe) const { return pe >= 0 && pe < n_pes() && pe_index_[pe] >= 0; }
  // PE `pe`'s copy of symmetric `p` for direct loads and stores, or null if not reachable.
  template <class T>
  T* ptr(T* p, int pe) const { return device::ptr(ctx_, p, pe); }

  // --- Teams ---
  Team team_world() { return Team(this, device::kTeamWorld); }
  Team team_shared() { return Team(this, device::kTeamShared); }
  // Collective over `parent`: members start, start + stride, ... (size of them) of the parent.
  // PEs outside the new team get an invalid Team.
  Team split_strided(const Team& parent, int start, int stride, int size);
  // Collective over `parent`: a 2-D grid with `xrange` columns; x-teams are rows, y-teams columns.
  void split_2d(const Team& parent, int xrange, Team* xteam, Team* yteam);
  // Collective over the team's members.
  void destroy(Team& team);
  const device::TeamDesc& team_desc(int handle) const { return teams_[handle]; }

  // --- RMA (device/rma.hpp) ---
  void putmem(void* dest, const void* src, std::size_t bytes, int pe) {
    device::putmem(device::ThreadGroup{}, ctx_, dest, src, bytes, pe);
  }
  void getmem(void* dest, const void* src, std::size_t bytes, int pe) {
    device::getmem(device::ThreadGroup{}, ctx_, dest, src, bytes, pe);
  }
  void putmem_nbi(void* dest, const void* src, std::size_t bytes, int pe) { putmem(dest, src, bytes, pe); }
  void getmem_nbi(void* dest, const void* src, std::size_t bytes, int pe) { getmem(dest, src, bytes, pe); }
  template <class T>
  void put(T* dest, const T* src, std::size_t n, int pe) { putmem(dest, src, n * sizeof(T), pe); }
  template <class T>
  void get(T* dest, const T* src, std::size_t n, int pe) { getmem(dest, src, n * sizeof(T), pe); }
  template <class T>
  void put_nbi(T* dest, const T* src, std::size_t n, int pe) { put(dest, src, n, pe); }
  template <class T>
  void get_nbi(T* dest, const T* src, std::size_t n, int pe) { get(dest, src, n, pe); }
  template <class T>
  void p(T* dest, T value, int pe) { device::p(ctx_, dest, value, pe); }
  template <class T>
  T g(const T* src, int pe) { return device::g(ctx_, src, pe); }
  template <class T>
  void iput(T* dest, const T* src, std::ptrdiff_t dst_stride, std::ptrdiff_t src_stride,
            std::size_t n, int pe) {
    device::iput(device::ThreadGroup{}, ctx_, dest, src, dst_stride, src_stride, n, pe);
  }
  template <class T>
  void iget(T* dest, const T* src, std::ptrdiff_t dst_stride, std::ptrdiff_t src_stride,
            std::size_t n, int pe) {
    device::iget(device::ThreadGroup{}, ctx_, dest, src, dst_stride, src_stride, n, pe);
  }

  // --- Atomics (device/amo.hpp) ---
  template <class T> T atomic_fetch(const T* dest, int pe) { return device::atomic_fetch(ctx_, dest, pe); }
  template <class T> void atomic_set(T* dest, T v, int pe) { device::atomic_set(ctx_, dest, v, pe); }
  template <class T> T atomic_swap(T* dest, T v, int pe) { return device::atomic_swap(ctx_, dest, v, pe); }
  template <class T> T atomic_compare_swap(T* dest, T cond, T v, int pe) {
    return device::atomic_compare_swap(ctx_, dest, cond, v, pe);
  }
  template <class T> T atomic_fetch_inc(T* dest, int pe) { return device::atomic_fetch_inc(ctx_, dest, pe); }
  template <class T> void atomic_inc(T* dest, int pe) { device::atomic_inc(ctx_, dest, pe); }
  template <class T> T atomic_fetch_add(T* dest, T v, int pe) { return device::atomic_fetch_add(ctx_, dest, v, pe); }
  template <class T> void atomic_add(T* dest, T v, int pe) { device::atomic_add(ctx_, dest, v, pe); }
  template <class T> T atomic_fetch_and(T* dest, T v, int pe) { return device::atomic_fetch_and(ctx_, dest, v, pe); }
  template <class T> void atomic_and(T* dest, T v, int pe) { device::atomic_and(ctx_, dest, v, pe); }
  template <class T> T atomic_fetch_or(T* dest, T v, int pe) { return device::atomic_fetch_or(ctx_, dest, v, pe); }
  template <class T> void atomic_or(T* dest, T v, int pe) { device::atomic_or(ctx_, dest, v, pe); }
  template <class T> T atomic_fetch_xor(T* dest, T v, int pe) { return device::atomic_fetch_xor(ctx_, dest, v, pe); }
  template <class T> void atomic_xor(T* dest, T v, int pe) { device::atomic_xor(ctx_, dest, v, pe); }

  // --- Signals (device/signal.hpp) ---
  void putmem_signal(void* dest, const void* src, std::size_t bytes, std::uint64_t* sig,
                     std::uint64_t value, SignalOp op, int pe) {
    device::putmem_signal(device::ThreadGroup{}, ctx_, dest, src, bytes, sig, value, op, pe);
  }
  void putmem_signal_nbi(void* dest, const void* src, std::size_t bytes, std::uint64_t* sig,
                         std::uint64_t value, SignalOp op, int pe) {
    putmem_signal(dest, src, bytes, sig, value, op, pe);
  }
  template <class T>
  void put_signal(T* dest, const T* src, std::size_t n, std::uint64_t* sig, std::uint64_t value,
                  SignalOp op, int pe) {
    putmem_signal(dest, src, n * sizeof(T), sig, value, op, pe);
  }
  template <class T>
  void put_signal_nbi(T* dest, const T* src, std::size_t n, std::uint64_t* sig,
                      std::uint64_t value, SignalOp op, int pe) {
    putmem_signal(dest, src, n * sizeof(T), sig, value, op, pe);
  }
  std::uint64_t signal_fetch(const std::uint64_t* sig) { return device::signal_fetch(ctx_, sig); }
  std::uint64_t signal_wait_until(const std::uint64_t* sig, Cmp cmp, std::uint64_t value) {
    return device::signal_wait_until(ctx_, sig, cmp, value);
  }

  // --- Point-to-point synchronization (device/wait.hpp) ---
  template <class T> void wait_until(const T* ivar, Cmp cmp, T value) {
    device::wait_until(ctx_, ivar, cmp, value);
  }
  template <class T> void wait_until_all(const T* ivars, std::size_t n, const int* status, Cmp cmp, T value) {
    device::wait_until_all(ctx_, ivars, n, status, cmp, value);
  }
  template <class T> std::size_t wait_until_any(const T* ivars, std::size_t n, const int* status, Cmp cmp, T value) {
    return device::wait_until_any(ctx_, ivars, n, status, cmp, value);
  }
  template <class T> std::size_t wait_until_some(const T* ivars, std::size_t n, std::size_t* indices,
                                                 const int* status, Cmp cmp, T value) {
    return device::wait_until_some(ctx_, ivars, n, indices, status, cmp, value);
  }
  template <class T> void wait_until_all_vector(const T* ivars, std::size_t n, const int* status, Cmp cmp,
                                                const T* values) {
    device::wait_until_all_vector(ctx_, ivars, n, status, cmp, values);
  }
  template <class T> std::size_t wait_until_any_vector(const T* ivars, std::size_t n, const int* status,
                                                       Cmp cmp, const T* values) {
    return device::wait_until_any_vector(ctx_, ivars, n, status, cmp, values);
  }
  template <class T> std::size_t wait_until_some_vector(const T* ivars, std::size_t n, std::size_t* indices,
                                                        const int* status, Cmp cmp, const T* values) {
    return device::wait_until_some_vector(ctx_, ivars, n, indices, status, cmp, values);
  }
  template <class T> bool test(const T* ivar, Cmp cmp, T value) { return device::test(ctx_, ivar, cmp, value); }
  template <class T> bool test_all(const T* ivars, std::size_t n, const int* status, Cmp cmp, T value) {
    return device::test_all(ctx_, ivars, n, status, cmp, value);
  }
  template <class T> std::size_t test_any(const T* ivars, std::size_t n, const int* status, Cmp cmp, T value) {
    return device::test_any(ctx_, ivars, n, status, cmp, value);
  }
  template <class T> std::size_t test_some(const T* ivars, std::size_t n, std::size_t* indices,
                                           const int* status, Cmp cmp, T value) {
    return device::test_some(ctx_, ivars, n, indices, status, cmp, value);
  }
  template <class T> bool test_all_vector(const T* ivars, std::size_t n, const int* status, Cmp cmp,
                                          const T* values) {
    return device::test_all_vector(ctx_, ivars, n, status, cmp, values);
  }
  template <class T> std::size_t test_any_vector(const T* ivars, std::size_t n, const int* status, Cmp cmp,
                                                 const T* values) {
    return device::test_any_vector(ctx_, ivars, n, status, cmp, values);
  }
  template <class T> std::size_t test_some_vector(const T* ivars, std::size_t n, std::size_t* indices,
                                                  const int* status, Cmp cmp, const T* values) {
    return device::test_some_vector(ctx_, ivars, n, indices, status, cmp, values);
  }

  // --- Ordering and team synchronization (device/sync.hpp) ---
  void fence() { device::fence(ctx_); }
  void quiet() { device::quiet(ctx_); }
  void barrier_all() { device::barrier_all(device::ThreadGroup{}, ctx_); }
  void sync_all() { device::sync_all(device::ThreadGroup{}, ctx_); }
  void barrier(const Team& team) { device::barrier(device::ThreadGroup{}, ctx_, checked(team, "barrier")); }
  void sync(const Team& team) { device::sync(device::ThreadGroup{}, ctx_, checked(team, "sync")); }

 private:
  [[noreturn]] void fail(const std::string& what) const;
  int checked(const Team& team, const char* op) const;
  // Collective over `team`: every member contributes `value`; returns all, in team order.
  std::vector<std::uint64_t> team_allgather(int team, std::uint64_t value);
  void* allocate_aligned(std::size_t alignment, std::size_t bytes, const char* op);
  int create_team(int parent, int start, int stride, int size, const char* op);
  void refresh_context();

  std::unique_ptr<detail::Config> config_;
  std::unique_ptr<detail::Bootstrap> bootstrap_;
  std::unique_ptr<detail::SymmetricHeap> heap_;
  std::unique_ptr<detail::Allocator> allocator_;
  std::vector<std::int32_t> pe_index_;
  std::array<device::TeamDesc, device::kMaxTeams> teams_{};
  device::Context ctx_{};
  bool finalized_ = false;
};

}  // namespace symmetra
