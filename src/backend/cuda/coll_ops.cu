// The collectives on the CUDA backend (CudaBackend::collective): the kernels of
// coll_kernels.cuh, launched together on the PEs that share a GPU (co_launch.hpp). A team with
// members on other hosts runs the copy compiled with the remote branch (coll_remote.cu), whose
// operations on those members go through the proxy ring (docs/proxy.md).
#include "backend/cuda/coll_kernels.cuh"
#include "symmetra/device/impl/host_hooks.hpp"

namespace symmetra::detail {

Status preload_coll_kernels() {  // cuda_impl.hpp says why
  return preload_kernels();
}

void CudaBackend::collective(const device::Context& ctl, const coll::Call& call, int channels,
                             Stream stream) {
  const char* op = coll::kind_name(call.kind);
  const cudaStream_t s = stream ? cu(stream) : impl_->stream;
  const device::TeamDesc& t = teams_[call.team];
  CollKernel fn = kernel_for(call.kind, call.type);
  if (t.local != t.size) {
    if (dctx_.proxy.slots == nullptr)
      device::detail::host_fatalf(ctl, op,
                                  "the team has PEs on other hosts and this PE has no proxy ring "
                                  "to reach them (docs/proxy.md)");
    fn = remote_coll_kernel(call.kind, call.type);
  }
  const Status st = launch_collective(
      call.team,
      [fn, dctx = dctx_, a = call, s, channels]() mutable {
        void* args[] = {&dctx, &a};
        return static_cast<int>(cudaLaunchKernel(reinterpret_cast<const void*>(fn), dim3(channels),
                                                 dim3(kCollThreads), args, 0, s));
      },
      op);
  if (!st.ok()) device::detail::host_fatalf(ctl, op, "%s", st.message().c_str());
  if (!stream) check_cuda(ctl, op, cudaStreamSynchronize(s), "cudaStreamSynchronize");
}

}  // namespace symmetra::detail
