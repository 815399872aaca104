// The collective planner (planner.hpp): resolution, the all-reduce's algorithm and its NCCL
// backend (a communicator per team, made on the team's first all-reduce on the GPU backend when
// every member can load NCCL and the members sit on distinct GPUs), and the channel rule.
#include "runtime/planner.hpp"

#include <algorithm>
#include <cstring>
#include <string>

#include "symmetra/coll/allreduce.hpp"
#include "symmetra/coll/channel.hpp"
#include "symmetra/error.hpp"

namespace symmetra::detail {
namespace {

bool nccl_type(DataType t, int* out) {
  switch (t) {
    case DataType::kInt8:
      *out = kNcclInt8;
      return true;
    case DataType::kUint8:
      *out = kNcclUint8;
      return true;
    case DataType::kInt32:
      *out = kNcclInt32;
      return true;
    case DataType::kUint32:
      *out = kNcclUint32;
      return true;
    case DataType::kInt64:
      *out = kNcclInt64;
      return true;
    case DataType::kUint64:
      *out = kNcclUint64;
      return true;
    case DataType::kHalf:
      *out = kNcclFloat16;
      return true;
    case DataType::kBfloat16:
      *out = kNcclBfloat16;
      return true;
    case DataType::kFloat:
      *out = kNcclFloat32;
      return true;
    case DataType::kDouble:
      *out = kNcclFloat64;
      return true;
    default:
      return false;  // 16-bit integers
  }
}

bool nccl_op(coll::ReduceOp op, int* out) {
  switch (op) {
    case coll::ReduceOp::kSum:
      *out = kNcclSum;
      return true;
    case coll::ReduceOp::kProd:
      *out = kNcclProd;
      return true;
    case coll::ReduceOp::kMin:
      *out = kNcclMin;
      return true;
    case coll::ReduceOp::kMax:
      *out = kNcclMax;
      return true;
    default:
      return false;  // bitwise
  }
}

// Whether `op` is defined on `t` (coll::op_defined); a type out of range is left to the checks
// that name it.
bool op_defined(DataType t, coll::ReduceOp op) {
  if (static_cast<unsigned>(t) > static_cast<unsigned>(DataType::kDouble)) return true;
  return visit_type(t,
                    [&](auto tag) { return coll::op_defined<typename decltype(tag)::type>(op); });
}

}  // namespace

void CollPlanner::fail(const std::string& what) const {
  throw_on_pe(facts_.my_pe, what);
}

CollPlanner::Route CollPlanner::resolve(coll::Call& c, bool host, coll::Buffers buffers,
                                        bool may_stage, const char* op) const {
  using coll::Kind;
  if (coll::is_reduction(c.kind) && !op_defined(c.type, c.op))
    fail(std::string(op) + ": " + coll::op_undefined_text());
  const std::size_t elem = data_type_size(c.type), bytes = c.nelems * elem;
  const auto overlap = [&](std::size_t dest_bytes, std::size_t source_bytes) {
    return c.dest != nullptr && c.source != nullptr &&
           coll::detail::ranges_overlap(c.dest, dest_bytes, c.source, source_bytes);
  };
  // Private buffers, at sizes where the selector would pick an algorithm that needs symmetric
  // ones: staged through a symmetric block. Every member passes private buffers alike (as every
  // member of an OpenSHMEM collective passes symmetric ones), so all take this route together.
  const bool reduces = c.kind == Kind::kAllreduce || (host && c.kind == Kind::kReduce);
  if (may_stage && host && reduces && c.team == device::kTeamWorld &&
      c.algo == coll::AllreduceAlgo::kAuto && buffers == coll::Buffers::kOther &&
      !coll::takes_buffers(
          allreduce_algo(c.team, bytes, coll::Buffers::kSeparate, c.algo, c.type, c.op),
          coll::Buffers::kOther)) {
    c.kind = Kind::kAllreduce;
    return Route::kStage;
  }
  if (c.kind == Kind::kReduce) {
    if (host) {
      // The same result as the all-reduce, whose selector picks among one-shot (what
      // coll::reduce is), recursive doubling, two-shot and the ring by size: faster than the
      // one-shot alone at large sizes (docs/perf_cpu.md#collectives); dest may be source.
      c.kind = Kind::kAllreduce;
      c.algo = coll::AllreduceAlgo::kAuto;
    } else if (overlap(bytes, bytes)) {
      // In place on the GPU: the LL two-shot reads each source once before it writes.
      c.kind = Kind::kAllreduce;
      c.algo = coll::AllreduceAlgo::kLLTwoShot;
      return Route::kRun;
    }
  }
  if (c.kind == Kind::kAllreduce) {
    c.algo = allreduce_algo(c.team, bytes, buffers, c.algo, c.type, c.op);
    return Route::kRun;
  }
  if (c.kind == Kind::kReduceScatter &&
      overlap(bytes, bytes * static_cast<std::size_t>(team(c.team).size))) {
    if (!host)
      fail(std::string(op) + ": dest and source overlap; the GPU forms need separate buffers");
    return Route::kTemporary;
  }
  // Chunks exist for consumers of each chunk (the device form's on_chunk); a kernel per call
  // has none, and each chunk costs a fence and a signal: one chunk per channel. A chunk of 0
  // still goes down, for the device form's argument check to report.
  if (c.kind == Kind::kPermute && !host)
    c.chunk = c.chunk == 0 ? 0 : std::max<std::size_t>(c.nelems, 1);
  return Route::kRun;
}

coll::AllreduceAlgo CollPlanner::allreduce_algo(int h, std::size_t bytes, coll::Buffers buffers,
                                                coll::AllreduceAlgo requested, DataType type,
                                                coll::ReduceOp op) const {
  const NcclTeams::Entry& e = nccl_.at(team(h).slot);
  int unused = 0;
  const bool served = nccl_type(type, &unused) && nccl_op(op, &unused);
  const bool nccl = facts_.gpu && e.state == NcclTeams::State::kReady && served;
  if (requested == coll::AllreduceAlgo::kAuto)
    return selector_.pick(team(h), bytes, buffers, facts_.gpu, nccl);
  if (requested == coll::AllreduceAlgo::kNccl && !nccl)
    fail(std::string("allreduce: NCCL cannot serve this call: ") +
         (!facts_.gpu                                ? "it needs the CUDA backend"
          : e.state == NcclTeams::State::kIneligible ? e.why
          : !served ? "NCCL has no 16-bit integers or bitwise reductions"
                    : "the team's first all-reduce has not run yet"));
  if (!coll::takes_buffers(requested, buffers))
    fail(std::string("allreduce: the ") + coll::algo_name(requested) +
         " algorithm needs separate symmetric source and dest buffers (the ring takes one in "
         "place too, the put ring does not; the LL algorithms take any)");
  if (team(h).local != team(h).size && coll::needs_load_store(requested))
    fail(std::string("allreduce: the ") + coll::algo_name(requested) +
         " algorithm loads and stores other members' memory, and the team spans hosts: use "
         "hierarchical, put_ring, recursive_doubling, ll_two_shot or auto");
  return requested;
}

// One block per PE cannot keep enough loads in flight to fill NVLink (docs/perf_gpu.md#channels):
// channels split the message so that several blocks move it, each synchronizing only with its
// counterparts on the other members.
int CollPlanner::channels(const coll::Call& c) const {
  const std::uint64_t elem = static_cast<std::uint64_t>(data_type_size(c.type));
  const std::uint64_t m = static_cast<std::uint64_t>(team(c.team).size);
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
  const int cap = std::max(
      1, std::min(facts_.max_channels, device::detail::kMaxChannels / facts_.pes_per_device));
  // LL channels carry a sixteenth as much: an LL channel's time grows with the packets its one
  // block stores and polls, where a direct channel's is mostly its two syncs.
  const bool ll = c.kind == coll::Kind::kAllreduce && coll::is_ll(c.algo);
  return coll::channels_for(
      bytes, ll ? std::max<std::uint64_t>(facts_.channel_bytes / 16, 1) : facts_.channel_bytes,
      cap);
}

bool CollPlanner::nccl_ready(int h) const {
  return facts_.gpu && nccl_.at(team(h).slot).state == NcclTeams::State::kReady;
}

void CollPlanner::ensure_nccl(
    int h, std::uint64_t where,
    const std::function<std::vector<std::uint64_t>(std::uint64_t)>& allgather) {
  NcclTeams::Entry& e = nccl_.at(team(h).slot);
  if (!facts_.gpu || e.state != NcclTeams::State::kUnknown) return;
  // Collective over the team, once: every member learns the same answer.
  const device::TeamDesc t = team(h);
  auto lib = nccl_library();
  // One word per member: bit 63 "loads NCCL", then its machine and GPU. The machine, not the
  // host: forced hosts of one machine share its GPUs.
  constexpr std::uint64_t kLoads = std::uint64_t{1} << 63;
  const auto words = allgather((lib.ok() ? kLoads : 0) | (where & ~kLoads));
  std::string why;
  for (int r = 0; r < t.size && why.empty(); ++r) {
    if ((words[r] & kLoads) == 0)
      why = lib.ok() ? "PE " + std::to_string(device::detail::team_pe(t, r)) + " cannot load NCCL"
                     : lib.status().message();
    for (int q = 0; q < r && why.empty(); ++q)
      if ((words[q] & ~kLoads) == (words[r] & ~kLoads))
        why = "PEs " + std::to_string(device::detail::team_pe(t, q)) + " and " +
              std::to_string(device::detail::team_pe(t, r)) + " share GPU " +
              std::to_string(words[r] & 0xffffffffu) + " (NCCL needs one GPU per rank)";
  }
  if (!why.empty()) {
    e.state = NcclTeams::State::kIneligible;
    e.why = why;
    return;
  }
  NcclUniqueId id{};
  if (t.my_rank == 0) {
    const int rc = lib.value()->get_unique_id(&id);
    if (rc != 0)
      fail(std::string("allreduce: ncclGetUniqueId: ") + lib.value()->get_error_string(rc));
  }
  for (std::size_t w = 0; w < sizeof(id.internal) / 8; ++w) {  // rank 0's id, a word at a time
    std::uint64_t word;
    std::memcpy(&word, id.internal + 8 * w, 8);
    word = allgather(word)[0];
    std::memcpy(id.internal + 8 * w, &word, 8);
  }
  const int rc = lib.value()->comm_init_rank(&e.comm, t.size, id, t.my_rank);
  if (rc != 0)
    fail(std::string("allreduce: ncclCommInitRank: ") + lib.value()->get_error_string(rc));
  e.state = NcclTeams::State::kReady;
}

void CollPlanner::nccl_allreduce(const coll::Call& c, Stream stream, const char* op) const {
  const NcclTeams::Entry& e = nccl_.at(team(c.team).slot);
  int type = 0, rop = 0;
  if (e.state != NcclTeams::State::kReady || !nccl_type(c.type, &type) || !nccl_op(c.op, &rop))
    fail(std::string(op) + ": NCCL cannot serve this call");
  auto lib = nccl_library();
  const int rc = lib.value()->all_reduce(c.source, c.dest, c.nelems, type, rop, e.comm, stream);
  if (rc != 0) fail(std::string(op) + ": ncclAllReduce: " + lib.value()->get_error_string(rc));
}

}  // namespace symmetra::detail
