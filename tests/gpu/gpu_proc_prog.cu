// PEs as processes on the GPU backend (the fd-passing path): a host put ring, a kernel put ring
// and a barrier inside a kernel, then every all-reduce algorithm (and NCCL where it loads) from
// 4 B to 4 MiB, so with channels, checked element by element. On a machine with several GPUs
// each process takes the GPU of its local rank: one process per GPU.
// Run as: SYMMETRA_BACKEND=cuda symrun -n 2 gpu_proc_prog
#include <cuda_runtime.h>

#include <cstdio>
#include <vector>

#include "symmetra/coll.hpp"
#include "symmetra/device.hpp"
#include "symmetra/introspect.hpp"
#include "symmetra/runtime.hpp"

namespace sd = symmetra::device;

__global__ void ring(sd::Context ctx, long* slot, int rounds) {
  const int n = ctx.n_pes, to = (ctx.my_pe + 1) % n;
  for (int r = 1; r <= rounds; ++r) {
    sd::p(ctx, slot, 1000L * r + ctx.my_pe, to);
    sd::barrier_all(sd::ThreadGroup{}, ctx);
  }
}

int main() {
  try {
    auto rt = symmetra::Runtime::init(symmetra::RuntimeOptions{symmetra::Backend::kCuda, -1});
    const int me = rt->my_pe(), n = rt->n_pes(), from = (me + n - 1) % n;
    auto* slot = rt->allocate_array<long>(1);
    auto* block = rt->allocate_array<long>(1 << 16);
    std::vector<long> src(1 << 16), got(1 << 16);
    for (std::size_t i = 0; i < src.size(); ++i) src[i] = me * 100000L + static_cast<long>(i);
    rt->put(block, src.data(), src.size(), (me + 1) % n);
    rt->barrier_all();
    rt->get(got.data(), block, got.size(), me);
    int bad = 0;
    for (std::size_t i = 0; i < got.size(); ++i)
      bad += got[i] != from * 100000L + static_cast<long>(i);
    ring<<<1, 1>>>(rt->device_context(), slot, 50);
    if (cudaDeviceSynchronize() != cudaSuccess) ++bad;
    rt->barrier_all();
    bad += rt->g(slot, me) != 1000L * 50 + from;
    // All-reduce: element i of PE r is (i * 7 + r * 13) % 1024 / 8, exact in float in any order.
    constexpr std::size_t kMax = 1 << 20;
    auto* asrc = rt->allocate_array<float>(kMax);
    auto* adst = rt->allocate_array<float>(kMax);
    std::vector<float> h(kMax), out(kMax);
    for (std::size_t i = 0; i < kMax; ++i)
      h[i] = static_cast<float>((i * 7 + static_cast<std::size_t>(me) * 13) % 1024) / 8.0f;
    rt->put(asrc, h.data(), kMax, me);
    std::vector<symmetra::coll::AllreduceAlgo> algos(
        std::begin(symmetra::coll::kDeviceAllreduceAlgos),
        std::end(symmetra::coll::kDeviceAllreduceAlgos));
    algos.push_back(symmetra::coll::AllreduceAlgo::kAuto);
    rt->allreduce(rt->team_world(), adst, asrc, 1,
                  symmetra::coll::ReduceOp::kSum);  // decides on NCCL
    if (symmetra::introspect::nccl_ready(*rt, rt->team_world()))
      algos.push_back(symmetra::coll::AllreduceAlgo::kNccl);
    for (auto algo : algos)
      for (std::size_t count : {std::size_t{1}, std::size_t{5000}, std::size_t{kMax}}) {
        rt->allreduce(rt->team_world(), adst, asrc, count, symmetra::coll::ReduceOp::kSum, algo);
        rt->get(out.data(), adst, count, me);
        int wrong = 0;
        for (std::size_t i = 0; i < count; ++i) {
          float want = 0;
          for (int r = 0; r < n; ++r)
            want += static_cast<float>((i * 7 + static_cast<std::size_t>(r) * 13) % 1024) / 8.0f;
          wrong += out[i] != want;
        }
        if (wrong)
          std::printf("pe %d: allreduce %s of %zu floats: %d wrong\n", me,
                      symmetra::coll::algo_name(algo), count, wrong);
        bad += wrong;
      }
    rt->free(adst);
    rt->free(asrc);
    std::printf("pe %d of %d on GPU %d: %s (all-reduce: %zu algorithms%s)\n", me, n, rt->device(),
                bad == 0 ? "ok" : "WRONG", algos.size(),
                symmetra::introspect::nccl_ready(*rt, rt->team_world()) ? ", NCCL included" : "");
    rt->free(block);
    rt->free(slot);
    rt->finalize();
    return bad == 0 ? 0 : 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "gpu_proc_prog: %s\n", e.what());
    return 2;
  }
}
