// Probe: which CUDA streams of one process share a hardware work queue, and whether a full
// launch queue on one stream blocks launches on another. Kernels of PEs that share a GPU wait for
// each other, so both decide whether stream-ordered collectives can deadlock (docs/gpu_backend.md).
// Caveat (docs/perf_gpu.md#pes-that-share-a-gpu): this probe saw no sharing, yet the stream-form
// tests deadlocked at once with CUDA_DEVICE_MAX_CONNECTIONS=1 and sometimes with 8 or 32: how the
// driver assigns queues to the tests' streams is not what this probe exercises. A "no" here proves
// nothing.
//   nvcc -O2 -arch=sm_90 -o /tmp/sq bench/probes/stream_queues.cu && /tmp/sq [streams]
// Test 1: stream 0 runs a kernel that spins until released, then has a second kernel queued
// behind it. A kernel on stream j that completes while stream 0 is held means j has its own
// queue; one that does not means j sits behind stream 0's blocked head (a shared queue).
// Test 2: one thread launches many kernels behind a held kernel; another thread launches one
// kernel on its own stream and times its launch call and its completion.
#include <cuda_runtime.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <thread>
#include <vector>

#include "check.hpp"

__global__ void spin(volatile int* release) {  // bounded: gives up after about 2 s
  const long long t0 = clock64();
  while (*release == 0 && clock64() - t0 < 4'000'000'000LL) {
  }
}
__global__ void noop() {}
__global__ void mark(volatile int* done, int j) {
  done[j] = 1;
}

double ms_since(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t).count();
}

int main(int argc, char** argv) {
  const int n = argc > 1 ? std::atoi(argv[1]) : 40;
  const char* conns = std::getenv("CUDA_DEVICE_MAX_CONNECTIONS");
  CK(cudaSetDevice(0));
  int *release, *done;
  CK(cudaHostAlloc(&release, sizeof(int), cudaHostAllocMapped));
  CK(cudaHostAlloc(&done, sizeof(int) * n, cudaHostAllocMapped));
  std::vector<cudaStream_t> s(n);
  for (auto& x : s) CK(cudaStreamCreateWithFlags(&x, cudaStreamNonBlocking));

  std::printf("CUDA_DEVICE_MAX_CONNECTIONS=%s, %d streams\n", conns ? conns : "(unset)", n);
  for (int base : {0, 3}) {
    std::printf("streams sharing stream %d's queue:", base);
    int shared = 0;
    for (int j = 0; j < n; ++j) {
      if (j == base) continue;
      *(volatile int*)release = 0;
      ((volatile int*)done)[j] = 0;
      spin<<<1, 1, 0, s[base]>>>(release);
      noop<<<1, 1, 0, s[base]>>>();  // the blocked head of stream base's queue
      mark<<<1, 1, 0, s[j]>>>(done, j);
      const auto t = std::chrono::steady_clock::now();
      while (((volatile int*)done)[j] == 0 && ms_since(t) < 50) {
      }
      const bool blocked = ((volatile int*)done)[j] == 0;
      *(volatile int*)release = 1;
      CK(cudaDeviceSynchronize());
      if (blocked) {
        std::printf(" %d", j);
        ++shared;
      }
    }
    std::printf("  (%d)\n", shared);
  }

  // Test 2: a deep launch queue on one stream.
  for (int depth : {1000, 5000, 20000}) {
    *(volatile int*)release = 0;
    ((volatile int*)done)[1] = 0;
    std::atomic<bool> filled{false};
    double fill_ms = 0;
    std::thread a([&] {
      const auto t = std::chrono::steady_clock::now();
      spin<<<1, 1, 0, s[0]>>>(release);
      for (int k = 0; k < depth; ++k) noop<<<1, 1, 0, s[0]>>>();
      fill_ms = ms_since(t);
      filled = true;
    });
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    const auto t = std::chrono::steady_clock::now();
    mark<<<1, 1, 0, s[1]>>>(done, 1);
    const double launch_ms = ms_since(t);
    while (((volatile int*)done)[1] == 0 && ms_since(t) < 500) {
    }
    const double done_ms = ms_since(t);
    const bool filler_done = filled.load();
    *(volatile int*)release = 1;
    a.join();
    CK(cudaDeviceSynchronize());
    std::printf(
        "depth %5d behind a held kernel: filler %s (%.1f ms); other stream's launch call %.3f ms, "
        "kernel %s after %.1f ms\n",
        depth, filler_done ? "returned" : "blocked", fill_ms, launch_ms,
        ((volatile int*)done)[1] ? "done" : "NOT done", done_ms);
  }
  return 0;
}
