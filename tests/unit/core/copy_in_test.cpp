// host_copy_in and each of its loops: every byte against memcpy's copy of fresh random data, at
// every relative alignment of source and destination that matters (0-64 bytes apart, and around
// the 4 KiB page), sizes across the loops' head, body and tail, and untouched guard bytes.
#include "core/copy_in.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <random>
#include <utility>
#include <vector>

#include "symmetra/device/group.hpp"
#include "symmetra/device/impl/copy.hpp"

namespace symmetra::device::detail {
namespace {

using Copy = bool (*)(void*, const void*, std::size_t);

// Copies `bytes` from src_off to dst_off with `copy` and checks the result and the guards.
void check(Copy copy, std::mt19937_64& rng, std::size_t bytes, std::size_t src_off,
           std::size_t dst_off) {
  constexpr std::size_t kGuard = 256;
  std::vector<unsigned char> src(bytes + src_off + kGuard), dst(bytes + dst_off + 2 * kGuard);
  for (auto& b : src) b = static_cast<unsigned char>(rng());
  const auto fill = static_cast<unsigned char>(rng() | 1);
  std::memset(dst.data(), fill, dst.size());
  unsigned char* d = dst.data() + kGuard + dst_off;
  const unsigned char* s = src.data() + src_off;
  ASSERT_TRUE(copy(d, s, bytes));
  std::size_t bad = 0;
  for (std::size_t i = 0; i < bytes; ++i) bad += d[i] != s[i];
  EXPECT_EQ(bad, 0u) << bytes << " bytes, src offset " << src_off << ", dst offset " << dst_off;
  for (std::size_t i = 0; i < kGuard + dst_off; ++i)
    ASSERT_EQ(dst[i], fill) << "guard before, " << bytes << " bytes";
  for (std::size_t i = kGuard + dst_off + bytes; i < dst.size(); ++i)
    ASSERT_EQ(dst[i], fill) << "guard after, " << bytes << " bytes";
}

void sweep(Copy copy) {
  std::mt19937_64 rng(std::random_device{}());
  const std::size_t sizes[] = {0,    1,    63,   255,  256,  257,  511,   512,   513,
                               1000, 2047, 2048, 4095, 4096, 4097, 16385, 65536, 100003};
  for (std::size_t bytes : sizes)
    for (std::size_t src_off : {0, 1, 16, 63})
      for (std::size_t dst_off : {0, 1, 8, 16, 32, 48, 63, 64, 4080})
        ASSERT_NO_FATAL_FAILURE(check(copy, rng, bytes, src_off, dst_off));
  for (int i = 0; i < 200; ++i)  // and random ones
    ASSERT_NO_FATAL_FAILURE(check(copy, rng, rng() % 9000, rng() % 128, rng() % 4200));
}

TEST(CopyIn, HostCopyIn) {
  sweep([](void* d, const void* s, std::size_t n) {
    host_copy_in(d, s, n);
    return true;
  });
}

TEST(CopyIn, Memcpy) {
  sweep([](void* d, const void* s, std::size_t n) {
    return copy_in_using(CopyInLoop::kMemcpy, d, s, n);
  });
}

TEST(CopyIn, Avx2) {
  char probe = 0;
  if (!copy_in_using(CopyInLoop::kAvx2, &probe, &probe, 0))
    GTEST_SKIP() << "no AVX2 loop in this build or on this CPU";
  sweep([](void* d, const void* s, std::size_t n) {
    return copy_in_using(CopyInLoop::kAvx2, d, s, n);
  });
}

TEST(CopyIn, Avx512) {
  char probe = 0;
  if (!copy_in_using(CopyInLoop::kAvx512, &probe, &probe, 0))
    GTEST_SKIP() << "no AVX-512 loop in this build or on this CPU";
  sweep([](void* d, const void* s, std::size_t n) {
    return copy_in_using(CopyInLoop::kAvx512, d, s, n);
  });
}

// Gets pick host_copy_in or memcpy by size and by whether source and destination share their
// offset in a cache line (copy_in_wins); either way every byte must arrive, guards untouched.
TEST(CopyIn, GetsPickTheLoopByAlignment) {
  constexpr std::size_t kMax = (512u << 10) + 4096;
  auto* src = static_cast<unsigned char*>(std::aligned_alloc(4096, kMax + 4096));
  auto* dst = static_cast<unsigned char*>(std::aligned_alloc(4096, kMax + 8192));
  ASSERT_TRUE(src && dst);
  EXPECT_FALSE(copy_in_wins(dst, src, 1024));           // below: glibc's vectors
  EXPECT_TRUE(copy_in_wins(dst, src, 4096));            // small, aligned or not
  EXPECT_FALSE(copy_in_wins(dst, src, 8192));           // from 8 KiB at the same offset: memcpy
  EXPECT_TRUE(copy_in_wins(dst + 16, src, 65536));      // above L1, offsets differ
  EXPECT_FALSE(copy_in_wins(dst + 64, src, 65536));     // above L1, same offset in the line
  EXPECT_FALSE(copy_in_wins(dst + 16, src, 1u << 20));  // above 512 KiB: memcpy
  std::mt19937_64 rng(std::random_device{}());
  for (std::size_t bytes :
       {std::size_t{8191}, std::size_t{8192}, std::size_t{16384}, std::size_t{32768},
        std::size_t{65539}, std::size_t{524288}, std::size_t{524289}})
    for (auto [so, dof] :
         {std::pair<std::size_t, std::size_t>{0, 0}, {16, 0}, {0, 16}, {5, 37}, {64, 128}}) {
      for (std::size_t i = 0; i < bytes + so; ++i) src[i] = static_cast<unsigned char>(rng());
      const auto fill = static_cast<unsigned char>(rng() | 1);
      std::memset(dst, fill, kMax + 8192);
      group_copy_in(ThreadGroup{}, dst + 4096 + dof, src + so, bytes);
      std::size_t bad = 0;
      for (std::size_t i = 0; i < bytes; ++i) bad += dst[4096 + dof + i] != src[so + i];
      EXPECT_EQ(bad, 0u) << bytes << " bytes, offsets " << so << " / " << dof;
      for (std::size_t i = 0; i < 4096 + dof; ++i) ASSERT_EQ(dst[i], fill) << "guard before";
      for (std::size_t i = 4096 + dof + bytes; i < kMax + 8192; ++i)
        ASSERT_EQ(dst[i], fill) << "guard after";
    }
  std::free(src);
  std::free(dst);
}

}  // namespace
}  // namespace symmetra::device::detail
