// Settings read from the environment once per PE (documented in docs/configuration.md).
#pragma once

#include <cstdint>
#include <string>

#include "symmetra/error.hpp"

namespace symmetra::detail {

struct Config {
  std::uint64_t symmetric_size = 64ull << 20;         // SYMMETRA_SYMMETRIC_SIZE: initial heap
  std::uint64_t max_symmetric_size = 16ull << 30;     // SYMMETRA_MAX_SYMMETRIC_SIZE: growth limit
  std::uint64_t timeout_ns = 120ull * 1000000000ull;  // SYMMETRA_TIMEOUT_S: bound of every wait
  // SYMMETRA_COLL_WORKSPACE / SYMMETRA_COLL_TEAM_WORKSPACE: symmetric workspace of the
  // collectives (LL packets) for the world team, and for each other team slot.
  std::uint64_t ws_world_bytes = 8ull << 20;
  std::uint64_t ws_team_bytes = 1ull << 20;
  bool check = false;  // SYMMETRA_CHECK=1 (on by default in debug builds): argument checks
  // SYMMETRA_SYNC: how host-side team syncs wait (device/impl/sync_impl.hpp). kAuto: a central
  // counter where this host has more PEs than CPUs, else dissemination.
  enum class Sync { kAuto, kDissemination, kCentral };
  Sync sync = Sync::kAuto;
  // SYMMETRA_CPUS: the CPUs this host's PEs run on, to tell whether PEs outnumber them
  // (Context::kOversubscribed, central syncs); symrun sets it to its own allowed CPUs, since a
  // bound PE sees only its own. 0: the online CPUs.
  int cpus = 0;
  // SYMMETRA_HOSTS=H: the job's PEs sit on H forced hosts of this machine, PE p on host
  // p / ceil(n / H), as symrun --hosts H places them (which sets SYMMETRA_HOST_ID instead); PEs
  // of other forced hosts are remote, reached through the transport. PEs as threads too. 0: off.
  int hosts = 0;
  // SYMMETRA_TRANSPORT: how this PE reaches PEs of other hosts (src/transport/transport.hpp).
  // kAuto: UCX where PEs sit on several machines; the loopback test transport between forced
  // hosts of one machine. kUcx between forced hosts runs UCX itself (over TCP unless UCX_TLS
  // says otherwise), as the tests across network namespaces do.
  enum class TransportChoice { kAuto, kLoopback, kUcx };
  TransportChoice transport = TransportChoice::kAuto;
  // SYMMETRA_PROGRESS_POLL_US: how long a transport's progress thread keeps polling after it
  // served a delivery before it sleeps again (TransportParams::poll_ns). -1 (unset): 200 us,
  // and 0 where this machine's PEs outnumber its CPUs.
  int progress_poll_us = -1;
  // SYMMETRA_PROXY=1: the host's remote branch posts its operations to a proxy thread's ring
  // (src/proxy/), as GPU threads do, instead of calling the transport: the CPU producer of the
  // ring protocol's tests. SYMMETRA_PROXY_RING: the ring's entries (8 bytes each), a power of
  // two from 16.
  bool proxy = false;
  std::uint32_t proxy_ring_entries = 4096;
  // SYMMETRA_UCX_SERVED=1: the UCX transport sends gets and atomics, like puts, as active
  // messages that the target's CPU serves on its memory, instead of UCX's RMA and atomics on
  // registered memory: the path for memory UCX cannot register (a GPU heap without a
  // CUDA-enabled UCX), and on host memory a way to test it (docs/transports.md#ucx).
  bool ucx_served = false;
  // SYMMETRA_UCX_CUDA: whether UCX moves GPU heaps itself where it has CUDA support (1), or they
  // are staged through pinned host memory and served by the target's CPU (0). Unset (-1): UCX
  // moves them unless it runs over TCP alone, where its own CUDA path measured 11x slower than
  // staging (docs/proxy.md, "GPU memory over UCX").
  int ucx_cuda = -1;
  // GPU collectives split into channels, one block each (coll/channel.hpp):
  // SYMMETRA_CHANNEL_BYTES of data per channel, at most SYMMETRA_MAX_CHANNELS (1-32) channels.
  std::uint64_t channel_bytes = 32ull << 10;
  int max_channels = 32;
  // SYMMETRA_LL_LANES=1: split the CPU backend's collective workspace into channel lanes as the
  // GPU backend does (Context::kWorkspaceLanes), so that CPU tests run the GPU's lane protocol.
  bool ll_lanes = false;
  // SYMMETRA_STREAM_WAIT: how signal_wait_until_on_stream waits for kEq, kGe, kGt. kKernel (the
  // default, every build): a one-thread polling kernel bounded by SYMMETRA_TIMEOUT_S, which stops
  // the job with a message; kValue: cuStreamWaitValue64 (no SM, no bound: a lost signal holds the
  // stream forever, without a word).
  enum class StreamWait { kValue, kKernel };
  StreamWait stream_wait = StreamWait::kKernel;
  // SYMMETRA_TRACE=<file>: a JSON line per host and stream operation (core/trace.hpp); empty:
  // off. SYMMETRA_NVTX=1: an NVTX range per operation.
  std::string trace_path;
  bool nvtx = false;
};

Result<Config> config_from_env();
// SYMMETRA_TIMEOUT_S in milliseconds, for setup-time waits.
int timeout_ms_from_env();
// Parses "64M", "2G", "4096" (K, M, G, T suffixes, binary multiples).
Result<std::uint64_t> parse_size(const char* text);

}  // namespace symmetra::detail
