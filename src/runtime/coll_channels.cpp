// How many channels (GPU blocks) a collective call runs on (coll/channel.hpp). One block per PE
// cannot keep enough loads in flight to fill NVLink (about 4 GB/s per block measured on two
// H200s); channels split the message so that several blocks move it, each synchronizing only
// with its counterparts on the other members.
#include <algorithm>

#include "backend/backend.hpp"
#include "core/config.hpp"
#include "runtime/state.hpp"
#include "symmetra/coll/allreduce.hpp"
#include "symmetra/coll/channel.hpp"
#include "symmetra/runtime.hpp"

namespace symmetra {

int Runtime::coll_channels(const coll::Call& c) const {
  const std::uint64_t elem = static_cast<std::uint64_t>(data_type_size(c.type));
  const std::uint64_t m = static_cast<std::uint64_t>(s_->teams[c.team].size);
  if (m > (std::uint64_t{1} << device::detail::kChannelRounds)) return 1;
  std::uint64_t bytes = 0;  // what one member moves or reads
  switch (c.kind) {
    case coll::Kind::kReduce:
    case coll::Kind::kPermute:
      bytes = c.nelems * elem;
      break;
    case coll::Kind::kAllreduce: {
      if (!coll::takes_channels(c.algo)) return 1;  // the put ring among them
      bytes = c.nelems * elem;
      break;
    }
    case coll::Kind::kBroadcast:
    case coll::Kind::kFcollect:
    case coll::Kind::kFcollectRead:
    case coll::Kind::kAlltoall:
    case coll::Kind::kReduceScatter:
      bytes = c.nelems * elem * m;
      break;
    default:
      return 1;  // collect, alltoalls, the ring fcollect, barrier, sync
  }
  // Blocks of co-located PEs wait on each other's channels, so all of them must be resident at
  // once: kMaxChannels blocks per GPU in all (far below any GPU's capacity), split among them.
  const int per_gpu = s_->backend->max_pes_per_device();
  const int cap =
      std::max(1, std::min(s_->config->max_channels, device::detail::kMaxChannels / per_gpu));
  // LL channels carry a sixteenth as much (2 KiB by default): an LL channel's time grows with
  // the packets its one block stores and polls, where a direct channel's is mostly its two
  // syncs (docs/perf_gpu.md#channels).
  const bool ll = c.kind == coll::Kind::kAllreduce && coll::is_ll(c.algo);
  return coll::channels_for(
      bytes,
      ll ? std::max<std::uint64_t>(s_->config->channel_bytes / 16, 1) : s_->config->channel_bytes,
      cap);
}

}  // namespace symmetra
