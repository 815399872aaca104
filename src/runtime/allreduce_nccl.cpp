// The all-reduce's choice of algorithm (Runtime::allreduce_algo, through the selector) and its
// NCCL backend: a communicator per team, made on the team's first all-reduce on the GPU backend
// when every member can load NCCL and the members sit on distinct GPUs.
#include <cstring>
#include <string>

#include "coll/nccl.hpp"
#include "coll/selector.hpp"
#include "runtime/state.hpp"
#include "symmetra/runtime.hpp"

namespace symmetra {

namespace {

bool nccl_type(DataType t, int* out) {
  switch (t) {
    case DataType::kInt8:
      *out = detail::kNcclInt8;
      return true;
    case DataType::kUint8:
      *out = detail::kNcclUint8;
      return true;
    case DataType::kInt32:
      *out = detail::kNcclInt32;
      return true;
    case DataType::kUint32:
      *out = detail::kNcclUint32;
      return true;
    case DataType::kInt64:
      *out = detail::kNcclInt64;
      return true;
    case DataType::kUint64:
      *out = detail::kNcclUint64;
      return true;
    case DataType::kHalf:
      *out = detail::kNcclFloat16;
      return true;
    case DataType::kBfloat16:
      *out = detail::kNcclBfloat16;
      return true;
    case DataType::kFloat:
      *out = detail::kNcclFloat32;
      return true;
    case DataType::kDouble:
      *out = detail::kNcclFloat64;
      return true;
    default:
      return false;  // 16-bit integers
  }
}

bool nccl_op(coll::ReduceOp op, int* out) {
  switch (op) {
    case coll::ReduceOp::kSum:
      *out = detail::kNcclSum;
      return true;
    case coll::ReduceOp::kProd:
      *out = detail::kNcclProd;
      return true;
    case coll::ReduceOp::kMin:
      *out = detail::kNcclMin;
      return true;
    case coll::ReduceOp::kMax:
      *out = detail::kNcclMax;
      return true;
    default:
      return false;  // bitwise
  }
}

}  // namespace

bool Runtime::nccl_ready(const Team& team) const {
  return on_gpu() && s_->nccl->at(s_->teams[checked(team, "nccl_ready")].slot).state ==
                         detail::NcclTeams::State::kReady;
}

void Runtime::ensure_nccl(int team) {
  detail::NcclTeams::Entry& e = s_->nccl->at(s_->teams[team].slot);
  if (!on_gpu() || e.state != detail::NcclTeams::State::kUnknown) return;
  // Collective over the team, once: every member learns the same answer.
  const device::TeamDesc t = s_->teams[team];
  auto lib = detail::nccl_library();
  // One word per member: bit 63 "loads NCCL", then its machine (bits 32-62) and GPU (bits
  // 0-31). The machine, not the host: forced hosts of one machine share its GPUs.
  constexpr std::uint64_t kLoads = std::uint64_t{1} << 63;
  const std::uint64_t mine = (lib.ok() ? kLoads : 0) |
                             (static_cast<std::uint64_t>(s_->machine_of[my_pe()]) << 32) |
                             static_cast<std::uint32_t>(device());
  const auto words = team_allgather(team, mine);
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
    e.state = detail::NcclTeams::State::kIneligible;
    e.why = why;
    return;
  }
  detail::NcclUniqueId id{};
  if (t.my_rank == 0) {
    const int rc = lib.value()->get_unique_id(&id);
    if (rc != 0)
      fail(std::string("allreduce: ncclGetUniqueId: ") + lib.value()->get_error_string(rc));
  }
  for (std::size_t w = 0; w < sizeof(id.internal) / 8; ++w) {  // rank 0's id, a word at a time
    std::uint64_t word;
    std::memcpy(&word, id.internal + 8 * w, 8);
    word = team_allgather(team, word)[0];
    std::memcpy(id.internal + 8 * w, &word, 8);
  }
  const int rc = lib.value()->comm_init_rank(&e.comm, t.size, id, t.my_rank);
  if (rc != 0)
    fail(std::string("allreduce: ncclCommInitRank: ") + lib.value()->get_error_string(rc));
  e.state = detail::NcclTeams::State::kReady;
}

void Runtime::nccl_allreduce(const coll::Call& c, Stream stream, const char* op) {
  const detail::NcclTeams::Entry& e = s_->nccl->at(s_->teams[c.team].slot);
  int type = 0, rop = 0;
  if (e.state != detail::NcclTeams::State::kReady || !nccl_type(c.type, &type) ||
      !nccl_op(c.op, &rop))
    fail(std::string(op) + ": NCCL cannot serve this call");
  auto lib = detail::nccl_library();
  const int rc = lib.value()->all_reduce(c.source, c.dest, c.nelems, type, rop, e.comm, stream);
  if (rc != 0) fail(std::string(op) + ": ncclAllReduce: " + lib.value()->get_error_string(rc));
}

coll::AllreduceAlgo Runtime::allreduce_algo(const Team& team, std::size_t bytes,
                                            coll::Buffers buffers, coll::AllreduceAlgo requested,
                                            DataType type, coll::ReduceOp op) const {
  const int h = checked(team, "allreduce");
  const detail::NcclTeams::Entry& e = s_->nccl->at(s_->teams[h].slot);
  int unused = 0;
  const bool served = nccl_type(type, &unused) && nccl_op(op, &unused);
  const bool nccl = on_gpu() && e.state == detail::NcclTeams::State::kReady && served;
  if (requested == coll::AllreduceAlgo::kAuto)
    return s_->selector->pick(s_->teams[h], bytes, buffers, on_gpu(), nccl);
  if (requested == coll::AllreduceAlgo::kNccl && !nccl)
    fail(std::string("allreduce: NCCL cannot serve this call: ") +
         (!on_gpu()                                          ? "it needs the CUDA backend"
          : e.state == detail::NcclTeams::State::kIneligible ? e.why
          : !served ? "NCCL has no 16-bit integers or bitwise reductions"
                    : "the team's first all-reduce has not run yet"));
  if (!coll::takes_buffers(requested, buffers))
    fail(std::string("allreduce: the ") + coll::algo_name(requested) +
         " algorithm needs separate symmetric source and dest buffers (the ring takes one in "
         "place too, the put ring does not; the LL algorithms take any)");
  if (s_->teams[h].local != s_->teams[h].size && coll::needs_load_store(requested))
    fail(std::string("allreduce: the ") + coll::algo_name(requested) +
         " algorithm loads and stores other members' memory, and the team spans hosts: use "
         "hierarchical, put_ring, recursive_doubling, ll_two_shot or auto");
  return requested;
}

}  // namespace symmetra
