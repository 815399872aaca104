// The all-reduce selector: table parsing, table lookup by team shape and size, the defaults,
// SYMMETRA_ALGO, and the fallback to LL algorithms when buffers are not symmetric.
#include "coll/selector.hpp"

#include <gtest/gtest.h>

#include <cstdlib>

namespace symmetra::detail {
namespace {

using A = coll::AllreduceAlgo;
using B = coll::Buffers;

device::TeamDesc team(int size, int local) {
  device::TeamDesc t;
  t.size = size;
  t.local = local;
  t.my_rank = 0;
  return t;
}

TEST(Selector, ParsesTablesAndRejectsBadLines) {
  auto rows = Selector::parse_table(
      "# comment\nallreduce 8 8 1024 ll_two_shot\n\nallreduce 8 8 99999 two_shot # tail\n", "t");
  ASSERT_TRUE(rows.ok()) << rows.status().message();
  ASSERT_EQ(rows.value().size(), 2u);
  EXPECT_EQ(rows.value()[1].max_bytes, 99999u);
  EXPECT_EQ(rows.value()[1].algo, A::kTwoShot);
  for (const char* bad : {"allreduce 8 8 1024 fastest\n", "allreduce 8 8\n",
                          "broadcast 8 8 1 ring\n", "allreduce 8 8 1 auto\n"}) {
    auto r = Selector::parse_table(bad, "file.txt");
    ASSERT_FALSE(r.ok()) << bad;
    EXPECT_NE(r.status().message().find("file.txt:1"), std::string::npos) << r.status().message();
  }
}

TEST(Selector, TableRowsMatchShapeAndSize) {
  Selector s(A::kAuto, {{4, 4, 1024, A::kRecursiveDoubling},
                        {4, 4, 1u << 20, A::kRing},
                        {4, 2, 1u << 30, A::kHierarchical}});
  EXPECT_EQ(s.pick(team(4, 4), 8, B::kSeparate, false), A::kRecursiveDoubling);
  EXPECT_EQ(s.pick(team(4, 4), 1024, B::kSeparate, false), A::kRecursiveDoubling);
  EXPECT_EQ(s.pick(team(4, 4), 1025, B::kSeparate, false), A::kRing);
  EXPECT_EQ(s.pick(team(4, 2), 1025, B::kSeparate, false), A::kHierarchical);
  // Past the table, or another shape: the defaults.
  EXPECT_EQ(s.pick(team(4, 4), 2u << 20, B::kSeparate, false),
            coll::default_algo(team(4, 4), 2u << 20, false));
  EXPECT_EQ(s.pick(team(8, 8), 64, B::kSeparate, true), A::kRecursiveDoubling);
  EXPECT_EQ(s.pick(team(8, 8), 32 << 10, B::kSeparate, true), A::kLLTwoShot);
  // Ring needs symmetric buffers: the LL algorithm of the team's shape instead.
  EXPECT_EQ(s.pick(team(4, 4), 4096, B::kOther, false), A::kLLTwoShot);
  EXPECT_EQ(s.pick(team(4, 2), 1u << 25, B::kOther, false), A::kHierarchical);
  // In place the ring still runs; where a row says one-shot or two-shot, the LL two-shot.
  EXPECT_EQ(s.pick(team(4, 4), 4096, B::kInPlace, false), A::kRing);
  EXPECT_EQ(Selector(A::kTwoShot, {}).pick(team(4, 4), 4096, B::kInPlace, false), A::kLLTwoShot);
  EXPECT_EQ(Selector(A::kOneShot, {}).pick(team(2, 2), 64, B::kInPlace, false), A::kLLTwoShot);
  EXPECT_EQ(Selector(A::kAuto, {}).pick(team(2, 2), 1u << 20, B::kInPlace, false), A::kRing);
}

TEST(Selector, DefaultsFollowTopologyAndBackend) {
  EXPECT_EQ(coll::default_algo(team(8, 8), 16 << 10, true), A::kRecursiveDoubling);
  EXPECT_EQ(coll::default_algo(team(8, 8), 32 << 10, true), A::kLLTwoShot);
  EXPECT_EQ(coll::default_algo(team(8, 8), 512 << 10, true), A::kLLTwoShot);
  EXPECT_EQ(coll::default_algo(team(8, 8), 1 << 20, true), A::kTwoShot);
  EXPECT_EQ(coll::default_algo(team(8, 8), 64 << 20, true), A::kTwoShot);
  EXPECT_EQ(coll::default_algo(team(2, 2), 256 << 10, true), A::kRecursiveDoubling);
  EXPECT_EQ(coll::default_algo(team(2, 2), 512 << 10, true), A::kLLTwoShot);
  EXPECT_EQ(coll::default_algo(team(2, 2), 1 << 20, true), A::kOneShot);
  EXPECT_EQ(coll::default_algo(team(2, 2), 64 << 20, true), A::kOneShot);
  EXPECT_EQ(coll::default_algo(team(8, 4), 64 << 10, true), A::kHierarchical);
  // Across hosts the hierarchy, and from put_ring_from the put ring where dest and source are
  // separate and symmetric (the ring loads its predecessor's buffers; the put ring writes the
  // successor's dest).
  EXPECT_EQ(coll::default_algo(team(8, 4), 64 << 20, true), A::kHierarchical);
  EXPECT_EQ(coll::default_algo(team(8, 4), 64 << 20, false), A::kHierarchical);
  for (bool gpu : {false, true}) {
    const std::size_t from = coll::put_ring_from(gpu);
    EXPECT_EQ(coll::default_algo(team(8, 4), from - 1, gpu, B::kSeparate), A::kHierarchical);
    EXPECT_EQ(coll::default_algo(team(8, 4), from, gpu, B::kSeparate), A::kPutRing);
  }
  EXPECT_EQ(coll::default_algo(team(4, 1), 64 << 20, false, B::kSeparate), A::kPutRing);
  EXPECT_EQ(coll::default_algo(team(8, 4), 64 << 20, false, B::kInPlace), A::kHierarchical);
  EXPECT_EQ(coll::default_algo(team(8, 4), 64 << 20, true, B::kOther), A::kHierarchical);
  EXPECT_EQ(coll::default_algo(team(4, 4), 1 << 20, false, B::kSeparate), A::kTwoShot);
  EXPECT_EQ(coll::default_algo(team(4, 4), 1 << 20, false, B::kInPlace), A::kRing);
  EXPECT_EQ(coll::default_algo(team(8, 0), 64, true),
            A::kHierarchical);  // irregular: every member a host
  // CPU, one host: the two-shot where dest and source may be apart (the selector falls back for
  // private buffers), the ring in place.
  EXPECT_EQ(coll::default_algo(team(4, 4), 512, false), A::kRecursiveDoubling);
  EXPECT_EQ(coll::default_algo(team(4, 4), 513, false), A::kTwoShot);
  EXPECT_EQ(coll::default_algo(team(4, 4), 64 << 20, false), A::kTwoShot);
  EXPECT_EQ(coll::default_algo(team(4, 4), 4096, false, B::kInPlace), A::kRecursiveDoubling);
  EXPECT_EQ(coll::default_algo(team(4, 4), 4097, false, B::kInPlace), A::kRing);
  EXPECT_EQ(coll::default_algo(team(2, 2), 512, false), A::kRecursiveDoubling);
  EXPECT_EQ(coll::default_algo(team(2, 2), 516, false), A::kTwoShot);
  EXPECT_EQ(coll::default_algo(team(2, 2), 1 << 20, false, B::kSeparate), A::kTwoShot);
  EXPECT_EQ(coll::default_algo(team(2, 2), (1 << 20) + 4, false, B::kSeparate), A::kRing);
  EXPECT_EQ(coll::default_algo(team(2, 2), 1024, false, B::kInPlace), A::kRecursiveDoubling);
  EXPECT_EQ(coll::default_algo(team(2, 2), 1028, false, B::kInPlace), A::kRing);
  EXPECT_EQ(coll::default_algo(team(1, 1), 1 << 20, false), A::kOneShot);
}

// A forced algorithm or a table row that loads and stores members' memory does not cross hosts.
TEST(Selector, LoadStoreAlgorithmsStayInsideOneHost) {
  for (A a : {A::kOneShot, A::kTwoShot, A::kRing}) {
    EXPECT_EQ(Selector(a, {}).pick(team(8, 4), 1 << 20, B::kSeparate, false, false),
              A::kHierarchical)
        << coll::algo_name(a);
    EXPECT_EQ(Selector(A::kAuto, {{8, 4, ~std::size_t{0}, a}})
                  .pick(team(8, 4), 64, B::kSeparate, true, false),
              A::kHierarchical)
        << coll::algo_name(a);
    EXPECT_EQ(Selector(a, {}).pick(team(8, 8), 1 << 20, B::kSeparate, false, false), a)
        << coll::algo_name(a);
  }
  // The put ring crosses hosts, but only with separate symmetric buffers.
  EXPECT_EQ(Selector().pick(team(8, 4), 1 << 20, B::kSeparate, true, false), A::kPutRing);
  EXPECT_EQ(Selector(A::kPutRing, {}).pick(team(8, 4), 64, B::kSeparate, true, false), A::kPutRing);
  EXPECT_EQ(Selector(A::kPutRing, {}).pick(team(8, 4), 1 << 20, B::kInPlace, true, false),
            A::kHierarchical);
  EXPECT_EQ(Selector(A::kPutRing, {}).pick(team(8, 8), 1 << 20, B::kOther, false, false),
            A::kLLTwoShot);
}

TEST(Selector, NcclTakesTheMiddleSizesWhereItCanServe) {
  Selector plain;
  EXPECT_EQ(plain.pick(team(8, 8), Selector::kNcclAbove, B::kSeparate, true, true),
            coll::default_algo(team(8, 8), Selector::kNcclAbove, true));
  EXPECT_EQ(plain.pick(team(8, 8), Selector::kNcclAbove + 1, B::kSeparate, true, true), A::kNccl);
  EXPECT_EQ(plain.pick(team(8, 8), 512 << 10, B::kSeparate, true, true), A::kNccl);
  EXPECT_EQ(plain.pick(team(8, 8), Selector::kNcclUpTo, B::kSeparate, true, true), A::kNccl);
  EXPECT_EQ(plain.pick(team(8, 8), Selector::kNcclUpTo + 1, B::kSeparate, true, true), A::kTwoShot);
  EXPECT_EQ(plain.pick(team(2, 2), 64 << 20, B::kSeparate, true, true), A::kOneShot);
  EXPECT_EQ(plain.pick(team(8, 8), 512 << 10, B::kSeparate, true, false),
            A::kLLTwoShot);  // NCCL cannot serve
  EXPECT_EQ(plain.pick(team(8, 8), 512 << 10, B::kSeparate, false, true),
            coll::default_algo(team(8, 8), 512 << 10, false));  // CPU
  Selector table(A::kAuto, {{8, 8, ~std::size_t{0}, A::kNccl}});
  EXPECT_EQ(table.pick(team(8, 8), 64, B::kSeparate, true, true), A::kNccl);
  EXPECT_EQ(table.pick(team(8, 8), 64, B::kSeparate, true, false),
            coll::default_algo(team(8, 8), 64, true));
}

TEST(Selector, EnvironmentForcesAndReportsBadValues) {
  setenv("SYMMETRA_ALGO", "allreduce=ring", 1);
  auto s = Selector::from_env();
  ASSERT_TRUE(s.ok()) << s.status().message();
  EXPECT_EQ(s.value().pick(team(4, 4), 8, B::kSeparate, false), A::kRing);
  setenv("SYMMETRA_ALGO", "fastest", 1);
  auto bad = Selector::from_env();
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("SYMMETRA_ALGO='fastest'"), std::string::npos);
  unsetenv("SYMMETRA_ALGO");
  setenv("SYMMETRA_TUNE_FILE", "/nonexistent/tune.txt", 1);
  auto missing = Selector::from_env();
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.status().message().find("/nonexistent/tune.txt"), std::string::npos);
  unsetenv("SYMMETRA_TUNE_FILE");
}

}  // namespace
}  // namespace symmetra::detail
