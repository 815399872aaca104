// The collectives on the CUDA backend (CudaBackend::collective): each call is one kernel per PE
// that runs the device form (coll/*.hpp) with a BlockGroup per block, one block per channel
// (coll/channel.hpp; the Runtime picks how many). The kernel takes the coll::Call as it is.
// Kernels are compiled here once per element type: data-moving collectives by element size,
// reductions by type; the host forms pick one through DataType.
#include "backend/cuda/cuda_impl.hpp"
#include "symmetra/coll.hpp"
#include "symmetra/coll/call.hpp"
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
__global__ void __launch_bounds__(kThreads) move_kernel(device::Context ctx, coll::Call a) {
  const device::BlockGroup g;
  T* d = static_cast<T*>(a.dest);
  const T* s = static_cast<const T*>(a.source);
  switch (a.kind) {
    case Kind::kBroadcast:
      coll::broadcast(g, ctx, a.team, d, s, a.nelems, a.root, block_channel());
      break;
    case Kind::kFcollect:
      coll::fcollect(g, ctx, a.team, d, s, a.nelems, block_channel());
      break;
    case Kind::kFcollectRead:
      coll::fcollect_read(g, ctx, a.team, d, s, a.nelems, block_channel());
      break;
    case Kind::kFcollectRing:
      coll::fcollect_ring(g, ctx, a.team, d, s, a.nelems);
      break;
    case Kind::kCollect:
      coll::collect(g, ctx, a.team, d, s, a.nelems);
      break;
    case Kind::kAlltoall:
      coll::alltoall(g, ctx, a.team, d, s, a.nelems, block_channel());
      break;
    case Kind::kAlltoalls:
      coll::alltoalls(g, ctx, a.team, d, s, a.dst_stride, a.src_stride, a.nelems);
      break;
    case Kind::kPermute:
      coll::permute(g, ctx, a.team, d, s, a.nelems, a.to, a.from, a.chunk, coll::NoChunkCallback{},
                    block_channel());
      break;
    case Kind::kBarrier:
      device::barrier(g, ctx, a.team);
      break;
    case Kind::kSync:
      device::sync(g, ctx, a.team);
      break;
    default:
      break;
  }
}

template <class T>
__global__ void __launch_bounds__(kThreads) reduce_kernel(device::Context ctx, coll::Call a) {
  const device::BlockGroup g;
  T* d = static_cast<T*>(a.dest);
  const T* s = static_cast<const T*>(a.source);
  switch (a.kind) {
    case Kind::kReduce:
      coll::reduce(g, ctx, a.team, d, s, a.nelems, a.op, block_channel());
      break;
    case Kind::kReduceScatter:
      coll::reduce_scatter(g, ctx, a.team, d, s, a.nelems, a.op, block_channel());
      break;
    case Kind::kAllreduce:
      coll::allreduce(g, ctx, a.team, d, s, a.nelems, a.op, a.algo, block_channel());
      break;
    default:
      break;
  }
}

using KernelFn = void (*)(device::Context, coll::Call);

// The kernel for a call: reductions by type, the rest by element size.
KernelFn kernel_for(Kind kind, DataType t) {
  if (coll::is_reduction(kind)) {
    switch (t) {
      case DataType::kInt8:
        return reduce_kernel<std::int8_t>;
      case DataType::kUint8:
        return reduce_kernel<std::uint8_t>;
      case DataType::kInt16:
        return reduce_kernel<std::int16_t>;
      case DataType::kUint16:
        return reduce_kernel<std::uint16_t>;
      case DataType::kInt32:
        return reduce_kernel<std::int32_t>;
      case DataType::kUint32:
        return reduce_kernel<std::uint32_t>;
      case DataType::kInt64:
        return reduce_kernel<std::int64_t>;
      case DataType::kUint64:
        return reduce_kernel<std::uint64_t>;
      case DataType::kHalf:
        return reduce_kernel<half>;
      case DataType::kBfloat16:
        return reduce_kernel<bfloat16>;
      case DataType::kFloat:
        return reduce_kernel<float>;
      case DataType::kDouble:
        return reduce_kernel<double>;
    }
    return nullptr;
  }
  switch (data_type_size(t)) {
    case 1:
      return move_kernel<std::uint8_t>;
    case 2:
      return move_kernel<std::uint16_t>;
    case 4:
      return move_kernel<std::uint32_t>;
    default:
      return move_kernel<std::uint64_t>;
  }
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
