// The NCCL side of symmetra-gpu-coll-perf (issue 7), one rank per GPU, each driven by its own
// thread as Symmetra's PEs are (one thread driving every GPU, as nccl-tests -g, measured twice
// the per-call time at small sizes: the host launch was the bottleneck). Rows: all-reduce of
// float sums on plain cudaMalloc buffers and on buffers registered as NCCL symmetric windows
// (ncclMemAlloc + ncclCommWindowRegister with NCCL_WIN_COLL_SYMMETRIC, NCCL >= 2.27), and the
// ring shift as ncclSend/ncclRecv pairs (the collective permute of ring attention). Built by
// tools/gpu-check against the machine's NCCL Python package, outside Symmetra's targets; prints
// the same JSON lines and table.
//
//   nccl_perf [--quick]
//
// Timing: the ranks' threads start each run together; CUDA events on rank 0's stream around
// back-to-back calls (the collectives keep the ranks in step), median of 5 runs after a warm-up.
#include <cuda_runtime.h>
#include <nccl.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include "../cuda_check.cuh"
#include "../perf_report.hpp"
#include "../stream_timer.cuh"

#define NK(call)                                                                   \
  do {                                                                             \
    ncclResult_t rc_ = (call);                                                     \
    if (rc_ != ncclSuccess) {                                                      \
      std::fprintf(stderr, "nccl_perf: %s: %s\n", #call, ncclGetErrorString(rc_)); \
      std::exit(1);                                                                \
    }                                                                              \
  } while (0)

using symmetra::bench::Report;
using symmetra::bench::Row;

int main(int argc, char** argv) {
  const bool quick = argc > 1 && std::strcmp(argv[1], "--quick") == 0;
  int n = 0;
  CK(cudaGetDeviceCount(&n));
  if (n < 2) {
    std::printf("nccl_perf: %d GPU: NCCL needs one GPU per rank; nothing to compare\n", n);
    return 0;
  }
  const std::size_t max_ar = quick ? (4u << 20) : (64u << 20);
  const std::size_t max_perm = quick ? (16u << 20) : (256u << 20);
  std::vector<ncclComm_t> comm(n);
  std::vector<int> devs(n);
  for (int r = 0; r < n; ++r) devs[r] = r;
  NK(ncclCommInitAll(comm.data(), n, devs.data()));
  Report report;
  std::atomic<int> arrived{0};
  auto meet = [&](int round) {  // the ranks' threads start each timing together
    arrived.fetch_add(1);
    while (arrived.load() < n * round) std::this_thread::yield();
  };
  // One thread per rank, each on its own GPU, as Symmetra's PEs in gpu_coll_perf.
  auto rank_main = [&](int r) {
    CK(cudaSetDevice(r));
    cudaStream_t st;
    CK(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking));
    const std::size_t buf = std::max(max_ar, max_perm);
    float *src, *dst, *wsrc = nullptr, *wdst = nullptr;
    CK(cudaMalloc(&src, buf));
    CK(cudaMalloc(&dst, buf));
    CK(cudaMemset(src, 0, buf));
    int round = 0;
    symmetra::bench::StreamTimer timer(st);
    auto timed = [&](int iters, const std::function<void()>& body) {
      return timer(
          iters, [&] { meet(++round); }, body);
    };
    auto iters_for = [&](std::size_t bytes) { return symmetra::bench::iters_for(bytes, quick); };
    auto add = [&](const char* op, std::size_t bytes, const char* backend,
                   std::pair<double, double> t, const char* form = "stream") {
      if (r == 0)
        report.add(Row{op, bytes, n, form, backend, t.first, t.second, bytes / (t.first * 1e3)});
    };
    // Symmetric windows: NCCL's own allocation, registered collectively (every rank's thread).
#if NCCL_VERSION_CODE >= NCCL_VERSION(2, 27, 0)
    ncclWindow_t win_s{}, win_d{};
    const bool windows = ncclMemAlloc(reinterpret_cast<void**>(&wsrc), max_ar) == ncclSuccess &&
                         ncclMemAlloc(reinterpret_cast<void**>(&wdst), max_ar) == ncclSuccess;
    if (windows) {
      CK(cudaMemset(wsrc, 0, max_ar));
      NK(ncclCommWindowRegister(comm[r], wsrc, max_ar, &win_s, NCCL_WIN_COLL_SYMMETRIC));
      NK(ncclCommWindowRegister(comm[r], wdst, max_ar, &win_d, NCCL_WIN_COLL_SYMMETRIC));
    }
#else
    const bool windows = false;
#endif
    if (!windows && r == 0)
      std::printf("nccl_perf: no symmetric windows (NCCL %d)\n", NCCL_VERSION_CODE);
    for (std::size_t bytes : symmetra::bench::sizes(8, max_ar, quick ? 16 : 4)) {
      const std::size_t count = bytes / sizeof(float);
      const int iters = iters_for(bytes);
      add("allreduce_nccl", bytes, "nccl", timed(iters, [&] {
            NK(ncclAllReduce(src, dst, count, ncclFloat, ncclSum, comm[r], st));
          }));
      if (windows)
        add("allreduce_nccl", bytes, "nccl_symmetric", timed(iters, [&] {
              NK(ncclAllReduce(wsrc, wdst, count, ncclFloat, ncclSum, comm[r], st));
            }));
      if (bytes <= (256u << 10)) {  // captured in a CUDA graph, kCalls calls per launch
        constexpr int kCalls = 20;
        cudaGraph_t graph;
        cudaGraphExec_t exec;
        CK(cudaStreamBeginCapture(st, cudaStreamCaptureModeThreadLocal));
        for (int i = 0; i < kCalls; ++i)
          NK(ncclAllReduce(src, dst, count, ncclFloat, ncclSum, comm[r], st));
        CK(cudaStreamEndCapture(st, &graph));
        CK(cudaGraphInstantiate(&exec, graph, 0));
        const auto t = timed(std::max(iters / kCalls, 3), [&] { CK(cudaGraphLaunch(exec, st)); });
        add("allreduce_nccl", bytes, "nccl", {t.first / kCalls, t.second / kCalls}, "graph");
        CK(cudaGraphExecDestroy(exec));
        CK(cudaGraphDestroy(graph));
      }
    }
    // The ring shift: rank r sends its block to r + 1 and receives r - 1's.
    for (std::size_t bytes = 4096; bytes <= max_perm; bytes *= (quick ? 16 : 4)) {
      const std::size_t count = bytes / sizeof(float);
      add("permute_ring_shift", bytes, "nccl_sendrecv", timed(iters_for(bytes), [&] {
            NK(ncclGroupStart());
            NK(ncclSend(src, count, ncclFloat, (r + 1) % n, comm[r], st));
            NK(ncclRecv(dst, count, ncclFloat, (r + n - 1) % n, comm[r], st));
            NK(ncclGroupEnd());
          }));
    }
    CK(cudaStreamSynchronize(st));
#if NCCL_VERSION_CODE >= NCCL_VERSION(2, 27, 0)
    if (windows) {
      NK(ncclCommWindowDeregister(comm[r], win_s));
      NK(ncclCommWindowDeregister(comm[r], win_d));
      NK(ncclMemFree(wsrc));
      NK(ncclMemFree(wdst));
    }
#endif
    NK(ncclCommDestroy(comm[r]));
  };
  std::vector<std::thread> threads;
  for (int r = 0; r < n; ++r) threads.emplace_back(rank_main, r);
  for (auto& t : threads) t.join();
  report.table();
  return 0;
}
