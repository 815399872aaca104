// The stream-ordered API (runtime.hpp, "Stream-ordered forms"): copies by the copy engine,
// signals by stream memory operations where the hardware has them, one-thread kernels where it
// does not; to PEs of other hosts, kernels that post to the proxy ring (stream_remote.cu).
// Every call only enqueues work; all of it is capturable in a CUDA graph.
#include "backend/cuda/cuda_impl.hpp"
#include "symmetra/device.hpp"
#include "symmetra/device/impl/host_hooks.hpp"

namespace symmetra::detail {
namespace {

void check_cu(const device::Context& ctx, const char* op, CUresult rc, const char* call) {
  if (rc == CUDA_SUCCESS) return;
  auto drv = cuda_driver();
  device::detail::host_fatalf(ctx, op, "%s",
                              drv.ok() ? cu_error(*drv.value(), call, rc).c_str() : call);
}

__global__ void signal_add_kernel(device::Context ctx, std::uint64_t* sig, std::uint64_t value,
                                  int pe) {
  device::atomic_add(ctx, sig, value, pe);
}

__global__ void signal_wait_kernel(device::Context ctx, std::uint64_t* sig, Cmp cmp,
                                   std::uint64_t value) {
  // signal_wait_until's wait, under the stream form's name: its timeout message says which.
  (void)device::detail::wait_value(ctx, "signal_wait_until_on_stream", sig, cmp, value);
}

// The typed and array waits on a stream: `value` holds the element's bits in its low bytes.
template <class T>
__global__ void wait_all_kernel(device::Context ctx, const T* ivars, std::size_t n,
                                const int* status, Cmp cmp, std::uint64_t value, const T* values) {
  if (values != nullptr)
    device::wait_until_all_vector(ctx, ivars, n, status, cmp, values);
  else
    device::wait_until_all(ctx, ivars, n, status, cmp, static_cast<T>(value));
}

__global__ void barrier_all_kernel(device::Context ctx) {
  device::barrier_all(device::ThreadGroup{}, ctx);
}

// Small puts and gets between heap blocks go by a one-block copy kernel rather than the copy
// engine: its launch costs less than cudaMemcpyAsync's on a few bytes
// (docs/perf_gpu.md#stream-puts). Above this size the copy engine. The block copies as the
// device API's block put does (group_copy: 16-byte vectors where the addresses allow).
constexpr std::size_t kKernelCopyMax = 32768;

__global__ void small_copy_kernel(void* dst, const void* src, std::size_t bytes) {
  device::detail::group_copy(device::BlockGroup{}, dst, src, bytes);
}

// Whether [p, p + bytes) lies in this PE's heap slot (device memory a kernel can read).
bool in_heap(const device::Context& hctx, const void* p, std::size_t bytes) {
  const auto off =
      reinterpret_cast<std::uintptr_t>(p) - reinterpret_cast<std::uintptr_t>(hctx.heap_base);
  return off < hctx.heap_extent() && bytes <= hctx.heap_extent() - off;
}

// Copies on `stream`: by the kernel where both sides are heap memory (a peer's slot is) and the
// copy is small, else by the copy engine.
cudaError_t copy_on_stream(void* dst, bool dst_device, const void* src, bool src_device,
                           std::size_t bytes, cudaStream_t stream) {
  if (bytes <= kKernelCopyMax && dst_device && src_device) {
    small_copy_kernel<<<1, 256, 0, stream>>>(dst, src, bytes);
    return cudaGetLastError();
  }
  return cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDefault, stream);
}

// Whether PE `pe` is on another host, where the stream forms post to the proxy ring
// (stream_remote.cu); a PE without a ring cannot reach it and ends the job saying so.
bool on_other_host(const device::Context& hctx, const device::Context& dctx, const char* op,
                   int pe) {
  if (hctx.reachable(pe)) return false;
  if (dctx.proxy.slots == nullptr)
    device::detail::host_fatalf(hctx, op,
                                "PE %d is on another host and this PE has no proxy ring to reach "
                                "it (docs/proxy.md)",
                                pe);
  return true;
}

}  // namespace

Status preload_stream_kernels() {  // cuda_impl.hpp says why
  cudaFuncAttributes a;
  SYMMETRA_CUDA(cudaFuncGetAttributes(&a, signal_add_kernel));
  SYMMETRA_CUDA(cudaFuncGetAttributes(&a, signal_wait_kernel));
  SYMMETRA_CUDA(cudaFuncGetAttributes(&a, barrier_all_kernel));
  SYMMETRA_CUDA(cudaFuncGetAttributes(&a, small_copy_kernel));
  return {};
}

void CudaBackend::put_on_stream(const device::Context& ctl, const char* op, void* dest,
                                const void* src, std::size_t bytes, int pe, Stream stream) {
  device::detail::check_access(hctx_, op, dest, bytes, pe);
  if (on_other_host(hctx_, dctx_, op, pe))
    return check_cuda(ctl, op, remote_put_on_stream(dctx_, dest, src, bytes, pe, cu(stream)),
                      "remote_put_kernel launch");
  check_cuda(ctl, op,
             copy_on_stream(hctx_.peer(dest, pe), true, src, in_heap(hctx_, src, bytes), bytes,
                            cu(stream)),
             "copy on stream");
}

void CudaBackend::get_on_stream(const device::Context& ctl, const char* op, void* dest,
                                const void* src, std::size_t bytes, int pe, Stream stream) {
  device::detail::check_access(hctx_, op, src, bytes, pe);
  if (on_other_host(hctx_, dctx_, op, pe))
    return check_cuda(ctl, op, remote_get_on_stream(dctx_, dest, src, bytes, pe, cu(stream)),
                      "remote_get_kernel launch");
  check_cuda(ctl, op,
             copy_on_stream(dest, in_heap(hctx_, dest, bytes), hctx_.peer(src, pe), true, bytes,
                            cu(stream)),
             "copy on stream");
}

void CudaBackend::signal_on_stream(const device::Context& ctl, std::uint64_t* sig,
                                   std::uint64_t value, SignalOp op, int pe, Stream stream) {
  const device::Context& v = hctx_;
  device::detail::check_access(v, "signal_op_on_stream", sig, sizeof(*sig), pe);
  if (on_other_host(v, dctx_, "signal_op_on_stream", pe))
    return check_cuda(ctl, "signal_op_on_stream",
                      remote_signal_on_stream(dctx_, sig, value, op, pe, cu(stream)),
                      "remote_signal_kernel launch");
  if (op == SignalOp::kSet) {
    // The default write carries a memory barrier: earlier stream work is visible first.
    static const Driver* drv = cuda_driver().value();  // loaded by CudaBackend::create
    check_cu(ctl, "signal_op_on_stream",
             drv->stream_write_value64(reinterpret_cast<CUstream>(stream),
                                       reinterpret_cast<CUdeviceptr>(v.peer(sig, pe)), value,
                                       CU_STREAM_WRITE_VALUE_DEFAULT),
             "cuStreamWriteValue64");
    return;
  }
  signal_add_kernel<<<1, 1, 0, cu(stream)>>>(dctx_, sig, value, pe);
  check_cuda(ctl, "signal_op_on_stream", cudaGetLastError(), "signal_add_kernel launch");
}

void CudaBackend::signal_wait_on_stream(const device::Context& ctl, std::uint64_t* sig, Cmp cmp,
                                        std::uint64_t value, bool bounded, Stream stream) {
  device::detail::check_access(hctx_, "signal_wait_until_on_stream", sig, sizeof(*sig),
                               hctx_.my_pe);
  unsigned flags = 0;
  std::uint64_t target = value;
  bool mem_op = true;
  switch (cmp) {
    case Cmp::kEq:
      flags = CU_STREAM_WAIT_VALUE_EQ;
      break;
    case Cmp::kGe:
      flags = CU_STREAM_WAIT_VALUE_GEQ;
      break;
    case Cmp::kGt:
      flags = CU_STREAM_WAIT_VALUE_GEQ;
      target = value + 1;
      break;
    default:
      mem_op = false;
  }
  // GEQ compares wrap-around distances, as sequence numbers want; it cannot express kGt at the
  // top of the range, so that case polls in a kernel like kNe, kLt and kLe.
  if (cmp == Cmp::kGt && value == ~std::uint64_t{0}) mem_op = false;
  // The stream memory operation has no bound: a lost signal holds the stream forever. Bounded
  // waits (the default; all but SYMMETRA_STREAM_WAIT=value) poll in a kernel that stops with a
  // message after SYMMETRA_TIMEOUT_S (docs/gpu_backend.md).
  if (bounded) mem_op = false;
  if (mem_op) {
    static const Driver* drv = cuda_driver().value();
    check_cu(ctl, "signal_wait_until_on_stream",
             drv->stream_wait_value64(reinterpret_cast<CUstream>(stream),
                                      reinterpret_cast<CUdeviceptr>(sig), target, flags),
             "cuStreamWaitValue64");
    return;
  }
  signal_wait_kernel<<<1, 1, 0, cu(stream)>>>(dctx_, sig, cmp, value);
  check_cuda(ctl, "signal_wait_until_on_stream", cudaGetLastError(), "signal_wait_kernel launch");
}

void CudaBackend::wait_all_on_stream(const device::Context& ctl, DataType type, const void* ivars,
                                     std::size_t n, const int* status, Cmp cmp, std::uint64_t value,
                                     const void* values, Stream stream) {
  const char* op = "wait_until_on_stream";
  const auto elem = static_cast<std::size_t>(data_type_size(type));
  // Checked before the product, which a count near SIZE_MAX wraps to a range check_access passes.
  if (n > ~std::size_t{0} / elem)
    device::detail::host_fatalf(hctx_, op, "%zu elements of %zu bytes do not fit in memory", n,
                                elem);
  device::detail::check_access(hctx_, op, ivars, n * elem, hctx_.my_pe);
  auto launch = [&](auto tag) {
    using T = decltype(tag);
    wait_all_kernel<T><<<1, 1, 0, cu(stream)>>>(dctx_, static_cast<const T*>(ivars), n, status, cmp,
                                                value, static_cast<const T*>(values));
  };
  switch (type) {
    case DataType::kInt16:
      launch(std::int16_t{});
      break;
    case DataType::kUint16:
      launch(std::uint16_t{});
      break;
    case DataType::kInt32:
      launch(std::int32_t{});
      break;
    case DataType::kUint32:
      launch(std::uint32_t{});
      break;
    case DataType::kInt64:
      launch(std::int64_t{});
      break;
    case DataType::kUint64:
      launch(std::uint64_t{});
      break;
    default:
      device::detail::host_fatalf(hctx_, op,
                                  "waits compare 16, 32 and 64-bit integers, not data type %d",
                                  static_cast<int>(type));
  }
  check_cuda(ctl, op, cudaGetLastError(), "wait_all_kernel launch");
}

void CudaBackend::quiet_on_stream(const device::Context& ctl, Stream stream) {
  // Copies and stream memory operations complete in stream order, and kernels that stored into
  // peers are complete when the stream moves past them; what went through the proxy ring is
  // complete at its target once a quiet request on it is acknowledged.
  if (dctx_.proxy.slots != nullptr)
    check_cuda(ctl, "quiet_on_stream", remote_quiet_on_stream(dctx_, cu(stream)),
               "remote_quiet_kernel launch");
}

void CudaBackend::barrier_all_on_stream(const device::Context& ctl, Stream stream) {
  // Across hosts: the kernel with the remote branch, whose quiet and announcements go through
  // the proxy ring.
  const void* fn = dctx_.proxy.slots != nullptr ? remote_barrier_all_kernel_fn()
                                                : reinterpret_cast<const void*>(barrier_all_kernel);
  const Status st = launch_collective(
      device::kTeamWorld,
      [fn, dctx = dctx_, s = cu(stream)]() mutable {
        void* args[] = {&dctx};
        return static_cast<int>(cudaLaunchKernel(fn, dim3(1), dim3(1), args, 0, s));
      },
      "barrier_all_on_stream");
  if (!st.ok())
    device::detail::host_fatalf(ctl, "barrier_all_on_stream", "%s", st.message().c_str());
}

void CudaBackend::launch_graph(const device::Context& ctl, void* graph_exec, Stream stream) {
  const Status st = launch_collective(
      device::kTeamWorld,
      [g = static_cast<cudaGraphExec_t>(graph_exec), s = cu(stream)] {
        return static_cast<int>(cudaGraphLaunch(g, s));
      },
      "launch_graph");
  if (!st.ok()) device::detail::host_fatalf(ctl, "launch_graph", "%s", st.message().c_str());
}

}  // namespace symmetra::detail
