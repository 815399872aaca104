// The CUDA backend's side of PEs on other hosts (docs/proxy.md, "GPU memory over UCX"): the
// host-initiated operations to them, into the runtime's remote branch, and the HeapAccess
// through which the transport serves their operations on this PE's device heap. Where the
// transport moves device memory itself (UCX with CUDA), the device heap goes to it as it is;
// elsewhere, and for device memory outside the heap, the bytes are staged through pinned host
// memory. HeapAccess moves bytes with the copy engine and runs atomics in a one-thread kernel,
// so that UCX need never touch device memory: it works where UCX has no CUDA support.
#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>

#include "backend/cuda/cuda_impl.hpp"
#include "backend/staging.hpp"
#include "core/blocked.hpp"
#include "core/log.hpp"
#include "symmetra/device.hpp"
#include "symmetra/device/impl/host_hooks.hpp"

namespace symmetra::detail {
namespace {

// The served stores' staging: a few of UCX's largest messages (256 KiB), so that copying one in
// overlaps the copy engine's move of the one before.
constexpr std::size_t kServeStagingBytes = 1u << 20;

// The bounce buffer, made at the first remote operation: pinned (registered) host memory, so
// that the copy engine moves it at full speed and UCX reads it as ordinary memory.
std::byte* bounce_of(CudaBackend& b, CudaBackend::Impl& im, const device::Context& ctl,
                     const char* op) {
  if (im.bounce != nullptr) return im.bounce;
  std::string why;
  im.bounce = static_cast<std::byte*>(b.pinned_host_memory(kBounceBytes, false, &why));
  if (im.bounce == nullptr)
    device::detail::host_fatalf(ctl, op, "a pinned bounce buffer: %s", why.c_str());
  return im.bounce;
}

// What the driver says `p` is, for messages: "device 0", "host (registered)", "host".
std::string memory_kind(const void* p) {
  cudaPointerAttributes a{};
  if (cudaPointerGetAttributes(&a, p) != cudaSuccess) {
    (void)cudaGetLastError();
    return "unknown to CUDA";
  }
  switch (a.type) {
    case cudaMemoryTypeDevice:
      return "device " + std::to_string(a.device);
    case cudaMemoryTypeManaged:
      return "managed";
    case cudaMemoryTypeHost:
      return "host, registered";
    default:
      return "host";
  }
}

}  // namespace

// Host memory goes to the transport as it is (backend/staging.hpp). A p's value and a private
// host buffer used to take a CUDA copy and a synchronize into the bounce buffer first (the host
// form's p paid it; the proxy's never did).
void CudaBackend::remote_put(const device::Context& ctl, const char* op, void* dest,
                             const void* src, std::size_t bytes, int pe) {
  if (!staged(*ctl.remote, src, bytes, is_device_memory(src)))
    return ctl.remote->put(ctl, pe, device::remote_offset(ctl, dest), src, bytes);
  Impl& im = *impl_;
  const std::lock_guard<std::mutex> lock(im.bounce_mu);
  std::byte* bounce = bounce_of(*this, im, ctl, op);
  for (std::size_t done = 0; done < bytes; done += kBounceBytes) {
    const std::size_t n = std::min(kBounceBytes, bytes - done);
    copy_waited(ctl, op, bounce, static_cast<const std::byte*>(src) + done, n, im.stream);
    // Complete locally on return: the bounce buffer may take the next piece.
    ctl.remote->put(ctl, pe, device::remote_offset(ctl, dest) + done, bounce, n);
  }
}

void CudaBackend::remote_get(const device::Context& ctl, const char* op, void* dest,
                             const void* src, std::size_t bytes, int pe) {
  if (!staged(*ctl.remote, dest, bytes, is_device_memory(dest)))
    return ctl.remote->get(ctl, pe, dest, device::remote_offset(ctl, src), bytes);
  Impl& im = *impl_;
  const std::lock_guard<std::mutex> lock(im.bounce_mu);
  std::byte* bounce = bounce_of(*this, im, ctl, op);
  for (std::size_t done = 0; done < bytes; done += kBounceBytes) {
    const std::size_t n = std::min(kBounceBytes, bytes - done);
    ctl.remote->get(ctl, pe, bounce, device::remote_offset(ctl, src) + done, n);
    copy_waited(ctl, op, static_cast<std::byte*>(dest) + done, bounce, n, im.stream);
  }
}

namespace {
// The hint of every blocked report that names a helper thread's copy or kernel on the GPU.
constexpr const char* kQueueHint =
    "A helper thread's copy or kernel runs on a stream of its own, but CUDA feeds a process's "
    "streams through CUDA_DEVICE_MAX_CONNECTIONS hardware queues (8 unless set), in order: "
    "queued behind a kernel that waits for it, it never runs. Run with "
    "CUDA_DEVICE_MAX_CONNECTIONS=32, set before CUDA starts (symrun and launch_threads do; "
    "docs/gpu_backend.md, \"Hardware queues and helper threads\")";

// Once per process, where the job spans hosts (helper threads then copy to and from this GPU
// heap) and fewer than 32 queues were asked for.
void warn_few_queues(int pe) {
  static std::once_flag once;
  std::call_once(once, [pe] {
    const char* v = std::getenv("CUDA_DEVICE_MAX_CONNECTIONS");
    if (v != nullptr && std::atoi(v) >= 32) return;
    SYMMETRA_LOG(kWarn, pe,
                 "CUDA_DEVICE_MAX_CONNECTIONS is %s: the transport's and the proxy's threads "
                 "copy to and from the GPU heap on streams that can share a hardware queue with a "
                 "kernel waiting for them, and then hang (docs/gpu_backend.md, \"Hardware "
                 "queues and helper threads\"); set it to 32 before CUDA starts",
                 v != nullptr ? v : "unset (8)");
  });
}
}  // namespace

const HeapAccess* CudaBackend::heap_access() {
  Impl& im = *impl_;
  warn_few_queues(im.control->my_pe);
  // Made here, by the PE's thread before the transport can serve anything: serve_store runs on
  // the serving thread, which must not add to `pinned`. Without it stores are waited for.
  if (im.serve_staging == nullptr) {
    std::string why;
    im.serve_staging = static_cast<std::byte*>(pinned_host_memory(kServeStagingBytes, false, &why));
    if (im.serve_staging == nullptr)
      SYMMETRA_LOG(kWarn, im.control->my_pe,
                   "no pinned staging for stores from other hosts (%s): each waits for its copy",
                   why.c_str());
  }
  im.access = HeapAccess{this, &serve_store, &serve_load, &serve_amo, &serve_flush};
  return &im.access;
}

// The serving thread may be the transport's own, whose current device is not the PE's; its
// copies and kernels go on a stream of their own, so that they never wait behind the PE's work
// (a kernel of the PE may be waiting for them) unless the two streams share a hardware queue
// (kQueueHint). One stream keeps them in the order they were made: a signal stored or applied
// after a put's data lands after it. The copy engine writes whole aligned sectors, so each
// aligned 8-byte word lands whole (LL packets stay valid).
//
// A store returns once its copy is enqueued: waiting for each cost the target a stream
// synchronize per message (docs/proxy.md, "Performance across hosts"). What waits is the next
// load, atomic or flush (a peer's quiet), and a store that finds the staging full.
namespace {
// Each waited-for access completes every store before it on the stream: the staging is free.
void settled(CudaBackend::Impl& im) {
  im.staged = 0;
}
}  // namespace

void CudaBackend::serve_store(void* arg, std::byte* dst, const std::byte* src, std::size_t bytes) {
  Impl& im = *static_cast<CudaBackend*>(arg)->impl_;
  const device::Context& ctl = *im.control;
  const BlockedIn blocked("serving a store to the GPU heap", ctl.my_pe, kQueueHint);
  check_cuda(ctl, "serve", cudaSetDevice(im.heap->device()), "cudaSetDevice");
  const std::size_t room = (bytes + 63) / 64 * 64;  // whole lines: no two copies share one
  if (im.serve_staging == nullptr || room > kServeStagingBytes) {
    copy_waited(ctl, "serve", dst, src, bytes, im.access_stream);
    return settled(im);
  }
  if (im.staged + room > kServeStagingBytes) {  // every earlier copy has read its bytes
    check_cuda(ctl, "serve", cudaStreamSynchronize(im.access_stream), "cudaStreamSynchronize");
    settled(im);
  }
  std::byte* slot = im.serve_staging + im.staged;
  std::memcpy(slot, src, bytes);  // src is the transport's, valid only during this call
  im.staged += room;
  check_cuda(ctl, "serve",
             cudaMemcpyAsync(dst, slot, bytes, cudaMemcpyHostToDevice, im.access_stream),
             "cudaMemcpyAsync");
}

void CudaBackend::serve_load(void* arg, std::byte* dst, const std::byte* src, std::size_t bytes) {
  Impl& im = *static_cast<CudaBackend*>(arg)->impl_;
  const device::Context& ctl = *im.control;
  const BlockedIn blocked("serving a load from the GPU heap", ctl.my_pe, kQueueHint);
  check_cuda(ctl, "serve", cudaSetDevice(im.heap->device()), "cudaSetDevice");
  copy_waited(ctl, "serve", dst, src, bytes, im.access_stream);
  settled(im);
}

void CudaBackend::serve_flush(void* arg) {
  Impl& im = *static_cast<CudaBackend*>(arg)->impl_;
  if (im.staged == 0) return;  // nothing enqueued since the last wait
  const device::Context& ctl = *im.control;
  const BlockedIn blocked("completing stores to the GPU heap", ctl.my_pe, kQueueHint);
  check_cuda(ctl, "serve", cudaSetDevice(im.heap->device()), "cudaSetDevice");
  check_cuda(ctl, "serve", cudaStreamSynchronize(im.access_stream), "cudaStreamSynchronize");
  settled(im);
}

std::uint64_t CudaBackend::serve_amo(void* arg, std::byte* word, AmoOp op, DataType type,
                                     std::uint64_t value, std::uint64_t cond) {
  auto& b = *static_cast<CudaBackend*>(arg);
  Impl& im = *b.impl_;
  const device::Context& ctl = *im.control;
  const BlockedIn blocked("serving an atomic on the GPU heap (a one-thread kernel)", ctl.my_pe,
                          kQueueHint);
  check_cuda(ctl, "serve", cudaSetDevice(im.heap->device()), "cudaSetDevice");
  const std::uint64_t old = run_amo(ctl, b.dctx_, im.access_stream, im.access_results, op, type,
                                    word, value, cond, ctl.my_pe);
  settled(im);
  return old;
}

// Pinned host memory: the bounce buffers and the proxy ring (docs/proxy.md, "GPU producers"),
// allocated and registered, and unregistered when the backend ends (cudaHostUnregister may wait
// for the whole device, so never while PEs' kernels run: after finalize's barrier).
void* CudaBackend::pinned_host_memory(std::size_t bytes, bool mapped, std::string* why) {
  Impl& im = *impl_;
  const std::size_t rounded = (bytes + 4095) / 4096 * 4096;
  void* p = std::aligned_alloc(4096, rounded);
  if (p == nullptr) {
    *why = "out of host memory";
    return nullptr;
  }
  std::memset(p, 0, rounded);
  void* dev = p;
  cudaError_t rc = cudaHostRegister(
      p, rounded,
      mapped ? cudaHostRegisterMapped | cudaHostRegisterPortable : cudaHostRegisterPortable);
  if (rc == cudaSuccess && mapped) rc = cudaHostGetDevicePointer(&dev, p, 0);
  if (rc != cudaSuccess || dev != p) {
    *why = rc != cudaSuccess
               ? std::string("cudaHostRegister: ") + cudaGetErrorString(rc)
               : std::string("the GPU sees registered host memory at another address");
    (void)cudaGetLastError();
    if (rc == cudaSuccess) cudaHostUnregister(p);
    std::free(p);
    return nullptr;
  }
  im.pinned.push_back(p);
  return p;
}

std::uint64_t* CudaBackend::device_words(std::size_t n, std::string* why) {
  Impl& im = *impl_;
  void* p = nullptr;
  cudaError_t rc = cudaMallocAsync(&p, n * sizeof(std::uint64_t), im.stream);
  if (rc == cudaSuccess) rc = cudaMemsetAsync(p, 0, n * sizeof(std::uint64_t), im.stream);
  if (rc == cudaSuccess) rc = cudaStreamSynchronize(im.stream);
  if (rc != cudaSuccess) {
    *why = std::string("device memory: ") + cudaGetErrorString(rc);
    return nullptr;
  }
  im.device_words.push_back(p);
  return static_cast<std::uint64_t*>(p);
}

bool CudaBackend::is_device_memory(const void* p) const {
  const Impl& im = *impl_;
  const auto* b = static_cast<const std::byte*>(p);
  if (b >= im.heap->base() && b < im.heap->base() + im.heap->size()) return true;  // most
  cudaPointerAttributes a{};
  if (cudaPointerGetAttributes(&a, p) != cudaSuccess) {
    (void)cudaGetLastError();
    return false;
  }
  return a.type == cudaMemoryTypeDevice || a.type == cudaMemoryTypeManaged;
}

void CudaBackend::proxy_copy(void* dst, const void* src, std::size_t bytes, bool to_device) {
  Impl& im = *impl_;
  const device::Context& ctl = *im.control;
  const BlockedIn blocked(to_device ? "a staging copy to the GPU" : "a staging copy from the GPU",
                          ctl.my_pe, kQueueHint);
  check_cuda(ctl, "proxy", cudaSetDevice(im.heap->device()), "cudaSetDevice");
  if (im.proxy_stream == nullptr)  // made at setup in a job across hosts; else at first use
    check_cuda(ctl, "proxy", cudaStreamCreateWithFlags(&im.proxy_stream, cudaStreamNonBlocking),
               "cudaStreamCreateWithFlags");
  // The direction spelled out, not inferred: the one GPU run of the proxy's staged get crashed
  // with the driver storing into the device destination from the CPU (docs/proxy.md).
  const cudaError_t rc =
      cudaMemcpyAsync(dst, src, bytes, to_device ? cudaMemcpyHostToDevice : cudaMemcpyDeviceToHost,
                      im.proxy_stream);
  if (rc != cudaSuccess) {
    (void)cudaGetLastError();
    device::detail::host_fatalf(
        ctl, "proxy", "staging %zu bytes %s, from %p (%s) to %p (%s): cudaMemcpyAsync: %s", bytes,
        to_device ? "to the device" : "from the device", src, memory_kind(src).c_str(), dst,
        memory_kind(dst).c_str(), cudaGetErrorString(rc));
  }
  check_cuda(ctl, "proxy", cudaStreamSynchronize(im.proxy_stream), "cudaStreamSynchronize");
}

}  // namespace symmetra::detail
