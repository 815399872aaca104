#include "heap/allocator.hpp"

#include <gtest/gtest.h>

#include <iterator>
#include <map>
#include <random>

namespace symmetra::detail {
namespace {

TEST(Allocator, FirstFitAlignmentAndReuse) {
  Allocator a(4096, 4096 + 1024);
  auto x = a.allocate(100, 16);
  ASSERT_TRUE(x);
  EXPECT_EQ(*x, 4096u);
  EXPECT_EQ(a.block_size(*x), 112u);  // 16-byte granules
  auto y = a.allocate(10, 256);
  ASSERT_TRUE(y);
  EXPECT_EQ(*y % 256, 0u);
  EXPECT_FALSE(a.allocate(2000, 16));
  EXPECT_TRUE(a.free(*x));
  EXPECT_FALSE(a.free(*x));  // double free is reported
  auto z = a.allocate(50, 16);
  ASSERT_TRUE(z);
  EXPECT_EQ(*z, 4096u);  // the hole is reused
  EXPECT_FALSE(a.allocate(0, 16));
  EXPECT_FALSE(a.allocate(8, 3));  // not a power of two
}

// Sizes near 0, near the range's size and near SIZE_MAX, with random alignments and phases,
// on fresh random requests: every result is refused or a block inside the range that overlaps
// no live block (issue 51: SIZE_MAX rounded up to 16 wrapped to 0 and returned a live offset).
TEST(Allocator, SizesNoRangeCanHoldAreRefusedAndBlocksNeverOverlap) {
  constexpr std::uint64_t kBegin = 4096, kSize = 1 << 20, kMax = ~std::uint64_t{0};
  std::mt19937_64 rng(std::random_device{}());
  Allocator a(kBegin, kBegin + kSize);
  std::map<std::uint64_t, std::uint64_t> live;  // offset -> bytes asked
  const std::uint64_t near[] = {0,          1,         15,          16,        17,
                                kSize - 16, kSize - 1, kSize,       kSize + 1, kMax,
                                kMax - 15,  kMax - 63, kMax - 4095, kMax / 2,  kMax / 2 + 1};
  for (int i = 0; i < 20000; ++i) {
    const std::uint64_t bytes =
        rng() % 3 == 0 ? near[rng() % std::size(near)] + rng() % 3 : 1 + rng() % (kSize / 8);
    const std::uint64_t align = std::uint64_t{1} << (rng() % 64);
    const std::uint64_t phase = align >= 32 && rng() % 2 ? 16 : 0;
    const auto got = a.allocate(bytes, align, phase);
    if (got) {
      ASSERT_NE(bytes, 0u);
      ASSERT_GE(*got, kBegin);
      ASSERT_LE(bytes, kBegin + kSize - *got) << "past the range: " << bytes << " at " << *got;
      ASSERT_EQ((*got - phase) % align, 0u);
      auto next = live.lower_bound(*got);
      if (next != live.end()) ASSERT_LE(*got + bytes, next->first) << "overlaps the next block";
      if (next != live.begin()) {
        const auto prev = std::prev(next);
        ASSERT_LE(prev->first + prev->second, *got) << "overlaps the block before";
      }
      live[*got] = bytes;
    }
    if (!live.empty() && rng() % 2) {  // free a random live block
      auto it = std::next(live.begin(), static_cast<long>(rng() % live.size()));
      ASSERT_TRUE(a.free(it->first));
      live.erase(it);
    }
    if (bytes > kMax / 2) EXPECT_EQ(a.shortfall(bytes, align, phase), kMax);
  }
}

TEST(Allocator, MergesNeighboursAndGrows) {
  Allocator a(0, 1000 * 16);
  std::vector<std::uint64_t> blocks;
  for (int i = 0; i < 1000; ++i) blocks.push_back(*a.allocate(16, 16));
  EXPECT_FALSE(a.allocate(16, 16));
  EXPECT_EQ(a.free_bytes(), 0u);
  for (int i = 0; i < 1000; i += 2) a.free(blocks[i]);
  for (int i = 1; i < 1000; i += 2) a.free(blocks[i]);
  EXPECT_EQ(a.largest_free(), 16000u);  // fully merged
  EXPECT_EQ(a.used_bytes(), 0u);
  auto big = a.allocate(16000, 16);
  ASSERT_TRUE(big);
  EXPECT_EQ(a.shortfall(100, 16), 112u);
  a.grow(16000 + 4096);
  EXPECT_TRUE(a.allocate(100, 16));
}

// Malloc-like placement (Runtime::allocate on the CPU): 16 bytes past a 64-byte boundary, from
// wherever the free run starts; the tail estimate for growing agrees with where it lands.
TEST(Allocator, PhasePastAlignment) {
  Allocator a(4096, 4096 + 4096);
  auto x = a.allocate(8, 16);  // 4096: the next free byte is 4112
  ASSERT_TRUE(x);
  auto y = a.allocate(300, 64, 16);
  ASSERT_TRUE(y);
  EXPECT_EQ(*y, 4096u + 16u);  // 4112 is already 16 past a multiple of 64
  auto z = a.allocate(300, 64, 16);
  ASSERT_TRUE(z);
  EXPECT_EQ(*z % 64, 16u);
  EXPECT_GE(*z, *y + 304u);
  EXPECT_FALSE(a.allocate(8, 64, 64));  // phase must lie below the alignment
  EXPECT_FALSE(a.allocate(8, 64, 8));   // and keep blocks 16-byte granular
  const std::uint64_t tail = a.end() + a.shortfall(5000, 64, 16);
  a.grow(tail);
  auto w = a.allocate(5000, 64, 16);
  ASSERT_TRUE(w);
  EXPECT_EQ(*w % 64, 16u);
  EXPECT_EQ(*w + 5008u, tail);  // it fits exactly where shortfall said
}

// reserve takes exactly the range asked for, only where all of it is free, and allocate then
// works around it (register_symmetric places a user's buffer this way at the heap's end).
TEST(Allocator, ReserveTakesExactlyAFreeRange) {
  Allocator a(0, 4096);
  auto x = a.allocate(1000, 16);
  ASSERT_TRUE(x);
  EXPECT_FALSE(a.reserve(*x + 16, 64));  // inside a live block
  EXPECT_FALSE(a.reserve(4000, 200));    // past the end
  EXPECT_FALSE(a.reserve(2048, 0));
  a.grow(8192);
  ASSERT_TRUE(a.reserve(4096, 4096));
  EXPECT_EQ(a.block_size(4096), 4096u);
  EXPECT_EQ(a.used_bytes(), 1008u + 4096u);
  EXPECT_FALSE(a.reserve(6000, 16));  // already taken
  auto y = a.allocate(3000, 16);      // the free run below the reservation
  ASSERT_TRUE(y);
  EXPECT_LE(*y + 3000, 4096u);
  EXPECT_FALSE(a.allocate(2000, 16));  // nothing else fits below it
  ASSERT_TRUE(a.free(4096));
  EXPECT_TRUE(a.allocate(2000, 16));
}

// Random allocate/free against a reference of live intervals: blocks never overlap, stay in
// range, and freeing everything restores one free run.
TEST(Allocator, RandomNeverOverlaps) {
  std::mt19937_64 rng(std::random_device{}());
  Allocator a(64, 64 + (1 << 20));
  std::map<std::uint64_t, std::uint64_t> live;
  for (int step = 0; step < 20000; ++step) {
    if (live.empty() || rng() % 3 != 0) {
      const std::uint64_t bytes = 1 + rng() % 5000, align = std::uint64_t{1} << (rng() % 10);
      const std::uint64_t phase = align > 16 && rng() % 2 ? 16 * (rng() % (align / 16)) : 0;
      auto at = a.allocate(bytes, align, phase);
      if (!at) continue;
      ASSERT_EQ(*at % align, phase);
      ASSERT_GE(*at, 64u);
      ASSERT_LE(*at + bytes, 64u + (1 << 20));
      auto next = live.lower_bound(*at);
      if (next != live.end()) ASSERT_LE(*at + bytes, next->first);
      if (next != live.begin()) ASSERT_LE(std::prev(next)->first + std::prev(next)->second, *at);
      live[*at] = a.block_size(*at);
    } else {
      auto it = std::next(live.begin(), static_cast<long>(rng() % live.size()));
      ASSERT_TRUE(a.free(it->first));
      live.erase(it);
    }
  }
  for (auto& [off, size] : live) ASSERT_TRUE(a.free(off));
  EXPECT_EQ(a.largest_free(), 1u << 20);
}

}  // namespace
}  // namespace symmetra::detail
