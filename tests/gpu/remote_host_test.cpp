// GPU PEs on two forced hosts of this machine (SYMMETRA_HOSTS=2, set by each test): the host
// forms reach the other host's device heap through the UCX transport in served mode, the
// origin staging device memory through its bounce buffer and the target's CPU storing into its
// GPU through the CUDA backend (docs/proxy.md, "GPU memory over UCX"). What the API suites
// (gpu_{rma,amo,signal,wait}_test under SYMMETRA_HOSTS=2) do not reach: puts and gets larger
// than the bounce buffer, device memory on both sides, a heap grown after init, and the forms
// that have no remote path yet saying so.
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>
#include <vector>

#include "support/local_access.hpp"
#include "support/pe_runner.hpp"
#include "symmetra/coll.hpp"

namespace symmetra::testing {
namespace {

class GpuRemoteTest : public ::testing::TestWithParam<PeConfig> {
 protected:
  void SetUp() override { setenv("SYMMETRA_HOSTS", "2", 1); }
  void TearDown() override { unsetenv("SYMMETRA_HOSTS"); }
};

std::uint32_t word(std::uint64_t seed, int pe, std::size_t i) {
  std::uint64_t x = seed ^ (static_cast<std::uint64_t>(pe) << 48) ^ (i * 0x9e3779b97f4a7c15ull);
  x ^= x >> 31;
  x *= 0xbf58476d1ce4e5b9ull;
  return static_cast<std::uint32_t>(x >> 17) | 1u;  // never zero
}

// The PE on the other host at this PE's place in it: half the job away.
int across(const Runtime& rt) {
  return (rt.my_pe() + rt.n_pes() / 2) % rt.n_pes();
}

void expect_two_hosts(Runtime& rt) {
  ASSERT_EQ(rt.team_shared().n_pes() * 2, rt.n_pes()) << "the PEs are not on two forced hosts";
}

// 9 MiB + 3 words from one device buffer to the other host's, and back into a third: three
// pieces of the 4 MiB bounce buffer each way, the last one short.
TEST_P(GpuRemoteTest, PutAndGetLargerThanTheBounceBuffer) {
  run_pes(GetParam(), [](Runtime& rt) {
    expect_two_hosts(rt);
    const std::uint64_t seed = run_seed();
    const std::size_t n = (9u << 20) / 4 + 3;
    const int me = rt.my_pe(), to = across(rt);
    auto* src = rt.allocate_array<std::uint32_t>(n);
    auto* dst = rt.allocate_array<std::uint32_t>(n);
    auto* back = rt.allocate_array<std::uint32_t>(n);
    std::vector<std::uint32_t> mine(n);
    for (std::size_t i = 0; i < n; ++i) mine[i] = word(seed, me, i);
    st(rt, src, mine);
    fill(rt, dst, n, 0xEEEEEEEEu);
    rt.barrier_all();
    rt.put(dst, src, n, to);  // device to device, across hosts
    rt.barrier_all();
    const int from = across(rt);  // n_pes even: the PE that put here
    std::size_t bad = 0;
    const std::vector<std::uint32_t> got = ld(rt, dst, n);
    for (std::size_t i = 0; i < n; ++i) bad += got[i] != word(seed, from, i);
    EXPECT_EQ(bad, 0u) << "put on PE " << me;
    rt.get(back, src, n, to);  // the other host's source, into device memory
    bad = 0;
    const std::vector<std::uint32_t> again = ld(rt, back, n);
    for (std::size_t i = 0; i < n; ++i) bad += again[i] != word(seed, to, i);
    EXPECT_EQ(bad, 0u) << "get on PE " << me;
    rt.barrier_all();
    rt.free(back);
    rt.free(dst);
    rt.free(src);
  });
}

// An allocation past the initial heap grows it, and the grown part is registered with the
// transport: a put to its last words on the other host lands there.
TEST_P(GpuRemoteTest, GrownHeapIsReachedAcrossHosts) {
  run_pes(GetParam(), [](Runtime& rt) {
    expect_two_hosts(rt);
    const std::uint64_t seed = run_seed();
    const std::size_t before = rt.heap_size();
    const std::size_t n = before / 4 + 1024;  // more words than the whole heap had
    auto* big = rt.allocate_array<std::uint32_t>(n);
    ASSERT_GT(rt.heap_size(), before);
    std::vector<std::uint32_t> tail(1024);
    for (std::size_t i = 0; i < tail.size(); ++i) tail[i] = word(seed, rt.my_pe(), i);
    rt.barrier_all();
    rt.put(big + n - tail.size(), tail.data(), tail.size(), across(rt));
    rt.barrier_all();
    const std::vector<std::uint32_t> got = ld(rt, big + n - tail.size(), tail.size());
    std::size_t bad = 0;
    for (std::size_t i = 0; i < tail.size(); ++i) bad += got[i] != word(seed, across(rt), i);
    EXPECT_EQ(bad, 0u) << "on PE " << rt.my_pe();
    rt.barrier_all();
    rt.free(big);
  });
}

// Collectives of GPU PEs across hosts need the proxy ring: the call says so, and a team of this
// host's PEs still works.
TEST_P(GpuRemoteTest, CollectivesAcrossHostsSaySoAndHostTeamsWork) {
  run_pes(GetParam(), [](Runtime& rt) {
    expect_two_hosts(rt);
    auto* x = rt.allocate_array<float>(64);
    auto* y = rt.allocate_array<float>(64);
    fill(rt, x, 64, 1.5f);
    try {
      rt.allreduce(rt.team_world(), y, x, 64, coll::ReduceOp::kSum);
      ADD_FAILURE() << "an all-reduce across hosts ran";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("across hosts run through the proxy ring"),
                std::string::npos)
          << e.what();
    }
    const Team host = rt.team_shared();
    rt.allreduce(host, y, x, 64, coll::ReduceOp::kSum);
    const std::vector<float> got = ld(rt, y, 64);
    for (float v : got) ASSERT_EQ(v, 1.5f * static_cast<float>(host.n_pes()));
    rt.barrier_all();
    rt.free(y);
    rt.free(x);
  });
}

INSTANTIATE_TEST_SUITE_P(Gpu, GpuRemoteTest,
                         ::testing::Values(PeConfig{2, Mode::kThreads, Backend::kCuda},
                                           PeConfig{4, Mode::kThreads, Backend::kCuda}),
                         PeConfigName());

}  // namespace
}  // namespace symmetra::testing
