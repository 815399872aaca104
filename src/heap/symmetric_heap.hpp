// The CPU symmetric heap: one virtual reservation per process, every local PE's heap at
// base + index * stride (docs/design.md §1.3).
//
// All PEs of the host share one memfd, made by PE 0 and sized n * stride (sparse: pages exist
// once touched). Each process maps the whole of it over its reservation with one mmap, so that
// joining costs one fd and one mapping per PE whatever the PE count (1024 PEs as processes used
// to exchange a million fds and make a million mappings), and growth is bookkeeping: the pages
// past size() are mapped already. PEs as threads share the process's one mapping.
//
// The reservation is aligned to the stride, a power of two, so that an offset aligned to any
// power of two up to the stride is aligned in every PE's view of every heap (shmem_align).
// The mapping is left out of core dumps (MADV_DONTDUMP): a dump would otherwise walk every page
// of n * stride bytes.
// Threads: setup calls are collective over the local PEs.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>

#include "bootstrap/bootstrap.hpp"
#include "symmetra/error.hpp"

namespace symmetra::detail {

class SymmetricHeap {
 public:
  // Collective. `stride` (a power of two, at least a page) bounds each PE's heap; `initial`
  // bytes are usable at once.
  static Result<std::unique_ptr<SymmetricHeap>> create(Bootstrap& bs, std::uint64_t stride,
                                                       std::uint64_t initial);
  ~SymmetricHeap();
  SymmetricHeap(const SymmetricHeap&) = delete;
  SymmetricHeap& operator=(const SymmetricHeap&) = delete;

  std::byte* base() const { return reservation_ + static_cast<std::size_t>(index_) * stride_; }
  std::uint64_t stride() const { return stride_; }
  // Any thread (the C API's queries may run beside a growth, SHMEM_THREAD_MULTIPLE).
  std::uint64_t size() const { return size_.load(std::memory_order_relaxed); }
  int index() const { return index_; }
  // The memfd behind every heap of the host, and where heap `index` starts in it: static data
  // maps its window from there (static_data.hpp).
  int fd() const { return fd_; }
  std::uint64_t file_offset(int index) const { return static_cast<std::uint64_t>(index) * stride_; }

  // Collective: every PE's heap may be used up to `new_size` (> size(), <= stride()).
  Status grow(std::uint64_t new_size);

 private:
  SymmetricHeap(Bootstrap& bs, std::uint64_t stride) : bs_(bs), stride_(stride) {}

  Bootstrap& bs_;
  std::uint64_t stride_;
  std::atomic<std::uint64_t> size_{0};
  int index_ = 0;
  std::byte* reservation_ = nullptr;
  std::uint64_t reserved_bytes_ = 0;
  bool owns_mapping_ = false;  // PE 0 of a thread job, or every process
  int fd_ = -1;
};

}  // namespace symmetra::detail
