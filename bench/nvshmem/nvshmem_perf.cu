// Latency through NVSHMEM's API, one PE to itself: p, g, a fetch-add, put and get from a
// thread, a warp and a block, put-with-signal and its wait, the device barrier and a block's sum
// reduction, and put and the sum reduction on a stream. The same source builds twice
// (tools/gpu-check): against NVSHMEM 3.4 from the GPU machine's Python package (-rdc=true, outside
// Symmetra's targets) and against Symmetra's nvshmem.h
// (-DNVSHMEM_PERF_BACKEND=\"symmetra_nvshmem\"), so bench/nvshmem/ratio.py compares them row by
// row. Each size's destination is checked against its source before its time prints.
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
#ifdef SYMMETRAI_STATE
// Symmetra's C++ device API with the context as a kernel parameter, as its users pass it: the
// row that shows the context-free nvshmem_ulonglong_p above costs what device::p costs.
__global__ void p_loop_ctx(symmetra::device::Context ctx, unsigned long long* dst, int pe,
                           int iters) {
  for (int i = 0; i < iters; ++i) {
    symmetra::device::p(ctx, dst, static_cast<unsigned long long>(i), pe);
    symmetra::device::quiet(ctx);
  }
}
#endif
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

__global__ void g_loop(const unsigned long long* src, int pe, int iters, unsigned long long* out) {
  unsigned long long sum = 0;
  for (int i = 0; i < iters; ++i) sum += nvshmem_ulonglong_g(src, pe);
  *out = sum;
}
__global__ void fadd_loop(unsigned long long* word, int pe, int iters) {
  for (int i = 0; i < iters; ++i) nvshmem_ulonglong_atomic_fetch_add(word, 1, pe);
}
__global__ void get_block(char* dst, const char* src, size_t bytes, int pe, int iters) {
  for (int i = 0; i < iters; ++i) {
    if (blockDim.x == 1)
      nvshmem_getmem(dst, src, bytes, pe);
    else if (blockDim.x == 32)
      nvshmemx_getmem_warp(dst, src, bytes, pe);
    else
      nvshmemx_getmem_block(dst, src, bytes, pe);
    __syncthreads();
  }
}
// Put-with-signal to itself and the wait for it: the signal counts up from `base`.
__global__ void put_signal_loop(char* dst, const char* src, size_t bytes, uint64_t* sig,
                                uint64_t base, int pe, int iters) {
  for (int i = 0; i < iters; ++i) {
    nvshmem_putmem_signal(dst, src, bytes, sig, base + i + 1, NVSHMEM_SIGNAL_SET, pe);
    nvshmem_signal_wait_until(sig, NVSHMEM_CMP_EQ, base + i + 1);
  }
}
__global__ void barrier_loop(int iters) {
  for (int i = 0; i < iters; ++i) nvshmem_barrier_all();
}
__global__ void reduce_block(float* dst, const float* src, size_t n, int iters) {
  for (int i = 0; i < iters; ++i) nvshmemx_float_sum_reduce_block(NVSHMEM_TEAM_WORLD, dst, src, n);
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
      op, bytes, form, NVSHMEM_PERF_BACKEND, us, us, bytes <= 8 ? 0.0 : bytes / (us * 1e3));
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
#ifdef SYMMETRAI_STATE
  {
    symmetra::device::Context ctx;
    CK(cudaMemcpyFromSymbol(&ctx, SYMMETRAI_STATE, sizeof(ctx)));
    CK(cudaMemset(dst, 0, sizeof(unsigned long long)));
    t = median_ms(s, [&] {
      p_loop_ctx<<<1, 1, 0, s>>>(ctx, reinterpret_cast<unsigned long long*>(dst), me, iters);
    });
    CK(cudaMemcpy(&last, dst, sizeof(last), cudaMemcpyDeviceToHost));
    if (last != static_cast<unsigned long long>(iters - 1)) {
      std::printf("nvshmem_perf: device::p wrote %llu, want %d\n", last, iters - 1);
      return 1;
    }
    row("p_lat", 8, "device::p", t * 1e3 / iters);
  }
#endif
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
  // g, and a fetch-add whose total the loop must leave.
  auto* word = reinterpret_cast<unsigned long long*>(dst);
  unsigned long long* out = nullptr;
  CK(cudaMalloc(&out, sizeof(*out)));
  const unsigned long long seven = 7;
  CK(cudaMemcpy(word, &seven, sizeof(seven), cudaMemcpyHostToDevice));
  t = median_ms(s, [&] { g_loop<<<1, 1, 0, s>>>(word, me, iters, out); });
  unsigned long long sum = 0;
  CK(cudaMemcpy(&sum, out, sizeof(sum), cudaMemcpyDeviceToHost));
  if (sum != 7ull * iters) {
    std::printf("nvshmem_perf: g read a sum of %llu, want %llu\n", sum, 7ull * iters);
    return 1;
  }
  CK(cudaGetLastError());
  row("g_lat", 8, "thread", t * 1e3 / iters);
  CK(cudaMemset(word, 0, sizeof(*word)));
  t = median_ms(s, [&] { fadd_loop<<<1, 1, 0, s>>>(word, me, iters); });
  CK(cudaMemcpy(&sum, word, sizeof(sum), cudaMemcpyDeviceToHost));
  if (sum != 6ull * iters) {  // median_ms launches 6 times
    std::printf("nvshmem_perf: fetch_add left %llu, want %llu\n", sum, 6ull * iters);
    return 1;
  }
  row("fadd_lat", 8, "thread", t * 1e3 / iters);
  // get from a thread, a warp and a block.
  for (size_t bytes = 8; bytes <= max; bytes *= (quick ? 16 : 4)) {
    const int it =
        static_cast<int>(std::min<size_t>(std::max<size_t>((64u << 20) / bytes, 20), iters));
    const int threads[] = {1, 32, 1024};
    const char* forms[] = {"thread", "warp", "block"};
    for (int f = 0; f < 3; ++f) {
      CK(cudaMemset(dst, 0, bytes));
      t = median_ms(s, [&] { get_block<<<1, threads[f], 0, s>>>(dst, src, bytes, me, it); });
      if (!same(dst, src, bytes)) {
        std::printf("nvshmem_perf: %s get of %zu bytes: destination differs\n", forms[f], bytes);
        return 1;
      }
      row("get_lat", bytes, forms[f], t * 1e3 / it);
    }
  }
  // Put-with-signal and its wait (the last signal value checked).
  uint64_t* sig = static_cast<uint64_t*>(nvshmem_calloc(1, sizeof(uint64_t)));
  uint64_t base = 0;
  for (size_t bytes = 8; bytes <= max; bytes *= (quick ? 64 : 8)) {
    const int it =
        static_cast<int>(std::min<size_t>(std::max<size_t>((64u << 20) / bytes, 20), iters));
    CK(cudaMemset(dst, 0, bytes));
    t = median_ms(s, [&] {
      put_signal_loop<<<1, 1, 0, s>>>(dst, src, bytes, sig, base, me, it);
      base += it;
    });
    uint64_t last_sig = 0;
    CK(cudaMemcpy(&last_sig, sig, sizeof(last_sig), cudaMemcpyDeviceToHost));
    if (last_sig != base || !same(dst, src, bytes)) {
      std::printf("nvshmem_perf: put_signal of %zu bytes: signal %llu (want %llu) or data wrong\n",
                  bytes, static_cast<unsigned long long>(last_sig),
                  static_cast<unsigned long long>(base));
      return 1;
    }
    row("put_signal_lat", bytes, "thread", t * 1e3 / it);
  }
  t = median_ms(s, [&] { barrier_loop<<<1, 1, 0, s>>>(iters); });
  row("barrier_lat", 0, "thread", t * 1e3 / iters);
  // The sum reduction (one PE: a copy), in a block and on a stream, 4 B to 1 MiB.
  float* fsrc = reinterpret_cast<float*>(src);
  float* fdst = reinterpret_cast<float*>(dst);
  std::vector<float> floats(max / sizeof(float));  // numbers, so that a sum of one is exact
  for (size_t i = 0; i < floats.size(); ++i) floats[i] = static_cast<float>(i % 4093) * 0.25f + 1;
  CK(cudaMemcpy(fsrc, floats.data(), max, cudaMemcpyHostToDevice));
  for (size_t bytes = 4; bytes <= max; bytes *= (quick ? 32 : 8)) {
    const size_t n = bytes / sizeof(float);
    const int it =
        static_cast<int>(std::min<size_t>(std::max<size_t>((16u << 20) / bytes, 10), 200));
    for (int f = 0; f < 2; ++f) {
      CK(cudaMemset(dst, 0, bytes));
      t = median_ms(s, [&] {
        if (f == 0) {
          reduce_block<<<1, 256, 0, s>>>(fdst, fsrc, n, it);
        } else {
          for (int i = 0; i < it; ++i)
            nvshmemx_float_sum_reduce_on_stream(NVSHMEM_TEAM_WORLD, fdst, fsrc, n, s);
        }
      });
      CK(cudaGetLastError());
      if (!same(dst, src, bytes)) {
        std::printf("nvshmem_perf: sum reduce of %zu bytes differs from its source\n", bytes);
        return 1;
      }
      row("reduce_lat", bytes, f == 0 ? "block" : "stream", t * 1e3 / it);
    }
  }
  // put on a stream.
  for (size_t bytes = 8; bytes <= max; bytes *= (quick ? 64 : 8)) {
    const int it =
        static_cast<int>(std::min<size_t>(std::max<size_t>((64u << 20) / bytes, 20), 200));
    CK(cudaMemset(dst, 0, bytes));
    t = median_ms(s, [&] {
      for (int i = 0; i < it; ++i) nvshmemx_putmem_on_stream(dst, src, bytes, me, s);
    });
    if (!same(dst, src, bytes)) {
      std::printf("nvshmem_perf: put on a stream of %zu bytes: destination differs\n", bytes);
      return 1;
    }
    row("put_lat", bytes, "stream", t * 1e3 / it);
  }
  CK(cudaFree(out));
  nvshmem_free(sig);
  CK(cudaGetLastError());
  nvshmem_free(src);
  nvshmem_free(dst);
  nvshmem_finalize();
  return 0;
}
