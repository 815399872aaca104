// p and put latency through NVSHMEM's API, one PE putting to itself: thread, warp and block
// forms. The same source builds twice (tools/gpu-check): against NVSHMEM 3.4 from the GPU
// machine's Python package (-rdc=true, outside Symmetra's targets) and against Symmetra's
// nvshmem.h (-DNVSHMEM_PERF_BACKEND=\"symmetra_nvshmem\"), so bench/nvshmem/ratio.py compares them
// row by row. Each size's destination is checked against its source before its time prints.
#include <cuda_runtime.h>
#include <nvshmem.h>
#include <nvshmemx.h>

#include <algorithm>
#include <cstdio>
#include <vector>

#define CK(call)                                                             \
  do {                                                                       \
    cudaError_t rc_ = (call);                                                \
    if (rc_ != cudaSuccess) {                                                \
      std::printf("nvshmem_perf: %s: %s\n", #call, cudaGetErrorString(rc_)); \
      return 1;                                                              \
    }                                                                        \
  } while (0)

__global__ void p_loop(unsigned long long* dst, int pe, int iters) {
  for (int i = 0; i < iters; ++i) {
    nvshmem_ulonglong_p(dst, i, pe);
    nvshmem_quiet();
  }
}
__global__ void put_thread(char* dst, const char* src, size_t bytes, int pe, int iters) {
  for (int i = 0; i < iters; ++i) {
    nvshmem_putmem(dst, src, bytes, pe);
    nvshmem_quiet();
  }
}
__global__ void put_warp(char* dst, const char* src, size_t bytes, int pe, int iters) {
  for (int i = 0; i < iters; ++i) {
    nvshmemx_putmem_warp(dst, src, bytes, pe);
    if (threadIdx.x == 0) nvshmem_quiet();
    __syncwarp();
  }
}
__global__ void put_block(char* dst, const char* src, size_t bytes, int pe, int iters) {
  for (int i = 0; i < iters; ++i) {
    nvshmemx_putmem_block(dst, src, bytes, pe);
    if (threadIdx.x == 0) nvshmem_quiet();
    __syncthreads();
  }
}

template <class F>
float median_ms(cudaStream_t s, F launch) {
  cudaEvent_t a, b;
  cudaEventCreate(&a);
  cudaEventCreate(&b);
  launch();
  cudaStreamSynchronize(s);
  std::vector<float> v;
  for (int r = 0; r < 5; ++r) {
    cudaEventRecord(a, s);
    launch();
    cudaEventRecord(b, s);
    cudaEventSynchronize(b);
    float t = 0;
    cudaEventElapsedTime(&t, a, b);
    v.push_back(t);
  }
  std::sort(v.begin(), v.end());
  return v[2];
}

#ifndef NVSHMEM_PERF_BACKEND
#define NVSHMEM_PERF_BACKEND "nvshmem_self"
#endif

void row(const char* op, size_t bytes, const char* form, double us) {
  std::printf(
      "{\"op\":\"%s\",\"bytes\":%zu,\"pes\":1,\"form\":\"%s\",\"backend\":\"%s\","
      "\"p50_us\":%.4f,\"p99_us\":%.4f,\"GBps\":%.4f}\n",
      op, bytes, form, NVSHMEM_PERF_BACKEND, us, us,
      op[0] == 'p' && op[1] == '_' ? 0.0 : bytes / (us * 1e3));
}

// Whether dst's first `bytes` equal src's (both device memory of this PE).
bool same(const char* dst, const char* src, size_t bytes) {
  std::vector<char> a(bytes), b(bytes);
  cudaMemcpy(a.data(), dst, bytes, cudaMemcpyDeviceToHost);
  cudaMemcpy(b.data(), src, bytes, cudaMemcpyDeviceToHost);
  return a == b;
}

int main(int argc, char** argv) {
  const bool quick = argc > 1;
  CK(cudaSetDevice(0));
  CK(cudaFree(nullptr));  // NVSHMEM needs a current context before init
  nvshmem_init();
  const int me = nvshmem_my_pe();
  const size_t max = 1u << 20;
  char* dst = static_cast<char*>(nvshmem_malloc(max));
  char* src = static_cast<char*>(nvshmem_malloc(max));
  cudaStream_t s;
  CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  const int iters = quick ? 200 : 1000;
  std::vector<unsigned char> pattern(max);
  for (size_t i = 0; i < max; ++i) pattern[i] = static_cast<unsigned char>(i * 131 + 7);
  CK(cudaMemcpy(src, pattern.data(), max, cudaMemcpyHostToDevice));
  float t = median_ms(
      s, [&] { p_loop<<<1, 1, 0, s>>>(reinterpret_cast<unsigned long long*>(dst), me, iters); });
  unsigned long long last = 0;
  CK(cudaMemcpy(&last, dst, sizeof(last), cudaMemcpyDeviceToHost));
  if (last != static_cast<unsigned long long>(iters - 1)) {
    std::printf("nvshmem_perf: p wrote %llu, want %d\n", last, iters - 1);
    return 1;
  }
  row("p_lat", 8, "thread", t * 1e3 / iters);
  for (size_t bytes = 8; bytes <= max; bytes *= (quick ? 16 : 4)) {
    const int it =
        static_cast<int>(std::min<size_t>(std::max<size_t>((64u << 20) / bytes, 20), iters));
    const char* forms[] = {"thread", "warp", "block"};
    for (int f = 0; f < 3; ++f) {
      CK(cudaMemset(dst, 0, bytes));
      t = median_ms(s, [&] {
        if (f == 0) put_thread<<<1, 1, 0, s>>>(dst, src, bytes, me, it);
        if (f == 1) put_warp<<<1, 32, 0, s>>>(dst, src, bytes, me, it);
        if (f == 2) put_block<<<1, 1024, 0, s>>>(dst, src, bytes, me, it);
      });
      if (!same(dst, src, bytes)) {
        std::printf("nvshmem_perf: %s put of %zu bytes: destination differs\n", forms[f], bytes);
        return 1;
      }
      row("put_lat", bytes, forms[f], t * 1e3 / it);
    }
  }
  CK(cudaGetLastError());
  nvshmem_free(src);
  nvshmem_free(dst);
  nvshmem_finalize();
  return 0;
}
