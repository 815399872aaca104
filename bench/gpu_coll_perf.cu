// symmetra-gpu-coll-perf: the collectives on the GPU backend, PEs as threads on the GPU(s),
// stream forms back to back, timed with CUDA events on PE 0's stream (the collectives keep the
// PEs in step). Rows: all-reduce of float sums for every algorithm and the selector's pick,
// 8 B - 64 MiB, next to a raw reduce kernel that reads every PE's buffer with no
// synchronization (the one-block memory floor), and to 256 KiB the selector's pick captured in
// a CUDA graph (form "graph", PEs on distinct GPUs only); broadcast, fcollect (push, pull, ring),
// alltoall and reduce_scatter, 8 B - 16 MiB; permute (ring shift) 4 KiB - 256 MiB.
//
//   symmetra-gpu-coll-perf [--quick] [--pes N]        (N PEs as threads of this process)
//   symrun -n N symmetra-gpu-coll-perf [--quick]      (N PEs as processes, PE 0 reports)
//
// NCCL (its row appears when the PEs sit on distinct GPUs and NCCL loads) and NVSHMEM cannot
// run several ranks on one GPU; their columns need a machine with several GPUs (issue 7), where
// bench/nccl/nccl_perf.cu and bench/nvshmem/nvshmem_coll.cu measure them side by side.
#include <cuda_runtime.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include "cuda_check.cuh"
#include "perf_report.hpp"
#include "stream_timer.cuh"
#include "symmetra/coll.hpp"
#include "symmetra/introspect.hpp"
#include "symmetra/launch.hpp"
#include "symmetra/runtime.hpp"

namespace sd = symmetra::device;
using symmetra::bench::Report;
using symmetra::bench::Row;
using symmetra::coll::AllreduceAlgo;

namespace {

// The memory floor of a one-block one-shot: sum m PEs' buffers into dst, no synchronization.
__global__ void raw_reduce(sd::Context ctx, float* dst, const float* src, std::size_t n, int m) {
  for (std::size_t i = threadIdx.x; i < n; i += blockDim.x) {
    float acc = 0;
    for (int r = 0; r < m; ++r) acc += ctx.peer(src, r)[i];
    dst[i] = acc;
  }
}

// `iters` all-reduces inside one kernel (the device form): the algorithm's own latency, with no
// launch in between.
__global__ void __launch_bounds__(512)
    allreduce_loop(sd::Context ctx, float* dst, const float* src, std::size_t n, AllreduceAlgo algo,
                   int iters) {
  for (int i = 0; i < iters; ++i)
    symmetra::coll::allreduce(sd::BlockGroup{}, ctx, sd::kTeamWorld, dst, src, n,
                              symmetra::coll::ReduceOp::kSum, algo);
}

}  // namespace

int main(int argc, char** argv) {
  bool quick = false;
  int pes = 4;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--quick") == 0)
      quick = true;
    else if (std::strcmp(argv[i], "--pes") == 0 && i + 1 < argc)
      pes = std::atoi(argv[++i]);
    else {
      std::fprintf(stderr, "usage: symmetra-gpu-coll-perf [--quick] [--pes N]\n");
      return 2;
    }
  }
  // Started by a launcher (symrun sets SYMMETRA_SIZE): one PE per process.
  const char* launched = std::getenv("SYMMETRA_SIZE");
  const bool procs = launched != nullptr && *launched != '\0';
  if (procs) pes = std::atoi(launched);
  const std::size_t max_ar = quick ? (4u << 20) : (64u << 20);
  const std::size_t max_coll = quick ? (1u << 20) : (16u << 20);
  const std::size_t max_perm = quick ? (16u << 20) : (256u << 20);
  const std::size_t heap =
      std::max({2 * max_ar, 2 * max_coll * static_cast<std::size_t>(pes), 2 * max_perm}) +
      (64u << 20);
  setenv("SYMMETRA_SYMMETRIC_SIZE", std::to_string(heap).c_str(), 0);
  Report report;
  std::vector<std::string> winners;
  std::atomic<int> arrived{0};
  auto meet = [&](int round) {  // host threads of the PEs start each timing together
    if (procs) return;          // processes: the barrier before it is all there is
    arrived.fetch_add(1);
    while (arrived.load() < pes * round) std::this_thread::yield();
  };
  int my_pe = 0;
  auto body = [&](symmetra::Runtime& rt) {
    const int me = rt.my_pe();
    int round = 0;
    cudaStream_t s;
    CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    const auto st = reinterpret_cast<symmetra::Stream>(s);
    // Per-call microseconds of `iters` back-to-back enqueues of `body` (PE 0's view), every PE
    // starting each run together.
    symmetra::bench::StreamTimer timer(s);
    auto timed = [&](int iters, const std::function<void()>& body) {
      return timer(
          iters,
          [&] {
            rt.barrier_all();
            meet(++round);
          },
          body);
    };
    auto add = [&](const std::string& op, std::size_t bytes, const char* backend,
                   std::pair<double, double> t, const char* form = "stream") {
      if (me == 0)
        report.add(Row{op, bytes, pes, form, backend, t.first, t.second, bytes / (t.first * 1e3)});
    };
    // Graph rows need a GPU per PE: a graph of several collectives can deadlock PEs that share a
    // GPU (Runtime::launch_graph).
    int devices = 0;
    CK(cudaGetDeviceCount(&devices));
    const bool graphs = pes <= devices;
    const symmetra::Team world = rt.team_world();
    auto iters_for = [&](std::size_t bytes) { return symmetra::bench::iters_for(bytes, quick); };

    // All-reduce, every algorithm, the selector's pick, and the raw floor.
    {
      auto* src = static_cast<float*>(rt.allocate(max_ar));
      auto* dst = static_cast<float*>(rt.allocate(max_ar));
      CK(cudaMemsetAsync(src, 0, max_ar, s));
      CK(cudaStreamSynchronize(s));
      std::vector<AllreduceAlgo> algos(std::begin(symmetra::coll::kDeviceAllreduceAlgos),
                                       std::end(symmetra::coll::kDeviceAllreduceAlgos));
      algos.push_back(AllreduceAlgo::kAuto);
      rt.allreduce(world, dst, src, 1,
                   symmetra::coll::ReduceOp::kSum);  // the team's first call decides on NCCL
      if (symmetra::introspect::nccl_ready(rt, world))
        algos.push_back(AllreduceAlgo::kNccl);  // PEs on distinct GPUs only
      const sd::Context ctx = rt.device_context();
      for (std::size_t bytes : symmetra::bench::sizes(8, max_ar, quick ? 16 : 4)) {
        const std::size_t n = bytes / sizeof(float);
        const int iters = iters_for(bytes);
        double best = 1e30;
        const char* best_name = "";
        for (AllreduceAlgo algo : algos) {
          const auto t = timed(iters, [&] {
            rt.allreduce_on_stream(world, dst, src, n, symmetra::coll::ReduceOp::kSum, st, algo);
          });
          add(std::string("allreduce_") + symmetra::coll::algo_name(algo), bytes, "symmetra", t);
          if (algo != AllreduceAlgo::kAuto && t.first < best)
            best = t.first, best_name = symmetra::coll::algo_name(algo);
        }
        add("allreduce_raw_reduce_no_sync", bytes, "raw_kernel", timed(iters, [&] {
              raw_reduce<<<1, 512, 0, s>>>(ctx, dst, src, n, pes);
              CK(cudaGetLastError());
            }));
        if (bytes <= (1u << 20)) {  // in-kernel loops: the latency without launches
          for (AllreduceAlgo algo : algos) {
            if (algo == AllreduceAlgo::kAuto || algo == AllreduceAlgo::kNccl) continue;
            const int loop = quick ? 50 : 200;
            const auto t = timed(1, [&] {
              allreduce_loop<<<1, 512, 0, s>>>(ctx, dst, src, n, algo, loop);
              CK(cudaGetLastError());
            });
            add(std::string("allreduce_") + symmetra::coll::algo_name(algo), bytes,
                "symmetra_in_kernel", {t.first / loop, t.second / loop});
          }
        }
        if (graphs && bytes <= (256u << 10)) {
          // The selector's pick captured in a CUDA graph, as serving frameworks run it (vLLM's
          // custom all-reduce, TensorRT-LLM): kCalls calls per graph launch, no host launches.
          constexpr int kCalls = 20;
          cudaGraph_t graph;
          cudaGraphExec_t exec;
          CK(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal));
          for (int i = 0; i < kCalls; ++i)
            rt.allreduce_on_stream(world, dst, src, n, symmetra::coll::ReduceOp::kSum, st);
          CK(cudaStreamEndCapture(s, &graph));
          CK(cudaGraphInstantiate(&exec, graph, 0));
          const auto t = timed(std::max(iters / kCalls, 3), [&] { rt.launch_graph(exec, st); });
          add("allreduce_auto", bytes, "symmetra", {t.first / kCalls, t.second / kCalls}, "graph");
          CK(cudaGraphExecDestroy(exec));
          CK(cudaGraphDestroy(graph));
        }
        if (me == 0)
          winners.push_back(std::to_string(bytes) + " B: fastest " + best_name + " (" +
                            std::to_string(best) + " us), selector picks " +
                            symmetra::coll::algo_name(
                                symmetra::introspect::allreduce_algo(rt, world, bytes, true)));
      }
      rt.barrier_all();
      rt.free(dst);
      rt.free(src);
    }

    // The other collectives: bytes is the block each PE contributes.
    {
      const std::size_t m = static_cast<std::size_t>(pes);
      auto* src = static_cast<char*>(rt.allocate(max_coll * m));
      auto* dst = static_cast<char*>(rt.allocate(max_coll * m));
      CK(cudaMemsetAsync(src, 1, max_coll * m, s));
      CK(cudaStreamSynchronize(s));
      for (std::size_t bytes = 8; bytes <= max_coll; bytes *= (quick ? 16 : 4)) {
        const std::size_t n = bytes / 4;
        auto* s32 = reinterpret_cast<std::uint32_t*>(src);
        auto* d32 = reinterpret_cast<std::uint32_t*>(dst);
        const int iters = iters_for(bytes * m);
        add("broadcast", bytes, "symmetra",
            timed(iters, [&] { rt.broadcast_on_stream(world, d32, s32, n, 0, st); }));
        add("fcollect_push", bytes, "symmetra",
            timed(iters, [&] { rt.fcollect_on_stream(world, d32, s32, n, st); }));
        add("fcollect_pull", bytes, "symmetra",
            timed(iters, [&] { rt.fcollect_read_on_stream(world, d32, s32, n, st); }));
        add("fcollect_ring", bytes, "symmetra",
            timed(iters, [&] { rt.fcollect_ring_on_stream(world, d32, s32, n, st); }));
        add("alltoall", bytes, "symmetra",
            timed(iters, [&] { rt.alltoall_on_stream(world, d32, s32, n, st); }));
        add("reduce_scatter_f32", bytes, "symmetra", timed(iters, [&] {
              rt.reduce_scatter_on_stream(world, reinterpret_cast<float*>(dst),
                                          reinterpret_cast<const float*>(src), n,
                                          symmetra::coll::ReduceOp::kSum, st);
            }));
      }
      rt.barrier_all();
      rt.free(dst);
      rt.free(src);
    }

    // Collective permute, the ring shift of ring attention: bytes is the block each PE sends.
    {
      auto* src = static_cast<std::uint32_t*>(rt.allocate(max_perm));
      auto* dst = static_cast<std::uint32_t*>(rt.allocate(max_perm));
      CK(cudaMemsetAsync(src, 1, max_perm, s));
      CK(cudaStreamSynchronize(s));
      for (std::size_t bytes = 4096; bytes <= max_perm; bytes *= (quick ? 16 : 4)) {
        const std::size_t n = bytes / 4;
        add("permute_ring_shift", bytes, "symmetra", timed(iters_for(bytes), [&] {
              rt.permute_on_stream(world, dst, src, n, (me + 1) % pes, (me + pes - 1) % pes,
                                   std::max<std::size_t>(n / 4, 1), st);
            }));
      }
      rt.barrier_all();
      rt.free(dst);
      rt.free(src);
    }
    CK(cudaStreamDestroy(s));
  };
  const symmetra::RuntimeOptions options{symmetra::Backend::kCuda, -1};
  if (procs) {
    auto rt = symmetra::Runtime::init(options);
    my_pe = rt->my_pe();
    body(*rt);
    rt->finalize();
  } else {
    symmetra::launch_threads(pes, options, body);
  }
  if (my_pe != 0) return 0;
  report.table();
  std::printf("\nall-reduce on the GPU, %d PEs as %s (float sum, p50):\n", pes,
              procs ? "processes" : "threads of one process");
  for (const auto& w : winners) std::printf("  %s\n", w.c_str());
  return 0;
}
