// Runtime::plan and Runtime::collective: every collective call goes through plan, which checks
// it (team, buffers, the members' agreement, reach) and asks the planner (planner.hpp) what it
// becomes. collective then runs it: the CPU backend's host form on the calling thread, by
// element size or type (coll/run.hpp), elsewhere through the backend (gpu_collective). The
// typed host forms (impl/runtime_coll_host.hpp) run their algorithm inline after plan.
#include <algorithm>
#include <array>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "core/log.hpp"
#include "runtime/planner.hpp"
#include "runtime/state.hpp"
#include "symmetra/coll/run.hpp"
#include "symmetra/runtime.hpp"

namespace symmetra {
namespace {

// The call's name in messages ("allreduce", "allreduce_on_stream"): the host form's is the kind's
// literal; the stream form's is made once per kind, not on every call (a string built per call
// cost a heap allocation on the enqueue path).
const char* op_name(coll::Kind k, bool stream) {
  if (!stream) return coll::kind_name(k);
  constexpr int kKinds = static_cast<int>(coll::Kind::kSync) + 1;
  static const auto names = [] {
    std::array<std::array<std::string, 2>, kKinds> n;
    for (int i = 0; i < kKinds; ++i) {
      n[i][0] = coll::kind_name(static_cast<coll::Kind>(i));
      n[i][1] = n[i][0] + "_on_stream";
    }
    return n;
  }();
  return names[static_cast<int>(k)][stream ? 1 : 0].c_str();
}

// Whether [p, p + bytes) lies in the heap `[lo, lo + size)`, without a sum that could wrap.
bool inside(const void* p, std::size_t bytes, const std::byte* lo, std::size_t size) {
  const auto a = reinterpret_cast<std::uintptr_t>(p), b = reinterpret_cast<std::uintptr_t>(lo);
  return a >= b && a - b <= size && bytes <= size - (a - b);
}

}  // namespace

void Runtime::check_coll_buffers(const coll::Call& c, const char* op) const {
  using coll::Kind;
  if (c.kind == Kind::kAllreduce || c.kind == Kind::kBarrier || c.kind == Kind::kSync) return;
  const std::size_t elem = data_type_size(c.type), n = c.nelems * elem;
  // The team's size (an invalid handle is checked() next, by the caller: 1 until then).
  const bool team_ok = c.team >= 0 && c.team < device::kMaxTeams;
  const std::size_t m = static_cast<std::size_t>(team_ok ? std::max(s_->teams[c.team].size, 1) : 1);
  // Each kind's extent of dest and source in bytes; strided and variable ones from their start.
  std::size_t dest = n, source = n;
  switch (c.kind) {
    case Kind::kFcollect:
    case Kind::kFcollectRead:
    case Kind::kFcollectRing:
      dest = n * m;
      break;
    case Kind::kAlltoall:
      dest = source = n * m;
      break;
    case Kind::kReduceScatter:
      source = n * m;
      break;
    case Kind::kCollect:
    case Kind::kAlltoalls:
      dest = source = std::min<std::size_t>(n, elem);
      break;
    default:
      break;
  }
  const auto check = [&](const char* which, const void* p, std::size_t bytes) {
    if (bytes == 0 || inside(p, bytes, data_base(), data_size())) return;
    if (ctx_.in_static(p) && ctx_.in_static(static_cast<const std::byte*>(p) + bytes - 1)) return;
    char addr[32];
    std::snprintf(addr, sizeof(addr), "%p", p);
    fail(std::string(op) + ": " + which + " (" + std::to_string(bytes) + " bytes at " + addr +
         ") is not in the symmetric heap: a collective's buffers are symmetric (allocate them "
         "with the symmetric allocator, or make them global or static in an OpenSHMEM program)");
  };
  // A permute with no peer one way passes no buffer that way; null elsewhere fails its own check.
  if (c.dest != nullptr && !(c.kind == Kind::kPermute && c.from < 0)) check("dest", c.dest, dest);
  if (c.source != nullptr && !(c.kind == Kind::kPermute && c.to < 0))
    check("source", c.source, source);
}

bool Runtime::plan(coll::Call& c, Stream stream) {
  const char* op = op_name(c.kind, stream != nullptr);
  c.team = checked(Team(this, c.team), op);
  // The host forms' arguments agree across the team (checks on); the stream forms are not waited
  // for on the host, and a host round per enqueue would change what they are.
  if (c.kind != coll::Kind::kBarrier && c.kind != coll::Kind::kSync) {
    check_coll_buffers(c, op);
    if (!stream) agree_if_checking(c, op);
  }
  // GPU PEs reach members on other hosts through the proxy ring, from the kernels that have
  // the remote branch compiled in (CudaBackend::collective picks them); a PE without a ring
  // cannot, and says so before anything collective (NCCL's setup) starts. A team on one host has
  // all its members in one run (TeamDesc::local): one compare per call.
  if (const device::TeamDesc& t = s_->teams[c.team];
      gpu_ && t.local != t.size && ctx_.proxy.slots == nullptr) {
    for (int r = 0; r < t.size; ++r)
      if (const int pe = t.start + r * t.stride; !ctx_.reachable(pe))
        fail(std::string(op) + ": the team has PE " + std::to_string(pe) + " on host '" +
             s_->host_names[s_->host_of[pe]] +
             "', and this PE has no proxy ring to reach it (docs/proxy.md)");
  }
  // The team's first GPU all-reduce agrees whether NCCL can serve it (collective over the team).
  if (gpu_ && c.kind == coll::Kind::kAllreduce)
    s_->planner->ensure_nccl(c.team,
                             static_cast<std::uint64_t>(s_->machine_of[my_pe()]) << 32 |
                                 static_cast<std::uint32_t>(device()),
                             [&](std::uint64_t w) { return s_->teams.allgather(c.team, w); });
  const bool host = !gpu_ && !stream;  // the host form on the CPU backend
  if (detail::CollPlanner::leaves_alone(c, host)) return true;
  const std::size_t bytes = c.nelems * data_type_size(c.type);
  const bool reduces = c.kind == coll::Kind::kAllreduce || c.kind == coll::Kind::kReduce;
  const coll::Buffers buffers =
      reduces ? allreduce_buffers(c.dest, c.source, bytes) : coll::Buffers::kOther;
  auto route = s_->planner->resolve(c, host, buffers, true, op);
  if (route == detail::CollPlanner::Route::kStage) {
    if (staged_allreduce(c)) return false;
    route = s_->planner->resolve(c, host, buffers, false, op);  // no room for the block
  }
  if (route == detail::CollPlanner::Route::kTemporary) {
    // Into a temporary, then over dest: every member reads all of source first.
    std::vector<std::byte> tmp(bytes);
    void* dest = c.dest;
    c.dest = tmp.data();
    host_collective(c);
    std::memcpy(dest, tmp.data(), tmp.size());
    return false;
  }
  return true;
}

void Runtime::collective(const coll::Call& call, Stream stream) {
  const ObserveScope observe(*this, coll::kind_name(call.kind), -1,
                             call.nelems * data_type_size(call.type),
                             stream ? Form::kStream : Form::kHost, call.team);
  coll::Call c = call;
  if (!plan(c, stream)) return;
  if (!gpu_ && !stream) return host_collective(c);
  gpu_collective(c, stream, op_name(call.kind, stream != nullptr));
}

void Runtime::host_collective(const coll::Call& c) {
  const device::ThreadGroup g;
  if (coll::is_reduction(c.kind))
    return visit_type(
        c.type, [&](auto tag) { coll::run_reduce<typename decltype(tag)::type>(g, ctx_, c, {}); });
  visit_size(data_type_size(c.type),
             [&](auto tag) { coll::run_move<typename decltype(tag)::type>(g, ctx_, c, {}); });
}

}  // namespace symmetra
