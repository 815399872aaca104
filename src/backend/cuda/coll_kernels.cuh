// The collective kernels (CudaBackend::collective): each call is one kernel per PE that runs the
// device form (coll/*.hpp) with a BlockGroup per block, one block per channel (coll/channel.hpp;
// the Runtime picks how many). The kernel takes the coll::Call as it is. Kernels are compiled
// once per element type: data-moving collectives by element size, reductions by type.
//
// Included by two translation units, each with its own copy in an unnamed namespace:
// coll_ops.cu for teams of one host, and coll_remote.cu, which compiles the device API's remote
// branch in (SYMMETRA_DEVICE_REMOTE=1), for teams with members on other hosts. One-host teams
// keep kernels without it: its mere presence costs (docs/proxy.md, "The branch's cost").
#pragma once

#include "backend/cuda/cuda_impl.hpp"
#include "symmetra/coll/call.hpp"
#include "symmetra/coll/run.hpp"
#include "symmetra/device.hpp"

namespace symmetra::detail {
namespace {

// The call's channel: one per block (coll/channel.hpp).
__device__ coll::Channel block_channel() {
  return coll::Channel{static_cast<int>(blockIdx.x), static_cast<int>(gridDim.x)};
}

template <class T>
__global__ void __launch_bounds__(kCollThreads) move_kernel(device::Context ctx, coll::Call c) {
  coll::run_move<T>(device::BlockGroup{}, ctx, c, block_channel());
}

template <class T>
__global__ void __launch_bounds__(kCollThreads) reduce_kernel(device::Context ctx, coll::Call c) {
  coll::run_reduce<T>(device::BlockGroup{}, ctx, c, block_channel());
}

// The kernel for a call: reductions by type, the rest by element size.
CollKernel kernel_for(coll::Kind kind, DataType t) {
  if (coll::is_reduction(kind))
    return visit_type(
        t, [](auto tag) -> CollKernel { return reduce_kernel<typename decltype(tag)::type>; });
  return visit_size(data_type_size(t), [](auto tag) -> CollKernel {
    return move_kernel<typename decltype(tag)::type>;
  });
}

// Loads every kernel of this copy (cuda_impl.hpp says why).
Status preload_kernels() {
  cudaFuncAttributes attr;
  for (int t = 0; t <= static_cast<int>(DataType::kDouble); ++t)
    for (coll::Kind kind : {coll::Kind::kBroadcast, coll::Kind::kReduce})
      SYMMETRA_CUDA(cudaFuncGetAttributes(&attr, kernel_for(kind, static_cast<DataType>(t))));
  return {};
}

}  // namespace
}  // namespace symmetra::detail
