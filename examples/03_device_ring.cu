// 03: one-sided communication from inside a CUDA kernel, with no -rdc and no device library:
// the kernel takes the PE's device::Context by value. A ring all-reduce written by hand: in
// each of n-1 rounds every PE's block puts what it last received to the next PE with a
// signal, waits for its own signal, and adds what arrived. The host checks every element.
// Run: SYMMETRA_BACKEND=cuda symrun -n 2 ./03_device_ring   (exit status 1 if anything is wrong)
#include <cuda_runtime.h>

#include <cstdint>
#include <cstdio>
#include <random>
#include <vector>

#include <symmetra/device.hpp>
#include <symmetra/runtime.hpp>

namespace sd = symmetra::device;

constexpr int kCount = 4096;

// inbox[r % 2] receives round r; the barrier at the end of a round keeps a fast PE from writing
// an inbox its neighbour is still reading.
__global__ void ring_sum(sd::Context ctx, int* sum, int* send, int* inbox, std::uint64_t* sig) {
  const sd::BlockGroup block;
  const int next = (ctx.my_pe + 1) % ctx.n_pes;
  for (int i = threadIdx.x; i < kCount; i += blockDim.x) send[i] = sum[i];
  block.sync();
  for (int r = 1; r < ctx.n_pes; ++r) {
    int* in = inbox + (r % 2) * kCount;
    sd::put_signal(block, ctx, in, send, kCount, sig, r, symmetra::SignalOp::kSet, next);
    if (threadIdx.x == 0) sd::signal_wait_until(ctx, sig, symmetra::Cmp::kGe, r);
    block.sync();
    for (int i = threadIdx.x; i < kCount; i += blockDim.x) {
      sum[i] += in[i];
      send[i] = in[i];  // forward what came from the previous PE
    }
    block.sync();
    sd::barrier_all(block, ctx);
  }
}

static bool ok(cudaError_t e) {
  if (e != cudaSuccess) std::fprintf(stderr, "CUDA: %s\n", cudaGetErrorString(e));
  return e == cudaSuccess;
}

int main() {
  auto rt = symmetra::Runtime::init({.backend = symmetra::Backend::kCuda});
  const int me = rt->my_pe(), n = rt->n_pes();
  // One seed for all PEs (PE 0's), so each PE can compute every PE's input.
  auto* seed = rt->allocate_array<std::uint64_t>(1);
  if (me == 0) rt->p(seed, std::uint64_t{std::random_device{}()}, 0);
  rt->barrier_all();
  const std::uint64_t base = rt->g(seed, 0);
  auto input = [&](int pe) {
    std::mt19937 gen(static_cast<std::uint32_t>(base + pe));
    std::vector<int> v(kCount);
    for (int& x : v) x = static_cast<int>(gen() % 20001) - 10000;
    return v;
  };

  // Device memory in the symmetric heap (the GPU backend's heap lives on the GPU).
  int* sum = rt->allocate_array<int>(kCount);
  int* send = rt->allocate_array<int>(kCount);
  int* inbox = rt->allocate_array<int>(2 * kCount);
  auto* sig = rt->allocate_array<std::uint64_t>(1);
  const std::vector<int> mine = input(me);
  bool good = ok(cudaMemcpy(sum, mine.data(), kCount * sizeof(int), cudaMemcpyHostToDevice)) &&
              ok(cudaMemset(sig, 0, sizeof(std::uint64_t)));
  rt->barrier_all();

  ring_sum<<<1, 256>>>(rt->device_context(), sum, send, inbox, sig);
  good = good && ok(cudaGetLastError()) && ok(cudaDeviceSynchronize());

  std::vector<int> got(kCount), want(kCount, 0);
  for (int pe = 0; pe < n; ++pe) {
    const std::vector<int> v = input(pe);
    for (int i = 0; i < kCount; ++i) want[i] += v[i];
  }
  good = good && ok(cudaMemcpy(got.data(), sum, kCount * sizeof(int), cudaMemcpyDeviceToHost));
  int wrong = 0;
  for (int i = 0; i < kCount; ++i) wrong += got[i] != want[i];
  good = good && wrong == 0;
  std::printf("PE %d of %d: ring sum of %d ints on GPU %d: %s (%d wrong)\n", me, n, kCount,
              rt->device(), good ? "ok" : "WRONG", wrong);
  rt->barrier_all();
  rt->free(sig);
  rt->free(inbox);
  rt->free(send);
  rt->free(sum);
  rt->free(seed);
  rt->finalize();
  return good ? 0 : 1;
}
