// Offset allocator of the symmetric heap.
//
// Deterministic: every PE makes the same calls in the same order and so gets the same offsets,
// which is what makes an allocation symmetric. First fit over a free list ordered by offset,
// neighbours merged on free. Threads: one PE's thread at a time.
#pragma once

#include <cstdint>
#include <map>
#include <optional>

namespace symmetra::detail {

class Allocator {
 public:
  // Manages [begin, end).
  Allocator(std::uint64_t begin, std::uint64_t end);

  // An offset `phase` bytes past a multiple of `align` (a power of two; phase < align, a multiple
  // of 16) for `bytes` (> 0), or nothing if no free run is large enough.
  std::optional<std::uint64_t> allocate(std::uint64_t bytes, std::uint64_t align,
                                        std::uint64_t phase = 0);
  // Takes exactly [offset, offset + bytes) as a block; false unless all of it is free.
  bool reserve(std::uint64_t offset, std::uint64_t bytes);
  // Returns the block at `offset`; false if no block starts there.
  bool free(std::uint64_t offset);
  // Size of the block at `offset`, 0 if none.
  std::uint64_t block_size(std::uint64_t offset) const;
  // Extends the managed range to [begin, new_end).
  void grow(std::uint64_t new_end);

  std::uint64_t end() const { return end_; }
  std::uint64_t free_bytes() const;
  std::uint64_t used_bytes() const { return used_; }
  // The largest request (with its alignment) that would fit without growing.
  std::uint64_t largest_free() const;
  // Bytes a request for `bytes` at `phase` past `align` needs past the current end to fit at the
  // tail.
  std::uint64_t shortfall(std::uint64_t bytes, std::uint64_t align, std::uint64_t phase = 0) const;

 private:
  void release(std::uint64_t offset, std::uint64_t bytes);
  // Makes [at, at + bytes), inside the free run `run`, a block; the rest of the run stays free.
  void take(std::map<std::uint64_t, std::uint64_t>::iterator run, std::uint64_t at,
            std::uint64_t bytes);

  std::uint64_t begin_;
  std::uint64_t end_;
  std::uint64_t used_ = 0;
  std::map<std::uint64_t, std::uint64_t> free_;    // offset -> bytes
  std::map<std::uint64_t, std::uint64_t> blocks_;  // offset -> bytes
};

}  // namespace symmetra::detail
