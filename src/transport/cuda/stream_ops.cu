// The stream-ordered API (runtime.hpp, "Stream-ordered forms"): copies by the copy engine,
// signals by stream memory operations where the hardware has them, one-thread kernels where it
// does not. Every call only enqueues work; all of it is capturable in a CUDA graph.
#include "../../core/config.hpp"
#include "../../runtime/gpu_state.hpp"
#include "driver.hpp"
#include "symmetra/device.hpp"

namespace symmetra {
namespace {

cudaStream_t cu(Stream s) {
  return reinterpret_cast<cudaStream_t>(s);
}

using detail::check_cuda;

void check_cu(const device::Context& ctx, const char* op, CUresult rc, const char* call) {
  if (rc == CUDA_SUCCESS) return;
  auto drv = detail::cuda_driver();
  device::detail::host_fatalf(ctx, op, "%s",
                              drv.ok() ? detail::cu_error(*drv.value(), call, rc).c_str() : call);
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

__global__ void barrier_all_kernel(device::Context ctx) {
  device::barrier_all(device::ThreadGroup{}, ctx);
}

}  // namespace

namespace detail {
// Loads the stream API's kernels now. With lazy module loading (CUDA's default) a kernel's first
// launch may wait for running kernels, and these kernels wait for each other across PEs: loading
// them at a first launch could deadlock. NCCL and NVSHMEM load theirs at init for the same reason.
Status preload_stream_kernels() {
  cudaFuncAttributes a;
  SYMMETRA_CUDA(cudaFuncGetAttributes(&a, signal_add_kernel));
  SYMMETRA_CUDA(cudaFuncGetAttributes(&a, signal_wait_kernel));
  SYMMETRA_CUDA(cudaFuncGetAttributes(&a, barrier_all_kernel));
  return {};
}
}  // namespace detail

void Runtime::putmem_on_stream(void* dest, const void* src, std::size_t bytes, int pe,
                               Stream stream) {
  if (!gpu_) fail("putmem_on_stream needs the CUDA backend");
  const device::Context& v = gpu_->host_view();
  device::detail::check_access(v, "putmem_on_stream", dest, bytes, pe);
  check_cuda(ctx_, "putmem_on_stream",
             cudaMemcpyAsync(v.peer(dest, pe), src, bytes, cudaMemcpyDefault, cu(stream)),
             "cudaMemcpyAsync");
}

void Runtime::getmem_on_stream(void* dest, const void* src, std::size_t bytes, int pe,
                               Stream stream) {
  if (!gpu_) fail("getmem_on_stream needs the CUDA backend");
  const device::Context& v = gpu_->host_view();
  device::detail::check_access(v, "getmem_on_stream", src, bytes, pe);
  check_cuda(ctx_, "getmem_on_stream",
             cudaMemcpyAsync(dest, v.peer(src, pe), bytes, cudaMemcpyDefault, cu(stream)),
             "cudaMemcpyAsync");
}

void Runtime::signal_op_on_stream(std::uint64_t* sig, std::uint64_t value, SignalOp op, int pe,
                                  Stream stream) {
  if (!gpu_) fail("signal_op_on_stream needs the CUDA backend");
  const device::Context& v = gpu_->host_view();
  device::detail::check_access(v, "signal_op_on_stream", sig, sizeof(*sig), pe);
  if (op == SignalOp::kSet) {
    // The default write carries a memory barrier: earlier stream work is visible first.
    static const detail::Driver* drv = detail::cuda_driver().value();  // loaded by GpuState
    check_cu(ctx_, "signal_op_on_stream",
             drv->stream_write_value64(reinterpret_cast<CUstream>(stream),
                                       reinterpret_cast<CUdeviceptr>(v.peer(sig, pe)), value,
                                       CU_STREAM_WRITE_VALUE_DEFAULT),
             "cuStreamWriteValue64");
    return;
  }
  signal_add_kernel<<<1, 1, 0, cu(stream)>>>(gpu_->device_context(), sig, value, pe);
  check_cuda(ctx_, "signal_op_on_stream", cudaGetLastError(), "signal_add_kernel launch");
}

void Runtime::putmem_signal_on_stream(void* dest, const void* src, std::size_t bytes,
                                      std::uint64_t* sig, std::uint64_t value, SignalOp op, int pe,
                                      Stream stream) {
  putmem_on_stream(dest, src, bytes, pe, stream);
  signal_op_on_stream(sig, value, op, pe, stream);
}

void Runtime::signal_wait_until_on_stream(std::uint64_t* sig, Cmp cmp, std::uint64_t value,
                                          Stream stream) {
  if (!gpu_) fail("signal_wait_until_on_stream needs the CUDA backend");
  const device::Context& v = gpu_->host_view();
  device::detail::check_access(v, "signal_wait_until_on_stream", sig, sizeof(*sig), my_pe());
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
  // waits (debug builds, SYMMETRA_CHECK=1, SYMMETRA_STREAM_WAIT=kernel) poll in a kernel that
  // stops with a message after SYMMETRA_TIMEOUT_S (docs/gpu_backend.md).
  if (config_->stream_wait == detail::Config::StreamWait::kKernel) mem_op = false;
  if (mem_op) {
    static const detail::Driver* drv = detail::cuda_driver().value();
    check_cu(ctx_, "signal_wait_until_on_stream",
             drv->stream_wait_value64(reinterpret_cast<CUstream>(stream),
                                      reinterpret_cast<CUdeviceptr>(sig), target, flags),
             "cuStreamWaitValue64");
    return;
  }
  signal_wait_kernel<<<1, 1, 0, cu(stream)>>>(gpu_->device_context(), sig, cmp, value);
  check_cuda(ctx_, "signal_wait_until_on_stream", cudaGetLastError(), "signal_wait_kernel launch");
}

void Runtime::quiet_on_stream(Stream stream) {
  // Copies and stream memory operations complete in stream order, and kernels that issued
  // device-side puts are complete when the stream moves past them: nothing to add.
  (void)stream;
  if (!gpu_) fail("quiet_on_stream needs the CUDA backend");
}

void Runtime::barrier_all_on_stream(Stream stream) {
  if (!gpu_) fail("barrier_all_on_stream needs the CUDA backend");
  const Status st = gpu_->launch_collective(
      device::kTeamWorld,
      [dctx = gpu_->device_context(), s = cu(stream)]() mutable {
        void* args[] = {&dctx};
        return static_cast<int>(cudaLaunchKernel(reinterpret_cast<const void*>(barrier_all_kernel),
                                                 dim3(1), dim3(1), args, 0, s));
      },
      "barrier_all_on_stream");
  if (!st.ok())
    device::detail::host_fatalf(ctx_, "barrier_all_on_stream", "%s", st.message().c_str());
}

void Runtime::launch_graph(void* graph_exec, Stream stream) {
  if (!gpu_) fail("launch_graph needs the CUDA backend");
  if (graph_exec == nullptr) fail("launch_graph: the graph is null");
  const Status st = gpu_->launch_collective(
      device::kTeamWorld,
      [g = static_cast<cudaGraphExec_t>(graph_exec), s = cu(stream)] {
        return static_cast<int>(cudaGraphLaunch(g, s));
      },
      "launch_graph");
  if (!st.ok()) device::detail::host_fatalf(ctx_, "launch_graph", "%s", st.message().c_str());
}

}  // namespace symmetra
