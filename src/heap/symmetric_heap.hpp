// The CPU symmetric heap: one virtual reservation, every local PE's memfd segment mapped at
// base + index * stride (DESIGN §1.3).
//
// PEs as processes: each process reserves its own range, creates its segment, and maps the
// peers' segments from fds passed through the bootstrap. PEs as threads: one reservation for the
// process; each PE maps only its own segment into it. Growth maps more of the same memfd.
// Threads: setup calls are collective over the local PEs.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "../bootstrap/bootstrap.hpp"
#include "symmetra/error.hpp"

namespace symmetra::detail {

class SymmetricHeap {
 public:
  // Collective. `stride` bounds each PE's heap; `initial` bytes are mapped at once.
  static Result<std::unique_ptr<SymmetricHeap>> create(Bootstrap& bs, std::uint64_t stride,
                                                       std::uint64_t initial);
  ~SymmetricHeap();
  SymmetricHeap(const SymmetricHeap&) = delete;
  SymmetricHeap& operator=(const SymmetricHeap&) = delete;

  std::byte* base() const { return reservation_ + static_cast<std::size_t>(index_) * stride_; }
  std::uint64_t stride() const { return stride_; }
  std::uint64_t size() const { return size_; }
  int index() const { return index_; }

  // Collective: maps every PE's heap up to `new_size` (> size(), <= stride()).
  Status grow(std::uint64_t new_size);

 private:
  SymmetricHeap(Bootstrap& bs, std::uint64_t stride) : bs_(bs), stride_(stride) {}
  Status map_segment(int index, int fd, std::uint64_t from, std::uint64_t to);

  Bootstrap& bs_;
  std::uint64_t stride_;
  std::uint64_t size_ = 0;
  int index_ = 0;
  std::byte* reservation_ = nullptr;
  std::uint64_t reserved_bytes_ = 0;
  bool owns_reservation_ = false;
  int own_fd_ = -1;
  std::vector<int> peer_fds_;  // process mode: every PE's segment, -1 for our own slot
};

}  // namespace symmetra::detail
