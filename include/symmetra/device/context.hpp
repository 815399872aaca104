// The device context: everything a PE's device code needs, passed by value (docs/design.md §1.2).
//
// A Runtime owns the memory this points into and hands out Context copies through
// Runtime::device_context(). Kernels take it as an argument; no relocatable device code and no
// global state. A copy stays valid until the heap grows or a team is created or destroyed; take a
// fresh one after those setup calls.
#pragma once

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "symmetra/core/platform.hpp"

namespace symmetra::device {

// A team is an arithmetic progression of world PEs: start, start + stride, ... (size members).
// Every team that OpenSHMEM's split_strided and split_2d can make is of this form.
struct TeamDesc {
  std::int32_t start = 0;
  std::int32_t stride = 1;
  std::int32_t size = 0;      // 0: the slot is free
  std::int32_t my_rank = -1;  // this PE's number in the team, -1 when not a member
  std::int32_t slot = 0;      // index of the team's synchronization words in the heap header
  // Members per host when the team is runs of equal length of members on one host (hosts from
  // SYMMETRA_HOST_ID, else the host name), else 0. Hierarchical algorithms read it.
  std::int32_t local = 0;
};

// Team handles inside device code are small integers; these are the predefined ones.
inline constexpr int kTeamWorld = 0;
inline constexpr int kTeamShared = 1;
inline constexpr int kMaxTeams = 64;

// The remote branch of the CPU data path (device/impl/remote.hpp): how an operation reaches a
// PE that this PE cannot load and store. Null where every PE is reachable.
class RemotePath;

// The memory of one proxy channel (device/impl/proxy_ring.hpp, docs/proxy.md), as producers see
// it: how GPU threads hand operations on PEs of other hosts to a CPU thread of their process.
// Trivially copyable: it travels in Context. slots == nullptr: no ring.
struct ProxyRing {
  std::uint64_t* slots = nullptr;  // 2^log2_slots entries
  std::uint64_t* tail = nullptr;   // the next position to reserve (producers' fetch_add)
  std::uint64_t* done = nullptr;   // written by the proxy: requests before it are done
  std::uint32_t* state = nullptr;  // written by the proxy: ProxyState
  // Two words per slot, where the proxy leaves what a GPU producer fetches (an atomic's old
  // value, a get of up to 8 bytes), at the index of the request's first entry: the value, then
  // a tag (proxy_take_result). A GPU thread's own variables are not memory the proxy can write.
  std::uint64_t* results = nullptr;
  // kProxyOutboxBytes per slot (and kProxyMaxEntries slots' worth past the end, so that a request
  // that wraps has its bytes in one piece), where a GPU producer writes a small put's source
  // itself: the proxy then reads host memory instead of staging device memory, and the producer
  // need not wait (proxy_ring.hpp, proxy_outbox). Null: none (the CPU producer's ring).
  std::byte* outbox = nullptr;
  std::uint32_t log2_slots = 0;
};

struct Context {
  std::byte* heap_base = nullptr;          // start of this PE's symmetric heap (its header first)
  std::uint64_t stride = 0;                // distance between two PEs' heaps in the mapping
  std::uint64_t heap_bytes = 0;            // mapped extent of each heap, for argument checks
  const std::int32_t* pe_index = nullptr;  // world PE -> heap index in the mapping, -1: unreachable
  const TeamDesc* teams = nullptr;         // kMaxTeams entries, indexed by team handle
  std::uint64_t timeout_ns = 0;            // bound of every wait
  std::int32_t my_pe = 0;
  std::int32_t n_pes = 0;
  std::int32_t my_index = 0;  // pe_index[my_pe]
  std::uint32_t flags = 0;    // kCheckArgs ...
  // The collective workspace after the heap header (device/impl/heap_header.hpp): bytes for the
  // world team's slot, and for each other slot. Zero where the heap has none (the GPU backend's
  // host-memory control heap).
  std::uint64_t ws_world_bytes = 0;
  std::uint64_t ws_team_bytes = 0;
  // The program's static data, symmetric when the job asked for it (OpenSHMEM programs; CPU
  // backend, PEs as processes): [static_lo, static_lo + static_bytes) is this PE's data and bss,
  // also mapped at static_window inside its heap slot, where the peers see it at their stride.
  // static_bytes == 0: no static data is symmetric.
  std::uintptr_t static_lo = 0;
  std::uint64_t static_bytes = 0;
  std::byte* static_window = nullptr;
  // GPU kernels: this PE's host-memory control header (heap_header.hpp), mapped for the device,
  // where the host marks a failed or lost PE; device waits read it as they back off and stop
  // naming that PE instead of waiting out their timeout. Null elsewhere.
  const void* host_header = nullptr;
  // The remote path (the transport, or the proxy's host producer), for PEs with pe_index -1 (on
  // other hosts, or on forced hosts of this machine): host code only; null where every PE is
  // reachable by load and store, and on the GPU, where remote PEs need the proxy ring.
  RemotePath* remote = nullptr;
  // GPU kernels: the proxy ring through which they reach PEs of other hosts (pinned,
  // device-mapped host memory; the device API's remote branch posts there). Empty where every
  // PE is reachable, and in host code, which reaches them through `remote`.
  ProxyRing proxy{};

  static constexpr std::uint32_t kCheckArgs = 1u;
  // The heaps are device memory: host code must not load or store through heap_base.
  static constexpr std::uint32_t kDeviceHeap = 2u;
  // pe_index[pe] == pe for every PE (all PEs reachable, mapped in PE order): peer() needs no
  // table load. On the GPU that load misses L1 after every system-scope fence and costs a
  // microsecond per ping-pong hop.
  static constexpr std::uint32_t kIdentityIndex = 4u;
  // Another PE of this host runs on the same GPU: a wait that times out says what can deadlock
  // there (docs/gpu_backend.md, "PEs that share a GPU").
  static constexpr std::uint32_t kSharedGpu = 8u;
  // Host-side syncs of teams within this host use a central counter instead of dissemination:
  // set where the host has more PEs than CPUs (or SYMMETRA_SYNC=central), the same on every PE
  // of the host. One wait per PE instead of log2(n) chained ones costs fewer context switches.
  static constexpr std::uint32_t kCentralSync = 16u;
  // The collective workspace is split into kMaxChannels lanes, one per channel
  // (device/impl/heap_header.hpp): always on the GPU backend; on the CPU, where calls run one
  // channel, only with SYMMETRA_LL_LANES=1 (tests of the GPU's lane protocol).
  static constexpr std::uint32_t kWorkspaceLanes = 32u;
  // The program makes every member's dest ready before any member calls broadcast, alltoall or
  // alltoalls (OpenSHMEM's rule; RuntimeOptions::dest_ready_by_program): their one-channel
  // forms skip the credit hop (coll/credit.hpp). The same on every PE.
  static constexpr std::uint32_t kDestReadyByProgram = 64u;
  // This host runs more PEs than it has CPUs (SYMMETRA_CPUS, which symrun sets to its own
  // allowed CPUs, else the online CPUs): host waits yield almost at once instead of spinning
  // (src/core/host_wait.cpp). The same on every PE of the host.
  static constexpr std::uint32_t kOversubscribed = 128u;
  // The host forms record what they do (SYMMETRA_TRACE, SYMMETRA_NVTX; runtime.hpp's
  // ObserveScope): host code only. Off, each form pays one test of this bit.
  static constexpr std::uint32_t kObserve = 256u;
  // The host forms' direct path holds: the CPU backend, every PE reachable by load and store
  // with the identity index, nothing observed. Host code only: the host RMA and atomic forms
  // test this one bit, and go the general way (observe, GPU, remote) when it is clear.
  static constexpr std::uint32_t kHostDirect = 512u;

  // heap_bytes, read atomically on the host, where another thread of the PE may grow the heap
  // meanwhile (SHMEM_THREAD_MULTIPLE; Runtime::refresh_context writes it atomically too).
  SYMMETRA_INLINE std::uint64_t heap_extent() const {
#if SYMMETRA_DEVICE_PASS
    return heap_bytes;
#else
    return __atomic_load_n(&heap_bytes, __ATOMIC_RELAXED);
#endif
  }

  SYMMETRA_INLINE int index_of(int pe) const {
    return (flags & kIdentityIndex) ? pe : pe_index[pe];
  }

  // Whether PE `pe` (in range) is reachable by load and store: the local branch of every
  // data-path operation. One flag test where every PE is (kIdentityIndex), else a table load
  // that peer() makes anyway. Threads: any.
  SYMMETRA_INLINE bool reachable(int pe) const {
    return (flags & kIdentityIndex) || pe_index[pe] >= 0;
  }

  // Whether `p` is in this PE's symmetric static data (never on the GPU).
  SYMMETRA_INLINE bool in_static(const void* p) const {
    return reinterpret_cast<std::uintptr_t>(p) - static_lo < static_bytes;
  }

  // Bytes from this PE's heap slot to PE `pe`'s.
  SYMMETRA_INLINE std::int64_t peer_delta(int pe) const {
    return static_cast<std::int64_t>(index_of(pe) - my_index) * static_cast<std::int64_t>(stride);
  }

  // Translates a symmetric address of this PE into PE `pe`'s copy. Threads: any.
  template <class T>
  SYMMETRA_INLINE T* peer(T* p, int pe) const {
    const std::int64_t delta = peer_delta(pe);
    auto* b = reinterpret_cast<std::byte*>(const_cast<std::remove_cv_t<T>*>(p));
#if !SYMMETRA_DEVICE_PASS
    // Static data: to its window in this PE's heap slot, then like heap memory. One compare,
    // never taken for heap addresses (static_bytes is 0 unless static data is symmetric).
    if (in_static(b)) b = static_window + (reinterpret_cast<std::uintptr_t>(b) - static_lo);
#endif
    return reinterpret_cast<T*>(b + delta);
  }

  // The offset of symmetric `p` in its heap slot, the same on every PE: what the remote branch
  // hands a transport (static data through its window). Threads: any.
  SYMMETRA_INLINE std::uint64_t offset_of(const void* p) const {
    return static_cast<std::uint64_t>(peer(static_cast<const std::byte*>(p), my_pe) - heap_base);
  }
};

static_assert(std::is_trivially_copyable_v<Context>);
static_assert(std::is_trivially_copyable_v<TeamDesc>);
static_assert(std::is_trivially_copyable_v<ProxyRing>);

}  // namespace symmetra::device
