// The collectives on the CUDA backend (CudaBackend::collective): each call is one kernel per PE
// that runs the device form (coll/*.hpp) with a BlockGroup per block, one block per channel
// (coll/channel.hpp; the Runtime picks how many). The kernel takes the coll::Call as it is.
// Kernels are compiled here once per element type: data-moving collectives by element size,
// reductions by type; the host forms pick one through DataType.
#include "backend/cuda/cuda_impl.hpp"
#include "symmetra/coll/call.hpp"
#include "symmetra/coll/run.hpp"
#include "symmetra/device.hpp"
#include "symmetra/device/impl/host_hooks.hpp"

namespace symmetra::detail {
namespace {

using coll::Kind;

// The call's channel: one per block (coll/channel.hpp).
__device__ coll::Channel block_channel() {
  return coll::Channel{static_cast<int>(blockIdx.x), static_cast<int>(gridDim.x)};
}

// Threads per block: enough to keep a copy's loads in flight, few enough that a block's
// __syncthreads stays cheap (the latency-bound sizes dominate use).
constexpr int kThreads = 512;

template <class T>
__global__ void __launch_bounds__(kThreads) move_kernel(device::Context ctx, coll::Call c) {
  coll::run_move<T>(device::BlockGroup{}, ctx, c, block_channel());
}

template <class T>
__global__ void __launch_bounds__(kThreads) reduce_kernel(device::Context ctx, coll::Call c) {
  coll::run_reduce<T>(device::BlockGroup{}, ctx, c, block_channel());
}

using KernelFn = void (*)(device::Context, coll::Call);

// The kernel for a call: reductions by type, the rest by element size.
KernelFn kernel_for(Kind kind, DataType t) {
  if (coll::is_reduction(kind))
    return visit_type(
        t, [](auto tag) -> KernelFn { return reduce_kernel<typename decltype(tag)::type>; });
  return visit_size(data_type_size(t),
                    [](auto tag) -> KernelFn { return move_kernel<typename decltype(tag)::type>; });
}

}  // namespace

Status preload_coll_kernels() {  // cuda_impl.hpp says why
  cudaFuncAttributes attr;
  for (int t = 0; t <= static_cast<int>(DataType::kDouble); ++t)
    for (Kind kind : {Kind::kBroadcast, Kind::kReduce})
      SYMMETRA_CUDA(cudaFuncGetAttributes(&attr, kernel_for(kind, static_cast<DataType>(t))));
  return {};
}

void CudaBackend::collective(const device::Context& ctl, const coll::Call& call, int channels,
                             Stream stream) {
  const char* op = coll::kind_name(call.kind);
  const cudaStream_t s = stream ? cu(stream) : impl_->stream;
  const KernelFn fn = kernel_for(call.kind, call.type);
  const Status st = launch_collective(
      call.team,
      [fn, dctx = dctx_, a = call, s, channels]() mutable {
        void* args[] = {&dctx, &a};
        return static_cast<int>(cudaLaunchKernel(reinterpret_cast<const void*>(fn), dim3(channels),
                                                 dim3(kThreads), args, 0, s));
      },
      op);
  if (!st.ok()) device::detail::host_fatalf(ctl, op, "%s", st.message().c_str());
  if (!stream) check_cuda(ctl, op, cudaStreamSynchronize(s), "cudaStreamSynchronize");
}

}  // namespace symmetra::detail
