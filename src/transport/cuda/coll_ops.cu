// The host and stream forms of the collectives on the GPU backend (runtime_coll.hpp): each call
// is one kernel per PE that runs the device form (coll/*.hpp) with a BlockGroup per block, one
// block per channel (coll/channel.hpp; Runtime::coll_channels picks how many).
// Kernels are compiled here once per element type: data-moving collectives by element size,
// reductions by type; the host forms pick one through DataType.
#include "../../runtime/gpu_state.hpp"
#include "driver.hpp"
#include "symmetra/coll.hpp"
#include "symmetra/device.hpp"

namespace symmetra {
namespace {

using detail::check_cuda;

// Runtime::CollCall without the Runtime's access rules, for the kernels.
struct Args {
  int kind;
  int team;
  void* dest;
  const void* source;
  std::size_t nelems;
  int root;
  std::ptrdiff_t dst_stride, src_stride;
  coll::ReduceOp op;
  coll::AllreduceAlgo algo;
  int to, from;
  std::size_t chunk;
};

// The call's channel: one per block (coll/channel.hpp).
__device__ coll::Channel block_channel() {
  return coll::Channel{static_cast<int>(blockIdx.x), static_cast<int>(gridDim.x)};
}

// The same order as Runtime::CollKind (gpu_collective passes its value).
enum Kind : int {
  kBroadcast,
  kFcollect,
  kFcollectRead,
  kFcollectRing,
  kCollect,
  kAlltoall,
  kAlltoalls,
  kReduce,
  kReduceScatter,
  kAllreduce,
  kPermute,
  kBarrier,
  kSync
};

// Threads per block: enough to keep a copy's loads in flight, few enough that a block's
// __syncthreads stays cheap (the latency-bound sizes dominate use).
constexpr int kThreads = 512;

template <class T>
__global__ void __launch_bounds__(kThreads) move_kernel(device::Context ctx, Args a) {
  const device::BlockGroup g;
  T* d = static_cast<T*>(a.dest);
  const T* s = static_cast<const T*>(a.source);
  switch (a.kind) {
    case kBroadcast:
      coll::broadcast(g, ctx, a.team, d, s, a.nelems, a.root, block_channel());
      break;
    case kFcollect:
      coll::fcollect(g, ctx, a.team, d, s, a.nelems, block_channel());
      break;
    case kFcollectRead:
      coll::fcollect_read(g, ctx, a.team, d, s, a.nelems, block_channel());
      break;
    case kFcollectRing:
      coll::fcollect_ring(g, ctx, a.team, d, s, a.nelems);
      break;
    case kCollect:
      coll::collect(g, ctx, a.team, d, s, a.nelems);
      break;
    case kAlltoall:
      coll::alltoall(g, ctx, a.team, d, s, a.nelems, block_channel());
      break;
    case kAlltoalls:
      coll::alltoalls(g, ctx, a.team, d, s, a.dst_stride, a.src_stride, a.nelems);
      break;
    case kPermute:
      coll::permute(g, ctx, a.team, d, s, a.nelems, a.to, a.from, a.chunk, coll::NoChunkCallback{},
                    block_channel());
      break;
    case kBarrier:
      device::barrier(g, ctx, a.team);
      break;
    case kSync:
      device::sync(g, ctx, a.team);
      break;
    default:
      break;
  }
}

template <class T>
__global__ void __launch_bounds__(kThreads) reduce_kernel(device::Context ctx, Args a) {
  const device::BlockGroup g;
  T* d = static_cast<T*>(a.dest);
  const T* s = static_cast<const T*>(a.source);
  switch (a.kind) {
    case kReduce:
      coll::reduce(g, ctx, a.team, d, s, a.nelems, a.op, block_channel());
      break;
    case kReduceScatter:
      coll::reduce_scatter(g, ctx, a.team, d, s, a.nelems, a.op, block_channel());
      break;
    case kAllreduce:
      coll::allreduce(g, ctx, a.team, d, s, a.nelems, a.op, a.algo, block_channel());
      break;
    default:
      break;
  }
}

using KernelFn = void (*)(device::Context, Args);

// The kernel for a call: reductions by type, the rest by element size.
KernelFn kernel_for(int kind, DataType t) {
  if (kind == kReduce || kind == kReduceScatter || kind == kAllreduce) {
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

namespace detail {
Status preload_coll_kernels() {  // see preload_stream_kernels
  cudaFuncAttributes attr;
  for (int t = 0; t <= static_cast<int>(DataType::kDouble); ++t)
    for (int kind : {kBroadcast, kReduce})
      SYMMETRA_CUDA(cudaFuncGetAttributes(&attr, kernel_for(kind, static_cast<DataType>(t))));
  return {};
}
}  // namespace detail

void Runtime::gpu_collective(const CollCall& c, Stream stream, const char* op) {
  if (!gpu_)
    fail(std::string(op) +
         ": the stream forms of the collectives need the CUDA backend (SYMMETRA_BACKEND=cuda)");
  const bool bitwise =
      c.op == coll::ReduceOp::kAnd || c.op == coll::ReduceOp::kOr || c.op == coll::ReduceOp::kXor;
  const bool floating = c.type == DataType::kHalf || c.type == DataType::kBfloat16 ||
                        c.type == DataType::kFloat || c.type == DataType::kDouble;
  const int kind = static_cast<int>(c.kind);
  if ((kind == kReduce || kind == kReduceScatter || kind == kAllreduce) && bitwise && floating)
    fail(std::string(op) + ": bitwise reductions need an integer type");
  auto s = reinterpret_cast<cudaStream_t>(stream ? stream : gpu_->stream());
  if (kind == kAllreduce && c.algo == coll::AllreduceAlgo::kNccl) {
    nccl_allreduce(c, reinterpret_cast<Stream>(s), op);
    if (!stream) check_cuda(ctx_, op, cudaStreamSynchronize(s), "cudaStreamSynchronize");
    return;
  }
  Args a{kind,         c.team, c.dest, c.source, c.nelems, c.root, c.dst_stride,
         c.src_stride, c.op,   c.algo, c.to,     c.from,   c.chunk};
  const KernelFn fn = kernel_for(kind, c.type);
  const int channels = coll_channels(c);
  const Status st = gpu_->launch_collective(
      c.team,
      [fn, dctx = gpu_->device_context(), a, s, channels]() mutable {
        void* args[] = {&dctx, &a};
        return static_cast<int>(cudaLaunchKernel(reinterpret_cast<const void*>(fn), dim3(channels),
                                                 dim3(kThreads), args, 0, s));
      },
      op);
  if (!st.ok()) device::detail::host_fatalf(ctx_, op, "%s", st.message().c_str());
  if (!stream) check_cuda(ctx_, op, cudaStreamSynchronize(s), "cudaStreamSynchronize");
}

}  // namespace symmetra
