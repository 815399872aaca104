// Runtime::collective: one entry for every collective call (runtime.hpp). It checks the call,
// resolves what depends on the backend and the buffers (the all-reduce's algorithm, in-place
// reductions), then runs it: on the CPU backend's host form on the calling thread, by element
// size or type (coll/run.hpp), elsewhere through the backend (gpu_collective).
#include <algorithm>
#include <array>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "core/log.hpp"
#include "runtime/state.hpp"
#include "symmetra/coll/run.hpp"
#include "symmetra/runtime.hpp"

namespace symmetra {
namespace {

// The call's name in messages ("allreduce", "allreduce_on_stream"): made once per kind, not on
// every call (a string built per call cost a heap allocation on the enqueue path).
const char* op_name(coll::Kind k, bool stream) {
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

void Runtime::collective(const coll::Call& call, Stream stream) {
  const ObserveScope observe(*this, coll::kind_name(call.kind), -1,
                             call.nelems * data_type_size(call.type),
                             stream ? Form::kStream : Form::kHost, call.team);
  coll::Call c = call;
  const char* op = op_name(c.kind, stream != nullptr);
  c.team = checked(Team(this, c.team), op);
  // The host forms' arguments agree across the team (checks on); the stream forms are not waited
  // for on the host, and a host round per enqueue would change what they are.
  if (c.kind != coll::Kind::kBarrier && c.kind != coll::Kind::kSync)
    enter_collective(c, op, !stream);
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
  const bool host = !gpu_ && !stream;  // the host form on the CPU backend
  const std::size_t elem = data_type_size(c.type);
  const auto overlap = [&](std::size_t dest_elems, std::size_t source_elems) {
    return c.dest != nullptr && c.source != nullptr &&
           coll::detail::ranges_overlap(c.dest, dest_elems * elem, c.source, source_elems * elem);
  };
  const bool floating = c.type == DataType::kHalf || c.type == DataType::kBfloat16 ||
                        c.type == DataType::kFloat || c.type == DataType::kDouble;
  if (coll::is_reduction(c.kind) && coll::is_bitwise(c.op) && floating)
    fail(std::string(op) + ": " + coll::op_undefined_text());

  // Private buffers, at sizes where the selector would pick an algorithm that needs symmetric
  // ones: staged through a symmetric block. Every member passes private buffers alike (as every
  // member of an OpenSHMEM collective passes symmetric ones), so all take this path together.
  if (host && c.kind == coll::Kind::kAllreduce && c.team == device::kTeamWorld &&
      c.algo == coll::AllreduceAlgo::kAuto &&
      allreduce_buffers(c.dest, c.source, c.nelems * elem) == coll::Buffers::kOther &&
      !coll::takes_buffers(allreduce_algo(Team(this, c.team), c.nelems * elem,
                                          coll::Buffers::kSeparate, c.algo, c.type, c.op),
                           coll::Buffers::kOther) &&
      staged_allreduce(c))
    return;
  bool resolve_algo = c.kind == coll::Kind::kAllreduce;
  if (c.kind == coll::Kind::kReduce) {
    if (host) {
      // The same result as the all-reduce, whose selector picks among one-shot (what
      // coll::reduce is), recursive doubling, two-shot and the ring by size: about twice as fast
      // as the one-shot alone at large sizes (docs/perf_cpu.md#collectives); dest may be source.
      c.kind = coll::Kind::kAllreduce;
      c.algo = coll::AllreduceAlgo::kAuto;
      resolve_algo = true;
    } else if (overlap(c.nelems, c.nelems)) {
      // In place on the GPU: the LL two-shot reads each source once before it writes.
      c.kind = coll::Kind::kAllreduce;
      c.algo = coll::AllreduceAlgo::kLLTwoShot;
    }
  }
  if (resolve_algo) {
    if (gpu_) ensure_nccl(c.team);  // the team's first call: agree whether NCCL can serve it
    c.algo =
        allreduce_algo(Team(this, c.team), c.nelems * elem,
                       allreduce_buffers(c.dest, c.source, c.nelems * elem), c.algo, c.type, c.op);
  }
  if (c.kind == coll::Kind::kReduceScatter &&
      overlap(c.nelems, c.nelems * static_cast<std::size_t>(s_->teams[c.team].size))) {
    if (!host)
      fail(std::string(op) + ": dest and source overlap; the GPU forms need separate buffers");
    // Into a temporary, then over dest: every member reads all of source first.
    std::vector<std::byte> tmp(c.nelems * elem);
    void* dest = c.dest;
    c.dest = tmp.data();
    host_collective(c);
    std::memcpy(dest, tmp.data(), tmp.size());
    return;
  }
  // Chunks exist for consumers of each chunk (the device form's on_chunk); a kernel per call
  // has none, and each chunk costs a fence and a signal: one chunk per channel. A chunk of 0
  // still goes down, for the device form's argument check to report.
  if (c.kind == coll::Kind::kPermute && !host)
    c.chunk = c.chunk == 0 ? 0 : std::max<std::size_t>(c.nelems, 1);
  if (host) return host_collective(c);
  gpu_collective(c, stream, op);
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
