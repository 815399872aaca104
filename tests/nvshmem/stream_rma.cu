// NVSHMEM's stream-ordered RMA forms from host code, around the ring on one stream: typed p (a
// 64-bit value written by the stream, a 32-bit one after it), put, sized put-with-signal and the
// stream's wait on it, get, g, strided iput, a typed 64-bit wait and a signal add from every PE;
// typed and array waits on a stream of signed ints, a short and a vector of longs.
// Results are read back after the stream and checked against values computed here. Every PE
// prints "stream rma: all passed (N PEs)".
#include <cuda_runtime.h>
#include <nvshmem.h>
#include <nvshmemx.h>

#include <vector>

#include "test_util.h"

int main(void) {
  nvshmem_init();
  const int me = nvshmem_my_pe(), n = nvshmem_n_pes();
  const int next = (me + 1) % n, from = (me + n - 1) % n;
  const unsigned long long seed = shared_seed();
  const size_t count = 1000 + seed % 1000;
  auto value = [&](int pe, size_t i) {
    return static_cast<long>((seed % 9973) * 1000003 + pe * 7919 + i);
  };
  long* mine = static_cast<long*>(nvshmem_malloc(count * sizeof(long)));
  long* ring = static_cast<long*>(nvshmem_calloc(count, sizeof(long)));
  long* signalled = static_cast<long*>(nvshmem_calloc(count, sizeof(long)));
  long* slots = static_cast<long*>(nvshmem_calloc(2 * count, sizeof(long)));
  long* scalar = static_cast<long*>(nvshmem_calloc(1, sizeof(long)));
  int* small = static_cast<int*>(nvshmem_calloc(1, sizeof(int)));
  uint64_t* sig = static_cast<uint64_t*>(nvshmem_calloc(3, sizeof(uint64_t)));
  std::vector<long> host(count), got(2 * count);
  for (size_t i = 0; i < count; ++i) host[i] = value(me, i);
  cudaMemcpy(mine, host.data(), count * sizeof(long), cudaMemcpyHostToDevice);
  long* local = nullptr;
  cudaMalloc(&local, count * sizeof(long));
  nvshmem_barrier_all();

  cudaStream_t s;
  cudaStreamCreate(&s);
  nvshmemx_long_p_on_stream(scalar, value(me, 7), next, s);
  nvshmemx_int_p_on_stream(small, me + 1, next, s);
  nvshmemx_long_put_on_stream(ring, mine, count, next, s);
  nvshmemx_long_iput_on_stream(slots, mine, 2, 1, count, next, s);
  nvshmemx_put64_signal_on_stream(signalled, mine, count, sig, seed | 1, NVSHMEM_SIGNAL_SET, next,
                                  s);
  nvshmemx_signal_wait_until_on_stream(sig, NVSHMEM_CMP_EQ, seed | 1, s);
  for (int pe = 0; pe < n; ++pe)
    nvshmemx_signal_op_on_stream(sig + 1, me + 1, NVSHMEM_SIGNAL_ADD, pe, s);
  nvshmemx_uint64_wait_until_on_stream(sig + 1, NVSHMEM_CMP_EQ, uint64_t(n) * (n + 1) / 2, s);
  nvshmemx_barrier_all_on_stream(s);
  nvshmemx_long_get_on_stream(local, ring, count, next, s);  // next received mine
  const long g = nvshmemx_long_g_on_stream(scalar, me, s);
  CHECK(cudaStreamSynchronize(s) == cudaSuccess, "the stream failed");
  CHECK(g == value(from, 7), "long_p_on_stream, then g_on_stream: %ld", g);
  CHECK(nvshmem_int_g(small, me) == from + 1, "int_p_on_stream: %d", nvshmem_int_g(small, me));
  auto expect = [&](const char* what, const long* dev, size_t len, auto want) {
    cudaMemcpy(got.data(), dev, len * sizeof(long), cudaMemcpyDeviceToHost);
    for (size_t i = 0; i < len; ++i)
      if (got[i] != want(i)) {
        CHECK(0, "%s: [%zu] = %ld, want %ld", what, i, got[i], want(i));
        return;
      }
  };
  // Typed and array waits on a stream: signed ints (a negative token from every PE, so an
  // unsigned comparison would never pass LT 0), a short, and 64-bit words against a vector of
  // values with this PE's own slot left out by status (it is never written).
  {
    int* tokens = static_cast<int*>(nvshmem_calloc(n, sizeof(int)));
    short* word16 = static_cast<short*>(nvshmem_calloc(1, sizeof(short)));
    long* slots64 = static_cast<long*>(nvshmem_calloc(n, sizeof(long)));
    int* status = nullptr;
    long* want = nullptr;
    cudaMalloc(&status, n * sizeof(int));
    cudaMalloc(&want, n * sizeof(long));
    std::vector<int> st(n, 0);
    std::vector<long> wv(n);
    st[me] = 1;
    for (int pe = 0; pe < n; ++pe) wv[pe] = value(pe, 11);
    cudaMemcpy(status, st.data(), n * sizeof(int), cudaMemcpyHostToDevice);
    cudaMemcpy(want, wv.data(), n * sizeof(long), cudaMemcpyHostToDevice);
    nvshmem_barrier_all();
    for (int pe = 0; pe < n; ++pe) {
      nvshmemx_int_p_on_stream(tokens + me, -(me + 1), pe, s);
      if (pe != me) nvshmemx_long_p_on_stream(slots64 + me, value(me, 11), pe, s);
    }
    nvshmemx_short_p_on_stream(word16, static_cast<short>(-(me + 2)), next, s);
    nvshmemx_int_wait_until_all_on_stream(tokens, n, nullptr, NVSHMEM_CMP_LT, 0, s);
    nvshmemx_short_wait_until_on_stream(word16, NVSHMEM_CMP_EQ, static_cast<short>(-(from + 2)), s);
    nvshmemx_long_wait_until_all_vector_on_stream(slots64, n, status, NVSHMEM_CMP_EQ, want, s);
    std::vector<int> tok(n);
    cudaMemcpyAsync(tok.data(), tokens, n * sizeof(int), cudaMemcpyDeviceToHost, s);
    CHECK(cudaStreamSynchronize(s) == cudaSuccess, "the stream failed after the typed waits");
    for (int pe = 0; pe < n; ++pe)
      CHECK(tok[pe] == -(pe + 1), "int_wait_until_all_on_stream passed with token[%d] = %d", pe,
            tok[pe]);
    nvshmem_barrier_all();
    cudaFree(status);
    cudaFree(want);
    nvshmem_free(slots64);
    nvshmem_free(word16);
    nvshmem_free(tokens);
  }
  expect("long_put_on_stream", ring, count, [&](size_t i) { return value(from, i); });
  expect("put64_signal_on_stream", signalled, count, [&](size_t i) { return value(from, i); });
  expect("long_iput_on_stream", slots, 2 * count,
         [&](size_t i) { return i % 2 ? 0L : value(from, i / 2); });
  expect("long_get_on_stream", local, count, [&](size_t i) { return value(me, i); });
  nvshmem_barrier_all();
  if (failures == 0) printf("[pe %d] stream rma: all passed (%d PEs)\n", me, n);
  cudaStreamDestroy(s);
  cudaFree(local);
  nvshmem_finalize();
  return failures == 0 ? 0 : 1;
}
