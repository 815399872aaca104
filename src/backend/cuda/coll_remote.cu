// The collective kernels with the device API's remote branch compiled in (docs/proxy.md, "GPU
// producers"), for teams with members on other hosts: their puts, gets, signals and syncs to
// such members go through this PE's proxy ring, and the LL all-reduce and reduce-scatter send
// each region across hosts as one request (coll/ll_packet.hpp).
#define SYMMETRA_DEVICE_REMOTE 1

#include "backend/cuda/coll_kernels.cuh"

namespace symmetra::detail {

CollKernel remote_coll_kernel(coll::Kind kind, DataType type) {
  return kernel_for(kind, type);
}

Status preload_remote_coll_kernels() {
  return preload_kernels();
}

}  // namespace symmetra::detail
