// The CUDA backend's setup, memory and tables (cuda_backend.hpp).
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <string>

#include "backend/cuda/cuda_backend.hpp"
#include "backend/cuda/cuda_impl.hpp"
#include "bootstrap/launcher_env.hpp"
#include "core/blocked.hpp"
#include "symmetra/device.hpp"
#include "symmetra/device/impl/heap_header.hpp"

namespace symmetra {
namespace detail {

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

Result<std::unique_ptr<CudaBackend>> CudaBackend::create(Bootstrap& bs, const BackendParams& p) {
  auto drv = cuda_driver();
  if (!drv.ok())
    return Status::fail("[pe " + std::to_string(bs.rank()) + "] " + drv.status().message());
  auto dev = pick_device(bs, p.device);
  SYMMETRA_TRY(dev);
  SYMMETRA_CUDA(cudaSetDevice(dev.value()));  // CUDA 12+: also makes the primary context current
  std::unique_ptr<CudaBackend> g(new CudaBackend());
  g->impl_ = std::make_unique<Impl>();
  Impl& im = *g->impl_;
  // The PEs that map each other's heaps: this host's (the others are reached through the
  // transport).
  auto heap =
      CudaHeap::create(p.group != nullptr ? *p.group : bs, dev.value(), p.stride, p.initial);
  SYMMETRA_TRY(heap);
  im.heap = std::move(heap.value());
  im.n_pes = bs.size();
  im.control = p.control;
  SYMMETRA_CUDA(cudaStreamCreateWithFlags(&im.stream, cudaStreamNonBlocking));
  // The group is this host's PEs; fewer than the job's means other hosts.
  const bool across_hosts = p.group != nullptr && p.group->size() < bs.size();
  if (!across_hosts) {  // no helper thread touches the GPU
    SYMMETRA_CUDA(cudaStreamCreateWithFlags(&im.access_stream, cudaStreamNonBlocking));
  } else {
    // A job across hosts: the helper threads' streams (the transport's service of this heap,
    // the proxy's staging), made here, before the program's later streams, at the greatest
    // priority. A copy that a waiting kernel depends on then shares a hardware queue with it
    // less often: on the H200 the remote stream-form test hung in 7 runs of 20 with the proxy's
    // stream made at its first copy, in 0 of 20 this way (docs/gpu_backend.md, "Hardware queues
    // and helper threads").
    int least = 0, greatest = 0;
    SYMMETRA_CUDA(cudaDeviceGetStreamPriorityRange(&least, &greatest));
    for (cudaStream_t* s : {&im.access_stream, &im.proxy_stream})
      SYMMETRA_CUDA(cudaStreamCreateWithPriority(s, cudaStreamNonBlocking, greatest));
  }
  g->stream_ = reinterpret_cast<Stream>(im.stream);
  // Nothing here or in ~CudaBackend may wait for the whole device (cudaFree,
  // cudaDeviceSynchronize): PEs that share the GPU as threads have kernels waiting for this PE
  // (docs/gpu_backend.md). Stream-ordered allocation and the own stream's synchronization wait for
  // this PE's work only.
  SYMMETRA_CUDA(cudaMallocAsync(reinterpret_cast<void**>(&im.d_pe_index),
                                sizeof(std::int32_t) * bs.size(), im.stream));
  SYMMETRA_CUDA(cudaMallocAsync(reinterpret_cast<void**>(&im.d_teams),
                                sizeof(device::TeamDesc) * device::kMaxTeams, im.stream));
  {  // both threads' atomic results in one page (cuda_impl.hpp, AmoResults)
    std::string why;
    auto* page = static_cast<AmoResults::Slot*>(g->pinned_host_memory(4096, true, &why));
    if (page == nullptr)
      return Status::fail("[pe " + std::to_string(bs.rank()) +
                          "] mapped pinned memory for atomics' results: " + why);
    im.results.slots = page;
    im.access_results.slots = page + AmoResults::kSlots;
  }
  SYMMETRA_TRY(preload_stream_kernels());
  SYMMETRA_TRY(preload_host_kernels());
  SYMMETRA_TRY(preload_coll_kernels());
  g->ws_world_ = p.ws_world;
  g->ws_team_ = p.ws_team;
  // Device memory starts undefined: zero this PE's header and workspace (LL packets hold
  // sequence numbers) before anyone syncs on them.
  SYMMETRA_CUDA(cudaMemsetAsync(im.heap->base(), 0, p.reserved_bytes, im.stream));
  SYMMETRA_CUDA(cudaStreamSynchronize(im.stream));
  // Every PE's device, by PE number (the heap knows those of this host only).
  const int my_dev = dev.value();
  im.pe_devices.resize(bs.size());
  SYMMETRA_TRY(bs.allgather(&my_dev, im.pe_devices.data(), sizeof(int)));
  std::vector<int> devs = im.pe_devices;
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

CudaBackend::~CudaBackend() {
  if (!impl_) return;
  if (impl_->host_header_device != nullptr) cudaHostUnregister(impl_->host_header);
  cudaFreeAsync(impl_->d_pe_index, impl_->stream);
  cudaFreeAsync(impl_->d_teams, impl_->stream);
  for (void* p : impl_->device_words) cudaFreeAsync(p, impl_->stream);
  cudaStreamSynchronize(impl_->stream);
  cudaStreamDestroy(impl_->stream);
  cudaStreamSynchronize(impl_->access_stream);  // served stores still read their staging
  cudaStreamDestroy(impl_->access_stream);
  if (impl_->proxy_stream != nullptr) cudaStreamDestroy(impl_->proxy_stream);
  for (void* p : impl_->pinned) {
    cudaHostUnregister(p);
    std::free(p);
  }
  impl_->heap.reset();
}

std::uint64_t CudaBackend::heap_size() const {
  return impl_->heap->size();
}
int CudaBackend::device() const {
  return impl_->heap->device();
}
int CudaBackend::max_pes_per_device() const {
  const std::vector<int>& dev = impl_->pe_devices;
  int most = 1;
  for (int d : dev) most = std::max(most, static_cast<int>(std::count(dev.begin(), dev.end(), d)));
  return most;
}

Status CudaBackend::refresh(const device::Context& control) {
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
  // The transport's entry points are host code: kernels reach other hosts through the proxy
  // ring (control.proxy), from a remote branch compiled in only where asked for
  // (SYMMETRA_DEVICE_REMOTE). So where a PE is on another host the checks are on for every
  // kernel: one without that branch stops an operation on such a PE with a message
  // (device/impl/check.hpp) instead of computing an address in an unmapped slot.
  dctx_.remote = nullptr;
  if (std::find(pe_index_.begin(), pe_index_.end(), -1) != pe_index_.end())
    dctx_.flags |= device::Context::kCheckArgs;
  if (control.proxy.slots != nullptr && !im.remote_kernels) {  // the ring came: its kernels
    SYMMETRA_TRY(preload_remote_coll_kernels());
    SYMMETRA_TRY(preload_remote_stream_kernels());
    im.remote_kernels = true;
  }
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
    const std::vector<int>& dev = im.pe_devices;
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

void CudaBackend::team_created(int slot) {
  impl_->launch_seq[slot] = 0;
}

Status CudaBackend::launch_collective(int team, const std::function<int()>& launch,
                                      const char* op) {
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
      return Status::fail(with_blocked_threads(
          std::string(op) + ": PEs " + missing + " share this GPU and the team but did not make " +
          "the same collective call within " + std::to_string(hctx_.timeout_ns / 1000000000ull) +
          " s (SYMMETRA_TIMEOUT_S); co-located PEs launch a collective's kernels together " +
          "(docs/gpu_backend.md)"));
  }
  if (rc != 0)
    return Status::fail(std::string(op) + ": kernel launch failed: " +
                        cudaGetErrorString(static_cast<cudaError_t>(rc)));
  return {};
}

Status CudaBackend::grow(std::uint64_t new_size) {
  SYMMETRA_TRY(impl_->heap->grow(new_size));
  hctx_.heap_bytes = dctx_.heap_bytes = impl_->heap->size();
  return {};
}

std::uint64_t CudaBackend::map_granularity() const {
  return impl_->heap->granularity();
}

Result<std::uint64_t> CudaBackend::map_user(void* buffer, std::uint64_t bytes) {
  auto offset = impl_->heap->map_user(buffer, bytes);
  if (offset.ok()) hctx_.heap_bytes = dctx_.heap_bytes = impl_->heap->size();
  return offset;
}

Status CudaBackend::unmap_user(std::uint64_t offset, std::uint64_t bytes) {
  return impl_->heap->unmap_user(offset, bytes);
}

Status CudaBackend::memset(void* p, int value, std::size_t bytes) {
  SYMMETRA_CUDA(cudaMemsetAsync(p, value, bytes, impl_->stream));
  SYMMETRA_CUDA(cudaStreamSynchronize(impl_->stream));
  return {};
}

Status CudaBackend::copy(void* dst, const void* src, std::size_t bytes) {
  SYMMETRA_CUDA(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDefault, impl_->stream));
  SYMMETRA_CUDA(cudaStreamSynchronize(impl_->stream));
  return {};
}

Result<std::uint64_t> CudaBackend::header_word(std::size_t offset) {
  std::uint64_t v = 0;
  SYMMETRA_TRY(copy(&v, impl_->heap->base() + offset, sizeof(v)));
  return v;
}

Status CudaBackend::set_header_word(std::size_t offset, std::uint64_t value) {
  return copy(impl_->heap->base() + offset, &value, sizeof(value));
}

}  // namespace detail
}  // namespace symmetra
