// The GPU backend: device heap and tables (GpuState), and the Runtime's host-initiated
// operations on device memory (runtime.hpp: gpu_put, gpu_get, gpu_amo, ...).
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <string>

#include "../../bootstrap/launcher_env.hpp"
#include "../../runtime/gpu_state.hpp"
#include "../nccl/nccl.hpp"
#include "co_launch.hpp"
#include "cuda_heap.hpp"
#include "driver.hpp"
#include "symmetra/device.hpp"
#include "symmetra/device/impl/heap_header.hpp"

namespace symmetra {
namespace detail {

Status preload_stream_kernels();  // stream_ops.cu
Status preload_amo_kernels();     // below
Status preload_coll_kernels();    // coll_ops.cu

struct GpuState::Impl {
  std::unique_ptr<CudaHeap> heap;
  std::int32_t* d_pe_index = nullptr;
  device::TeamDesc* d_teams = nullptr;
  std::uint64_t* d_result = nullptr;  // one word for host-initiated atomics
  cudaStream_t stream = nullptr;
  int n_pes = 0;
  // PEs that share this GPU as threads (co_launch.hpp): the process-wide batches, and per team
  // slot the co-located members and this PE's count of calls.
  std::shared_ptr<CoLaunch> co_launch;
  std::vector<int> colocated[device::kMaxTeams];
  std::uint64_t launch_seq[device::kMaxTeams] = {};
  // This PE's host control header, registered mapped so that kernels see its abort mark
  // (Context::host_header); null if the driver refused (waits then end at their timeout).
  void* host_header = nullptr;
  void* host_header_device = nullptr;
};

namespace {

Result<int> pick_device(const Bootstrap& bs, int requested) {
  int count = 0;
  SYMMETRA_CUDA(cudaGetDeviceCount(&count));
  int dev = requested;
  if (dev < 0) {
    const char* env = std::getenv("SYMMETRA_DEVICE");
    if (env != nullptr && *env != '\0') {
      dev = std::atoi(env);
    } else {
      // A process per PE: the launcher's local rank (torchrun's LOCAL_RANK, ...), which is right
      // on every host of a multi-host job; PEs as threads, or no local rank: the PE number.
      int local = -1;
      if (!bs.threads()) {
        auto li = launch_info_from_env();
        if (li.ok()) local = li.value().local_rank;
      }
      dev = (local >= 0 ? local : bs.rank()) % count;
    }
  }
  if (dev < 0 || dev >= count)
    return Status::fail("[pe " + std::to_string(bs.rank()) + "] device " + std::to_string(dev) +
                        " does not exist (" + std::to_string(count) + " CUDA devices)");
  return dev;
}

}  // namespace

Result<std::unique_ptr<GpuState>> GpuState::create(Bootstrap& bs, int device, std::uint64_t stride,
                                                   std::uint64_t initial,
                                                   std::uint64_t reserved_bytes,
                                                   std::uint64_t ws_world, std::uint64_t ws_team) {
  auto drv = cuda_driver();
  if (!drv.ok())
    return Status::fail("[pe " + std::to_string(bs.rank()) + "] " + drv.status().message());
  auto dev = pick_device(bs, device);
  SYMMETRA_TRY(dev);
  SYMMETRA_CUDA(cudaSetDevice(dev.value()));  // CUDA 12+: also makes the primary context current
  std::unique_ptr<GpuState> g(new GpuState());
  g->impl_ = std::make_unique<Impl>();
  Impl& im = *g->impl_;
  auto heap = CudaHeap::create(bs, dev.value(), stride, initial);
  SYMMETRA_TRY(heap);
  im.heap = std::move(heap.value());
  im.n_pes = bs.size();
  SYMMETRA_CUDA(cudaStreamCreateWithFlags(&im.stream, cudaStreamNonBlocking));
  g->stream_ = reinterpret_cast<Stream>(im.stream);
  // Nothing here or in ~GpuState may wait for the whole device (cudaFree, cudaDeviceSynchronize):
  // PEs that share the GPU as threads have kernels waiting for this PE (docs/gpu_backend.md).
  // Stream-ordered allocation and the own stream's synchronization wait for this PE's work only.
  SYMMETRA_CUDA(cudaMallocAsync(reinterpret_cast<void**>(&im.d_pe_index),
                                sizeof(std::int32_t) * bs.size(), im.stream));
  SYMMETRA_CUDA(cudaMallocAsync(reinterpret_cast<void**>(&im.d_teams),
                                sizeof(device::TeamDesc) * device::kMaxTeams, im.stream));
  SYMMETRA_CUDA(
      cudaMallocAsync(reinterpret_cast<void**>(&im.d_result), sizeof(std::uint64_t), im.stream));
  SYMMETRA_TRY(preload_stream_kernels());
  SYMMETRA_TRY(preload_amo_kernels());
  SYMMETRA_TRY(preload_coll_kernels());
  // NCCL too, if it is there: loading a library's kernels can wait for running kernels, and
  // later the other PEs' kernels would be running (the all-reduce's NCCL backend loads it on a
  // team's first call). Whether it loaded is the answer nccl_library() keeps.
  (void)nccl_library();
  g->ws_world_ = ws_world;
  g->ws_team_ = ws_team;
  // Device memory starts undefined: zero this PE's header and workspace (LL packets hold
  // sequence numbers) before anyone syncs on them.
  SYMMETRA_CUDA(cudaMemsetAsync(im.heap->base(), 0, reserved_bytes, im.stream));
  SYMMETRA_CUDA(cudaStreamSynchronize(im.stream));
  std::vector<int> devs = im.heap->pe_devices();
  std::sort(devs.begin(), devs.end());
  if (bs.threads() && std::adjacent_find(devs.begin(), devs.end()) != devs.end()) {
    // Some GPU has several PEs (the same answer on every PE: this is collective). One CoLaunch
    // for the process: PE 0's, copied by the others while PE 0 waits at the barrier below.
    if (bs.rank() == 0) im.co_launch = std::make_shared<CoLaunch>();
    const std::shared_ptr<CoLaunch>* mine = &im.co_launch;
    std::vector<const std::shared_ptr<CoLaunch>*> all(bs.size());
    SYMMETRA_TRY(bs.allgather(&mine, all.data(), sizeof(mine)));
    if (bs.rank() != 0) im.co_launch = *all[0];
  }
  SYMMETRA_TRY(bs.barrier());
  return std::move(g);
}

GpuState::~GpuState() {
  if (!impl_) return;
  if (impl_->host_header_device != nullptr) cudaHostUnregister(impl_->host_header);
  cudaFreeAsync(impl_->d_pe_index, impl_->stream);
  cudaFreeAsync(impl_->d_teams, impl_->stream);
  cudaFreeAsync(impl_->d_result, impl_->stream);
  cudaStreamSynchronize(impl_->stream);
  cudaStreamDestroy(impl_->stream);
  impl_->heap.reset();
}

std::uint64_t GpuState::heap_size() const {
  return impl_->heap->size();
}
std::uint64_t GpuState::heap_stride() const {
  return impl_->heap->stride();
}
int GpuState::device() const {
  return impl_->heap->device();
}
int GpuState::max_pes_per_device() const {
  const std::vector<int>& dev = impl_->heap->pe_devices();
  int most = 1;
  for (int d : dev) most = std::max(most, static_cast<int>(std::count(dev.begin(), dev.end(), d)));
  return most;
}

Status GpuState::refresh(const device::Context& control) {
  Impl& im = *impl_;
  if (im.host_header == nullptr) {
    // The header's first page holds the abort mark; the host heap never moves.
    im.host_header = control.heap_base;
    if (cudaHostRegister(im.host_header, 4096, cudaHostRegisterMapped | cudaHostRegisterPortable) !=
            cudaSuccess ||
        cudaHostGetDevicePointer(&im.host_header_device, im.host_header, 0) != cudaSuccess) {
      (void)cudaGetLastError();  // not sticky: kernels' waits then end at their timeout instead
      im.host_header_device = nullptr;
    }
  }
  pe_index_.assign(control.pe_index, control.pe_index + control.n_pes);
  teams_.assign(control.teams, control.teams + device::kMaxTeams);
  hctx_ = control;
  hctx_.heap_base = im.heap->base();
  hctx_.stride = im.heap->stride();
  hctx_.heap_bytes = im.heap->size();
  hctx_.my_index = im.heap->index();
  hctx_.flags |= device::Context::kDeviceHeap | device::Context::kWorkspaceLanes;
  if (im.heap->shares_device()) hctx_.flags |= device::Context::kSharedGpu;
  hctx_.ws_world_bytes = ws_world_;
  hctx_.ws_team_bytes = ws_team_;
  hctx_.pe_index = pe_index_.data();
  hctx_.teams = teams_.data();
  dctx_ = hctx_;
  dctx_.pe_index = im.d_pe_index;
  dctx_.teams = im.d_teams;
  dctx_.host_header = im.host_header_device;
  // On the own stream and waited for: a plain cudaMemcpy from pageable memory may return before
  // its DMA ends, and a kernel on another stream could then read the old tables.
  SYMMETRA_CUDA(cudaMemcpyAsync(im.d_pe_index, pe_index_.data(),
                                sizeof(std::int32_t) * pe_index_.size(), cudaMemcpyHostToDevice,
                                im.stream));
  SYMMETRA_CUDA(cudaMemcpyAsync(im.d_teams, teams_.data(), sizeof(device::TeamDesc) * teams_.size(),
                                cudaMemcpyHostToDevice, im.stream));
  SYMMETRA_CUDA(cudaStreamSynchronize(im.stream));
  if (im.co_launch) {
    const std::vector<int>& dev = im.heap->pe_devices();
    for (int slot = 0; slot < device::kMaxTeams; ++slot) {
      const device::TeamDesc& t = teams_[slot];
      im.colocated[slot].clear();
      if (t.size == 0 || t.my_rank < 0) continue;
      for (int r = 0; r < t.size; ++r) {
        const int pe = t.start + r * t.stride;
        if (dev[pe] == im.heap->device()) im.colocated[slot].push_back(pe);
      }
    }
  }
  return {};
}

void GpuState::reset_launch_seq(int slot) {
  impl_->launch_seq[slot] = 0;
}

Status GpuState::launch_collective(int team, const std::function<int()>& launch, const char* op) {
  Impl& im = *impl_;
  int rc = 0;
  if (!im.co_launch || im.colocated[team].size() <= 1) {
    rc = launch();
  } else {
    const CoLaunch::Key key{im.heap->device(), team, teams_[team].start, im.launch_seq[team]++};
    std::string missing;
    rc = im.co_launch->join(key, im.colocated[team], hctx_.my_pe, launch, hctx_.timeout_ns,
                            &missing);
    if (rc < 0)
      return Status::fail(
          std::string(op) + ": PEs " + missing + " share this GPU and the team but did not make " +
          "the same collective call within " + std::to_string(hctx_.timeout_ns / 1000000000ull) +
          " s (SYMMETRA_TIMEOUT_S); co-located PEs launch a collective's kernels together " +
          "(docs/gpu_backend.md)");
  }
  if (rc != 0)
    return Status::fail(std::string(op) + ": kernel launch failed: " +
                        cudaGetErrorString(static_cast<cudaError_t>(rc)));
  return {};
}

Status GpuState::grow(std::uint64_t new_size) {
  SYMMETRA_TRY(impl_->heap->grow(new_size));
  hctx_.heap_bytes = dctx_.heap_bytes = impl_->heap->size();
  return {};
}

Status GpuState::memset(void* p, int value, std::size_t bytes) {
  SYMMETRA_CUDA(cudaMemsetAsync(p, value, bytes, impl_->stream));
  SYMMETRA_CUDA(cudaStreamSynchronize(impl_->stream));
  return {};
}

Status GpuState::copy(void* dst, const void* src, std::size_t bytes) {
  SYMMETRA_CUDA(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDefault, impl_->stream));
  SYMMETRA_CUDA(cudaStreamSynchronize(impl_->stream));
  return {};
}

Result<std::uint64_t> GpuState::header_word(std::size_t offset) {
  std::uint64_t v = 0;
  SYMMETRA_TRY(copy(&v, impl_->heap->base() + offset, sizeof(v)));
  return v;
}

Status GpuState::set_header_word(std::size_t offset, std::uint64_t value) {
  return copy(impl_->heap->base() + offset, &value, sizeof(value));
}

}  // namespace detail

namespace {

using detail::check_cuda;

template <class T>
__global__ void amo_kernel(device::Context ctx, int op, T* dest, T value, T cond, int pe,
                           T* result) {
  T old{};
  switch (op) {
    case 0:
      old = device::atomic_fetch(ctx, dest, pe);
      break;
    case 1:
      device::atomic_set(ctx, dest, value, pe);
      break;
    case 2:
      old = device::atomic_swap(ctx, dest, value, pe);
      break;
    case 3:
      old = device::atomic_compare_swap(ctx, dest, cond, value, pe);
      break;
    case 4:
      old = device::atomic_fetch_add(ctx, dest, value, pe);
      break;
    case 5:
      if constexpr (std::is_integral_v<T>) old = device::atomic_fetch_and(ctx, dest, value, pe);
      break;
    case 6:
      if constexpr (std::is_integral_v<T>) old = device::atomic_fetch_or(ctx, dest, value, pe);
      break;
    case 7:
      if constexpr (std::is_integral_v<T>) old = device::atomic_fetch_xor(ctx, dest, value, pe);
      break;
  }
  *result = old;
}

}  // namespace

void Runtime::gpu_put(void* dest, const void* src, std::size_t bytes, int pe, const char* op) {
  const device::Context& v = gpu_->host_view();
  device::detail::check_access(v, op, dest, bytes, pe);
  auto s = reinterpret_cast<cudaStream_t>(gpu_->stream());
  check_cuda(ctx_, op, cudaMemcpyAsync(v.peer(dest, pe), src, bytes, cudaMemcpyDefault, s),
             "cudaMemcpyAsync");
  check_cuda(ctx_, op, cudaStreamSynchronize(s), "cudaStreamSynchronize");
}

void Runtime::gpu_get(void* dest, const void* src, std::size_t bytes, int pe, const char* op) {
  const device::Context& v = gpu_->host_view();
  device::detail::check_access(v, op, src, bytes, pe);
  auto s = reinterpret_cast<cudaStream_t>(gpu_->stream());
  check_cuda(ctx_, op, cudaMemcpyAsync(dest, v.peer(src, pe), bytes, cudaMemcpyDefault, s),
             "cudaMemcpyAsync");
  check_cuda(ctx_, op, cudaStreamSynchronize(s), "cudaStreamSynchronize");
}

void Runtime::gpu_strided(void* dest, const void* src, std::size_t elem, std::ptrdiff_t dst_stride,
                          std::ptrdiff_t src_stride, std::size_t n, int pe, bool put) {
  if (n == 0) return;
  const char* op = put ? "iput" : "iget";
  const device::Context& v = gpu_->host_view();
  if (dst_stride < 1 || src_stride < 1)
    device::detail::host_fatalf(ctx_, op, "strides must be positive (got %td and %td)", dst_stride,
                                src_stride);
  const void* sym = put ? dest : src;
  const std::ptrdiff_t sym_stride = put ? dst_stride : src_stride;
  device::detail::check_access(v, op, sym, elem, pe);
  device::detail::check_access(v, op, static_cast<const char*>(sym) + (n - 1) * sym_stride * elem,
                               elem, pe);
  void* d = put ? v.peer(dest, pe) : dest;
  const void* s = put ? src : v.peer(src, pe);
  auto st = reinterpret_cast<cudaStream_t>(gpu_->stream());
  check_cuda(
      ctx_, op,
      cudaMemcpy2DAsync(d, dst_stride * elem, s, src_stride * elem, elem, n, cudaMemcpyDefault, st),
      "cudaMemcpy2DAsync");
  check_cuda(ctx_, op, cudaStreamSynchronize(st), "cudaStreamSynchronize");
}

void Runtime::gpu_quiet() {
  check_cuda(ctx_, "quiet", cudaStreamSynchronize(reinterpret_cast<cudaStream_t>(gpu_->stream())),
             "cudaStreamSynchronize");
}

void Runtime::gpu_poll_step(const char* op, const void* ivars, std::size_t bytes, void* copy,
                            std::uint64_t start_ns, std::uint64_t step) {
  if (step > 0) {
    if (now_ns() - start_ns > ctx_.timeout_ns)
      device::detail::host_fatalf(ctx_, op,
                                  "timed out after %llu s waiting on GPU memory at %p "
                                  "(SYMMETRA_TIMEOUT_S sets the bound)",
                                  static_cast<unsigned long long>(ctx_.timeout_ns / 1000000000ull),
                                  ivars);
    if (step > 64) usleep(step > 1024 ? 100 : 10);
  }
  auto s = reinterpret_cast<cudaStream_t>(gpu_->stream());
  check_cuda(ctx_, op, cudaMemcpyAsync(copy, ivars, bytes, cudaMemcpyDefault, s),
             "cudaMemcpyAsync");
  check_cuda(ctx_, op, cudaStreamSynchronize(s), "cudaStreamSynchronize");
}

template <class T>
T Runtime::gpu_amo(AmoOp op, T* dest, T value, T cond, int pe) {
  const device::Context& v = gpu_->host_view();
  device::detail::check_access(v, "atomic", dest, sizeof(T), pe);
  device::detail::check_aligned(v, "atomic", dest, sizeof(T));
  auto& im = gpu_->impl();
  auto s = reinterpret_cast<cudaStream_t>(gpu_->stream());
  T* result = reinterpret_cast<T*>(im.d_result);
  amo_kernel<T>
      <<<1, 1, 0, s>>>(gpu_->device_context(), static_cast<int>(op), dest, value, cond, pe, result);
  check_cuda(ctx_, "atomic", cudaGetLastError(), "amo_kernel launch");
  T old{};
  check_cuda(ctx_, "atomic", cudaMemcpyAsync(&old, result, sizeof(T), cudaMemcpyDeviceToHost, s),
             "cudaMemcpyAsync");
  check_cuda(ctx_, "atomic", cudaStreamSynchronize(s), "cudaStreamSynchronize");
  return old;
}

namespace detail {
Status preload_amo_kernels() {  // see preload_stream_kernels
  cudaFuncAttributes a;
#define SYMMETRA_PRELOAD(T) SYMMETRA_CUDA(cudaFuncGetAttributes(&a, amo_kernel<T>));
  SYMMETRA_PRELOAD(int)
  SYMMETRA_PRELOAD(unsigned)
  SYMMETRA_PRELOAD(long)
  SYMMETRA_PRELOAD(unsigned long)
  SYMMETRA_PRELOAD(long long)
  SYMMETRA_PRELOAD(unsigned long long)
  SYMMETRA_PRELOAD(float)
  SYMMETRA_PRELOAD(double)
#undef SYMMETRA_PRELOAD
  return {};
}
}  // namespace detail

#define SYMMETRA_GPU_AMO(T) template T Runtime::gpu_amo<T>(AmoOp, T*, T, T, int);
SYMMETRA_GPU_AMO(int)
SYMMETRA_GPU_AMO(unsigned)
SYMMETRA_GPU_AMO(long)
SYMMETRA_GPU_AMO(unsigned long)
SYMMETRA_GPU_AMO(long long)
SYMMETRA_GPU_AMO(unsigned long long)
SYMMETRA_GPU_AMO(float)
SYMMETRA_GPU_AMO(double)

}  // namespace symmetra
