// put / get / p / g / iput / iget and their nbi forms, every element checked against a reference
// computed independently on the receiving PE from the sender's seed.
#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "support/local_access.hpp"
#include "support/pe_runner.hpp"

namespace symmetra::testing {
namespace {

class RmaTest : public ::testing::TestWithParam<PeConfig> {};

// Value i of the block PE `pe` sends in round `round`: recomputable by anyone.
std::uint64_t pattern(std::uint64_t seed, int pe, int round, std::size_t i) {
  std::uint64_t x =
      seed ^ (static_cast<std::uint64_t>(pe) << 40) ^ (static_cast<std::uint64_t>(round) << 32) ^ i;
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdull;
  x ^= x >> 33;
  return x | 1;  // never zero
}

TEST_P(RmaTest, PutmemRingEverySize) {
  run_pes(GetParam(), [](Runtime& rt) {
    const int me = rt.my_pe(), n = rt.n_pes();
    const std::uint64_t seed = run_seed();
    for (std::size_t bytes : {1ul, 7ul, 8ul, 64ul, 1000ul, 65536ul + 3, 1ul << 20}) {
      auto* dst = static_cast<unsigned char*>(rt.allocate(bytes));
      fill(rt, dst, bytes, static_cast<unsigned char>(0xEE));  // poison
      std::vector<unsigned char> src(bytes);
      for (std::size_t i = 0; i < bytes; ++i)
        src[i] = static_cast<unsigned char>(pattern(seed, me, 0, i));
      rt.barrier_all();
      rt.putmem(dst, src.data(), bytes, (me + 1) % n);
      rt.barrier_all();
      const int from = (me + n - 1) % n;
      std::size_t bad = 0;
      const auto got = ld(rt, dst, bytes);
      for (std::size_t i = 0; i < bytes; ++i)
        bad += got[i] != static_cast<unsigned char>(pattern(seed, from, 0, i));
      EXPECT_EQ(bad, 0u) << "bytes " << bytes << " on PE " << me;
      rt.free(dst);
    }
  });
}

TEST_P(RmaTest, TypedPutGetAllPairs) {
  run_pes(GetParam(), [](Runtime& rt) {
    const int me = rt.my_pe(), n = rt.n_pes();
    const std::uint64_t seed = run_seed();
    constexpr std::size_t kN = 333;
    auto* slots = rt.allocate_array<double>(kN * n);  // slot k receives from PE k
    auto* mine = rt.allocate_array<double>(kN);
    std::vector<double> host_mine(kN);
    for (std::size_t i = 0; i < kN; ++i)
      host_mine[i] = static_cast<double>(pattern(seed, me, 1, i) % 1000003) * 0.5;
    st(rt, mine, host_mine);
    fill(rt, slots, kN * n, -1.0);
    rt.barrier_all();
    for (int pe = 0; pe < n; ++pe) rt.put(slots + kN * me, host_mine.data(), kN, pe);
    rt.barrier_all();
    const auto got_slots = ld(rt, slots, kN * n);
    for (int k = 0; k < n; ++k)
      for (std::size_t i = 0; i < kN; ++i)
        ASSERT_EQ(got_slots[kN * k + i],
                  static_cast<double>(pattern(seed, k, 1, i) % 1000003) * 0.5)
            << "from PE " << k << " element " << i;
    // get: read every PE's `mine` and check it.
    std::vector<double> got(kN, -2);
    for (int pe = 0; pe < n; ++pe) {
      rt.get(got.data(), mine, kN, pe);
      for (std::size_t i = 0; i < kN; ++i)
        ASSERT_EQ(got[i], static_cast<double>(pattern(seed, pe, 1, i) % 1000003) * 0.5);
      rt.get_nbi(got.data(), mine, kN, pe);
      rt.quiet();
      ASSERT_EQ(got[kN - 1], static_cast<double>(pattern(seed, pe, 1, kN - 1) % 1000003) * 0.5);
    }
    rt.free(mine);
    rt.free(slots);
  });
}

// Many get_nbi in flight at once (more than a transport keeps before it completes the oldest),
// of ragged sizes from every PE, into separate buffers: each is whole after one quiet.
TEST_P(RmaTest, ManyGetNbiCompleteAtQuiet) {
  run_pes(GetParam(), [](Runtime& rt) {
    const int me = rt.my_pe(), n = rt.n_pes();
    const std::uint64_t seed = run_seed();
    constexpr std::size_t kWords = 4096, kGets = 600;
    auto* mine = rt.allocate_array<std::uint64_t>(kWords);
    std::vector<std::uint64_t> host(kWords);
    for (std::size_t i = 0; i < kWords; ++i) host[i] = pattern(seed, me, 7, i);
    st(rt, mine, host);
    rt.barrier_all();
    struct Get {
      int pe;
      std::size_t first, count;
    };
    std::vector<Get> gets;
    std::vector<std::vector<std::uint64_t>> got(kGets);
    for (std::size_t k = 0; k < kGets; ++k) {
      const std::uint64_t r = pattern(seed, me, 8, k);
      const Get g{static_cast<int>(r % static_cast<std::uint64_t>(n)), (r >> 8) % (kWords - 64),
                  1 + (r >> 24) % 63};
      got[k].assign(g.count, 0);
      gets.push_back(g);
      rt.get_nbi(got[k].data(), mine + g.first, g.count, g.pe);
    }
    rt.quiet();
    for (std::size_t k = 0; k < kGets; ++k)
      for (std::size_t i = 0; i < gets[k].count; ++i)
        ASSERT_EQ(got[k][i], pattern(seed, gets[k].pe, 7, gets[k].first + i))
            << "get " << k << " from PE " << gets[k].pe << ", element " << i;
    rt.barrier_all();
    rt.free(mine);
  });
}

// flush: after it, every get_nbi's destination is whole (the same gets as above, ending in a
// flush instead of a quiet), and a put_nbi's source may be reused: each PE overwrites the source
// of its put_nbi after the flush, and its neighbour sees the values sent, not the new ones.
TEST_P(RmaTest, FlushCompletesNbiLocally) {
  run_pes(GetParam(), [](Runtime& rt) {
    const int me = rt.my_pe(), n = rt.n_pes();
    const std::uint64_t seed = run_seed();
    constexpr std::size_t kWords = 4096, kGets = 200;
    auto* mine = rt.allocate_array<std::uint64_t>(kWords);
    auto* inbox = rt.allocate_array<std::uint64_t>(kWords);
    std::vector<std::uint64_t> host(kWords);
    for (std::size_t i = 0; i < kWords; ++i) host[i] = pattern(seed, me, 11, i);
    st(rt, mine, host);
    rt.barrier_all();
    std::vector<std::vector<std::uint64_t>> got(kGets);
    std::vector<std::pair<int, std::size_t>> where(kGets);
    for (std::size_t k = 0; k < kGets; ++k) {
      const std::uint64_t r = pattern(seed, me, 12, k);
      where[k] = {static_cast<int>(r % static_cast<std::uint64_t>(n)), (r >> 8) % (kWords - 64)};
      got[k].assign(1 + (r >> 24) % 63, 0);
      rt.get_nbi(got[k].data(), mine + where[k].second, got[k].size(), where[k].first);
    }
    std::vector<std::uint64_t> src(kWords);
    for (std::size_t i = 0; i < kWords; ++i) src[i] = pattern(seed, me, 13, i);
    rt.put_nbi(inbox, src.data(), kWords, (me + 1) % n);
    rt.flush();
    for (std::size_t k = 0; k < kGets; ++k)
      for (std::size_t i = 0; i < got[k].size(); ++i)
        ASSERT_EQ(got[k][i], pattern(seed, where[k].first, 11, where[k].second + i))
            << "get " << k << " from PE " << where[k].first << ", element " << i;
    std::fill(src.begin(), src.end(), ~std::uint64_t{0});  // reused: the put has left it
    rt.barrier_all();
    const int from = (me + n - 1) % n;
    const auto in = ld(rt, inbox, kWords);
    for (std::size_t i = 0; i < kWords; ++i)
      ASSERT_EQ(in[i], pattern(seed, from, 13, i)) << "from PE " << from << ", element " << i;
    rt.barrier_all();
    rt.free(inbox);
    rt.free(mine);
  });
}

TEST_P(RmaTest, PAndGEveryType) {
  run_pes(GetParam(), [](Runtime& rt) {
    const int me = rt.my_pe(), n = rt.n_pes();
    auto* i16 = rt.allocate_array<std::int16_t>(n);
    auto* i32 = rt.allocate_array<std::int32_t>(n);
    auto* i64 = rt.allocate_array<std::int64_t>(n);
    auto* f32 = rt.allocate_array<float>(n);
    auto* f64 = rt.allocate_array<double>(n);
    auto* c = rt.allocate_array<char>(n);
    rt.barrier_all();
    for (int pe = 0; pe < n; ++pe) {
      rt.p(&i16[me], static_cast<std::int16_t>(-(me * 100 + pe)), pe);
      rt.p(&i32[me], -(me * 100000 + pe), pe);
      rt.p(&i64[me], -(static_cast<std::int64_t>(me) << 40) - pe, pe);
      rt.p(&f32[me], me * 1.5f + pe, pe);
      rt.p(&f64[me], me * 2.25 + pe, pe);
      rt.p(&c[me], static_cast<char>('a' + me), pe);
    }
    rt.barrier_all();
    const auto h16 = ld(rt, i16, n);
    const auto h32 = ld(rt, i32, n);
    const auto h64 = ld(rt, i64, n);
    const auto hf32 = ld(rt, f32, n);
    const auto hf64 = ld(rt, f64, n);
    const auto hc = ld(rt, c, n);
    for (int k = 0; k < n; ++k) {
      EXPECT_EQ(h16[k], static_cast<std::int16_t>(-(k * 100 + me)));
      EXPECT_EQ(h32[k], -(k * 100000 + me));
      EXPECT_EQ(h64[k], -(static_cast<std::int64_t>(k) << 40) - me);
      EXPECT_EQ(hf32[k], k * 1.5f + me);
      EXPECT_EQ(hf64[k], k * 2.25 + me);
      EXPECT_EQ(hc[k], static_cast<char>('a' + k));
      // g reads PE k's slot written by me
      EXPECT_EQ(rt.g(&i64[me], k), -(static_cast<std::int64_t>(me) << 40) - k);
    }
    rt.barrier_all();
    for (void* p : {static_cast<void*>(c), static_cast<void*>(f64), static_cast<void*>(f32),
                    static_cast<void*>(i64), static_cast<void*>(i32), static_cast<void*>(i16)})
      rt.free(p);
  });
}

TEST_P(RmaTest, StridedIputIget) {
  run_pes(GetParam(), [](Runtime& rt) {
    const int me = rt.my_pe(), n = rt.n_pes();
    const std::uint64_t seed = run_seed();
    constexpr std::size_t kN = 50;
    auto* dst = rt.allocate_array<std::int64_t>(kN * 3);
    auto* src = rt.allocate_array<std::int64_t>(kN * 2);
    fill(rt, dst, kN * 3, std::int64_t{-7});
    std::vector<std::int64_t> host_src(kN * 2);
    for (std::size_t i = 0; i < kN * 2; ++i)
      host_src[i] = static_cast<std::int64_t>(pattern(seed, me, 2, i) >> 2);
    st(rt, src, host_src);
    rt.barrier_all();
    const int to = (me + 1) % n, from = (me + n - 1) % n;
    rt.iput(dst, host_src.data(), 3, 2, kN, to);  // dst[3i] on `to` = src[2i]
    rt.barrier_all();
    const auto got_dst = ld(rt, dst, kN * 3);
    for (std::size_t i = 0; i < kN * 3; ++i) {
      const std::int64_t want =
          i % 3 == 0 ? static_cast<std::int64_t>(pattern(seed, from, 2, (i / 3) * 2) >> 2) : -7;
      ASSERT_EQ(got_dst[i], want) << "element " << i;
    }
    std::vector<std::int64_t> got(kN * 2, -9);
    rt.iget(got.data(), src, 2, 1, kN, to);  // got[2i] = src[i] on `to`
    for (std::size_t i = 0; i < kN * 2; ++i)
      ASSERT_EQ(got[i],
                i % 2 == 0 ? static_cast<std::int64_t>(pattern(seed, to, 2, i / 2) >> 2) : -9);
    rt.barrier_all();
    rt.free(src);
    rt.free(dst);
  });
}

// Unit strides take the contiguous put and get (device::iput's shortcut): every element and
// nothing past the last.
TEST_P(RmaTest, UnitStrideIputIget) {
  run_pes(GetParam(), [](Runtime& rt) {
    const int me = rt.my_pe(), n = rt.n_pes();
    const std::uint64_t seed = run_seed();
    constexpr std::size_t kN = 37;
    auto* dst = rt.allocate_array<std::int32_t>(kN + 1);
    auto* src = rt.allocate_array<std::int32_t>(kN);
    fill(rt, dst, kN + 1, std::int32_t{-7});
    std::vector<std::int32_t> host_src(kN);
    for (std::size_t i = 0; i < kN; ++i)
      host_src[i] = static_cast<std::int32_t>(pattern(seed, me, 3, i) >> 33);
    st(rt, src, host_src);
    rt.barrier_all();
    const int to = (me + 1) % n, from = (me + n - 1) % n;
    rt.iput(dst, host_src.data(), 1, 1, kN, to);
    rt.barrier_all();
    const auto got_dst = ld(rt, dst, kN + 1);
    for (std::size_t i = 0; i < kN; ++i)
      ASSERT_EQ(got_dst[i], static_cast<std::int32_t>(pattern(seed, from, 3, i) >> 33)) << i;
    ASSERT_EQ(got_dst[kN], -7) << "past the last element";
    std::vector<std::int32_t> got(kN + 1, -9);
    rt.iget(got.data(), src, 1, 1, kN, to);
    for (std::size_t i = 0; i < kN; ++i)
      ASSERT_EQ(got[i], static_cast<std::int32_t>(pattern(seed, to, 3, i) >> 33)) << i;
    ASSERT_EQ(got[kN], -9) << "past the last element";
    rt.barrier_all();
    rt.free(src);
    rt.free(dst);
  });
}

TEST_P(RmaTest, FenceOrdersPutBeforeFlag) {
  run_pes(GetParam(), [](Runtime& rt) {
    const int me = rt.my_pe(), n = rt.n_pes();
    constexpr std::size_t kN = 4096;
    auto* data = rt.allocate_array<std::uint32_t>(kN);
    auto* flag = rt.allocate_array<std::uint32_t>(1);
    st(rt, flag, 0u);
    rt.barrier_all();
    const int to = (me + 1) % n, from = (me + n - 1) % n;
    std::vector<std::uint32_t> src(kN);
    for (int round = 1; round <= 50; ++round) {
      for (std::size_t i = 0; i < kN; ++i)
        src[i] = static_cast<std::uint32_t>(round * 1000003u + i + me);
      rt.put_nbi(data, src.data(), kN, to);
      rt.fence();
      rt.p(flag, static_cast<std::uint32_t>(round), to);
      rt.wait_until(flag, Cmp::kGe, static_cast<std::uint32_t>(round));
      const auto got = ld(rt, data, kN);
      for (std::size_t i = 0; i < kN; i += 97)
        ASSERT_EQ(got[i], static_cast<std::uint32_t>(round * 1000003u + i + from));
      rt.barrier_all();  // the sender may overwrite `data` only after we checked it
    }
    rt.free(flag);
    rt.free(data);
  });
}

// Gets of 2 - 512 KiB take host_copy_in's vector loop on the CPU (device/impl/copy.hpp), at
// any relative alignment, including just before or after the source's offset modulo 4 KiB: every
// byte, and the bytes around, checked, on both sides of the size range.
TEST_P(RmaTest, GetmemAtEveryRelativeAlignment) {
  run_pes(GetParam(), [](Runtime& rt) {
    const int me = rt.my_pe(), n = rt.n_pes();
    const int from = (me + 1) % n;
    const std::uint64_t seed = run_seed();
    constexpr std::size_t kMax = (1u << 19) + 1;
    auto* src = static_cast<unsigned char*>(rt.align(4096, kMax));
    std::vector<unsigned char> mine(kMax);
    for (std::size_t i = 0; i < kMax; ++i)
      mine[i] = static_cast<unsigned char>(pattern(seed, me, 5, i));
    st(rt, src, mine);
    rt.barrier_all();
    std::vector<unsigned char> page(kMax + 3 * 4096);
    unsigned char* base =
        page.data() + (4096 - reinterpret_cast<std::uintptr_t>(page.data()) % 4096);
    for (std::size_t bytes :
         {2047ul, 2048ul, 4095ul, 4096ul, 5000ul, 16385ul, 65537ul, kMax - 1, kMax}) {
      for (std::size_t off : {0ul, 8ul, 16ul, 63ul, 64ul, 2048ul, 4032ul, 4040ul, 4088ul}) {
        unsigned char* dst = base + off;
        std::memset(base, 0xEE, kMax + 4096);
        rt.getmem(dst, src, bytes, from);
        std::size_t bad = 0;
        for (std::size_t i = 0; i < bytes; ++i)
          bad += dst[i] != static_cast<unsigned char>(pattern(seed, from, 5, i));
        EXPECT_EQ(bad, 0u) << bytes << " bytes at offset " << off;
        if (off > 0) EXPECT_EQ(dst[-1], 0xEE) << "byte before, offset " << off;
        EXPECT_EQ(dst[bytes], 0xEE) << "byte after, " << bytes << " bytes at offset " << off;
      }
    }
    rt.barrier_all();
    rt.free(src);
  });
}

SYMMETRA_INSTANTIATE_PES(RmaTest);

}  // namespace
}  // namespace symmetra::testing
