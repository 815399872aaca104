// The host and stream forms of the collectives on the GPU backend (impl/runtime_coll.hpp): PEs as
// threads on the GPU, buffers in device memory, data from coll_reference.hpp copied in and every
// element of the result copied back and checked. All-reduce: every algorithm, type and size
// class; stream forms back to back and replayed from a CUDA graph, checked on the device.
#include <gtest/gtest.h>

#include <array>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <vector>

#include "gpu_support.cuh"
#include "support/coll_reference.hpp"
#include "support/pe_runner.hpp"
#include "symmetra/coll.hpp"
#include "symmetra/introspect.hpp"

namespace symmetra::testing {
namespace {

using coll::AllreduceAlgo;

class CollHostGpuTest : public ::testing::TestWithParam<PeConfig> {};

// The PE counts the collectives' issues ask for, as threads on the GPU(s).
std::vector<PeConfig> configs() {
  std::vector<PeConfig> c;
  for (int n : {1, 2, 3, 4, 5, 8}) c.push_back({n, Mode::kThreads, Backend::kCuda});
  return c;
}

template <class T>
std::vector<T> fetch(const T* dev, std::size_t n) {
  std::vector<T> h(n);
  EXPECT_EQ(cudaMemcpy(h.data(), dev, n * sizeof(T), cudaMemcpyDeviceToHost), cudaSuccess);
  return h;
}
template <class T>
void put(T* dev, const std::vector<T>& h) {
  copy_to_device(dev, h.data(), h.size() * sizeof(T));
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
        for (std::size_t i = 0; i < s.size(); ++i)
          s[i] = static_cast<std::uint32_t>(mix(call, me, i));
        put(src, s);
        put(dst, std::vector<std::uint32_t>(kN * n * 2, 0xDEADBEEF));
        rt.barrier(t);
        auto v = [&](int r, std::size_t i) { return static_cast<std::uint32_t>(mix(call, r, i)); };
        const int kind = static_cast<int>(call % 8), root = static_cast<int>(call % m);
        const char* names[] = {"broadcast", "fcollect", "fcollect_read", "fcollect_ring",
                               "collect",   "alltoall", "alltoalls",     "permute"};
        switch (kind) {
          case 0:
            rt.broadcast(t, dst, src, kN, root);
            break;
          case 1:
            rt.fcollect(t, dst, src, kN);
            break;
          case 2:
            rt.fcollect_read(t, dst, src, kN);
            break;
          case 3:
            rt.fcollect_ring(t, dst, src, kN);
            break;
          case 4:
            rt.collect(t, dst, src, 1 + (me * 7 + call) % kN);
            break;
          case 5:
            rt.alltoall(t, dst, src, kN);
            break;
          case 6:
            rt.alltoalls(t, dst, src, 2, 1, kN / 2);
            break;
          case 7:
            rt.permute(t, dst, src, kN, (me + 1) % m, (me + m - 1) % m, 128);
            break;
        }
        const auto d = fetch(dst, kN * n * 2);
        std::size_t at = 0;
        for (int r = 0; r < m; ++r)
          for (std::size_t i = 0; i < kN; ++i) {
            std::uint32_t want = 0;
            bool check = true;
            std::size_t where = static_cast<std::size_t>(r) * kN + i;
            switch (kind) {
              case 0:
                want = v(root, i);
                where = i;
                check = r == 0;
                break;
              case 1:
              case 2:
              case 3:
                want = v(r, i);
                break;
              case 4:
                check = i < 1 + (r * 7 + call) % kN;
                want = v(r, i);
                where = at;
                at += check;
                break;
              case 5:
                want = v(r, static_cast<std::size_t>(me) * kN + i);
                break;
              case 6:
                check = i < kN / 2;
                want = v(r, static_cast<std::size_t>(me) * (kN / 2) + i);
                where = 2 * (static_cast<std::size_t>(r) * (kN / 2) + i);
                break;
              case 7:
                want = v((me + m - 1) % m, i);
                where = i;
                check = r == 0;
                break;
            }
            if (check)
              ASSERT_EQ(d[where], want)
                  << names[kind] << " call " << call << " member " << r << " i " << i;
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
  std::vector<AllreduceAlgo> algos(std::begin(coll::kDeviceAllreduceAlgos),
                                   std::end(coll::kDeviceAllreduceAlgos));
  algos.push_back(AllreduceAlgo::kAuto);
  for_each_team(rt, [&](const Team& t) {
    const int m = t.n_pes(), me = t.my_pe();
    std::uint64_t call = salt;
    for (AllreduceAlgo algo : algos)
      for (std::size_t n : sizes)
        for (bool in_place : {false, true}) {
          if (!coll::runs_on(algo, symmetra::introspect::team_desc(rt, t.handle())))
            continue;  // spans hosts
          if (in_place && !coll::takes_buffers(algo, coll::Buffers::kInPlace)) continue;
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
              ASSERT_EQ(d[i], static_cast<T>(exact))
                  << coll::algo_name(algo) << " n " << n << " i " << i;
            } else {
              ASSERT_NEAR(as_double(d[i]), ref, tolerance<T>(ref, m) * m)
                  << coll::algo_name(algo) << " n " << n << " i " << i;
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
__global__ void fill(float* src, std::size_t n, std::uint64_t seed, int me,
                     const std::uint64_t* round, unsigned long long* progress) {
  if (threadIdx.x == 0) atomicAdd_system(progress, 1ull);
  for (std::size_t i = threadIdx.x + blockIdx.x * blockDim.x; i < n; i += blockDim.x * gridDim.x)
    src[i] = dvalue(seed, me, *round, i);
}
__global__ void check(const float* dst, std::size_t n, std::uint64_t seed, int m,
                      std::uint64_t* round, unsigned long long* bad, unsigned long long* progress) {
  for (std::size_t i = threadIdx.x; i < n; i += blockDim.x) {
    float want = 0;
    for (int r = 0; r < m; ++r) want += dvalue(seed, r, *round, i);
    if (dst[i] != want) atomicAdd(bad, 1ull);
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    ++*round;
    atomicAdd_system(progress + 2, 1ull);
  }
}

// 10,000 back-to-back stream-ordered all-reduces cycling through the algorithms, then 1,000
// replays of a captured graph (fill, all-reduce), each checked: nothing synchronizes the host
// between calls; the device counts wrong elements.
TEST_P(CollHostGpuTest, StreamFormsBackToBackAndInGraphs) {
  run_pes(GetParam(), [](Runtime& rt) {
    constexpr std::size_t kN = 3000;
    const int m = rt.n_pes(), me = rt.my_pe();
    PeStream s;
    auto* src = rt.allocate_array<float>(kN);
    auto* dst = rt.allocate_array<float>(kN);
    DeviceArray<std::uint64_t> round;
    DeviceArray<unsigned long long> bad;
    ProgressBoard::Watch watch;
    unsigned long long* progress = ProgressBoard::get().pe(me);
    rt.barrier_all();
    const std::uint64_t seed = run_seed();
    std::vector<AllreduceAlgo> algos;  // those that run on the world team (it may span hosts)
    for (AllreduceAlgo a :
         {AllreduceAlgo::kOneShot, AllreduceAlgo::kTwoShot, AllreduceAlgo::kRecursiveDoubling,
          AllreduceAlgo::kLLTwoShot, AllreduceAlgo::kRing, AllreduceAlgo::kAuto})
      if (coll::runs_on(a, symmetra::introspect::team_desc(rt, device::kTeamWorld)))
        algos.push_back(a);
    const int calls = rounds(10000), replays = rounds(1000);
    for (int call = 0; call < calls; ++call) {
      fill<<<4, 256, 0, s>>>(src, kN, seed, me, round, progress);
      progress_mark<<<1, 1, 0, s>>>(progress + 1);
      rt.allreduce_on_stream(rt.team_world(), dst, src, kN, ReduceOp::kSum, s,
                             algos[static_cast<std::size_t>(call) % algos.size()]);
      check<<<1, 256, 0, s>>>(dst, kN, seed, m, round, bad, progress);
      ProgressBoard::get().host_call(me);
    }
    CK(cudaStreamSynchronize(s));
    EXPECT_EQ(bad.read(), 0u) << "wrong elements over " << calls << " stream-ordered calls";

    // The graph ends with the collective and the check follows it, and rt.launch_graph launches
    // the PEs' graphs together: what PEs sharing a GPU need (runtime.hpp, launch_graph).
    cudaGraph_t graph;
    cudaGraphExec_t exec;
    CK(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal));
    fill<<<4, 256, 0, s>>>(src, kN, seed, me, round, progress);
    rt.allreduce_on_stream(rt.team_world(), dst, src, kN, ReduceOp::kSum, s,
                           AllreduceAlgo::kLLTwoShot);
    CK(cudaStreamEndCapture(s, &graph));
    CK(cudaGraphInstantiate(&exec, graph, 0));
    for (int r = 0; r < replays; ++r) {
      rt.launch_graph(exec, s);
      check<<<1, 256, 0, s>>>(dst, kN, seed, m, round, bad, progress);
    }
    CK(cudaStreamSynchronize(s));
    EXPECT_EQ(bad.read(), 0u) << "wrong elements over " << replays << " graph replays";
    EXPECT_EQ(round.read(), static_cast<std::uint64_t>(calls + replays));
    CK(cudaGraphExecDestroy(exec));
    CK(cudaGraphDestroy(graph));
    rt.barrier_all();
  });
}

__global__ void fill_u32(std::uint32_t* src, std::size_t n, std::uint64_t seed, int me,
                         const std::uint64_t* round, unsigned long long* progress) {
  if (threadIdx.x == 0) atomicAdd_system(progress, 1ull);
  for (std::size_t i = threadIdx.x + blockIdx.x * blockDim.x; i < n; i += blockDim.x * gridDim.x)
    src[i] = static_cast<std::uint32_t>(gpattern(seed, me, *round, i));
}
// mode 0 broadcast (root = round % m), 1 all-gather, 2 alltoall, 3 permute from me - 1,
// 4 barrier (nothing to check), 5 reduce (sum), 6 reduce_scatter (sum). me, m: team rank, size.
__global__ void check_u32(int mode, const std::uint32_t* dst, std::size_t n, std::uint64_t seed,
                          int me, int m, std::uint64_t* round, unsigned long long* bad,
                          unsigned long long* progress) {
  const std::uint64_t rd = *round;
  auto v = [&](int pe, std::size_t i) {
    return static_cast<std::uint32_t>(gpattern(seed, pe, rd, i));
  };
  const std::size_t total = mode == 1 || mode == 2 ? n * static_cast<std::size_t>(m)
                            : mode == 4            ? 0
                                                   : n;
  for (std::size_t i = threadIdx.x; i < total; i += blockDim.x) {
    std::uint32_t want = 0;
    if (mode == 0) want = v(static_cast<int>(rd % static_cast<std::uint64_t>(m)), i);
    if (mode == 1) want = v(static_cast<int>(i / n), i % n);
    if (mode == 2) want = v(static_cast<int>(i / n), static_cast<std::size_t>(me) * n + i % n);
    if (mode == 3) want = v((me + m - 1) % m, i);
    if (mode == 5)
      for (int r = 0; r < m; ++r) want += v(r, i);  // wraps mod 2^32, as the reduction does
    if (mode == 6)
      for (int r = 0; r < m; ++r) want += v(r, static_cast<std::size_t>(me) * n + i);
    if (dst[i] != want) atomicAdd(bad, 1ull);
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    ++*round;
    atomicAdd_system(progress + 2, 1ull);
  }
}

// 1,000 back-to-back stream-ordered calls of each collective, on the world team and on the team
// of all PEs but PE 0, fresh data each call, checked on the device; the host never waits
// between calls.
TEST_P(CollHostGpuTest, StreamFormsOfEveryCollectiveBackToBack) {
  run_pes(GetParam(), [](Runtime& rt) {
    constexpr std::size_t kN = 777;
    const int n = rt.n_pes();
    PeStream s;
    auto* src = rt.allocate_array<std::uint32_t>(kN * static_cast<std::size_t>(n));
    auto* dst = rt.allocate_array<std::uint32_t>(kN * static_cast<std::size_t>(n));
    DeviceArray<std::uint64_t> round;
    DeviceArray<unsigned long long> bad;
    const std::uint64_t seed = run_seed();
    ProgressBoard::Watch watch;
    unsigned long long* progress = ProgressBoard::get().pe(rt.my_pe());
    const char* names[] = {"broadcast", "fcollect",      "fcollect_read", "fcollect_ring",
                           "collect",   "alltoall",      "permute",       "barrier",
                           "reduce",    "reduce_scatter"};
    for (int which = 0; which < (n > 1 ? 2 : 1); ++which) {
      Team w = which == 0 ? rt.team_world() : rt.split_strided(rt.team_world(), 1, 1, n - 1);
      if (!w.valid()) {  // PE 0 is not in the second team
        rt.barrier_all();
        continue;
      }
      const int m = w.n_pes(), me = w.my_pe();
      for (int kind = 0; kind < 10; ++kind) {
        round.zero();
        bad.zero();
        rt.barrier(w);
        const int mode = std::array{0, 1, 1, 1, 1, 2, 3, 4, 5, 6}[kind];
        const int calls = rounds(1000);
        for (int call = 0; call < calls; ++call) {
          fill_u32<<<4, 256, 0, s>>>(src, kN * static_cast<std::size_t>(m), seed, me, round,
                                     progress);
          progress_mark<<<1, 1, 0, s>>>(progress + 1);
          switch (kind) {
            case 0:
              rt.broadcast_on_stream(w, dst, src, kN, call % m, s);
              break;
            case 1:
              rt.fcollect_on_stream(w, dst, src, kN, s);
              break;
            case 2:
              rt.fcollect_read_on_stream(w, dst, src, kN, s);
              break;
            case 3:
              rt.fcollect_ring_on_stream(w, dst, src, kN, s);
              break;
            case 4:
              rt.collect_on_stream(w, dst, src, kN, s);
              break;
            case 5:
              rt.alltoall_on_stream(w, dst, src, kN, s);
              break;
            case 6:
              rt.permute_on_stream(w, dst, src, kN, (me + 1) % m, (me + m - 1) % m, 100, s);
              break;
            case 7:
              rt.barrier_on_stream(w, s);
              rt.sync_on_stream(w, s);
              break;
            case 8:
              rt.reduce_on_stream(w, dst, src, kN, ReduceOp::kSum, s);
              break;
            case 9:
              rt.reduce_scatter_on_stream(w, dst, src, kN, ReduceOp::kSum, s);
              break;
          }
          check_u32<<<1, 256, 0, s>>>(mode, dst, kN, seed, me, m, round, bad, progress);
          ProgressBoard::get().host_call(rt.my_pe());
          // The next call's fill rewrites src: every member must have finished reading it (the
          // collectives that read peers end with a sync; the push forms' dest is the peer's).
          if (kind != 7) rt.sync_on_stream(w, s);
        }
        CK(cudaStreamSynchronize(s));
        EXPECT_EQ(bad.read(), 0u) << names[kind] << " on "
                                  << (which == 0 ? "the world" : "all but PE 0")
                                  << ": wrong elements over " << calls << " calls";
      }
      if (which == 1) rt.destroy(w);
      rt.barrier_all();
    }
  });
}

// RuntimeOptions::dest_ready_by_program (the OpenSHMEM C API's setting, coll/credit.hpp) on the
// GPU: broadcast and alltoall skip their credits and count on uncredited_signal, permute keeps
// its own; two dests in turn with a sync after every second call (the program readying dests),
// so members run a call ahead. 600 calls of world team, fresh data each, checked on the device.
TEST_P(CollHostGpuTest, StreamFormsWithoutCredits) {
  RuntimeOptions options;
  options.dest_ready_by_program = true;
  run_pes(GetParam(), options, [](Runtime& rt) {
    constexpr std::size_t kN = 777;
    const int m = rt.n_pes(), me = rt.my_pe();
    PeStream s;
    auto* src = rt.allocate_array<std::uint32_t>(kN * static_cast<std::size_t>(m));
    std::uint32_t* dst[2] = {rt.allocate_array<std::uint32_t>(kN * static_cast<std::size_t>(m)),
                             rt.allocate_array<std::uint32_t>(kN * static_cast<std::size_t>(m))};
    DeviceArray<std::uint64_t> round;
    DeviceArray<unsigned long long> bad;
    round.zero();
    bad.zero();
    const std::uint64_t seed = run_seed();
    ProgressBoard::Watch watch;
    unsigned long long* progress = ProgressBoard::get().pe(me);
    const Team w = rt.team_world();
    rt.barrier_all();
    for (int call = 0; call < rounds(600); ++call) {
      const int kind = call % 3;
      std::uint32_t* d = dst[call % 2];
      fill_u32<<<4, 256, 0, s>>>(src, kN * static_cast<std::size_t>(m), seed, me, round, progress);
      if (kind == 0) rt.broadcast_on_stream(w, d, src, kN, call % m, s);
      if (kind == 1) rt.alltoall_on_stream(w, d, src, kN, s);
      if (kind == 2) rt.permute_on_stream(w, d, src, kN, (me + 1) % m, (me + m - 1) % m, 100, s);
      check_u32<<<1, 256, 0, s>>>(std::array{0, 2, 3}[kind], d, kN, seed, me, m, round, bad,
                                  progress);
      ProgressBoard::get().host_call(me);
      if (call % 2 == 1) rt.sync_on_stream(w, s);
    }
    CK(cudaStreamSynchronize(s));
    EXPECT_EQ(bad.read(), 0u) << "wrong elements over " << rounds(600) << " calls without credits";
    rt.barrier_all();
  });
}

// The largest message of the issue: 64 MiB of floats, every algorithm, every element checked.
TEST_P(CollHostGpuTest, Allreduce64MiB) {
  run_pes(GetParam(), [](Runtime& rt) {
    constexpr std::size_t kN = 16u << 20;
    const int m = rt.n_pes(), me = rt.my_pe();
    auto* src = rt.allocate_array<float>(kN);
    auto* dst = rt.allocate_array<float>(kN);
    std::vector<float> h(kN);
    for (std::size_t i = 0; i < kN; ++i) h[i] = exact_value(me, i);
    put(src, h);
    std::vector<AllreduceAlgo> algos(std::begin(coll::kDeviceAllreduceAlgos),
                                     std::end(coll::kDeviceAllreduceAlgos));
    algos.push_back(AllreduceAlgo::kAuto);
    for (AllreduceAlgo algo : algos) {
      if (!coll::runs_on(algo, symmetra::introspect::team_desc(rt, device::kTeamWorld)))
        continue;  // spans hosts
      clear_device(dst, kN * sizeof(float));
      rt.barrier_all();
      rt.allreduce(rt.team_world(), dst, src, kN, ReduceOp::kSum, algo);
      const auto d = fetch(dst, kN);
      std::size_t bad = 0;
      for (std::size_t i = 0; i < kN; ++i) bad += d[i] != exact_sum(m, i);
      EXPECT_EQ(bad, 0u) << coll::algo_name(algo);
      rt.barrier_all();
    }
  });
}

// NCCL as the all-reduce's backend. It serves a team only where every member has its own GPU:
// refused with the reason when PEs share one; on a machine with a GPU per PE (issue 7's), a real
// multi-rank communicator runs the all-reduce, host and stream forms, checked element by element.
TEST_P(CollHostGpuTest, NcclOnlyWherePesHaveTheirOwnGpu) {
  int devices = 0;
  CK(cudaGetDeviceCount(&devices));
  const bool shared = GetParam().n_pes > devices;
  run_pes(GetParam(), [shared](Runtime& rt) {
    constexpr std::size_t kN = 1 << 18;
    const int m = rt.n_pes(), me = rt.my_pe();
    auto* src = rt.allocate_array<float>(kN);
    auto* dst = rt.allocate_array<float>(kN);
    std::vector<float> h(kN);
    for (std::size_t i = 0; i < kN; ++i) h[i] = exact_value(me, i);
    put(src, h);
    rt.allreduce(rt.team_world(), dst, src, 64,
                 ReduceOp::kSum);  // the team's first: agrees on NCCL
    if (shared) {
      EXPECT_FALSE(symmetra::introspect::nccl_ready(rt, rt.team_world()));
      EXPECT_NE(symmetra::introspect::allreduce_algo(rt, rt.team_world(), 512u << 10, true),
                AllreduceAlgo::kNccl);
      try {
        rt.allreduce(rt.team_world(), dst, src, 64, ReduceOp::kSum, AllreduceAlgo::kNccl);
        ADD_FAILURE() << "nccl on a shared GPU did not fail";
      } catch (const Error& e) {
        const std::string what = e.what();
        EXPECT_TRUE(what.find("share GPU") != std::string::npos ||
                    what.find("NCCL not found") != std::string::npos)
            << what;
      }
    } else {
      ASSERT_TRUE(symmetra::introspect::nccl_ready(rt, rt.team_world()))
          << "every PE has its own GPU but NCCL did not load (SYMMETRA_NCCL_LIB="
          << (std::getenv("SYMMETRA_NCCL_LIB") ? std::getenv("SYMMETRA_NCCL_LIB") : "unset") << ")";
      EXPECT_EQ(symmetra::introspect::allreduce_algo(rt, rt.team_world(), 512u << 10, true),
                AllreduceAlgo::kNccl);  // the NCCL window
      std::vector<float> want(kN);
      for (std::size_t i = 0; i < kN; ++i) want[i] = exact_sum(m, i);
      rt.allreduce(rt.team_world(), dst, src, kN, ReduceOp::kSum, AllreduceAlgo::kNccl);
      EXPECT_EQ(fetch(dst, kN), want);
      PeStream s;
      clear_device(dst, kN * sizeof(float));
      rt.barrier_all();
      rt.allreduce_on_stream(rt.team_world(), dst, src, kN, ReduceOp::kSum, s,
                             AllreduceAlgo::kNccl);
      CK(cudaStreamSynchronize(s));
      EXPECT_EQ(fetch(dst, kN), want);
    }
    rt.barrier_all();
  });
}

// One PE on its GPU: a real NCCL communicator (of one rank) runs the all-reduce, in place and
// not, on the host and stream forms. Needs NCCL: tools/gpu-check points SYMMETRA_NCCL_LIB at
// the machine's Python package.
TEST(NcclBackend, OnePeRunsNcclAllReduce) {
  run_pes({1, Mode::kThreads, Backend::kCuda}, [](Runtime& rt) {
    constexpr std::size_t kN = 1 << 20;
    auto* src = rt.allocate_array<float>(kN);
    auto* dst = rt.allocate_array<float>(kN);
    std::vector<float> h(kN);
    for (std::size_t i = 0; i < kN; ++i) h[i] = static_cast<float>(mix(7, 0, i) % 1000) * 0.5f;
    put(src, h);
    rt.allreduce(rt.team_world(), dst, src, kN, ReduceOp::kSum);  // the team's first call
    ASSERT_TRUE(symmetra::introspect::nccl_ready(rt, rt.team_world()))
        << "NCCL did not load (SYMMETRA_NCCL_LIB="
        << (std::getenv("SYMMETRA_NCCL_LIB") ? std::getenv("SYMMETRA_NCCL_LIB") : "unset") << ")";
    // The defaults hand sizes above 256 KiB up to 1 MiB to NCCL where it can serve
    // (Selector::kNcclAbove, kNcclUpTo).
    EXPECT_EQ(symmetra::introspect::allreduce_algo(rt, rt.team_world(), 512u << 10, true),
              AllreduceAlgo::kNccl);
    EXPECT_EQ(symmetra::introspect::allreduce_algo(rt, rt.team_world(), 1u << 20, true),
              AllreduceAlgo::kNccl);
    EXPECT_NE(symmetra::introspect::allreduce_algo(rt, rt.team_world(), 256u << 10, true),
              AllreduceAlgo::kNccl);
    EXPECT_NE(symmetra::introspect::allreduce_algo(rt, rt.team_world(), 2u << 20, true),
              AllreduceAlgo::kNccl);
    put(dst, std::vector<float>(kN, -1.0f));
    rt.allreduce(rt.team_world(), dst, src, kN, ReduceOp::kMax, AllreduceAlgo::kNccl);
    EXPECT_EQ(fetch(dst, kN), h);
    PeStream s;
    put(dst, std::vector<float>(kN, -1.0f));
    rt.allreduce_on_stream(rt.team_world(), dst, src, kN, ReduceOp::kSum, s, AllreduceAlgo::kNccl);
    CK(cudaStreamSynchronize(s));
    EXPECT_EQ(fetch(dst, kN), h);
  });
}

INSTANTIATE_TEST_SUITE_P(Gpu, CollHostGpuTest, ::testing::ValuesIn(configs()), PeConfigName());

}  // namespace
}  // namespace symmetra::testing
