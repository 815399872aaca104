// 04: an all-reduce ordered on a CUDA stream, the way a training or inference step calls it:
// enqueued with the stream's other work, returning at once, capturable in a CUDA graph. The
// selector picks the algorithm for the size (docs/selector.md). The host checks every element
// against a float64 reference.
// Run: SYMMETRA_BACKEND=cuda symrun -n 2 ./04_stream_allreduce   (exit status 1 if wrong)
#include <cuda_runtime.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <random>
#include <vector>

#include <symmetra/introspect.hpp>
#include <symmetra/runtime.hpp>

static bool ok(cudaError_t e) {
  if (e != cudaSuccess) std::fprintf(stderr, "CUDA: %s\n", cudaGetErrorString(e));
  return e == cudaSuccess;
}

int main() {
  auto rt = symmetra::Runtime::init({.backend = symmetra::Backend::kCuda});
  const int me = rt->my_pe(), n = rt->n_pes();
  auto* seed = rt->allocate_array<std::uint64_t>(1);
  if (me == 0) rt->p(seed, std::uint64_t{std::random_device{}()}, 0);
  rt->barrier_all();
  const std::uint64_t base = rt->g(seed, 0);

  cudaStream_t stream;
  bool good = ok(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  for (std::size_t count : {std::size_t{1000}, std::size_t{1} << 20}) {
    auto input = [&](int pe) {
      std::mt19937 gen(static_cast<std::uint32_t>(base + 7919 * pe + count));
      std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
      std::vector<float> v(count);
      for (float& x : v) x = dist(gen);
      return v;
    };
    float* buf = rt->allocate_array<float>(count);  // symmetric device memory
    const std::vector<float> mine = input(me);
    good = good && ok(cudaMemcpyAsync(buf, mine.data(), count * sizeof(float),
                                      cudaMemcpyHostToDevice, stream));
    // In place, on the stream, after the copy above.
    rt->allreduce_on_stream(rt->team_world(), buf, buf, count, symmetra::coll::ReduceOp::kSum,
                            stream);
    std::vector<float> got(count);
    good = good &&
           ok(cudaMemcpyAsync(got.data(), buf, count * sizeof(float), cudaMemcpyDeviceToHost,
                              stream)) &&
           ok(cudaStreamSynchronize(stream));
    std::vector<double> want(count, 0.0);
    for (int pe = 0; pe < n; ++pe) {
      const std::vector<float> v = input(pe);
      for (std::size_t i = 0; i < count; ++i) want[i] += v[i];
    }
    std::size_t wrong = 0;
    for (std::size_t i = 0; i < count; ++i)
      wrong += std::fabs(got[i] - want[i]) > 1e-5 * n;  // float sums in another order
    good = good && wrong == 0;
    std::printf("PE %d of %d: all-reduce of %zu floats on the stream (%s): %s\n", me, n, count,
                symmetra::coll::algo_name(
                    symmetra::introspect::allreduce_algo(*rt, rt->team_world(), count * 4, true)),
                wrong == 0 ? "ok" : "WRONG");
    rt->barrier_all();
    rt->free(buf);
  }
  good = good && ok(cudaStreamDestroy(stream));
  rt->free(seed);
  rt->finalize();
  return good ? 0 : 1;
}
