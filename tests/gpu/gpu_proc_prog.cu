// PEs as processes on the GPU backend (the fd-passing path): a host put ring, a kernel put ring
// and a barrier inside a kernel. Run as: SYMMETRA_BACKEND=cuda symrun -n 2 gpu_proc_prog
#include <cuda_runtime.h>

#include <cstdio>
#include <vector>

#include "symmetra/device.hpp"
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
    for (std::size_t i = 0; i < got.size(); ++i) bad += got[i] != from * 100000L + static_cast<long>(i);
    ring<<<1, 1>>>(rt->device_context(), slot, 50);
    if (cudaDeviceSynchronize() != cudaSuccess) ++bad;
    rt->barrier_all();
    bad += rt->g(slot, me) != 1000L * 50 + from;
    std::printf("pe %d of %d on GPU %d: %s\n", me, n, rt->device(), bad == 0 ? "ok" : "WRONG");
    rt->free(block);
    rt->free(slot);
    rt->finalize();
    return bad == 0 ? 0 : 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "gpu_proc_prog: %s\n", e.what());
    return 2;
  }
}
