// Runtime setup: joining the job, the heap, the context (include/symmetra/runtime.hpp).
#include "symmetra/runtime.hpp"

#include <unistd.h>

#include <algorithm>
#include <bit>
#include <cstring>
#include <exception>
#include <string>

#include "backend/backend.hpp"
#include "bootstrap/bootstrap.hpp"
#include "coll/nccl.hpp"
#include "coll/selector.hpp"
#include "core/clock.hpp"
#include "core/config.hpp"
#include "core/log.hpp"
#include "heap/allocator.hpp"
#include "heap/static_data.hpp"
#include "heap/symmetric_heap.hpp"
#include "runtime/state.hpp"
#include "symmetra/device/impl/heap_header.hpp"
#include "symmetra/device/impl/host_hooks.hpp"
#include "transport/transport.hpp"

namespace symmetra {
namespace {

// Names this machine; PEs on machines with different names cannot share memory.
std::string host_name() {
  char name[256] = {};
  gethostname(name, sizeof(name) - 1);
  return name;
}

// Names PE `pe`'s host: what decides which PEs it reaches by load and store, and the topology
// the hierarchical collectives follow. Forced hosts of one machine (docs/design.md §1.5):
// SYMMETRA_HOSTS=H splits the job's n PEs into runs of ceil(n / H), as symrun --hosts does with
// SYMMETRA_HOST_ID. Their PEs are remote to each other, reached through the transport.
std::string topology_name(int hosts, int pe, int n) {
  if (hosts > 0) return "host" + std::to_string(pe / ((n + hosts - 1) / hosts));
  if (const char* forced = std::getenv("SYMMETRA_HOST_ID"); forced && *forced) return forced;
  return host_name();
}

// The index of `name` in `names`, appended if new.
int index_in(std::vector<std::string>& names, const std::string& name) {
  auto it = std::find(names.begin(), names.end(), name);
  if (it != names.end()) return static_cast<int>(it - names.begin());
  names.push_back(name);
  return static_cast<int>(names.size()) - 1;
}

// How this PE reaches PEs of other hosts: SYMMETRA_TRANSPORT, or by default UCX where the job
// spans machines and the loopback test transport between forced hosts of one machine. The
// loopback delivers through the machine's shared mapping, so it cannot cross machines.
detail::TransportKind transport_kind(const detail::Config& config,
                                     const std::vector<std::string>& machines,
                                     const std::vector<int>& machine_of, bool gpu,
                                     const std::string& pe) {
  using Choice = detail::Config::TransportChoice;
  if (config.transport == Choice::kUcx) return detail::TransportKind::kUcx;
  // The loopback transport delivers through the host mapping, which a GPU heap is not in: GPU
  // PEs of forced hosts take UCX (asked for the loopback, init refuses them before this).
  if (machines.size() == 1 && (!gpu || config.transport == Choice::kLoopback))
    return detail::TransportKind::kLoopback;
  if (config.transport == Choice::kLoopback) {
    const int other = static_cast<int>(
        std::find_if(machine_of.begin(), machine_of.end(), [](int m) { return m != 0; }) -
        machine_of.begin());
    throw Error(pe +
                "SYMMETRA_TRANSPORT=loopback reaches forced hosts of one machine only, and "
                "PE " +
                std::to_string(other) + " runs on machine '" + machines[1] + "', PE 0 on '" +
                machines[0] + "': use SYMMETRA_TRANSPORT=ucx (or leave it unset)");
  }
  return detail::TransportKind::kUcx;
}

// The smallest power of two of at least `bytes` (and of a page).
std::uint64_t pow2_at_least(std::uint64_t bytes) {
  std::uint64_t p = 4096;
  while (p < bytes) p <<= 1;
  return p;
}

// kAuto becomes SYMMETRA_BACKEND (cpu | cuda), default cpu; throws naming `pe` on a bad value.
Backend resolve_backend(Backend requested, const std::string& pe) {
  if (requested != Backend::kAuto) return requested;
  const char* v = std::getenv("SYMMETRA_BACKEND");
  if (v == nullptr || *v == '\0' || std::string(v) == "cpu") return Backend::kCpu;
  if (std::string(v) == "cuda" || std::string(v) == "gpu") return Backend::kCuda;
  throw Error(pe + "SYMMETRA_BACKEND='" + v + "' is not cpu or cuda");
}

// team_shared (OpenSHMEM's SHMEM_TEAM_SHARED): the PEs this PE reaches by load and store, those
// of its host. A team is an arithmetic progression of PEs; where this host's are not one (hosts
// named in an interleaved order), this PE alone, which still shares memory with itself.
device::TeamDesc shared_team(const std::vector<bool>& remote, int me) {
  std::vector<int> local;
  for (int p = 0; p < static_cast<int>(remote.size()); ++p)
    if (!remote[p]) local.push_back(p);
  const int start = local[0], stride = local.size() > 1 ? local[1] - local[0] : 1;
  for (std::size_t i = 0; i < local.size(); ++i)
    if (local[i] != start + static_cast<int>(i) * stride)
      return {me, 1, 1, 0, device::kTeamShared, 1};
  const int size = static_cast<int>(local.size());
  return {start, stride, size, (me - start) / stride, device::kTeamShared, size};
}

}  // namespace

std::unique_ptr<Runtime> Runtime::init(const RuntimeOptions& options) {
  return std::make_unique<Runtime>(detail::bootstrap_from_env().value_or_throw(), options);
}

UniqueId get_unique_id() {
  const std::string text = detail::new_unique_id().value_or_throw();
  UniqueId id;
  if (text.size() >= sizeof(id.bytes))
    throw Error("get_unique_id: the meeting point '" + text.substr(0, 80) + "' is longer than " +
                std::to_string(sizeof(id.bytes) - 1) + " bytes");
  std::memcpy(id.bytes, text.data(), text.size());
  return id;
}

std::unique_ptr<Runtime> Runtime::init(const UniqueId& id, int rank, int size,
                                       const RuntimeOptions& options) {
  const std::string text(id.bytes, strnlen(id.bytes, sizeof(id.bytes)));
  return std::make_unique<Runtime>(
      detail::bootstrap_from_unique_id(text, rank, size).value_or_throw(), options);
}

Runtime::Runtime(std::unique_ptr<detail::Bootstrap> bootstrap, const RuntimeOptions& options)
    : s_(std::make_unique<State>()) {
  s_->config = std::make_unique<detail::Config>(detail::config_from_env().value_or_throw());
  s_->selector = std::make_unique<detail::Selector>(detail::Selector::from_env().value_or_throw());
  s_->nccl = std::make_unique<detail::NcclTeams>();
  s_->bootstrap = std::move(bootstrap);
  detail::Bootstrap& bs = *s_->bootstrap;
  const int n = bs.size();
  const std::string pe = "[pe " + std::to_string(bs.rank()) + "] ";
  const std::uint64_t header = device::detail::header_bytes(n);
  // Header and collective workspace: the same bytes on every PE, or the layouts would differ.
  const std::uint64_t reserved =
      device::detail::reserved_bytes(n, s_->config->ws_world_bytes, s_->config->ws_team_bytes);
  // What every PE must know of the others at start, in one exchange: its machine, its host in
  // the topology, and its reserved bytes.
  struct Identity {
    char host[64];
    char topo[64];
    std::uint64_t reserved;
  };
  Identity me{};
  std::strncpy(me.host, host_name().c_str(), sizeof(me.host) - 1);
  std::strncpy(me.topo, topology_name(s_->config->hosts, bs.rank(), n).c_str(),
               sizeof(me.topo) - 1);
  me.reserved = reserved;
  std::vector<Identity> all(n);
  bs.allgather(&me, all.data(), sizeof(me)).or_throw();
  std::vector<std::string> machines;  // in order of first appearance, alike on every PE
  std::vector<int> machine_of(n);
  s_->host_of.resize(n);
  for (int p = 0; p < n; ++p) {
    if (all[p].reserved != reserved)
      throw Error(
          pe +
          "SYMMETRA_COLL_WORKSPACE / SYMMETRA_COLL_TEAM_WORKSPACE differ between this PE and PE " +
          std::to_string(p) + ": set them alike on every PE");
    const std::string machine(all[p].host, strnlen(all[p].host, sizeof(all[p].host)));
    const std::string topo(all[p].topo, strnlen(all[p].topo, sizeof(all[p].topo)));
    machine_of[p] = index_in(machines, machine);
    // Forced hosts of different machines are different hosts, whatever their names.
    s_->host_of[p] = index_in(s_->host_names, topo == machine ? topo : topo + "@" + machine);
  }
  s_->machine_of = machine_of;
  if (machines.size() == 1)  // forced hosts of one machine: their own names tell them apart
    for (std::string& h : s_->host_names) h = h.substr(0, h.rfind('@' + machines[0]));
  const bool gpu = resolve_backend(options.backend, pe) == Backend::kCuda;
  // PEs of other (forced) hosts are reached through the transport, the others by load and store.
  // Every PE sees the same tables, so all of them take the same branches below.
  const int my_pe = bs.rank();
  std::vector<bool> remote(n);
  bool any_remote = false;
  for (int p = 0; p < n; ++p) any_remote |= remote[p] = s_->host_of[p] != s_->host_of[my_pe];
  // More PEs on this machine than CPUs means waits cost context switches, which the
  // central-counter sync and yielding at once keep few (docs/perf_cpu.md#oversubscription).
  const long cpus = s_->config->cpus > 0 ? s_->config->cpus : sysconf(_SC_NPROCESSORS_ONLN);
  const long on_machine = std::count(machine_of.begin(), machine_of.end(), machine_of[my_pe]);
  const bool oversubscribed = cpus > 0 && on_machine > cpus;
  if (any_remote && gpu && s_->config->transport == detail::Config::TransportChoice::kLoopback)
    throw Error(pe +
                "SYMMETRA_TRANSPORT=loopback delivers through the host mapping and cannot reach "
                "GPU heaps: use SYMMETRA_TRANSPORT=ucx (or leave it unset)");
  const detail::TransportKind kind = transport_kind(*s_->config, machines, machine_of, gpu, pe);
  // The PEs that map each other's heaps: those of one host, since a network transport must
  // reach the others through the network alone; with the loopback transport, which delivers
  // through that mapping, every PE of the machine (which is the whole job).
  std::vector<int> group_of(n);
  for (int p = 0; p < n; ++p)
    group_of[p] = kind == detail::TransportKind::kLoopback ? machine_of[p] : s_->host_of[p];
  if (std::count(group_of.begin(), group_of.end(), group_of[0]) != n)
    s_->host_group = bs.split(group_of[my_pe]).value_or_throw();
  detail::Bootstrap& group = s_->host_group ? *s_->host_group : bs;
  // The host-memory heap always exists: host-side synchronization runs on its header. On the
  // CPU backend it is also the data heap; on the GPU backend it is only that header.
  const std::uint64_t host_initial = gpu ? header : s_->config->symmetric_size + reserved;
  // Symmetric static data takes a window at the top of each heap slot (static_data.hpp).
  detail::StaticRange statics;
  if (options.symmetric_static_data && !gpu && !bs.threads())
    statics = detail::program_static_range();
  s_->static_window = statics.bytes;
  // Strides are powers of two and the heaps' reservations are aligned to them, so that an
  // offset aligned to any power of two up to the stride is aligned in every PE's view (align()).
  s_->heap_limit = s_->config->max_symmetric_size + reserved;
  const std::uint64_t stride = pow2_at_least((gpu ? header : s_->heap_limit) + s_->static_window);
  s_->heap = detail::SymmetricHeap::create(group, stride, host_initial).value_or_throw();
  if (statics.bytes > 0) {
    const std::uint64_t window = s_->heap->stride() - s_->static_window;
    detail::StaticData::create(group, statics, s_->heap->fd(),
                               s_->heap->file_offset(s_->heap->index()) + window)
        .or_throw();
    ctx_.static_lo = statics.lo;
    ctx_.static_bytes = statics.bytes;
    ctx_.static_window = s_->heap->base() + window;
  }
  if (any_remote) {
    detail::TransportParams tp;
    tp.bootstrap = &bs;
    tp.heap = s_->heap.get();
    tp.remote = remote;
    tp.forced_hosts = machines.size() == 1;
    // A GPU heap is served by the target's CPU (HeapAccess), unless UCX moves device memory
    // itself (TransportParams::device_memory), which its atomics still need.
    tp.served = s_->config->ucx_served || gpu;
    tp.device_memory = !gpu                        ? detail::DeviceMemory::kStage
                       : s_->config->ucx_cuda == 0 ? detail::DeviceMemory::kStage
                       : s_->config->ucx_cuda == 1 ? detail::DeviceMemory::kDirect
                                                   : detail::DeviceMemory::kAuto;
    tp.poll_ns =
        static_cast<std::uint64_t>(s_->config->progress_poll_us >= 0 ? s_->config->progress_poll_us
                                   : oversubscribed                  ? 0
                                                                     : 200) *
        1000;
    auto made = detail::make_transport(kind, tp);
    if (!made.ok()) throw Error(pe + made.status().message());
    s_->transport = std::move(made.value());
    s_->transport->register_memory(s_->heap->base(), 0, s_->heap->size(), nullptr).or_throw();
    if (statics.bytes > 0) {
      const std::uint64_t window = s_->heap->stride() - s_->static_window;
      s_->transport->register_memory(s_->heap->base() + window, window, statics.bytes, nullptr)
          .or_throw();
    }
    ctx_.remote = s_->transport.get();
    if (s_->config->proxy) {
      s_->proxy_memory = std::make_unique<detail::HostProxyMemory>(
          static_cast<std::uint32_t>(std::countr_zero(s_->config->proxy_ring_entries)));
      s_->proxy =
          std::make_unique<detail::Proxy>(s_->proxy_memory->ring(), s_->transport.get(), &ctx_);
      s_->proxy_path = std::make_unique<detail::ProxyPath>(s_->proxy.get());
      ctx_.remote = s_->proxy_path.get();
    }
    for (int p = 0; p < n; ++p) s_->pe_host.push_back(s_->host_names[s_->host_of[p]].c_str());
    ctx_.remote->pe_host = s_->pe_host.data();
  }
  detail::BackendParams params;
  params.host_heap = s_->heap.get();
  params.control = &ctx_;
  params.group = &group;
  params.device = options.device;
  params.stride = pow2_at_least(s_->heap_limit);
  params.initial = s_->config->symmetric_size + reserved;
  params.reserved_bytes = reserved;
  params.ws_world = s_->config->ws_world_bytes;
  params.ws_team = s_->config->ws_team_bytes;
  s_->backend =
      detail::make_backend(gpu ? detail::BackendKind::kCuda : detail::BackendKind::kCpu, bs, params)
          .value_or_throw();
  if (!s_->backend->host_memory()) {
    gpu_ = s_->backend.get();
    // NCCL too, if it is there: loading a library's kernels can wait for running kernels, and
    // later the other PEs' kernels would be running (the all-reduce's NCCL route loads it on a
    // team's first call). Whether it loaded is the answer nccl_library() keeps.
    (void)detail::nccl_library();
  }
  s_->allocator = std::make_unique<detail::Allocator>(reserved, data_size());
  s_->pe_index.resize(n);
  // A local PE's heap is at its place in the group's mapping: its rank among the group's PEs.
  for (int p = 0; p < n; ++p)
    s_->pe_index[p] = remote[p] ? -1
                                : static_cast<std::int32_t>(std::count(
                                      group_of.begin(), group_of.begin() + p, group_of[p]));
  s_->teams[device::kTeamWorld] = {0, 1, n, bs.rank(), device::kTeamWorld, local_run(0, 1, n)};
  s_->teams[device::kTeamShared] = shared_team(remote, bs.rank());
  ctx_.my_pe = bs.rank();
  ctx_.n_pes = n;
  ctx_.my_index = s_->heap->index();
  ctx_.stride = s_->heap->stride();
  ctx_.timeout_ns = s_->config->timeout_ns;
  if (!gpu) {  // on the GPU backend the workspace is in the device heap only
    ctx_.ws_world_bytes = s_->config->ws_world_bytes;
    ctx_.ws_team_bytes = s_->config->ws_team_bytes;
  }
  ctx_.flags = (s_->config->check ? device::Context::kCheckArgs : 0) |
               (any_remote ? 0 : device::Context::kIdentityIndex);
  if (oversubscribed) ctx_.flags |= device::Context::kOversubscribed;
  if (s_->config->sync == detail::Config::Sync::kCentral ||
      (s_->config->sync == detail::Config::Sync::kAuto && oversubscribed))
    ctx_.flags |= device::Context::kCentralSync;
  if (s_->config->ll_lanes) ctx_.flags |= device::Context::kWorkspaceLanes;
  if (options.dest_ready_by_program) ctx_.flags |= device::Context::kDestReadyByProgram;
  start_observing();
  if (!gpu && (ctx_.flags & device::Context::kIdentityIndex) &&
      !(ctx_.flags & device::Context::kObserve))
    ctx_.flags |= device::Context::kHostDirect;
  refresh_context();
  if (gpu_ && s_->transport) {
    // The device heap, which the transport reaches through the backend, at the offsets from
    // kDeviceHeapOffset (device/impl/remote.hpp); the host heap's header keeps its own.
    s_->transport
        ->register_memory(data_base(), device::kDeviceHeapOffset, data_size(),
                          s_->backend->heap_access())
        .or_throw();
    ctx_.remote->device_heap = data_base();
    ctx_.remote->device_heap_bytes = data_view().stride;
    // Kernels reach the other hosts through a proxy ring (docs/proxy.md, "GPU producers").
    s_->gpu_proxy = std::make_unique<detail::GpuProxy>(
        *s_->backend, s_->transport.get(), &ctx_,
        static_cast<std::uint32_t>(std::countr_zero(s_->config->proxy_ring_entries)));
    ctx_.proxy = s_->gpu_proxy->ring();
    refresh_context();
  }
  device::detail::my_header(ctx_)->magic = device::detail::kHeaderMagic;
  bs.barrier().or_throw();
  // A PE that dies (or leaves without finalize) is lost to the rendezvous, which tells the
  // others; their watches mark their own heaps so that every wait stops naming it. The host heap
  // never moves, so its header can be captured.
  if (detail::log_level() >= detail::LogLevel::kInfo) {
    int here = 0;
    for (int p = 0; p < n; ++p) here += !remote[p];
    SYMMETRA_LOG(kInfo, bs.rank(),
                 "joined a job of %d PEs (%s) on %zu host(s), %d on this one ('%s'); %s backend; "
                 "heap %llu bytes, growing to %llu; %s%s%s",
                 n, bs.threads() ? "threads" : "processes", s_->host_names.size(), here, me.topo,
                 gpu ? "cuda" : "cpu", static_cast<unsigned long long>(data_size()),
                 static_cast<unsigned long long>(s_->heap_limit),
                 any_remote ? (std::string("other hosts through the ") + s_->transport->name() +
                               " transport")
                                  .c_str()
                            : "no remote PEs",
                 !(gpu && any_remote) ? ""
                 : s_->transport->moves_device_memory()
                     ? "; device memory moved by UCX itself (UCX with CUDA)"
                 : s_->transport->device_memory_capable()
                     ? "; device memory staged through pinned host memory (UCX has CUDA "
                       "support: SYMMETRA_UCX_CUDA=1 lets it move it)"
                     : "; device memory staged through pinned host memory (this UCX has no CUDA "
                       "support)",
                 statics.bytes > 0 ? "; static data symmetric" : "");
  }
  bs.watch([h = device::detail::my_header(ctx_), n](int lost, bool left) {
    using device::detail::AbortWhy;
    const AbortWhy why = lost < 0 ? AbortWhy::kHubGone : left ? AbortWhy::kLeft : AbortWhy::kGone;
    device::detail::host_mark_header(h, lost >= 0 ? lost : n, static_cast<std::uint32_t>(why));
  });
}

Runtime::~Runtime() {
  // A PE unwinding from an error must not wait for the others: skip the collective part.
  if (std::uncaught_exceptions() == 0) {
    try {
      finalize();
    } catch (const std::exception&) {
    }
  }
  if (s_->bootstrap) s_->bootstrap->unwatch();  // its callback writes the heap, which goes first
}

void Runtime::finalize() {
  const ObserveScope observe(*this, "finalize", -1, 0);
  if (s_->finalized) return;
  s_->finalized = true;
  // Not barrier_all: a PE that finalizes while the others wait in a barrier must not complete
  // it for them (it would let them run on without it). quiet() completes this PE's operations;
  // the bootstrap barrier, which no user collective matches, keeps every heap mapped until every
  // PE is done with the others'.
  quiet();
  flush_observed();
  s_->bootstrap->unwatch();
  s_->bootstrap->barrier().or_throw();
  s_->nccl->release_all();  // before the GPU state goes
  gpu_ = nullptr;
  ctx_.remote = nullptr;
  s_->gpu_proxy.reset();  // stops its ring: its proxy calls the transport
  s_->proxy_path.reset();
  s_->proxy.reset();      // stops its thread: it calls the transport
  s_->transport.reset();  // it delivers into the heaps, the backend's through its HeapAccess
  s_->backend.reset();    // before the host heap, which the CPU backend's data heap is
  s_->heap.reset();
  s_->host_group.reset();
  s_->bootstrap->finalize();
}

void Runtime::mark_failed(Stop why) {
  using device::detail::AbortWhy;
  const AbortWhy w = why == Stop::kLeft   ? AbortWhy::kLeft
                     : why == Stop::kExit ? AbortWhy::kExit
                                          : AbortWhy::kFailed;
  // ctx_: the host-memory control heap, on either backend.
  device::detail::host_mark_abort(ctx_, my_pe(), static_cast<std::uint32_t>(w));
  flush_observed();  // the process may end next
}

void Runtime::leave() {
  if (s_->finalized) return;
  s_->finalized = true;
  s_->bootstrap->leave();  // first: the rendezvous learns who left before anyone stops for it
  mark_failed(Stop::kLeft);
}

void Runtime::abandon() {
  if (s_->finalized) return;
  s_->finalized = true;
  s_->bootstrap->unwatch();
  mark_failed();
  s_->nccl->release_all();
  gpu_ = nullptr;
  s_->gpu_proxy.reset();  // before the backend, which owns its ring's memory
  s_->backend.reset();
  ctx_.remote = nullptr;
  s_->proxy_path.reset();
  s_->proxy.reset();  // stops its thread: it calls the transport
  s_->transport.reset();
  s_->heap.reset();
  s_->host_group.reset();
  s_->bootstrap->finalize();
}

void Runtime::refresh_context() {
  // Other threads of the PE may be reading ctx_ on the data path (SHMEM_THREAD_MULTIPLE): only
  // heap_bytes changes after init, and it is written atomically (checked_peer and the
  // device checks read it so, through Context::heap_extent).
  if (ctx_.heap_base != s_->heap->base()) ctx_.heap_base = s_->heap->base();
  if (ctx_.pe_index != s_->pe_index.data()) ctx_.pe_index = s_->pe_index.data();
  if (ctx_.teams != s_->teams.data()) ctx_.teams = s_->teams.data();
  __atomic_store_n(&ctx_.heap_bytes, std::uint64_t{s_->heap->size()}, __ATOMIC_RELAXED);
  s_->backend->refresh(ctx_).or_throw();
}

const device::Context& Runtime::device_context() const {
  return s_->backend->device_context();
}

const device::Context& Runtime::data_view() const {
  return s_->backend->host_view();
}
std::byte* Runtime::data_base() const {
  return data_view().heap_base;
}
std::size_t Runtime::data_size() const {
  return s_->backend->heap_size();
}
int Runtime::device() const {
  return s_->backend->device();
}

std::uint64_t Runtime::now_ns() {
  return detail::steady_ns();
}

void* Runtime::checked_peer_rest(const char* op, void* sym, std::size_t bytes, int pe) const {
  if (bytes == 0 && static_cast<unsigned>(pe) < static_cast<unsigned>(ctx_.n_pes))
    return ctx_.peer(sym, pe);
  device::detail::check_pe(ctx_, op, pe);
  device::detail::check_symmetric(ctx_, op, sym, bytes);
  device::detail::host_fatal(
      ctx_, op, "internal error: an access failed its check but neither check says why");
}

void Runtime::fail(const std::string& what) const {
  throw Error("[pe " + std::to_string(my_pe()) + "] " + what);
}

std::size_t Runtime::heap_size() const {
  return data_size();
}
std::size_t Runtime::heap_used() const {
  return s_->allocator->used_bytes();
}

bool Runtime::is_symmetric(const void* p) const {
  const auto a = reinterpret_cast<std::uintptr_t>(p);
  const auto lo = reinterpret_cast<std::uintptr_t>(data_base());
  return (a >= lo && a < lo + data_size()) || ctx_.in_static(p);
}

}  // namespace symmetra
