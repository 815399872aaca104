// The stream forms for PEs of other hosts (stream_ops.cu calls these where Context::reachable is
// false): one-thread kernels that post the operation on this PE's proxy ring (docs/proxy.md), so
// that they run in stream order and are capturable in a CUDA graph like the local forms. The
// device API's remote branch is compiled into this file alone (SYMMETRA_DEVICE_REMOTE=1).
//
// Completion, as NVSHMEM's on-stream forms: a put's kernel ends once the proxy has read its
// source (the stream may then reuse it), and the data is at the target by the next
// quiet_on_stream; a get's kernel ends once the data is in dest; a signal is ordered after
// every earlier put of the ring to that PE (a fence goes first), so putmem_on_stream then
// signal_op_on_stream delivers the data before the signal, as put_signal does.
#define SYMMETRA_DEVICE_REMOTE 1

#include "backend/cuda/cuda_impl.hpp"
#include "symmetra/device.hpp"

namespace symmetra::detail {
namespace {

namespace dd = device::detail;

// Source and destination may be any memory the proxy reaches (device memory, which it stages,
// or host memory of this process): the kernel never touches them.
__global__ void remote_put_kernel(device::Context ctx, void* dest, const void* src,
                                  std::size_t bytes, int pe) {
#if SYMMETRA_DEVICE_PASS  // (the proxy calls exist in device code only)
  (void)dd::proxy_call(ctx, "putmem_on_stream",
                       dd::proxy_put(pe, dd::device_offset(ctx, dest), src, bytes, true), true, -1);
#endif
}

__global__ void remote_get_kernel(device::Context ctx, void* dest, const void* src,
                                  std::size_t bytes, int pe) {
#if SYMMETRA_DEVICE_PASS
  (void)dd::proxy_call(ctx, "getmem_on_stream",
                       dd::proxy_get(pe, dest, dd::device_offset(ctx, src), bytes, true), true, -1);
#endif
}

__global__ void remote_signal_kernel(device::Context ctx, std::uint64_t* sig, std::uint64_t value,
                                     SignalOp op, int pe) {
  dd::group_signal(device::ThreadGroup{}, ctx, sig, value, op, pe);  // a fence, then the signal
}

__global__ void remote_quiet_kernel(device::Context ctx) {
  device::quiet(ctx);
}

__global__ void remote_barrier_all_kernel(device::Context ctx) {
  device::barrier_all(device::ThreadGroup{}, ctx);
}

}  // namespace

Status preload_remote_stream_kernels() {  // cuda_impl.hpp says why
  cudaFuncAttributes a;
  SYMMETRA_CUDA(cudaFuncGetAttributes(&a, remote_put_kernel));
  SYMMETRA_CUDA(cudaFuncGetAttributes(&a, remote_get_kernel));
  SYMMETRA_CUDA(cudaFuncGetAttributes(&a, remote_signal_kernel));
  SYMMETRA_CUDA(cudaFuncGetAttributes(&a, remote_quiet_kernel));
  SYMMETRA_CUDA(cudaFuncGetAttributes(&a, remote_barrier_all_kernel));
  return {};
}

cudaError_t remote_put_on_stream(const device::Context& dctx, void* dest, const void* src,
                                 std::size_t bytes, int pe, cudaStream_t s) {
  if (bytes == 0) return cudaSuccess;
  remote_put_kernel<<<1, 1, 0, s>>>(dctx, dest, src, bytes, pe);
  return cudaGetLastError();
}

cudaError_t remote_get_on_stream(const device::Context& dctx, void* dest, const void* src,
                                 std::size_t bytes, int pe, cudaStream_t s) {
  if (bytes == 0) return cudaSuccess;
  remote_get_kernel<<<1, 1, 0, s>>>(dctx, dest, src, bytes, pe);
  return cudaGetLastError();
}

cudaError_t remote_signal_on_stream(const device::Context& dctx, std::uint64_t* sig,
                                    std::uint64_t value, SignalOp op, int pe, cudaStream_t s) {
  remote_signal_kernel<<<1, 1, 0, s>>>(dctx, sig, value, op, pe);
  return cudaGetLastError();
}

cudaError_t remote_quiet_on_stream(const device::Context& dctx, cudaStream_t s) {
  remote_quiet_kernel<<<1, 1, 0, s>>>(dctx);
  return cudaGetLastError();
}

const void* remote_barrier_all_kernel_fn() {
  return reinterpret_cast<const void*>(remote_barrier_all_kernel);
}

}  // namespace symmetra::detail
