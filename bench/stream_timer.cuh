// Timing on a CUDA stream, shared by the GPU benchmarks (gpu_perf, gpu_coll_perf, and the NCCL
// and NVSHMEM comparisons built outside the library's targets), so that every column of a
// side-by-side table is measured the same way.
// Threads: one timer per stream, used by the thread that owns the stream.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <cstddef>
#include <functional>
#include <utility>
#include <vector>

#include "cuda_check.cuh"
#include "perf_report.hpp"

namespace symmetra::bench {

// One timing (ms) of `body` between two events on `s`, no warm-up: for a caller that warms up
// itself or checks each run's output.
inline float once_ms(cudaStream_t s, const std::function<void()>& body) {
  cudaEvent_t a, b;
  CK(cudaEventCreate(&a));
  CK(cudaEventCreate(&b));
  CK(cudaEventRecord(a, s));
  body();
  CK(cudaEventRecord(b, s));
  CK(cudaEventSynchronize(b));
  float t = 0;
  CK(cudaEventElapsedTime(&t, a, b));
  CK(cudaEventDestroy(a));
  CK(cudaEventDestroy(b));
  return t;
}

// The median of `runs` timings (ms) of `body`, each between two events on `s`, after one
// warm-up run: for kernels that loop over their own iterations.
inline float median_ms(cudaStream_t s, int runs, const std::function<void()>& body) {
  body();
  CK(cudaStreamSynchronize(s));
  std::vector<float> ms;
  for (int r = 0; r < runs; ++r) ms.push_back(once_ms(s, body));
  std::sort(ms.begin(), ms.end());
  return ms[ms.size() / 2];
}

class StreamTimer {
 public:
  explicit StreamTimer(cudaStream_t s) : s_(s) {
    CK(cudaEventCreate(&a_));
    CK(cudaEventCreate(&b_));
  }
  ~StreamTimer() {
    cudaEventDestroy(a_);
    cudaEventDestroy(b_);
  }
  StreamTimer(const StreamTimer&) = delete;
  StreamTimer& operator=(const StreamTimer&) = delete;

  // Per-call microseconds (p50, p99) of `iters` enqueues of `body`, timed by CUDA events around
  // each of 6 runs; the first run warms up. Before each run the stream drains and `align` runs
  // (a barrier of the PEs or ranks, so that they all start together).
  std::pair<double, double> operator()(int iters, const std::function<void()>& align,
                                       const std::function<void()>& body) {
    std::vector<double> us;
    for (int run = 0; run < 6; ++run) {
      CK(cudaStreamSynchronize(s_));
      align();
      CK(cudaEventRecord(a_, s_));
      for (int i = 0; i < iters; ++i) body();
      CK(cudaEventRecord(b_, s_));
      CK(cudaEventSynchronize(b_));
      float ms = 0;
      CK(cudaEventElapsedTime(&ms, a_, b_));
      if (run > 0) us.push_back(ms * 1e3 / iters);
    }
    double p50, p99;
    percentiles(us, &p50, &p99);
    return {p50, p99};
  }

 private:
  cudaStream_t s_;
  cudaEvent_t a_, b_;
};

// Calls per timing run for `bytes`: about 64 MiB moved, 3 calls at least, 100 (quick) or 300
// at most.
inline int iters_for(std::size_t bytes, bool quick) {
  return static_cast<int>(
      std::clamp<std::size_t>((std::size_t{64} << 20) / bytes, 3, quick ? 100 : 300));
}

}  // namespace symmetra::bench
