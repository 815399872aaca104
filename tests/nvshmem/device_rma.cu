// NVSHMEM's RMA forms in a kernel beyond the thread ones: _warp and _block puts and gets, the
// _nbi forms, typed and sized put-with-signal, strided iput and iget, sized puts of 8 to 128
// bits. Every PE sends to the next around the ring and reads from it; the host checks each
// buffer against values computed here (each PE can compute any PE's, from a fresh seed of PE
// 0's). Every PE prints "device rma: all passed (N PEs)" or what is wrong.
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <nvshmem.h>
#include <nvshmemx.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

#include <vector>

#include "test_util.h"

static unsigned long long g_seed;
static long value(int pe, size_t i, int test) {
  unsigned long long x = g_seed ^ (static_cast<unsigned long long>(pe) << 40) ^
                         (static_cast<unsigned long long>(test) << 56) ^ i;
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdULL;
  return static_cast<long>(x ^ (x >> 29));
}

constexpr int kTests = 8;  // one source and one landing buffer each
struct Buffers {
  long* mine[kTests];  // this PE's sources: value(me, i, t)
  long* land[kTests];  // what the previous PE sent, or what this PE read from the next
  uint64_t* sig;       // 2 words
};

__global__ void rma(Buffers b, size_t count, int* wrong) {
  const int me = nvshmem_my_pe(), n = nvshmem_n_pes();
  const int next = (me + 1) % n, from = (me + n - 1) % n;
  const bool warp0 = threadIdx.x < 32;
  if (warp0) nvshmemx_long_put_warp(b.land[0], b.mine[0], count, next);
  nvshmemx_putmem_block(b.land[1], b.mine[1], count * sizeof(long), next);
  if (warp0) nvshmemx_int64_put_nbi_warp(b.land[2], b.mine[2], count, next);
  nvshmemx_put64_nbi_block(b.land[3], b.mine[3], count, next);
  if (threadIdx.x == 0) {
    nvshmem_long_iput(b.land[4], b.mine[4], 2, 1, count / 4, next);  // even slots, first half
    nvshmem_put32(b.land[5], b.mine[5], 2 * count, next);            // as 32-bit halves
    nvshmem_quiet();
  }
  __syncthreads();
  // The second half of the even slots by the block's strided form.
  nvshmemx_long_iput_block(b.land[4] + count / 2, b.mine[4] + count / 4, 2, 1, count / 4, next);
  __syncthreads();
  // Typed put-with-signal by a warp (set), then sized by the block (add): the data is there when
  // the signal is.
  if (warp0)
    nvshmemx_long_put_signal_warp(b.land[6], b.mine[6], count, b.sig, me + 1, NVSHMEM_SIGNAL_SET,
                                  next);
  nvshmemx_put128_signal_nbi_block(b.land[7], b.mine[7], count / 2, b.sig + 1, 5,
                                   NVSHMEM_SIGNAL_ADD, next);
  if (threadIdx.x == 0) {
    nvshmem_quiet();
    if (nvshmem_signal_wait_until(b.sig, NVSHMEM_CMP_EQ, from + 1) !=
        static_cast<uint64_t>(from + 1))
      atomicAdd(wrong, 1);
    nvshmem_signal_wait_until(b.sig + 1, NVSHMEM_CMP_EQ, 5);
  }
  // The 16-bit floating types: a half by p, four bfloat16 by a warp's put, after the words.
  if (threadIdx.x == 0)
    nvshmem_half_p(reinterpret_cast<__half*>(b.sig + 2), __float2half(me + 0.5f), next);
  if (warp0) {
    __nv_bfloat16 four[4];
    for (int k = 0; k < 4; ++k) four[k] = __float2bfloat16(me * 4 + k);
    nvshmemx_bfloat16_put_warp(reinterpret_cast<__nv_bfloat16*>(b.sig + 3), four, 4, next);
  }
  __syncthreads();
  if (threadIdx.x == 0) nvshmem_quiet();
  __syncthreads();
  nvshmemx_barrier_all_block();
}

// Gets from the next PE, after every put has landed: block, warp _nbi, strided, sized 8-bit.
__global__ void reads(Buffers b, long* got, size_t count) {
  const int me = nvshmem_my_pe(), n = nvshmem_n_pes();
  const int next = (me + 1) % n;
  nvshmemx_long_get_block(got, b.mine[0], count, next);
  if (threadIdx.x < 32)
    nvshmemx_getmem_nbi_warp(got + count, b.mine[1], count * sizeof(long), next);
  if (threadIdx.x == 0) {
    nvshmem_int64_iget(got + 2 * count, b.mine[2], 1, 2, count / 2, next);  // even sources
    nvshmem_get8(got + 3 * count, b.mine[3], count * sizeof(long), next);
    nvshmem_quiet();
  }
}

int main(void) {
  nvshmem_init();
  const int me = nvshmem_my_pe(), n = nvshmem_n_pes();
  const int from = (me + n - 1) % n, next = (me + 1) % n;
  g_seed = shared_seed();
  const size_t count = 4 * (500 + g_seed % 250);  // 128-bit pairs; strided halves of halves
  Buffers b;
  std::vector<long> host(count);
  for (int t = 0; t < kTests; ++t) {
    b.mine[t] = static_cast<long*>(nvshmem_malloc(count * sizeof(long)));
    b.land[t] = static_cast<long*>(nvshmem_calloc(count, sizeof(long)));
    for (size_t i = 0; i < count; ++i) host[i] = value(me, i, t);
    cudaMemcpy(b.mine[t], host.data(), count * sizeof(long), cudaMemcpyHostToDevice);
  }
  b.sig = static_cast<uint64_t*>(nvshmem_calloc(4, sizeof(uint64_t)));
  long* got = nullptr;
  int* wrong = nullptr;
  cudaMalloc(&got, 4 * count * sizeof(long));
  cudaMalloc(&wrong, sizeof(int));
  cudaMemset(wrong, 0, sizeof(int));
  cudaDeviceSynchronize();
  nvshmem_barrier_all();

  rma<<<1, 128>>>(b, count, wrong);
  cudaError_t rc = cudaDeviceSynchronize();
  nvshmem_barrier_all();
  reads<<<1, 96>>>(b, got, count);
  if (rc == cudaSuccess) rc = cudaDeviceSynchronize();
  int bad = 0;
  cudaMemcpy(&bad, wrong, sizeof(int), cudaMemcpyDeviceToHost);
  if (rc != cudaSuccess || bad != 0) {
    printf("[pe %d] FAIL: kernel: %s, %d wrong signals\n", me, cudaGetErrorString(rc), bad);
    ++failures;
  }
  const char* names[kTests] = {
      "long_put_warp", "putmem_block", "int64_put_nbi_warp",   "put64_nbi_block",
      "long_iput",     "put32",        "long_put_signal_warp", "put128_signal_nbi_block"};
  for (int t = 0; t < kTests; ++t) {
    cudaMemcpy(host.data(), b.land[t], count * sizeof(long), cudaMemcpyDeviceToHost);
    for (size_t i = 0; i < count; ++i) {
      const long want = t == 4 ? (i % 2 == 0 ? value(from, i / 2, t) : 0) : value(from, i, t);
      if (host[i] != want) {
        printf("[pe %d] FAIL: %s: element %zu of %zu wrong\n", me, names[t], i, count);
        ++failures;
        break;
      }
    }
  }
  __half h;
  __nv_bfloat16 bf[4];
  cudaMemcpy(&h, b.sig + 2, sizeof(h), cudaMemcpyDeviceToHost);
  cudaMemcpy(bf, b.sig + 3, sizeof(bf), cudaMemcpyDeviceToHost);
  if (__half2float(h) != from + 0.5f) {
    printf("[pe %d] FAIL: half_p: %f\n", me, __half2float(h));
    ++failures;
  }
  for (int k = 0; k < 4; ++k)
    if (__bfloat162float(bf[k]) != static_cast<float>(from * 4 + k)) {
      printf("[pe %d] FAIL: bfloat16_put_warp: [%d] = %f\n", me, k, __bfloat162float(bf[k]));
      ++failures;
      break;
    }
  const char* read_names[4] = {"long_get_block", "getmem_nbi_warp", "int64_iget", "get8"};
  std::vector<long> reads_back(4 * count);
  cudaMemcpy(reads_back.data(), got, 4 * count * sizeof(long), cudaMemcpyDeviceToHost);
  for (int t = 0; t < 4; ++t)
    for (size_t i = 0; i < (t == 2 ? count / 2 : count); ++i) {
      const long want = value(next, t == 2 ? 2 * i : i, t);
      if (reads_back[t * count + i] != want) {
        printf("[pe %d] FAIL: %s: element %zu wrong\n", me, read_names[t], i);
        ++failures;
        break;
      }
    }
  if (failures == 0) printf("[pe %d] device rma: all passed (%d PEs)\n", me, n);
  nvshmem_barrier_all();
  cudaFree(got);
  cudaFree(wrong);
  nvshmem_finalize();
  return failures == 0 ? 0 : 1;
}
