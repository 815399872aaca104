// Address translation of the uniform heap layout (docs/design.md §1.3): peer(p, pe) is one add of
// (index(pe) - index(me)) * stride, and ptr() refuses what is not reachable or not symmetric.
#include "symmetra/device/context.hpp"

#include <gtest/gtest.h>

#include <vector>

#include "symmetra/device/rma.hpp"

namespace symmetra::device {
namespace {

TEST(Context, PeerAddsIndexDistanceTimesStride) {
  // Four PEs mapped in the order 2, 0, 3 (PE 1 is on another host).
  std::vector<std::int32_t> index = {1, -1, 0, 2};
  alignas(64) static std::byte heaps[3 * 4096];
  Context c;
  c.stride = 4096;
  c.my_pe = 0;
  c.n_pes = 4;
  c.my_index = 1;
  c.pe_index = index.data();
  c.heap_base = heaps + 1 * 4096;
  c.heap_bytes = 4096;
  auto* x = reinterpret_cast<long*>(c.heap_base + 128);
  EXPECT_EQ(reinterpret_cast<std::byte*>(c.peer(x, 2)), heaps + 128);
  EXPECT_EQ(reinterpret_cast<std::byte*>(c.peer(x, 3)), heaps + 2 * 4096 + 128);
  EXPECT_EQ(c.peer(x, 0), x);
  EXPECT_EQ(ptr(c, x, 3), c.peer(x, 3));
  EXPECT_EQ(ptr(c, x, 1), nullptr);  // unreachable PE
  EXPECT_EQ(ptr(c, x, 7), nullptr);  // no such PE
  EXPECT_EQ(ptr(c, x, -1), nullptr);
  long outside = 0;
  EXPECT_EQ(ptr(c, &outside, 2), nullptr);  // not symmetric
  auto* last = reinterpret_cast<char*>(c.heap_base + 4095);
  EXPECT_NE(ptr(c, last, 2), nullptr);
  EXPECT_EQ(ptr(c, last + 1, 2), nullptr);  // one past the heap
}

}  // namespace
}  // namespace symmetra::device
