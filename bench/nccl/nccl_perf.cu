// The NCCL side of symmetra-gpu-coll-perf (issue 7), one rank per GPU driven from one thread
// (ncclCommInitAll, as nccl-tests -g): all-reduce of float sums on plain cudaMalloc buffers and
// on buffers registered as NCCL symmetric windows (ncclMemAlloc + ncclCommWindowRegister with
// NCCL_WIN_COLL_SYMMETRIC, NCCL >= 2.27), and the ring shift as ncclSend/ncclRecv pairs (the
// collective permute of ring attention). Built by tools/gpu-check against the machine's NCCL
// Python package, outside Symmetra's targets; prints the same JSON lines and table.
//
//   nccl_perf [--quick]
//
// Timing: CUDA events on rank 0's stream around back-to-back calls (the collectives keep the
// ranks in step), median of 5 runs after a warm-up run.
#include <cuda_runtime.h>
#include <nccl.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "../cuda_check.cuh"
#include "../perf_report.hpp"

#define NK(call)                                                                              \
  do {                                                                                        \
    ncclResult_t rc_ = (call);                                                                \
    if (rc_ != ncclSuccess) {                                                                 \
      std::fprintf(stderr, "nccl_perf: %s: %s\n", #call, ncclGetErrorString(rc_));           \
      std::exit(1);                                                                           \
    }                                                                                         \
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
  std::vector<cudaStream_t> st(n);
  std::vector<float*> src(n), dst(n), wsrc(n), wdst(n);
  const std::size_t buf = std::max(max_ar, max_perm);
  for (int r = 0; r < n; ++r) {
    CK(cudaSetDevice(r));
    CK(cudaStreamCreateWithFlags(&st[r], cudaStreamNonBlocking));
    CK(cudaMalloc(&src[r], buf));
    CK(cudaMalloc(&dst[r], buf));
    CK(cudaMemset(src[r], 0, buf));
  }
  cudaEvent_t a, b;
  CK(cudaSetDevice(0));
  CK(cudaEventCreate(&a));
  CK(cudaEventCreate(&b));
  Report report;
  // Per-call microseconds of `iters` calls of `body` (one call across all ranks), p50 and p99.
  auto timed = [&](int iters, const std::function<void()>& body) {
    std::vector<double> us;
    for (int run = 0; run < 6; ++run) {
      for (int r = 0; r < n; ++r) {
        CK(cudaSetDevice(r));
        CK(cudaStreamSynchronize(st[r]));
      }
      CK(cudaSetDevice(0));
      CK(cudaEventRecord(a, st[0]));
      for (int i = 0; i < iters; ++i) body();
      CK(cudaSetDevice(0));
      CK(cudaEventRecord(b, st[0]));
      CK(cudaEventSynchronize(b));
      float ms = 0;
      CK(cudaEventElapsedTime(&ms, a, b));
      if (run > 0) us.push_back(ms * 1e3 / iters);
    }
    double p50, p99;
    symmetra::bench::percentiles(us, &p50, &p99);
    return std::pair{p50, p99};
  };
  auto iters_for = [&](std::size_t bytes) {
    return static_cast<int>(std::clamp<std::size_t>((std::size_t{64} << 20) / bytes, 3, quick ? 100 : 300));
  };
  auto add = [&](const char* op, std::size_t bytes, const char* backend, std::pair<double, double> t) {
    report.add(Row{op, bytes, n, "stream", backend, t.first, t.second, bytes / (t.first * 1e3)});
  };
  auto allreduce = [&](const std::vector<float*>& s, const std::vector<float*>& d, std::size_t count) {
    NK(ncclGroupStart());
    for (int r = 0; r < n; ++r) NK(ncclAllReduce(s[r], d[r], count, ncclFloat, ncclSum, comm[r], st[r]));
    NK(ncclGroupEnd());
  };

  // Symmetric windows: NCCL's own allocation, registered collectively.
#if NCCL_VERSION_CODE >= NCCL_VERSION(2, 27, 0)
  std::vector<ncclWindow_t> win_s(n), win_d(n);
  bool windows = true;
  for (int r = 0; r < n && windows; ++r) {
    CK(cudaSetDevice(r));
    windows = ncclMemAlloc(reinterpret_cast<void**>(&wsrc[r]), max_ar) == ncclSuccess &&
              ncclMemAlloc(reinterpret_cast<void**>(&wdst[r]), max_ar) == ncclSuccess;
    if (windows) CK(cudaMemset(wsrc[r], 0, max_ar));
  }
  if (windows) {
    NK(ncclGroupStart());
    for (int r = 0; r < n; ++r) {
      NK(ncclCommWindowRegister(comm[r], wsrc[r], max_ar, &win_s[r], NCCL_WIN_COLL_SYMMETRIC));
      NK(ncclCommWindowRegister(comm[r], wdst[r], max_ar, &win_d[r], NCCL_WIN_COLL_SYMMETRIC));
    }
    NK(ncclGroupEnd());
  }
#else
  const bool windows = false;
#endif
  if (!windows) std::printf("nccl_perf: no symmetric windows (NCCL %d)\n", NCCL_VERSION_CODE);

  for (std::size_t bytes = 8; bytes <= max_ar; bytes *= (quick ? 16 : 4)) {
    const std::size_t count = bytes / sizeof(float);
    const int iters = iters_for(bytes);
    add("allreduce_nccl", bytes, "nccl", timed(iters, [&] { allreduce(src, dst, count); }));
    if (windows) add("allreduce_nccl", bytes, "nccl_symmetric", timed(iters, [&] { allreduce(wsrc, wdst, count); }));
  }
  // The ring shift: rank r sends its block to r + 1 and receives r - 1's.
  for (std::size_t bytes = 4096; bytes <= max_perm; bytes *= (quick ? 16 : 4)) {
    const std::size_t count = bytes / sizeof(float);
    add("permute_ring_shift", bytes, "nccl_sendrecv", timed(iters_for(bytes), [&] {
          NK(ncclGroupStart());
          for (int r = 0; r < n; ++r) {
            NK(ncclSend(src[r], count, ncclFloat, (r + 1) % n, comm[r], st[r]));
            NK(ncclRecv(dst[r], count, ncclFloat, (r + n - 1) % n, comm[r], st[r]));
          }
          NK(ncclGroupEnd());
        }));
  }
  for (int r = 0; r < n; ++r) {
    CK(cudaSetDevice(r));
    CK(cudaStreamSynchronize(st[r]));
  }
#if NCCL_VERSION_CODE >= NCCL_VERSION(2, 27, 0)
  if (windows) {
    for (int r = 0; r < n; ++r) {
      NK(ncclCommWindowDeregister(comm[r], win_s[r]));
      NK(ncclCommWindowDeregister(comm[r], win_d[r]));
      NK(ncclMemFree(wsrc[r]));
      NK(ncclMemFree(wdst[r]));
    }
  }
#endif
  for (int r = 0; r < n; ++r) NK(ncclCommDestroy(comm[r]));
  report.table();
  return 0;
}
