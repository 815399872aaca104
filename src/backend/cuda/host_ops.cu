// The CUDA backend's host-initiated operations on device memory (backend.hpp, "data path"):
// copies by the copy engine on the backend's stream, complete on return; atomics in a
// one-thread kernel; host-side waits by copies of the words. PEs of other hosts go to the
// runtime's remote branch (remote_ops.cu).
#include <sched.h>

#include <cstring>

#include "backend/cuda/cuda_impl.hpp"
#include "symmetra/device.hpp"
#include "symmetra/device/impl/host_hooks.hpp"

namespace symmetra::detail {
namespace {

template <class T>
__global__ void amo_kernel(device::Context ctx, AmoOp op, T* dest, T value, T cond, int pe,
                           AmoResults::Slot* out, std::uint64_t seq) {
  const T old = device::detail::apply_amo(ctx, op, dest, value, cond, pe);
  std::uint64_t bits = 0;
  memcpy(&bits, &old, sizeof(T));
  *static_cast<volatile std::uint64_t*>(&out->value) = bits;
  __threadfence_system();  // the value before the number that says it is there
  *static_cast<volatile std::uint64_t*>(&out->seq) = seq;
}

// Polls the slot until the kernel's number is there. Every 256 polls it asks the stream: an
// error ends the job naming it, and a stream done without the number is a fault of ours.
std::uint64_t await_result(const device::Context& ctl, cudaStream_t s, const AmoResults::Slot& slot,
                           std::uint64_t seq) {
  const auto arrived = [&] { return __atomic_load_n(&slot.seq, __ATOMIC_ACQUIRE) == seq; };
  for (unsigned i = 1;; ++i) {
    if (arrived()) return __atomic_load_n(&slot.value, __ATOMIC_RELAXED);
    if (i % 256 != 0) continue;
    const cudaError_t rc = cudaStreamQuery(s);
    if (rc == cudaErrorNotReady) {
      if (i >= 4096) sched_yield();  // a long wait (the GPU busy): leave the core to others
      continue;
    }
    check_cuda(ctl, "atomic", rc, "cudaStreamQuery");
    if (arrived()) return __atomic_load_n(&slot.value, __ATOMIC_RELAXED);
    device::detail::host_fatal(ctl, "atomic", "the atomic's kernel ended without its result");
  }
}

template <class T>
std::uint64_t amo_as(const device::Context& ctl, const device::Context& dctx, cudaStream_t s,
                     AmoResults& results, AmoOp op, void* dest, std::uint64_t value,
                     std::uint64_t cond, int pe) {
  T v, c;
  std::memcpy(&v, &value, sizeof(T));
  std::memcpy(&c, &cond, sizeof(T));
  const std::uint64_t seq = results.next.fetch_add(1, std::memory_order_relaxed) + 1;
  AmoResults::Slot& slot = results.slots[seq % AmoResults::kSlots];
  amo_kernel<T><<<1, 1, 0, s>>>(dctx, op, static_cast<T*>(dest), v, c, pe, &slot, seq);
  check_cuda(ctl, "atomic", cudaGetLastError(), "amo_kernel launch");
  return await_result(ctl, s, slot, seq);
}

}  // namespace

void copy_waited(const device::Context& ctl, const char* op, void* dst, const void* src,
                 std::size_t bytes, cudaStream_t s) {
  check_cuda(ctl, op, cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDefault, s), "cudaMemcpyAsync");
  check_cuda(ctl, op, cudaStreamSynchronize(s), "cudaStreamSynchronize");
}

std::uint64_t run_amo(const device::Context& ctl, const device::Context& dctx, cudaStream_t s,
                      AmoResults& results, AmoOp op, DataType type, void* dest, std::uint64_t value,
                      std::uint64_t cond, int pe) {
  return visit_type(type, [&](auto tag) -> std::uint64_t {
    using T = typename decltype(tag)::type;
    if constexpr (sizeof(T) == 4 || sizeof(T) == 8)
      return amo_as<T>(ctl, dctx, s, results, op, dest, value, cond, pe);
    else
      device::detail::host_fatal(ctl, "atomic", "GPU atomics act on 32- or 64-bit words");
  });
}

Status preload_host_kernels() {  // cuda_impl.hpp says why
  cudaFuncAttributes a;
  SYMMETRA_CUDA(cudaFuncGetAttributes(&a, amo_kernel<std::int32_t>));
  SYMMETRA_CUDA(cudaFuncGetAttributes(&a, amo_kernel<std::uint32_t>));
  SYMMETRA_CUDA(cudaFuncGetAttributes(&a, amo_kernel<std::int64_t>));
  SYMMETRA_CUDA(cudaFuncGetAttributes(&a, amo_kernel<std::uint64_t>));
  SYMMETRA_CUDA(cudaFuncGetAttributes(&a, amo_kernel<float>));
  SYMMETRA_CUDA(cudaFuncGetAttributes(&a, amo_kernel<double>));
  return {};
}

void CudaBackend::put(const device::Context& ctl, const char* op, void* dest, const void* src,
                      std::size_t bytes, int pe) {
  device::detail::check_access(hctx_, op, dest, bytes, pe);
  if (!hctx_.reachable(pe)) return remote_put(ctl, op, dest, src, bytes, pe);
  copy_waited(ctl, op, hctx_.peer(dest, pe), src, bytes, impl_->stream);
}

void CudaBackend::get(const device::Context& ctl, const char* op, void* dest, const void* src,
                      std::size_t bytes, int pe) {
  device::detail::check_access(hctx_, op, src, bytes, pe);
  if (!hctx_.reachable(pe)) return remote_get(ctl, op, dest, src, bytes, pe);
  copy_waited(ctl, op, dest, hctx_.peer(src, pe), bytes, impl_->stream);
}

void CudaBackend::strided(const device::Context& ctl, bool put, void* dest, const void* src,
                          std::size_t elem, std::ptrdiff_t dst_stride, std::ptrdiff_t src_stride,
                          std::size_t n, int pe) {
  if (n == 0) return;
  const char* op = put ? "iput" : "iget";
  if (dst_stride < 1 || src_stride < 1)
    device::detail::host_fatalf(ctl, op, "strides must be positive (got %td and %td)", dst_stride,
                                src_stride);
  const void* sym = put ? dest : src;
  const std::ptrdiff_t sym_stride = put ? dst_stride : src_stride;
  device::detail::check_access(hctx_, op, sym, elem, pe);
  device::detail::check_access(
      hctx_, op, static_cast<const char*>(sym) + (n - 1) * sym_stride * elem, elem, pe);
  if (!hctx_.reachable(pe)) {  // element by element: each a staged transport operation
    for (std::size_t i = 0; i < n; ++i) {
      auto* d = static_cast<char*>(dest) + i * dst_stride * elem;
      const auto* s = static_cast<const char*>(src) + i * src_stride * elem;
      put ? remote_put(ctl, op, d, s, elem, pe) : remote_get(ctl, op, d, s, elem, pe);
    }
    return;
  }
  void* d = put ? hctx_.peer(dest, pe) : dest;
  const void* s = put ? src : hctx_.peer(src, pe);
  const cudaStream_t st = impl_->stream;
  check_cuda(
      ctl, op,
      cudaMemcpy2DAsync(d, dst_stride * elem, s, src_stride * elem, elem, n, cudaMemcpyDefault, st),
      "cudaMemcpy2DAsync");
  check_cuda(ctl, op, cudaStreamSynchronize(st), "cudaStreamSynchronize");
}

std::uint64_t CudaBackend::amo(const device::Context& ctl, AmoOp op, DataType type, void* dest,
                               std::uint64_t value, std::uint64_t cond, int pe) {
  device::detail::check_access(hctx_, "atomic", dest, data_type_size(type), pe);
  device::detail::check_aligned(hctx_, "atomic", dest, data_type_size(type));
  if (!hctx_.reachable(pe))
    return ctl.remote->atomic(ctl, pe, device::remote_offset(ctl, dest), op, type, value, cond);
  return run_amo(ctl, dctx_, impl_->stream, impl_->results, op, type, dest, value, cond, pe);
}

// Nothing of this GPU's to wait for: every host-form operation on the backend's stream waits for
// it before returning (backend.hpp, "complete on return"), and the host forms run one thread at a
// time. A synchronize of the idle stream cost every quiet and fence 1.7 us on the H200
// (bench/probes/serve_store.cu, "empty sync").
void CudaBackend::quiet(const device::Context& ctl) {
  if (ctl.remote != nullptr) ctl.remote->quiet(ctl);  // PEs of other hosts
}

void CudaBackend::sync_stream(const device::Context& ctl, const char* op, Stream s) {
  check_cuda(ctl, op, cudaStreamSynchronize(s ? cu(s) : impl_->stream), "cudaStreamSynchronize");
}

void CudaBackend::read_local(const device::Context& ctl, const char* op, void* dst, const void* src,
                             std::size_t bytes) {
  copy_waited(ctl, op, dst, src, bytes, impl_->stream);
}

}  // namespace symmetra::detail
