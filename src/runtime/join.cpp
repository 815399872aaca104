// The phases that make a Runtime (join.hpp), in order: each a method of Join, reading what the
// ones before it left in the Runtime's state and in Join's members.
#include "runtime/join.hpp"

#include <unistd.h>

#include <algorithm>
#include <bit>
#include <cstring>
#include <string>
#include <vector>

#include "backend/backend.hpp"
#include "coll/nccl.hpp"
#include "coll/selector.hpp"
#include "core/config.hpp"
#include "core/log.hpp"
#include "heap/allocator.hpp"
#include "heap/static_data.hpp"
#include "heap/symmetric_heap.hpp"
#include "runtime/planner.hpp"
#include "runtime/state.hpp"
#include "symmetra/device/impl/heap_header.hpp"
#include "symmetra/device/impl/host_hooks.hpp"
#include "transport/transport.hpp"

namespace symmetra::detail {
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
symmetra::Backend resolve_backend(symmetra::Backend requested, const std::string& pe) {
  using symmetra::Backend;
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

class Join {
 public:
  Join(Runtime& rt, std::unique_ptr<Bootstrap> bootstrap, const RuntimeOptions& options)
      : rt_(rt), s_(*rt.s_), ctx_(rt.ctx_), options_(options) {
    s_.config = std::make_unique<Config>(config_from_env().value_or_throw());
    // Read before anything collective, so that a bad value fails every PE alike at once.
    selector_ = Selector::from_env().value_or_throw();
    s_.bootstrap = std::move(bootstrap);
    bs_ = s_.bootstrap.get();
    n_ = bs_->size();
    my_pe_ = bs_->rank();
    pe_ = "[pe " + std::to_string(my_pe_) + "] ";
    // Header and collective workspace: the same bytes on every PE, or the layouts would differ.
    reserved_ =
        device::detail::reserved_bytes(n_, s_.config->ws_world_bytes, s_.config->ws_team_bytes);
    gpu_ = resolve_backend(options.backend, pe_) == symmetra::Backend::kCuda;
  }
  void identify_hosts();
  void host_group();
  void heap();
  void remote_sink();
  void backend();
  void context();
  void gpu_remote();
  void open();

 private:
  Runtime& rt_;
  Runtime::State& s_;
  device::Context& ctx_;
  const RuntimeOptions& options_;
  Selector selector_;
  Bootstrap* bs_ = nullptr;
  Bootstrap* group_ = nullptr;  // the host group (host_group), or bs_
  int n_ = 0;
  int my_pe_ = 0;
  std::string pe_;  // "[pe N] ", for messages
  std::uint64_t reserved_ = 0;
  bool gpu_ = false;
  std::string topo_;                   // this PE's topology host, for the log
  std::vector<std::string> machines_;  // in order of first appearance, alike on every PE
  std::vector<bool> remote_;           // world PE -> reached through the transport
  bool any_remote_ = false;
  bool oversubscribed_ = false;
  TransportKind kind_ = TransportKind::kLoopback;
  std::vector<int> group_of_;  // world PE -> the group of PEs that map each other's heaps
  StaticRange statics_;
};

// What every PE must know of the others at start, in one exchange: its machine, its host in
// the topology, and its reserved bytes. Then which PEs are remote, whether this machine is
// oversubscribed, and the transport that reaches the others.
void Join::identify_hosts() {
  struct Identity {
    char host[64];
    char topo[64];
    std::uint64_t reserved;
  };
  Identity me{};
  std::strncpy(me.host, host_name().c_str(), sizeof(me.host) - 1);
  std::strncpy(me.topo, topology_name(s_.config->hosts, my_pe_, n_).c_str(), sizeof(me.topo) - 1);
  me.reserved = reserved_;
  topo_ = me.topo;
  std::vector<Identity> all(n_);
  bs_->allgather(&me, all.data(), sizeof(me)).or_throw();
  std::vector<int> machine_of(n_);
  s_.host_of.resize(n_);
  for (int p = 0; p < n_; ++p) {
    if (all[p].reserved != reserved_)
      throw Error(
          pe_ +
          "SYMMETRA_COLL_WORKSPACE / SYMMETRA_COLL_TEAM_WORKSPACE differ between this PE and PE " +
          std::to_string(p) + ": set them alike on every PE");
    const std::string machine(all[p].host, strnlen(all[p].host, sizeof(all[p].host)));
    const std::string topo(all[p].topo, strnlen(all[p].topo, sizeof(all[p].topo)));
    machine_of[p] = index_in(machines_, machine);
    // Forced hosts of different machines are different hosts, whatever their names.
    s_.host_of[p] = index_in(s_.host_names, topo == machine ? topo : topo + "@" + machine);
  }
  s_.machine_of = machine_of;
  if (machines_.size() == 1)  // forced hosts of one machine: their own names tell them apart
    for (std::string& h : s_.host_names) h = h.substr(0, h.rfind('@' + machines_[0]));
  // PEs of other (forced) hosts are reached through the transport, the others by load and store.
  remote_.resize(n_);
  for (int p = 0; p < n_; ++p) any_remote_ |= remote_[p] = s_.host_of[p] != s_.host_of[my_pe_];
  // More PEs on this machine than CPUs means waits cost context switches, which the
  // central-counter sync and yielding at once keep few (docs/perf_cpu.md#oversubscription).
  const long cpus = s_.config->cpus > 0 ? s_.config->cpus : sysconf(_SC_NPROCESSORS_ONLN);
  const long on_machine = std::count(machine_of.begin(), machine_of.end(), machine_of[my_pe_]);
  oversubscribed_ = cpus > 0 && on_machine > cpus;
  if (any_remote_ && gpu_ && s_.config->transport == Config::TransportChoice::kLoopback)
    throw Error(pe_ +
                "SYMMETRA_TRANSPORT=loopback delivers through the host mapping and cannot reach "
                "GPU heaps: use SYMMETRA_TRANSPORT=ucx (or leave it unset)");
  kind_ = transport_kind(*s_.config, machines_, machine_of, gpu_, pe_);
}

// The PEs that map each other's heaps: those of one host, since a network transport must reach
// the others through the network alone; with the loopback transport, which delivers through
// that mapping, every PE of the machine (which is the whole job).
void Join::host_group() {
  group_of_.resize(n_);
  for (int p = 0; p < n_; ++p)
    group_of_[p] = kind_ == TransportKind::kLoopback ? s_.machine_of[p] : s_.host_of[p];
  if (std::count(group_of_.begin(), group_of_.end(), group_of_[0]) != n_)
    s_.host_group = bs_->split(group_of_[my_pe_]).value_or_throw();
  group_ = s_.host_group ? s_.host_group.get() : bs_;
}

// The host-memory heap always exists: host-side synchronization runs on its header. On the CPU
// backend it is also the data heap; on the GPU backend it is only that header.
void Join::heap() {
  const std::uint64_t header = device::detail::header_bytes(n_);
  const std::uint64_t host_initial = gpu_ ? header : s_.config->symmetric_size + reserved_;
  // Symmetric static data takes a window at the top of each heap slot (static_data.hpp).
  if (options_.symmetric_static_data && !gpu_ && !bs_->threads()) statics_ = program_static_range();
  s_.static_window = statics_.bytes;
  // Strides are powers of two and the heaps' reservations are aligned to them, so that an
  // offset aligned to any power of two up to the stride is aligned in every PE's view (align()).
  s_.heap_limit = s_.config->max_symmetric_size + reserved_;
  const std::uint64_t stride = pow2_at_least((gpu_ ? header : s_.heap_limit) + s_.static_window);
  s_.heap = SymmetricHeap::create(*group_, stride, host_initial).value_or_throw();
  if (statics_.bytes > 0) {
    const std::uint64_t window = s_.heap->stride() - s_.static_window;
    StaticData::create(*group_, statics_, s_.heap->fd(),
                       s_.heap->file_offset(s_.heap->index()) + window)
        .or_throw();
    ctx_.static_lo = statics_.lo;
    ctx_.static_bytes = statics_.bytes;
    ctx_.static_window = s_.heap->base() + window;
  }
}

// Where PEs live on other hosts: the transport that reaches them, with the host heap (and the
// static data) registered, and under SYMMETRA_PROXY=1 the proxy thread it drains into.
void Join::remote_sink() {
  if (!any_remote_) return;
  TransportParams tp;
  tp.bootstrap = bs_;
  tp.heap = s_.heap.get();
  tp.remote = remote_;
  tp.forced_hosts = machines_.size() == 1;
  // A GPU heap is served by the target's CPU (HeapAccess), unless UCX moves device memory
  // itself (TransportParams::device_memory), which its atomics still need.
  tp.served = s_.config->ucx_served || gpu_;
  tp.device_memory = !gpu_                      ? DeviceMemory::kStage
                     : s_.config->ucx_cuda == 0 ? DeviceMemory::kStage
                     : s_.config->ucx_cuda == 1 ? DeviceMemory::kDirect
                                                : DeviceMemory::kAuto;
  tp.poll_ns =
      static_cast<std::uint64_t>(s_.config->progress_poll_us >= 0 ? s_.config->progress_poll_us
                                 : oversubscribed_                ? 0
                                                                  : 200) *
      1000;
  auto made = make_transport(kind_, tp);
  if (!made.ok()) throw Error(pe_ + made.status().message());
  s_.transport = std::move(made.value());
  s_.transport->register_memory(s_.heap->base(), 0, s_.heap->size(), nullptr).or_throw();
  if (statics_.bytes > 0) {
    const std::uint64_t window = s_.heap->stride() - s_.static_window;
    s_.transport->register_memory(s_.heap->base() + window, window, statics_.bytes, nullptr)
        .or_throw();
  }
  ctx_.remote = s_.transport.get();
  if (s_.config->proxy) {
    s_.proxy_memory = std::make_unique<HostProxyMemory>(
        static_cast<std::uint32_t>(std::countr_zero(s_.config->proxy_ring_entries)));
    s_.proxy = std::make_unique<Proxy>(s_.proxy_memory->ring(), s_.transport.get(), &ctx_);
    s_.proxy_path = std::make_unique<ProxyPath>(s_.proxy.get());
    ctx_.remote = s_.proxy_path.get();
  }
  for (int p = 0; p < n_; ++p) s_.pe_host.push_back(s_.host_names[s_.host_of[p]].c_str());
  ctx_.remote->pe_host = s_.pe_host.data();
}

// The data heap (host memory, or device memory on the GPU backend), its allocator, and the
// planner, which reads the backend's facts.
void Join::backend() {
  BackendParams params;
  params.host_heap = s_.heap.get();
  params.control = &ctx_;
  params.group = group_;
  params.device = options_.device;
  params.stride = pow2_at_least(s_.heap_limit);
  params.initial = s_.config->symmetric_size + reserved_;
  params.reserved_bytes = reserved_;
  params.ws_world = s_.config->ws_world_bytes;
  params.ws_team = s_.config->ws_team_bytes;
  s_.backend =
      make_backend(gpu_ ? BackendKind::kCuda : BackendKind::kCpu, *bs_, params).value_or_throw();
  if (!s_.backend->host_memory()) {
    rt_.gpu_ = s_.backend.get();
    // NCCL too, if it is there: loading a library's kernels can wait for running kernels, and
    // later the other PEs' kernels would be running (the all-reduce's NCCL route loads it on a
    // team's first call). Whether it loaded is the answer nccl_library() keeps.
    (void)nccl_library();
  }
  s_.allocator = std::make_unique<Allocator>(reserved_, rt_.data_size());
  CollPlanner::Facts facts;
  facts.my_pe = my_pe_;
  facts.gpu = gpu_;
  facts.pes_per_device = gpu_ ? s_.backend->max_pes_per_device() : 1;
  facts.channel_bytes = s_.config->channel_bytes;
  facts.max_channels = s_.config->max_channels;
  facts.teams = &s_.teams;
  s_.planner = std::make_unique<CollPlanner>(std::move(selector_), facts);
}

// What the inline data path reads: the peers' heap indices, the predefined teams, the context's
// fields and flags.
void Join::context() {
  s_.pe_index.resize(n_);
  // A local PE's heap is at its place in the group's mapping: its rank among the group's PEs.
  for (int p = 0; p < n_; ++p)
    s_.pe_index[p] = remote_[p] ? -1
                                : static_cast<std::int32_t>(std::count(
                                      group_of_.begin(), group_of_.begin() + p, group_of_[p]));
  TeamTable::Links links;
  links.ctx = &ctx_;
  links.gpu = rt_.gpu_;
  links.host_of = &s_.host_of;
  links.quiet = [&rt = rt_] { rt.quiet(); };
  links.refresh = [&rt = rt_] { rt.refresh_context(); };
  s_.teams.link(std::move(links));
  s_.teams[device::kTeamWorld] = {
      0, 1, n_, my_pe_, device::kTeamWorld, s_.teams.local_run(0, 1, n_)};
  s_.teams[device::kTeamShared] = shared_team(remote_, my_pe_);
  ctx_.my_pe = my_pe_;
  ctx_.n_pes = n_;
  ctx_.my_index = s_.heap->index();
  ctx_.stride = s_.heap->stride();
  ctx_.timeout_ns = s_.config->timeout_ns;
  if (!gpu_) {  // on the GPU backend the workspace is in the device heap only
    ctx_.ws_world_bytes = s_.config->ws_world_bytes;
    ctx_.ws_team_bytes = s_.config->ws_team_bytes;
  }
  ctx_.flags = (s_.config->check ? device::Context::kCheckArgs : 0) |
               (any_remote_ ? 0 : device::Context::kIdentityIndex);
  if (oversubscribed_) ctx_.flags |= device::Context::kOversubscribed;
  if (s_.config->sync == Config::Sync::kCentral ||
      (s_.config->sync == Config::Sync::kAuto && oversubscribed_))
    ctx_.flags |= device::Context::kCentralSync;
  if (s_.config->ll_lanes) ctx_.flags |= device::Context::kWorkspaceLanes;
  if (options_.dest_ready_by_program) ctx_.flags |= device::Context::kDestReadyByProgram;
  rt_.start_observing();
  if (!gpu_ && (ctx_.flags & device::Context::kIdentityIndex) &&
      !(ctx_.flags & device::Context::kObserve))
    ctx_.flags |= device::Context::kHostDirect;
  rt_.refresh_context();
}

// A GPU PE with PEs on other hosts: the device heap, which the transport reaches through the
// backend, at the offsets from kDeviceHeapOffset (device/impl/remote.hpp; the host heap's header
// keeps its own), and the proxy ring through which kernels reach the other hosts
// (docs/proxy.md, "GPU producers").
void Join::gpu_remote() {
  if (!rt_.gpu_ || !s_.transport) return;
  s_.transport
      ->register_memory(rt_.data_base(), device::kDeviceHeapOffset, rt_.data_size(),
                        s_.backend->heap_access())
      .or_throw();
  ctx_.remote->device_heap = rt_.data_base();
  ctx_.remote->device_heap_bytes = rt_.data_view().stride;
  s_.gpu_proxy = std::make_unique<GpuProxy>(
      *s_.backend, s_.transport.get(), &ctx_,
      static_cast<std::uint32_t>(std::countr_zero(s_.config->proxy_ring_entries)));
  ctx_.proxy = s_.gpu_proxy->ring();
  rt_.refresh_context();
}

// The header's mark, then a barrier: every PE's heap is ready. A PE that dies (or leaves without
// finalize) is lost to the rendezvous, which tells the others; their watches mark their own
// heaps so that every wait stops naming it. The host heap never moves, so its header can be
// captured.
void Join::open() {
  device::detail::my_header(ctx_)->magic = device::detail::kHeaderMagic;
  bs_->barrier().or_throw();
  if (log_level() >= LogLevel::kInfo) {
    int here = 0;
    for (int p = 0; p < n_; ++p) here += !remote_[p];
    SYMMETRA_LOG(
        kInfo, my_pe_,
        "joined a job of %d PEs (%s) on %zu host(s), %d on this one ('%s'); %s backend; "
        "heap %llu bytes, growing to %llu; %s%s%s",
        n_, bs_->threads() ? "threads" : "processes", s_.host_names.size(), here, topo_.c_str(),
        gpu_ ? "cuda" : "cpu", static_cast<unsigned long long>(rt_.data_size()),
        static_cast<unsigned long long>(s_.heap_limit),
        any_remote_
            ? (std::string("other hosts through the ") + s_.transport->name() + " transport")
                  .c_str()
            : "no remote PEs",
        !(gpu_ && any_remote_) ? ""
        : s_.transport->moves_device_memory()
            ? "; device memory moved by UCX itself (UCX with CUDA)"
        : s_.transport->device_memory_capable()
            ? "; device memory staged through pinned host memory (UCX has CUDA "
              "support: SYMMETRA_UCX_CUDA=1 lets it move it)"
            : "; device memory staged through pinned host memory (this UCX has no CUDA "
              "support)",
        statics_.bytes > 0 ? "; static data symmetric" : "");
  }
  bs_->watch([h = device::detail::my_header(ctx_), n = n_](int lost, bool left) {
    using device::detail::AbortWhy;
    const AbortWhy why = lost < 0 ? AbortWhy::kHubGone : left ? AbortWhy::kLeft : AbortWhy::kGone;
    device::detail::host_mark_header(h, lost >= 0 ? lost : n, static_cast<std::uint32_t>(why));
  });
}

void join(Runtime& rt, std::unique_ptr<Bootstrap> bootstrap, const RuntimeOptions& options) {
  Join job(rt, std::move(bootstrap), options);
  job.identify_hosts();
  job.host_group();
  job.heap();
  job.remote_sink();
  job.backend();
  job.context();
  job.gpu_remote();
  job.open();
}

}  // namespace symmetra::detail
