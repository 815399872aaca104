// NVSHMEM's team collectives in a kernel (thread, _warp and _block forms) and on a stream, as
// NVSHMEM programs write them, over the world and over a team of the odd PEs made by a split.
// Inputs come from a fresh seed of PE 0's; the host checks every result against the operation
// computed here over every PE's inputs (each PE can compute any PE's). Every PE prints
// "device collectives: all passed (N PEs)" or what is wrong.
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
// Element i of PE pe's input: a hash of the seed, all bits varied.
static long value(int pe, size_t i) {
  unsigned long long x = g_seed ^ (static_cast<unsigned long long>(pe) << 40) ^ i;
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdULL;
  x ^= x >> 33;
  return static_cast<long>(x ^ (x >> 29));
}
static float exact_float(long v) {
  return static_cast<float>(v % 4001);
}  // sums are exact
static float small_half(long v) {
  return static_cast<float>(v % 201);
}  // exact in half

struct Buffers {
  long* src;       // total elements
  float* fsrc;     // nr
  __half* hsrc;    // nr
  int* isrc;       // nr
  long* sum;       // nr: thread-form sum
  long* max;       // nr: warp-form max
  float* fsum;     // nr: block-form sum
  __half* hmax;    // nr: block-form max
  long* gather;    // per * npes: block fcollect
  long* exchange;  // per * npes: warp alltoall
  long* strided;   // per / 2 * npes: thread alltoalls (every second source element)
  long* bcast;     // per: thread broadcast from the last PE
  long* scatter;   // per: block reducescatter (sum)
  int* odd_sum;    // nr: block sum over the odd PEs
  double2* lsrc;   // nr: (value, index) pairs
  double2* loc;    // nr: block maxloc
};

__global__ void collectives(Buffers b, size_t nr, size_t per, nvshmem_team_t odd) {
  const int npes = nvshmem_n_pes();
  if (threadIdx.x == 0) nvshmem_long_sum_reduce(NVSHMEM_TEAM_WORLD, b.sum, b.src, nr);
  __syncthreads();
  if (threadIdx.x < 32) nvshmemx_long_max_reduce_warp(NVSHMEM_TEAM_WORLD, b.max, b.src, nr);
  __syncthreads();
  nvshmemx_float_sum_reduce_block(NVSHMEM_TEAM_WORLD, b.fsum, b.fsrc, nr);
  nvshmemx_half_max_reduce_block(NVSHMEM_TEAM_WORLD, b.hmax, b.hsrc, nr);
  nvshmemx_long_fcollect_block(NVSHMEM_TEAM_WORLD, b.gather, b.src, per);
  if (threadIdx.x < 32) nvshmemx_long_alltoall_warp(NVSHMEM_TEAM_WORLD, b.exchange, b.src, per);
  __syncthreads();
  if (threadIdx.x == 0) nvshmem_long_broadcast(NVSHMEM_TEAM_WORLD, b.bcast, b.src, per, npes - 1);
  if (threadIdx.x == 0) nvshmem_long_alltoalls(NVSHMEM_TEAM_WORLD, b.strided, b.src, 1, 2, per / 2);
  __syncthreads();
  nvshmemx_long_sum_reducescatter_block(NVSHMEM_TEAM_WORLD, b.scatter, b.src, per);
  if (odd != NVSHMEM_TEAM_INVALID) nvshmemx_int_sum_reduce_block(odd, b.odd_sum, b.isrc, nr);
  nvshmemx_double2_maxloc_reduce_block(NVSHMEM_TEAM_WORLD, b.loc, b.lsrc, nr);
  nvshmemx_barrier_all_block();
}

// The second warpgroup of a 256-thread block alone: each PE's token into its slot on every PE,
// then nvshmemx_barrier_warpgroup, after which every PE's token must be in this PE's slots.
__global__ void warpgroup_barrier(int* slots, int* seen, int token) {
  if (threadIdx.x < 128) return;  // the first warpgroup takes no part
  const int me = nvshmem_my_pe(), n = nvshmem_n_pes(), t = threadIdx.x - 128;
  if (t < n) nvshmem_int_p(slots + me, token + me, t);
  nvshmemx_barrier_warpgroup(NVSHMEM_TEAM_WORLD);
  if (t < n) seen[t] = slots[t];
}

template <class T, class Want>
static void check(const char* what, const T* dev, size_t count, Want want) {
  std::vector<T> got(count);
  cudaMemcpy(got.data(), dev, count * sizeof(T), cudaMemcpyDeviceToHost);
  for (size_t i = 0; i < count; ++i)
    if (!(got[i] == want(i))) {
      printf("[pe %d] FAIL: %s: element %zu of %zu wrong\n", nvshmem_my_pe(), what, i, count);
      ++failures;
      return;
    }
}

int main(void) {
  nvshmem_init();
  const int me = nvshmem_my_pe(), n = nvshmem_n_pes();
  g_seed = shared_seed();
  const size_t nr = 1000 + g_seed % 29, per = 257 + g_seed % 7, total = per * n;
  const size_t src_n = nr > total ? nr : total;

  Buffers b;
  b.src = static_cast<long*>(nvshmem_malloc(src_n * sizeof(long)));
  b.fsrc = static_cast<float*>(nvshmem_malloc(nr * sizeof(float)));
  b.hsrc = static_cast<__half*>(nvshmem_malloc(nr * sizeof(__half)));
  b.isrc = static_cast<int*>(nvshmem_malloc(nr * sizeof(int)));
  b.sum = static_cast<long*>(nvshmem_malloc(nr * sizeof(long)));
  b.max = static_cast<long*>(nvshmem_malloc(nr * sizeof(long)));
  b.fsum = static_cast<float*>(nvshmem_malloc(nr * sizeof(float)));
  b.hmax = static_cast<__half*>(nvshmem_malloc(nr * sizeof(__half)));
  b.gather = static_cast<long*>(nvshmem_malloc(total * sizeof(long)));
  b.exchange = static_cast<long*>(nvshmem_malloc(total * sizeof(long)));
  b.bcast = static_cast<long*>(nvshmem_malloc(per * sizeof(long)));
  b.strided = static_cast<long*>(nvshmem_malloc(total * sizeof(long)));
  b.scatter = static_cast<long*>(nvshmem_malloc(per * sizeof(long)));
  b.odd_sum = static_cast<int*>(nvshmem_malloc(nr * sizeof(int)));
  b.lsrc = static_cast<double2*>(nvshmem_malloc(nr * sizeof(double2)));
  b.loc = static_cast<double2*>(nvshmem_malloc(nr * sizeof(double2)));

  std::vector<long> src(src_n);
  std::vector<float> fsrc(nr);
  std::vector<__half> hsrc(nr);
  std::vector<int> isrc(nr);
  for (size_t i = 0; i < src_n; ++i) src[i] = value(me, i);
  for (size_t i = 0; i < nr; ++i) {
    fsrc[i] = exact_float(value(me, i));
    hsrc[i] = __float2half(small_half(value(me, i)));
    isrc[i] = static_cast<int>(value(me, i) % 100000);
  }
  cudaMemcpy(b.src, src.data(), src_n * sizeof(long), cudaMemcpyHostToDevice);
  cudaMemcpy(b.fsrc, fsrc.data(), nr * sizeof(float), cudaMemcpyHostToDevice);
  cudaMemcpy(b.hsrc, hsrc.data(), nr * sizeof(__half), cudaMemcpyHostToDevice);
  cudaMemcpy(b.isrc, isrc.data(), nr * sizeof(int), cudaMemcpyHostToDevice);
  // Few distinct values, so that PEs tie and the lowest index must win.
  auto pair = [](int pe, size_t i) {
    const long v = value(pe, i);
    return make_double2(static_cast<double>((v & 0x7fffffff) % 5),
                        static_cast<double>((v >> 32 & 0x7fffffff) % 1000));
  };
  std::vector<double2> lsrc(nr);
  for (size_t i = 0; i < nr; ++i) lsrc[i] = pair(me, i);
  cudaMemcpy(b.lsrc, lsrc.data(), nr * sizeof(double2), cudaMemcpyHostToDevice);

  nvshmem_team_t odd = NVSHMEM_TEAM_INVALID;
  const int odd_size = n / 2;
  if (odd_size > 0)
    nvshmem_team_split_strided(NVSHMEM_TEAM_WORLD, 1, 2, odd_size, nullptr, 0, &odd);
  nvshmem_barrier_all();

  // The references, over every PE's inputs.
  auto sum = [&](size_t i) {
    unsigned long s = 0;
    for (int k = 0; k < n; ++k) s += static_cast<unsigned long>(value(k, i));
    return static_cast<long>(s);
  };
  auto max = [&](size_t i) {
    long m = value(0, i);
    for (int k = 1; k < n; ++k) m = value(k, i) > m ? value(k, i) : m;
    return m;
  };
  auto fsum = [&](size_t i) {
    float s = 0;
    for (int k = 0; k < n; ++k) s += exact_float(value(k, i));
    return s;
  };
  auto hmax = [&](size_t i) {
    float m = small_half(value(0, i));
    for (int k = 1; k < n; ++k) m = small_half(value(k, i)) > m ? small_half(value(k, i)) : m;
    return m;
  };
  auto gather = [&](size_t i) { return value(static_cast<int>(i / per), i % per); };
  auto exchange = [&](size_t i) { return value(static_cast<int>(i / per), me * per + i % per); };
  auto scatter = [&](size_t i) { return sum(me * per + i); };
  auto odd_sum = [&](size_t i) {
    int s = 0;
    for (int k = 1; k < n; k += 2) s += static_cast<int>(value(k, i) % 100000);
    return s;
  };
  auto check_all = [&](const char* form, bool device) {
    char what[96];
    auto named = [&](const char* op) {
      snprintf(what, sizeof(what), "%s %s", form, op);
      return what;
    };
    check(named("long_sum_reduce"), b.sum, nr, sum);
    if (device) {
      check(named("long_max_reduce_warp"), b.max, nr, max);
      check(named("float_sum_reduce_block"), b.fsum, nr, fsum);
      std::vector<__half> h(nr);
      cudaMemcpy(h.data(), b.hmax, nr * sizeof(__half), cudaMemcpyDeviceToHost);
      for (size_t i = 0; i < nr; ++i)
        if (__half2float(h[i]) != hmax(i)) {
          printf("[pe %d] FAIL: %s: element %zu wrong\n", me, named("half_max_reduce_block"), i);
          ++failures;
          break;
        }
      std::vector<double2> loc(nr);
      cudaMemcpy(loc.data(), b.loc, nr * sizeof(double2), cudaMemcpyDeviceToHost);
      for (size_t i = 0; i < nr; ++i) {
        double2 want = pair(0, i);
        for (int k = 1; k < n; ++k) {
          const double2 v = pair(k, i);
          if (v.x > want.x || (v.x == want.x && v.y < want.y)) want = v;
        }
        if (loc[i].x != want.x || loc[i].y != want.y) {
          printf("[pe %d] FAIL: %s: element %zu is (%g, %g), want (%g, %g)\n", me,
                 named("double2_maxloc_reduce_block"), i, loc[i].x, loc[i].y, want.x, want.y);
          ++failures;
          break;
        }
      }
    }
    check(named("long_fcollect"), b.gather, total, gather);
    check(named("long_alltoall"), b.exchange, total, exchange);
    check(named("long_broadcast"), b.bcast, per, [&](size_t i) { return value(n - 1, i); });
    if (device)
      check(named("long_alltoalls"), b.strided, per / 2 * n, [&](size_t i) {
        return value(static_cast<int>(i / (per / 2)), (me * (per / 2) + i % (per / 2)) * 2);
      });
    check(named("long_sum_reducescatter"), b.scatter, per, scatter);
    if (me % 2 == 1) check(named("int_sum_reduce (odd team)"), b.odd_sum, nr, odd_sum);
  };

  collectives<<<1, 128>>>(b, nr, per, odd);
  const cudaError_t rc = cudaDeviceSynchronize();
  if (rc != cudaSuccess) {
    printf("[pe %d] FAIL: kernel: %s\n", me, cudaGetErrorString(rc));
    ++failures;
  }
  nvshmem_barrier_all();
  check_all("device", true);

  {
    int* slots = static_cast<int*>(nvshmem_calloc(n, sizeof(int)));
    int* seen = nullptr;
    cudaMalloc(&seen, n * sizeof(int));
    const int token = static_cast<int>(g_seed % 100000) * 8 + 1;
    nvshmem_barrier_all();
    warpgroup_barrier<<<1, 256>>>(slots, seen, token);
    CHECK(cudaDeviceSynchronize() == cudaSuccess, "the warpgroup barrier kernel failed");
    std::vector<int> got(n);
    cudaMemcpy(got.data(), seen, n * sizeof(int), cudaMemcpyDeviceToHost);
    for (int pe = 0; pe < n; ++pe)
      CHECK(got[pe] == token + pe, "barrier_warpgroup: PE %d's token not seen after it (%d)", pe,
            got[pe]);
    nvshmem_barrier_all();
    cudaFree(seen);
    nvshmem_free(slots);
  }

  // The stream forms, into cleared buffers.
  nvshmem_barrier_all();
  for (long* p : {b.sum, b.gather, b.exchange, b.bcast, b.scatter})
    cudaMemset(p, 0,
               (p == b.sum                       ? nr
                : p == b.bcast || p == b.scatter ? per
                                                 : total) *
                   sizeof(long));
  cudaMemset(b.odd_sum, 0, nr * sizeof(int));
  cudaDeviceSynchronize();
  nvshmem_barrier_all();
  cudaStream_t stream;
  cudaStreamCreate(&stream);
  int bad_rc = 0;
  bad_rc += nvshmemx_long_sum_reduce_on_stream(NVSHMEM_TEAM_WORLD, b.sum, b.src, nr, stream);
  bad_rc += nvshmemx_long_fcollect_on_stream(NVSHMEM_TEAM_WORLD, b.gather, b.src, per, stream);
  bad_rc += nvshmemx_long_alltoall_on_stream(NVSHMEM_TEAM_WORLD, b.exchange, b.src, per, stream);
  bad_rc +=
      nvshmemx_long_broadcast_on_stream(NVSHMEM_TEAM_WORLD, b.bcast, b.src, per, n - 1, stream);
  bad_rc +=
      nvshmemx_long_sum_reducescatter_on_stream(NVSHMEM_TEAM_WORLD, b.scatter, b.src, per, stream);
  if (odd != NVSHMEM_TEAM_INVALID)
    bad_rc += nvshmemx_int_sum_reduce_on_stream(odd, b.odd_sum, b.isrc, nr, stream);
  bad_rc += nvshmemx_barrier_on_stream(NVSHMEM_TEAM_WORLD, stream);
  cudaStreamSynchronize(stream);
  if (bad_rc != 0) {
    printf("[pe %d] FAIL: a stream collective returned nonzero\n", me);
    ++failures;
  }
  check_all("on_stream", false);

  if (failures == 0) printf("[pe %d] device collectives: all passed (%d PEs)\n", me, n);
  nvshmem_barrier_all();
  if (odd != NVSHMEM_TEAM_INVALID) nvshmem_team_destroy(odd);
  cudaStreamDestroy(stream);
  nvshmem_finalize();
  return failures == 0 ? 0 : 1;
}
