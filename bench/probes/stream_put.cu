// Probe: where a put on a stream spends its time. nvshmemx_putmem_on_stream between two blocks
// of the symmetric heap (one PE, to itself) against the calls it could make instead, each timed
// as a loop of enqueues on one stream and a synchronize: cudaMemcpyAsync with the direction
// inferred (cudaMemcpyDefault) and given (DeviceToDevice), and a one-block copy kernel; the
// same cudaMemcpyAsync between cudaMalloc blocks. Every variant's destination is checked
// against its source before its time prints.
//   nvcc -O2 -arch=sm_90 -std=c++17 -I.gpu-build/include bench/probes/stream_put.cu \
//     -L.gpu-build/lib -lnvshmem_host -o /tmp/sp && /tmp/sp     (symrun -n 1, or alone)
#include <nvshmem.h>
#include <nvshmemx.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <functional>
#include <vector>

#include "check.hpp"

__global__ void copy_kernel(int4* dst, const int4* src, size_t n) {
  for (size_t i = threadIdx.x; i < n; i += blockDim.x) dst[i] = src[i];
}

// Microseconds per enqueue of `op`, the median of 5 loops of `iters`.
static double per_op_us(cudaStream_t s, int iters, const std::function<void()>& op) {
  std::vector<double> t;
  for (int r = 0; r < 6; ++r) {
    CK(cudaStreamSynchronize(s));
    const auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < iters; ++i) op();
    CK(cudaStreamSynchronize(s));
    const double us =
        std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count();
    if (r > 0) t.push_back(us / iters);  // the first loop warms up
  }
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

int main() {
  nvshmem_init();
  cudaStream_t s;
  CK(cudaStreamCreate(&s));
  const int me = nvshmem_my_pe(), iters = 2000;
  std::printf("%-34s %8s %10s\n", "variant", "bytes", "us/op");
  int failures = 0;
  for (size_t bytes : {size_t{16}, size_t{512}, size_t{32768}}) {
    char* dst = static_cast<char*>(nvshmem_malloc(bytes));
    char* src = static_cast<char*>(nvshmem_malloc(bytes));
    char *mdst = nullptr, *msrc = nullptr;
    CK(cudaMalloc(&mdst, bytes));
    CK(cudaMalloc(&msrc, bytes));
    std::vector<char> pattern(bytes), back(bytes);
    struct Variant {
      const char* name;
      char* d;
      char* s;
      std::function<void()> op;
    };
    const Variant variants[] = {
        {"nvshmemx_putmem_on_stream", dst, src,
         [&] { nvshmemx_putmem_on_stream(dst, src, bytes, me, s); }},
        {"cudaMemcpyAsync Default (heap)", dst, src,
         [&] { CK(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDefault, s)); }},
        {"cudaMemcpyAsync DeviceToDevice (heap)", dst, src,
         [&] { CK(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice, s)); }},
        {"copy kernel, 1 block (heap)", dst, src,
         [&] {
           copy_kernel<<<1, 256, 0, s>>>(reinterpret_cast<int4*>(dst),
                                         reinterpret_cast<const int4*>(src), bytes / 16);
         }},
        {"cudaMemcpyAsync Default (cudaMalloc)", mdst, msrc,
         [&] { CK(cudaMemcpyAsync(mdst, msrc, bytes, cudaMemcpyDefault, s)); }},
    };
    for (const Variant& v : variants) {
      for (size_t i = 0; i < bytes; ++i) pattern[i] = static_cast<char>(rand());
      CK(cudaMemcpy(v.s, pattern.data(), bytes, cudaMemcpyHostToDevice));
      CK(cudaMemset(v.d, 0, bytes));
      const double us = per_op_us(s, iters, v.op);
      CK(cudaMemcpy(back.data(), v.d, bytes, cudaMemcpyDeviceToHost));
      if (std::memcmp(back.data(), pattern.data(), bytes) != 0) {
        std::printf("FAIL %s (%zu bytes): destination differs\n", v.name, bytes);
        ++failures;
        continue;
      }
      std::printf("%-38s %8zu %10.3f\n", v.name, bytes, us);
      std::printf(
          "{\"probe\": \"stream_put\", \"variant\": \"%s\", \"bytes\": %zu, \"us\": %.4f}\n",
          v.name, bytes, us);
    }
    nvshmem_free(dst);
    nvshmem_free(src);
    CK(cudaFree(mdst));
    CK(cudaFree(msrc));
  }
  nvshmem_finalize();
  return failures == 0 ? 0 : 1;
}
