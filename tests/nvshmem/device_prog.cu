// NVSHMEM's device forms in a kernel, one thread per PE, as NVSHMEM programs write them: atomics
// onto PE 0, put-with-signal around the ring and a wait on it, p then a wait_until on a flag,
// a device barrier, test and signal_fetch. The kernel checks what it received and counts what
// is wrong; the host checks the counters and the atomics' totals through the host API. Every
// PE prints "device program: all passed (N PEs)" or what is wrong. Inputs come from a fresh seed
// of PE 0's.
#include <cuda_runtime.h>
#include <nvshmem.h>
#include <nvshmemx.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

#include "test_util.h"

__global__ void exercise(long long* counter, uint64_t* mask, long* ring, uint64_t* sig, int* flag,
                         const long* mine, size_t count, unsigned long long seed, int* wrong) {
  const int me = nvshmem_my_pe(), n = nvshmem_n_pes();
  const int next = (me + 1) % n, from = (me + n - 1) % n;
  nvshmem_longlong_atomic_add(counter, static_cast<long long>(seed % 1000) + me + 1, 0);
  for (int pe = 0; pe < n; ++pe) nvshmem_uint64_atomic_fetch_or(mask, uint64_t{1} << me, pe);
  nvshmem_putmem_signal(ring, mine, count * sizeof(long), sig, seed | 1, NVSHMEM_SIGNAL_SET, next);
  if (nvshmem_signal_wait_until(sig, NVSHMEM_CMP_EQ, seed | 1) != (seed | 1)) ++*wrong;
  for (size_t i = 0; i < count; ++i)
    if (ring[i] != static_cast<long>(seed % 9973) * 1000003L + from * 7919L + static_cast<long>(i))
      ++*wrong;
  nvshmem_int_p(flag, me + 1, next);
  nvshmem_quiet();
  nvshmem_int_wait_until(flag, NVSHMEM_CMP_EQ, from + 1);
  if (nvshmem_int_test(flag, NVSHMEM_CMP_NE, from + 1)) ++*wrong;
  // Waits over arrays: every PE writes its slot (me + 1) of every PE's flag + 1 .. flag + n.
  int* slots = flag + 1;
  for (int pe = 0; pe < n; ++pe) nvshmem_int_p(slots + me, me + 1, pe);
  nvshmem_quiet();
  nvshmem_int_wait_until_all(slots, n, nullptr, NVSHMEM_CMP_GT, 0);
  size_t found[8];
  if (nvshmem_int_test_some(slots, n, found, nullptr, NVSHMEM_CMP_GE, 1) != static_cast<size_t>(n))
    ++*wrong;
  if (nvshmem_int_wait_until_any(slots, n, nullptr, NVSHMEM_CMP_EQ, n) !=
      static_cast<size_t>(n - 1))
    ++*wrong;
  int want[8];
  for (int k = 0; k < n; ++k) want[k] = k + 1;
  nvshmem_int_wait_until_all_vector(slots, n, nullptr, NVSHMEM_CMP_EQ, want);
  want[0] = -1;  // no longer equal
  if (nvshmem_int_test_all_vector(slots, n, nullptr, NVSHMEM_CMP_EQ, want)) ++*wrong;
  const size_t any = nvshmem_int_test_any_vector(slots, n, nullptr, NVSHMEM_CMP_EQ, want);
  if (n > 1 ? any < 1 || any >= static_cast<size_t>(n) : any != SIZE_MAX) ++*wrong;
  for (int pe = 0; pe < n; ++pe) nvshmemx_signal_op(sig + 1, me + 1, NVSHMEM_SIGNAL_ADD, pe);
  nvshmem_barrier_all();
  if (nvshmem_signal_fetch(sig + 1) != static_cast<uint64_t>(n) * (n + 1) / 2) ++*wrong;
  if (nvshmem_team_n_pes(NVSHMEM_TEAM_WORLD) != n || nvshmem_team_my_pe(NVSHMEM_TEAM_WORLD) != me)
    ++*wrong;
}

int main(void) {
  nvshmem_init();
  const int me = nvshmem_my_pe(), n = nvshmem_n_pes();
  const unsigned long long seed = shared_seed() ^ 0x9E3779B97F4A7C15ull;
  const size_t count = 4096;
  long* counter_region = static_cast<long*>(nvshmem_calloc(1, sizeof(long long)));
  auto* counter = reinterpret_cast<long long*>(counter_region);
  auto* mask = static_cast<uint64_t*>(nvshmem_calloc(1, sizeof(uint64_t)));
  auto* ring = static_cast<long*>(nvshmem_calloc(count, sizeof(long)));
  auto* sig = static_cast<uint64_t*>(nvshmem_calloc(2, sizeof(uint64_t)));
  auto* flag = static_cast<int*>(nvshmem_calloc(1 + n, sizeof(int)));  // flag, then n slots
  if (n > 8) return 2;                                                 // the kernel's arrays hold 8
  long* mine = nullptr;
  int* wrong = nullptr;
  cudaMalloc(&mine, count * sizeof(long));
  cudaMalloc(&wrong, sizeof(int));
  cudaMemset(wrong, 0, sizeof(int));
  long host_mine[4096];
  for (size_t i = 0; i < count; ++i)
    host_mine[i] = static_cast<long>(seed % 9973) * 1000003L + me * 7919L + static_cast<long>(i);
  cudaMemcpy(mine, host_mine, sizeof(host_mine), cudaMemcpyHostToDevice);
  exercise<<<1, 1>>>(counter, mask, ring, sig, flag, mine, count, seed, wrong);
  const cudaError_t rc = cudaDeviceSynchronize();
  int bad = 0;
  cudaMemcpy(&bad, wrong, sizeof(int), cudaMemcpyDeviceToHost);
  nvshmem_barrier_all();
  const long long want =
      n * static_cast<long long>(seed % 1000) + static_cast<long long>(n) * (n + 1) / 2;
  const long long total = nvshmem_longlong_atomic_fetch(counter, 0);
  const uint64_t bits = nvshmem_uint64_atomic_fetch(mask, me);
  if (rc != cudaSuccess) {
    printf("[pe %d] FAIL: kernel: %s\n", me, cudaGetErrorString(rc));
    ++failures;
  }
  if (bad != 0) {
    printf("[pe %d] FAIL: the kernel counted %d wrong values\n", me, bad);
    ++failures;
  }
  if (total != want) {
    printf("[pe %d] FAIL: counter %lld, want %lld\n", me, total, want);
    ++failures;
  }
  if (bits != (uint64_t{1} << n) - 1) {
    printf("[pe %d] FAIL: mask %llx\n", me, (unsigned long long)bits);
    ++failures;
  }
  if (failures == 0) printf("[pe %d] device program: all passed (%d PEs)\n", me, n);
  nvshmem_barrier_all();
  cudaFree(mine);
  cudaFree(wrong);
  nvshmem_free(flag);
  nvshmem_free(sig);
  nvshmem_free(ring);
  nvshmem_free(mask);
  nvshmem_free(counter_region);
  nvshmem_finalize();
  return failures == 0 ? 0 : 1;
}
