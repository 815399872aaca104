// The collectives' device forms inside kernels: one block per PE runs 1,000 back-to-back calls of
// broadcast, fcollect, alltoall, reduce (float sum, int max), reduce_scatter and permute on the
// world team, generating fresh data and checking every element on the device; 1-8 PEs.
#include <gtest/gtest.h>

#include "gpu_support.cuh"
#include "support/pe_runner.hpp"
#include "symmetra/coll.hpp"

namespace symmetra::testing {
namespace {

namespace sd = symmetra::device;
namespace sc = symmetra::coll;

constexpr int kN = 256;  // elements per PE block

__global__ void coll_suite(sd::Context ctx, int calls, std::uint64_t seed, std::uint64_t* src,
                           std::uint64_t* dst, float* fsrc, float* fdst, int* isrc, int* idst,
                           unsigned long long* bad) {
  sd::BlockGroup g;
  const int n = ctx.n_pes, me = ctx.my_pe, t = threadIdx.x;
  const int team = sd::kTeamWorld;
  auto expect = [&](bool ok) {
    if (!ok) atomicAdd(bad, 1ull);
  };
  for (int c = 1; c <= calls; ++c) {
    const int root = c % n;
    for (int i = t; i < kN * n; i += blockDim.x) src[i] = gpattern(seed, me, c, i);
    g.sync();
    sc::broadcast(g, ctx, team, dst, src, kN, root);
    for (int i = t; i < kN; i += blockDim.x) expect(dst[i] == gpattern(seed, root, c, i));
    sc::fcollect(g, ctx, team, dst, src, kN);
    for (int i = t; i < kN * n; i += blockDim.x)
      expect(dst[i] == gpattern(seed, i / kN, c, i % kN));
    sc::alltoall(g, ctx, team, dst, src, kN);  // block k of src (elements k*kN..) goes to PE k
    for (int i = t; i < kN * n; i += blockDim.x)
      expect(dst[i] == gpattern(seed, i / kN, c, me * kN + i % kN));
    for (int i = t; i < kN * n; i += blockDim.x) {
      fsrc[i] = static_cast<float>(gpattern(seed, me, c, i) % 1000) / 8.0f;  // exact in float
      isrc[i] = static_cast<int>(gpattern(seed, me, c, i) % 100000) - 50000;
    }
    g.sync();
    sc::reduce(g, ctx, team, fdst, fsrc, kN, sc::ReduceOp::kSum);
    sc::reduce(g, ctx, team, idst, isrc, kN, sc::ReduceOp::kMax);
    for (int i = t; i < kN; i += blockDim.x) {
      float fs = 0;  // values are multiples of 1/8 below 125: float sums are exact
      int mx = -2147483647;
      for (int r = 0; r < n; ++r) {
        fs += static_cast<float>(gpattern(seed, r, c, i) % 1000) / 8.0f;
        const int v = static_cast<int>(gpattern(seed, r, c, i) % 100000) - 50000;
        mx = v > mx ? v : mx;
      }
      expect(fdst[i] == fs);
      expect(idst[i] == mx);
    }
    sc::reduce_scatter(g, ctx, team, idst, isrc, kN, sc::ReduceOp::kSum);
    for (int i = t; i < kN; i += blockDim.x) {
      int s = 0;
      for (int r = 0; r < n; ++r)
        s += static_cast<int>(gpattern(seed, r, c, me * kN + i) % 100000) - 50000;
      expect(idst[i] == s);
    }
    sc::permute(g, ctx, team, dst, src, kN * n, (me + 1) % n, (me + n - 1) % n, 96);
    for (int i = t; i < kN * n; i += blockDim.x)
      expect(dst[i] == gpattern(seed, (me + n - 1) % n, c, i));
    sd::barrier_all(g, ctx);  // the next call's fills must not race the checks above
  }
}

class CollDeviceTest : public ::testing::TestWithParam<PeConfig> {};

TEST_P(CollDeviceTest, BackToBackCallsInKernels) {
  run_pes(GetParam(), [](Runtime& rt) {
    const int n = rt.n_pes();
    PeStream s;
    auto* src = rt.allocate_array<std::uint64_t>(kN * n);
    auto* dst = rt.allocate_array<std::uint64_t>(kN * n);
    auto* fsrc = rt.allocate_array<float>(kN * n);
    auto* fdst = rt.allocate_array<float>(kN);
    auto* isrc = rt.allocate_array<int>(kN * n);
    auto* idst = rt.allocate_array<int>(kN);
    DeviceArray<unsigned long long> bad;
    rt.barrier_all();
    coll_suite<<<1, 256, 0, s>>>(rt.device_context(), 1000, run_seed(), src, dst, fsrc, fdst, isrc,
                                 idst, bad);
    CK(cudaGetLastError());
    CK(cudaStreamSynchronize(s));
    EXPECT_EQ(bad.read(), 0u);
    rt.barrier_all();
  });
}

__global__ void team_fcollect(sd::Context ctx, int team, int calls, std::uint64_t seed,
                              std::uint64_t* src, std::uint64_t* dst, unsigned long long* bad) {
  sd::BlockGroup g;
  const sd::TeamDesc t = ctx.teams[team];
  for (int c = 1; c <= calls; ++c) {
    for (int i = threadIdx.x; i < kN; i += blockDim.x) src[i] = gpattern(seed, t.my_rank, c, i);
    g.sync();
    sc::fcollect(g, ctx, team, dst, src, kN);
    for (int i = threadIdx.x; i < kN * t.size; i += blockDim.x)
      if (dst[i] != gpattern(seed, i / kN, c, i % kN)) atomicAdd(bad, 1ull);
    sd::barrier(g, ctx, team);
  }
}

// Teams made on the GPU backend: their device-side counters are agreed at creation, also when a
// destroyed team's slot is reused, so device syncs and collectives on them work from the start.
TEST_P(CollDeviceTest, SplitTeamsInKernelsAcrossSlotReuse) {
  run_pes(GetParam(), [](Runtime& rt) {
    const int n = rt.n_pes();
    PeStream s;
    auto* src = rt.allocate_array<std::uint64_t>(kN);
    auto* dst = rt.allocate_array<std::uint64_t>(kN * n);
    DeviceArray<unsigned long long> bad;
    for (int round = 0; round < 3; ++round) {
      bad.zero();
      // rounds 0 and 2: the even PEs; round 1: everybody but PE 0 (one PE: the even ones again)
      Team t = round == 1 && n > 1 ? rt.split_strided(rt.team_world(), 1, 1, n - 1)
                                   : rt.split_strided(rt.team_world(), 0, 2, (n + 1) / 2);
      if (t.valid()) {
        team_fcollect<<<1, 256, 0, s>>>(rt.device_context(), t.handle(), 50 + round,
                                        run_seed() + round, src, dst, bad);
        CK(cudaGetLastError());
        CK(cudaStreamSynchronize(s));
        EXPECT_EQ(bad.read(), 0u) << "round " << round;
        rt.destroy(t);
      }
      rt.barrier_all();
    }
  });
}

std::vector<PeConfig> configs() {
  std::vector<PeConfig> c;
  for (int n : {1, 2, 3, 4, 5, 8}) c.push_back({n, Mode::kThreads, Backend::kCuda});
  return c;
}

INSTANTIATE_TEST_SUITE_P(Gpu, CollDeviceTest, ::testing::ValuesIn(configs()), PeConfigName());

}  // namespace
}  // namespace symmetra::testing
