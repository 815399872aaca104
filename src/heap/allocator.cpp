#include "heap/allocator.hpp"

#include <algorithm>

namespace symmetra::detail {
namespace {
std::uint64_t align_up(std::uint64_t x, std::uint64_t a) {
  return (x + a - 1) & ~(a - 1);
}
// The first offset from x on that lies `phase` bytes past a multiple of a.
std::uint64_t place(std::uint64_t x, std::uint64_t a, std::uint64_t phase) {
  return x + ((phase + a - (x & (a - 1))) & (a - 1));
}
}  // namespace

Allocator::Allocator(std::uint64_t begin, std::uint64_t end) : begin_(begin), end_(end) {
  if (end > begin) free_[begin] = end - begin;
}

std::optional<std::uint64_t> Allocator::allocate(std::uint64_t bytes, std::uint64_t align,
                                                 std::uint64_t phase) {
  if (bytes == 0 || align == 0 || (align & (align - 1)) != 0 || phase >= align || phase % 16 != 0)
    return std::nullopt;
  // No block can hold more than the range: refused before the rounding below could wrap.
  if (bytes > end_ - begin_ || align > end_ - begin_) return std::nullopt;
  bytes = align_up(bytes, 16);  // keep every block 16-byte granular for vector copies
  for (auto it = free_.begin(); it != free_.end(); ++it) {
    const std::uint64_t start = it->first, size = it->second;
    const std::uint64_t at = place(start, align, phase);
    // Subtractions, not sums: nothing here can wrap.
    if (at > start + size || bytes > start + size - at) continue;
    take(it, at, bytes);
    return at;
  }
  return std::nullopt;
}

bool Allocator::reserve(std::uint64_t offset, std::uint64_t bytes) {
  if (bytes == 0) return false;
  auto it = free_.upper_bound(offset);
  if (it == free_.begin()) return false;
  --it;
  if (offset + bytes > it->first + it->second) return false;
  take(it, offset, bytes);
  return true;
}

void Allocator::take(std::map<std::uint64_t, std::uint64_t>::iterator run, std::uint64_t at,
                     std::uint64_t bytes) {
  const std::uint64_t start = run->first, size = run->second;
  free_.erase(run);
  if (at > start) free_[start] = at - start;
  if (at + bytes < start + size) free_[at + bytes] = start + size - (at + bytes);
  blocks_[at] = bytes;
  used_ += bytes;
}

void Allocator::release(std::uint64_t offset, std::uint64_t bytes) {
  auto next = free_.lower_bound(offset);
  if (next != free_.end() && offset + bytes == next->first) {
    bytes += next->second;
    next = free_.erase(next);
  }
  if (next != free_.begin()) {
    auto prev = std::prev(next);
    if (prev->first + prev->second == offset) {
      prev->second += bytes;
      return;
    }
  }
  free_[offset] = bytes;
}

bool Allocator::free(std::uint64_t offset) {
  auto it = blocks_.find(offset);
  if (it == blocks_.end()) return false;
  used_ -= it->second;
  release(it->first, it->second);
  blocks_.erase(it);
  return true;
}

std::uint64_t Allocator::block_size(std::uint64_t offset) const {
  auto it = blocks_.find(offset);
  return it == blocks_.end() ? 0 : it->second;
}

void Allocator::grow(std::uint64_t new_end) {
  if (new_end <= end_) return;
  release(end_, new_end - end_);
  end_ = new_end;
}

std::uint64_t Allocator::free_bytes() const {
  return (end_ - begin_) - used_;
}

std::uint64_t Allocator::largest_free() const {
  std::uint64_t best = 0;
  for (const auto& [off, size] : free_) best = std::max(best, size);
  return best;
}

std::uint64_t Allocator::shortfall(std::uint64_t bytes, std::uint64_t align,
                                   std::uint64_t phase) const {
  constexpr std::uint64_t kAll = ~std::uint64_t{0};
  if (bytes > kAll / 4 || align > kAll / 4) return kAll;  // more than any heap: saturate
  bytes = align_up(bytes, 16);
  std::uint64_t tail_start = end_;
  if (!free_.empty()) {
    const auto& last = *free_.rbegin();
    if (last.first + last.second == end_) tail_start = last.first;
  }
  return place(tail_start, align, phase) + bytes - end_;
}

}  // namespace symmetra::detail
