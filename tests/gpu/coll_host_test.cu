// The host and stream forms of the collectives on the GPU backend (runtime_coll.hpp): PEs as
// threads on the GPU, buffers in device memory, data from coll_reference.hpp copied in and every
// element of the result copied back and checked. All-reduce: every algorithm, type and size
// class; stream forms back to back and replayed from a CUDA graph, checked on the device.
#include <gtest/gtest.h>

#include <array>
#include <cstring>
#include <functional>
#include <vector>

#include "gpu_support.cuh"
#include "support/coll_reference.hpp"
#include "support/pe_runner.hpp"
#include "symmetra/coll.hpp"

namespace symmetra::testing {
namespace {

using coll::AllreduceAlgo;

class CollHostGpuTest : public ::testing::TestWithParam<PeConfig> {};

std::vector<PeConfig> configs() {
  return {{2, Mode::kThreads, Backend::kCuda}, {3, Mode::kThreads, Backend::kCuda}, {4, Mode::kThreads, Backend::kCuda}};
}

template <class T>
std::vector<T> fetch(const T* dev, std::size_t n) {
  std::vector<T> h(n);
  EXPECT_EQ(cudaMemcpy(h.data(), dev, n * sizeof(T), cudaMemcpyDeviceToHost), cudaSuccess);
  return h;
}
template <class T>
void put(T* dev, const std::vector<T>& h) {
  EXPECT_EQ(cudaMemcpy(dev, h.data(), h.size() * sizeof(T), cudaMemcpyHostToDevice), cudaSuccess);
}

// Runs `body(team)` on the world team and on the odd members.
void for_each_team(Runtime& rt, const std::function<void(const Team&)>& body) {
  body(rt.team_world());
  if (rt.n_pes() >= 2) {
    Team odd = rt.split_strided(rt.team_world(), 1, 2, rt.n_pes() / 2);
    if (odd.valid()) {
      body(odd);
      rt.destroy(odd);
    }
  }
  rt.barrier_all();
}

TEST_P(CollHostGpuTest, DataMovingCollectives) {
  run_pes(GetParam(), [](Runtime& rt) {
    constexpr std::size_t kN = 1000;
    const std::size_t n = static_cast<std::size_t>(rt.n_pes());
    auto* src = rt.allocate_array<std::uint32_t>(kN * n * 2);
    auto* dst = rt.allocate_array<std::uint32_t>(kN * n * 2);
    for_each_team(rt, [&](const Team& t) {
      const int m = t.n_pes(), me = t.my_pe();
      for (std::uint64_t call = 0; call < 24; ++call) {
        std::vector<std::uint32_t> s(kN * n * 2);
        for (std::size_t i = 0; i < s.size(); ++i) s[i] = static_cast<std::uint32_t>(mix(call, me, i));
        put(src, s);
        put(dst, std::vector<std::uint32_t>(kN * n * 2, 0xDEADBEEF));
        rt.barrier(t);
        auto v = [&](int r, std::size_t i) { return static_cast<std::uint32_t>(mix(call, r, i)); };
        const int kind = static_cast<int>(call % 8), root = static_cast<int>(call % m);
        const char* names[] = {"broadcast", "fcollect", "fcollect_read", "fcollect_ring", "collect", "alltoall", "alltoalls", "permute"};
        switch (kind) {
          case 0: rt.broadcast(t, dst, src, kN, root); break;
          case 1: rt.fcollect(t, dst, src, kN); break;
          case 2: rt.fcollect_read(t, dst, src, kN); break;
          case 3: rt.fcollect_ring(t, dst, src, kN); break;
          case 4: rt.collect(t, dst, src, 1 + (me * 7 + call) % kN); break;
          case 5: rt.alltoall(t, dst, src, kN); break;
          case 6: rt.alltoalls(t, dst, src, 2, 1, kN / 2); break;
          case 7: rt.permute(t, dst, src, kN, (me + 1) % m, (me + m - 1) % m, 128); break;
        }
        const auto d = fetch(dst, kN * n * 2);
        std::size_t at = 0;
        for (int r = 0; r < m; ++r)
          for (std::size_t i = 0; i < kN; ++i) {
            std::uint32_t want = 0;
            bool check = true;
            std::size_t where = static_cast<std::size_t>(r) * kN + i;
            switch (kind) {
              case 0: want = v(root, i); where = i; check = r == 0; break;
              case 1: case 2: case 3: want = v(r, i); break;
              case 4: check = i < 1 + (r * 7 + call) % kN; want = v(r, i); where = at; at += check; break;
              case 5: want = v(r, static_cast<std::size_t>(me) * kN + i); break;
              case 6: check = i < kN / 2; want = v(r, static_cast<std::size_t>(me) * (kN / 2) + i); where = 2 * (static_cast<std::size_t>(r) * (kN / 2) + i); break;
              case 7: want = v((me + m - 1) % m, i); where = i; check = r == 0; break;
            }
            if (check) ASSERT_EQ(d[where], want) << names[kind] << " call " << call << " member " << r << " i " << i;
          }
        rt.barrier(t);
      }
    });
  });
}

template <class T>
void allreduce_every_algorithm(Runtime& rt, std::uint64_t salt) {
  const std::size_t sizes[] = {1, 17, 1000, 300000};
  constexpr std::size_t kMax = 300000;
  auto* src = rt.allocate_array<T>(kMax);
  auto* dst = rt.allocate_array<T>(kMax);
  const AllreduceAlgo algos[] = {AllreduceAlgo::kOneShot,   AllreduceAlgo::kTwoShot,      AllreduceAlgo::kRecursiveDoubling,
                                 AllreduceAlgo::kLLTwoShot, AllreduceAlgo::kHierarchical, AllreduceAlgo::kRing,
                                 AllreduceAlgo::kAuto};
  for_each_team(rt, [&](const Team& t) {
    const int m = t.n_pes(), me = t.my_pe();
    std::uint64_t call = salt;
    for (AllreduceAlgo algo : algos)
      for (std::size_t n : sizes)
        for (bool in_place : {false, true}) {
          if (in_place && (algo == AllreduceAlgo::kOneShot || algo == AllreduceAlgo::kTwoShot || algo == AllreduceAlgo::kRing)) continue;
          const ReduceOp op = std::array{ReduceOp::kSum, ReduceOp::kMax, ReduceOp::kMin}[call % 3];
          ++call;
          std::vector<T> s(n);
          for (std::size_t i = 0; i < n; ++i) s[i] = make<T>(mix(call, me, i, sizeof(T)), op);
          put(src, s);
          T* out = in_place ? src : dst;
          rt.allreduce(t, out, src, n, op, algo);
          const auto d = fetch(out, n);
          std::vector<T> vals(static_cast<std::size_t>(m));
          for (std::size_t i = 0; i < n; ++i) {
            for (int r = 0; r < m; ++r) vals[r] = make<T>(mix(call, r, i, sizeof(T)), op);
            std::uint64_t exact = 0;
            const double ref = reference(op, vals, &exact);
            if constexpr (std::is_integral_v<T>) {
              ASSERT_EQ(d[i], static_cast<T>(exact)) << coll::algo_name(algo) << " n " << n << " i " << i;
            } else {
              ASSERT_NEAR(as_double(d[i]), ref, tolerance<T>(ref, m) * m) << coll::algo_name(algo) << " n " << n << " i " << i;
            }
          }
          rt.barrier(t);
        }
  });
  rt.free(dst);
  rt.free(src);
}

TEST_P(CollHostGpuTest, AllreduceEveryAlgorithmTypeAndSize) {
  run_pes(GetParam(), [](Runtime& rt) {
    allreduce_every_algorithm<float>(rt, 1);
    allreduce_every_algorithm<bfloat16>(rt, 2);
    allreduce_every_algorithm<half>(rt, 3);
    allreduce_every_algorithm<std::int32_t>(rt, 4);
    allreduce_every_algorithm<std::int64_t>(rt, 5);
    allreduce_every_algorithm<double>(rt, 6);
  });
}

// Device-side data and checks for the stream forms: round r's value i on PE p is a multiple of
// 1/8 below 128, so float sums over a few PEs are exact.
__device__ float dvalue(std::uint64_t seed, int pe, std::uint64_t round, std::size_t i) {
  return static_cast<float>(gpattern(seed, pe, round, i) % 1024) / 8.0f;
}
__global__ void fill(float* src, std::size_t n, std::uint64_t seed, int me, const std::uint64_t* round) {
  for (std::size_t i = threadIdx.x + blockIdx.x * blockDim.x; i < n; i += blockDim.x * gridDim.x)
    src[i] = dvalue(seed, me, *round, i);
}
__global__ void check(const float* dst, std::size_t n, std::uint64_t seed, int m, std::uint64_t* round,
                      unsigned long long* bad) {
  for (std::size_t i = threadIdx.x; i < n; i += blockDim.x) {
    float want = 0;
    for (int r = 0; r < m; ++r) want += dvalue(seed, r, *round, i);
    if (dst[i] != want) atomicAdd(bad, 1ull);
  }
  __syncthreads();
  if (threadIdx.x == 0) ++*round;
}

// 10,000 back-to-back stream-ordered all-reduces cycling through the algorithms, then 1,000
// replays of a captured graph (fill, all-reduce, check): nothing synchronizes the host between
// calls; the device counts wrong elements.
TEST_P(CollHostGpuTest, StreamFormsBackToBackAndInGraphs) {
  run_pes(GetParam(), [](Runtime& rt) {
    constexpr std::size_t kN = 3000;
    const int m = rt.n_pes(), me = rt.my_pe();
    PeStream s;
    auto* src = rt.allocate_array<float>(kN);
    auto* dst = rt.allocate_array<float>(kN);
    std::uint64_t* round = nullptr;
    unsigned long long* bad = nullptr;
    CK(cudaMalloc(&round, sizeof(*round)));
    CK(cudaMalloc(&bad, sizeof(*bad)));
    CK(cudaMemset(round, 0, sizeof(*round)));
    CK(cudaMemset(bad, 0, sizeof(*bad)));
    CK(cudaDeviceSynchronize());
    rt.barrier_all();
    const std::uint64_t seed = run_seed();
    const AllreduceAlgo algos[] = {AllreduceAlgo::kOneShot, AllreduceAlgo::kTwoShot, AllreduceAlgo::kRecursiveDoubling,
                                   AllreduceAlgo::kLLTwoShot, AllreduceAlgo::kRing, AllreduceAlgo::kAuto};
    for (int call = 0; call < 10000; ++call) {
      fill<<<4, 256, 0, s>>>(src, kN, seed, me, round);
      rt.allreduce_on_stream(rt.team_world(), dst, src, kN, ReduceOp::kSum, s, algos[call % 6]);
      check<<<1, 256, 0, s>>>(dst, kN, seed, m, round, bad);
    }
    CK(cudaStreamSynchronize(s));
    unsigned long long h = 1;
    CK(cudaMemcpy(&h, bad, sizeof(h), cudaMemcpyDeviceToHost));
    EXPECT_EQ(h, 0u) << "wrong elements over 10,000 stream-ordered calls";

    cudaGraph_t graph;
    cudaGraphExec_t exec;
    CK(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal));
    fill<<<4, 256, 0, s>>>(src, kN, seed, me, round);
    rt.allreduce_on_stream(rt.team_world(), dst, src, kN, ReduceOp::kSum, s, AllreduceAlgo::kLLTwoShot);
    check<<<1, 256, 0, s>>>(dst, kN, seed, m, round, bad);
    CK(cudaStreamEndCapture(s, &graph));
    CK(cudaGraphInstantiate(&exec, graph, 0));
    for (int r = 0; r < 1000; ++r) CK(cudaGraphLaunch(exec, s));
    CK(cudaStreamSynchronize(s));
    std::uint64_t rounds = 0;
    CK(cudaMemcpy(&h, bad, sizeof(h), cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(&rounds, round, sizeof(rounds), cudaMemcpyDeviceToHost));
    EXPECT_EQ(h, 0u) << "wrong elements over 1,000 graph replays";
    EXPECT_EQ(rounds, 11000u);
    CK(cudaGraphExecDestroy(exec));
    CK(cudaGraphDestroy(graph));
    rt.barrier_all();
    CK(cudaFree(round));
    CK(cudaFree(bad));
  });
}

INSTANTIATE_TEST_SUITE_P(Gpu, CollHostGpuTest, ::testing::ValuesIn(configs()), PeConfigName());

}  // namespace
}  // namespace symmetra::testing
