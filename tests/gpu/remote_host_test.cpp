// GPU PEs on two forced hosts of this machine (SYMMETRA_HOSTS=2, set by each test): the host
// forms reach the other host's device heap through the UCX transport in served mode, the
// origin staging device memory through its bounce buffer and the target's CPU storing into its
// GPU through the CUDA backend (docs/proxy.md, "GPU memory over UCX"). What the API suites
// (gpu_{rma,amo,signal,wait}_test under SYMMETRA_HOSTS=2) do not reach: puts and gets larger
// than the bounce buffer, device memory on both sides, a heap grown after init, and the
// collectives across hosts (coll_host_test under SYMMETRA_HOSTS=2 runs the rest of them).
#include <cuda_runtime.h>
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

// Collectives of GPU PEs across hosts run through the proxy ring (the kernels with the remote
// branch, coll_remote.cu): the world all-reduce by its default (the hierarchy: NVLink inside a
// host, LL packets across) and the LL two-shot, host and stream forms, on fresh random values;
// an algorithm that loads other members' memory is refused with the reason; a team of this
// host's PEs still runs its own kernels.
TEST_P(GpuRemoteTest, CollectivesAcrossHostsRunThroughTheRing) {
  run_pes(GetParam(), [](Runtime& rt) {
    expect_two_hosts(rt);
    const std::uint64_t seed = run_seed();
    const int me = rt.my_pe();
    constexpr std::size_t kN = 100003;  // several LL chunks, and a short last unit
    auto* x = rt.allocate_array<std::uint32_t>(kN);
    auto* y = rt.allocate_array<std::uint32_t>(kN);
    std::vector<std::uint32_t> mine(kN);
    auto expect_sum = [&](const Team& t, const char* what) {
      const std::vector<std::uint32_t> got = ld(rt, y, kN);
      std::size_t bad = 0;
      for (std::size_t i = 0; i < kN; ++i) {
        std::uint32_t want = 0;
        for (int r = 0; r < t.n_pes(); ++r) want += word(seed, t.world_pe(r), i);
        bad += got[i] != want;
      }
      EXPECT_EQ(bad, 0u) << what << " on PE " << me;
    };
    for (std::size_t i = 0; i < kN; ++i) mine[i] = word(seed, me, i);
    st(rt, x, mine);
    rt.barrier_all();
    rt.allreduce(rt.team_world(), y, x, kN, coll::ReduceOp::kSum);
    expect_sum(rt.team_world(), "host form, default algorithm");
    fill(rt, y, kN, 0xEEEEEEEEu);
    rt.barrier_all();
    rt.allreduce(rt.team_world(), y, x, kN, coll::ReduceOp::kSum, coll::AllreduceAlgo::kLLTwoShot);
    expect_sum(rt.team_world(), "host form, LL two-shot");
    fill(rt, y, kN, 0xEEEEEEEEu);
    rt.barrier_all();
    cudaStream_t s = nullptr;
    ASSERT_EQ(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), cudaSuccess);
    const Stream stream = reinterpret_cast<Stream>(s);
    rt.allreduce_on_stream(rt.team_world(), y, x, kN, coll::ReduceOp::kSum, stream);
    rt.barrier_all_on_stream(stream);
    ASSERT_EQ(cudaStreamSynchronize(s), cudaSuccess);
    expect_sum(rt.team_world(), "stream form");
    try {
      rt.allreduce(rt.team_world(), y, x, kN, coll::ReduceOp::kSum, coll::AllreduceAlgo::kOneShot);
      ADD_FAILURE() << "a one-shot all-reduce across hosts ran";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("the team spans hosts"), std::string::npos) << e.what();
    }
    const Team host = rt.team_shared();
    rt.allreduce(host, y, x, kN, coll::ReduceOp::kSum, coll::AllreduceAlgo::kOneShot);
    expect_sum(host, "the host's team, one-shot");
    rt.barrier_all();
    ASSERT_EQ(cudaStreamDestroy(s), cudaSuccess);
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
