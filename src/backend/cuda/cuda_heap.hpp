// The GPU symmetric heap: one virtual reservation, every local PE's device memory mapped at
// base + index * stride (docs/design.md §1.3), through the CUDA virtual memory management API.
//
// Each PE's heap is made of chunks created with cuMemCreate (exportable as POSIX fds). PEs as
// threads share one reservation, and each maps its own chunks into it. PEs as processes each
// reserve their own range, export their chunks' fds through the bootstrap and map the peers'.
// Every mapping is made accessible to every device the local PEs use. Growth adds a chunk.
// Threads: setup calls are collective over the PEs; the calling thread's current device is the
// PE's device.
#pragma once

#include <cuda.h>

#include <cstdint>
#include <memory>
#include <vector>

#include "backend/cuda/driver.hpp"
#include "bootstrap/bootstrap.hpp"

namespace symmetra::detail {

class CudaHeap {
 public:
  static Result<std::unique_ptr<CudaHeap>> create(Bootstrap& bs, int device, std::uint64_t stride,
                                                  std::uint64_t initial);
  ~CudaHeap();
  CudaHeap(const CudaHeap&) = delete;
  CudaHeap& operator=(const CudaHeap&) = delete;

  std::byte* base() const {
    return reinterpret_cast<std::byte*>(reservation_ + static_cast<CUdeviceptr>(index_) * stride_);
  }
  std::uint64_t stride() const { return stride_; }
  std::uint64_t size() const { return size_; }
  int index() const { return index_; }
  int device() const { return device_; }
  // Another PE of this host uses the same GPU.
  bool shares_device() const { return shares_device_; }

  // Collective: every PE's heap is mapped up to `new_size` (> size(), <= stride()).
  Status grow(std::uint64_t new_size);
  std::uint64_t granularity() const { return granularity_; }
  // Collective: maps each PE's `buffer` (the start of a cuMemCreate allocation mapped with
  // cuMemMap, of at least `bytes`, a multiple of granularity()) at the end of that PE's heap, which
  // grows over it; returns where (the old size()). Every PE fails alike if one cannot.
  Result<std::uint64_t> map_user(void* buffer, std::uint64_t bytes);
  // Collective: unmaps what map_user mapped at `from`; the range stays unbacked.
  Status unmap_user(std::uint64_t from, std::uint64_t bytes);

 private:
  CudaHeap(Bootstrap& bs, const Driver* drv, int device) : bs_(bs), drv_(drv), device_(device) {}
  Status add_chunk(std::uint64_t from, std::uint64_t to);
  Status share(CUmemGenericAllocationHandle h, std::uint64_t from, std::uint64_t bytes);
  // Collective: the first PE for which `ok` is false, -1 where none is.
  Result<int> first_failed(bool ok);
  Status map_at(int index, CUmemGenericAllocationHandle h, std::uint64_t from, std::uint64_t bytes);

  struct Mapping {
    CUdeviceptr at;
    std::uint64_t bytes;
    CUmemGenericAllocationHandle handle;
  };

  Bootstrap& bs_;
  const Driver* drv_;
  int device_;
  int index_ = 0;
  std::uint64_t stride_ = 0;
  std::uint64_t size_ = 0;
  std::uint64_t granularity_ = 0;
  CUdeviceptr reservation_ = 0;      // the heaps' base: a multiple of the stride
  CUdeviceptr raw_reservation_ = 0;  // what the driver reserved (reserved_bytes_ of it)
  std::uint64_t reserved_bytes_ = 0;
  bool owns_reservation_ = false;
  bool shares_device_ = false;
  std::vector<int> devices_;       // distinct devices of the local PEs: every mapping's accessors
  std::vector<Mapping> mappings_;  // released in reverse order
};

}  // namespace symmetra::detail
