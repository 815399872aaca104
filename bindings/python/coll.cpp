// Teams and collectives from Python (docs/python.md "Collectives"): every call here is collective
// over its team and says so; each builds one coll::Call, the public API's collective descriptor,
// and hands it to Runtime::collective, with the GIL released while it runs.
#include <nanobind/stl/optional.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/string_view.h>

#include <algorithm>
#include <optional>
#include <string_view>

#include "bindings/python/common.hpp"

namespace symmetra::python {
namespace {

Team team_or_world(const std::optional<Team>& team, const char* op) {
  Runtime& r = rt(op);
  if (!team) return r.team_world();
  if (!team->valid())
    throw nb::value_error((std::string(op) + ": the team is not valid on this PE (a split that "
                                             "left this PE out gives None)")
                              .c_str());
  return *team;
}

coll::ReduceOp reduce_op_of(std::string_view s, const char* op) {
  static constexpr std::string_view kNames[] = {"sum", "prod", "min", "max", "and", "or", "xor"};
  for (int i = 0; i < 7; ++i)
    if (s == kNames[i]) return static_cast<coll::ReduceOp>(i);  // ReduceOp's order
  throw nb::value_error((std::string(op) +
                         ": op must be one of 'sum', 'prod', 'min', 'max', "
                         "'and', 'or', 'xor', not '" +
                         std::string(s) + "'")
                            .c_str());
}

coll::AllreduceAlgo algo_of(std::string_view s) {
  for (int i = 0; i < coll::kAllreduceAlgos; ++i)
    if (s == coll::algo_name(static_cast<coll::AllreduceAlgo>(i)))
      return static_cast<coll::AllreduceAlgo>(i);
  throw nb::value_error(("allreduce: algo must be 'auto', 'one_shot', 'two_shot', "
                         "'recursive_doubling', 'll_two_shot', 'hierarchical', 'ring', "
                         "'put_ring' or 'nccl', not '" +
                         std::string(s) + "'")
                            .c_str());
}

// dest and src of a collective: symmetric (allreduce: any memory of this PE's device), one
// element type the collectives take, and sizes in the ratio the kind needs (dest elements =
// src elements * dest_per / src_per).
coll::Call make(coll::Kind kind, const Team& team, nb::handle dest, nb::handle src,
                std::size_t dest_per, std::size_t src_per, const char* op) {
  Runtime& r = rt(op);
  const bool any_memory = kind == coll::Kind::kAllreduce;
  const Buffer d = any_memory ? buffer(dest, op, "dest") : symmetric(dest, op, "dest");
  const Buffer s = any_memory ? buffer(src, op, "src") : symmetric(src, op, "src");
  check_device(r, d, op, "dest");
  check_device(r, s, op, "src");
  check_same_dtype(d, s, op, "dest", "src");
  if (d.dtype < 0)
    throw nb::value_error((std::string(op) + ": dest holds " + dtype_name(d.dtype) +
                           "; collectives take int8-64, uint8-64, float16, bfloat16, float32 "
                           "and float64")
                              .c_str());
  if (d.count * src_per != s.count * dest_per)
    throw nb::value_error((std::string(op) + ": dest has " + std::to_string(d.count) +
                           " elements and src " + std::to_string(s.count) + "; " + op +
                           " over a team of " + std::to_string(team.n_pes()) + " needs dest = " +
                           (dest_per == src_per  ? "src"
                            : dest_per > src_per ? std::to_string(dest_per) + " x src"
                                                 : "src / " + std::to_string(src_per)) +
                           " elements")
                              .c_str());
  coll::Call c;
  c.kind = kind;
  c.type = static_cast<DataType>(d.dtype);
  c.team = team.handle();
  c.dest = d.data;
  c.source = s.data;
  c.nelems = d.count;
  return c;
}

// Runs `c`: the host form (GIL released while the members meet), or enqueued on `stream`,
// which returns at once: the GIL stays (releasing and taking it back costs more than the
// enqueue's own bookkeeping).
void run(const coll::Call& c, const char* op, nb::handle stream) {
  Runtime& r = rt(op);
  if (const std::optional<Stream> s = stream_of(r, stream, op)) return r.collective(c, *s);
  nb::gil_scoped_release release;
  r.collective(c);
}

int team_rank(int pe, const Team& team, const char* op, const char* arg, bool none_ok) {
  if (none_ok && pe == -1) return -1;
  if (pe < 0 || pe >= team.n_pes())
    throw nb::value_error((std::string(op) + ": " + arg + " " + std::to_string(pe) +
                           " is not a member of the team (" + std::to_string(team.n_pes()) +
                           " PEs)" + (none_ok ? "; None for no peer" : ""))
                              .c_str());
  return pe;
}

}  // namespace

void bind_coll(nb::module_& m) {
  const auto kTeam = nb::arg("team") = nb::none();
  const auto kStream = nb::arg("stream") = nb::none();
  m.def(
      "allreduce",
      [](nb::handle dest, nb::handle src, std::string_view op, std::optional<Team> team,
         std::string_view algo, nb::handle stream) {
        const Team t = team_or_world(team, "allreduce");
        coll::Call c = make(coll::Kind::kAllreduce, t, dest, src, 1, 1, "allreduce");
        c.op = reduce_op_of(op, "allreduce");
        c.algo = algo_of(algo);
        run(c, "allreduce", stream);
      },
      nb::arg("dest"), nb::arg("src"), nb::arg("op") = "sum", kTeam, nb::arg("algo") = "auto",
      kStream,
      "Collective: every member's dest gets the reduction of all members' src. dest may be src, "
      "and either may be private memory; algo 'auto' asks the selector.");
  m.def(
      "reduce_scatter",
      [](nb::handle dest, nb::handle src, std::string_view op, std::optional<Team> team,
         nb::handle stream) {
        const Team t = team_or_world(team, "reduce_scatter");
        const auto n = static_cast<std::size_t>(t.n_pes());
        coll::Call c = make(coll::Kind::kReduceScatter, t, dest, src, 1, n, "reduce_scatter");
        c.op = reduce_op_of(op, "reduce_scatter");
        run(c, "reduce_scatter", stream);
      },
      nb::arg("dest"), nb::arg("src"), nb::arg("op") = "sum", kTeam, kStream,
      "Collective: member i's dest gets block i of the reduction of all members' src (src holds "
      "one block of dest's size per member).");
  m.def(
      "all_gather",
      [](nb::handle dest, nb::handle src, std::optional<Team> team, nb::handle stream) {
        const Team t = team_or_world(team, "all_gather");
        const auto n = static_cast<std::size_t>(t.n_pes());
        coll::Call c = make(coll::Kind::kFcollect, t, dest, src, n, 1, "all_gather");
        c.nelems /= n;  // fcollect's nelems: one member's block
        run(c, "all_gather", stream);
      },
      nb::arg("dest"), nb::arg("src"), kTeam, kStream,
      "Collective: every member's dest gets all members' src, in team order.");
  m.def(
      "alltoall",
      [](nb::handle dest, nb::handle src, std::optional<Team> team, nb::handle stream) {
        const Team t = team_or_world(team, "alltoall");
        const auto n = static_cast<std::size_t>(t.n_pes());
        coll::Call c = make(coll::Kind::kAlltoall, t, dest, src, 1, 1, "alltoall");
        if (c.nelems % n != 0)
          throw nb::value_error(("alltoall: dest and src have " + std::to_string(c.nelems) +
                                 " elements, not a multiple of the team's " + std::to_string(n) +
                                 " members")
                                    .c_str());
        c.nelems /= n;  // alltoall's nelems: one block
        run(c, "alltoall", stream);
      },
      nb::arg("dest"), nb::arg("src"), kTeam, kStream,
      "Collective: block j of member i's src goes to block i of member j's dest.");
  m.def(
      "broadcast",
      [](nb::handle dest, nb::handle src, int root, std::optional<Team> team, nb::handle stream) {
        const Team t = team_or_world(team, "broadcast");
        coll::Call c = make(coll::Kind::kBroadcast, t, dest, src, 1, 1, "broadcast");
        c.root = team_rank(root, t, "broadcast", "root", false);
        run(c, "broadcast", stream);
      },
      nb::arg("dest"), nb::arg("src"), nb::arg("root") = 0, kTeam, kStream,
      "Collective: every member's dest gets the root's src (root: a team rank).");
  m.def(
      "permute",
      [](nb::handle dest, nb::handle src, std::optional<int> to, std::optional<int> from,
         std::optional<Team> team, std::optional<std::size_t> chunk, nb::handle stream) {
        const Team t = team_or_world(team, "permute");
        coll::Call c = make(coll::Kind::kPermute, t, dest, src, 1, 1, "permute");
        c.to = team_rank(to.value_or(-1), t, "permute", "to", true);
        c.from = team_rank(from.value_or(-1), t, "permute", "from_", true);
        if (chunk && *chunk == 0)
          throw nb::value_error("permute: chunk must be at least 1 element");
        c.chunk = chunk ? *chunk : std::max<std::size_t>(c.nelems, 1);
        run(c, "permute", stream);
      },
      nb::arg("dest"), nb::arg("src"), nb::arg("to").none() = nb::none(),
      nb::arg("from_").none() = nb::none(), kTeam, nb::arg("chunk") = nb::none(), kStream,
      "Collective: sends src to team rank `to` and receives dest from team rank `from_` (None: "
      "no peer that way), in chunks of `chunk` elements: a ring shift is to=(me+1)%n, "
      "from_=(me-1)%n.");
  m.def(
      "barrier",
      [](std::optional<Team> team, nb::handle stream) {
        const Team t = team_or_world(team, "barrier");
        Runtime& r = rt("barrier");
        if (const std::optional<Stream> s = stream_of(r, stream, "barrier"))
          return r.barrier_on_stream(t, *s);  // enqueued: the GIL stays
        nb::gil_scoped_release release;
        r.barrier(t);
      },
      kTeam, kStream,
      "Collective: quiet, then waits until every member has arrived (stream: in stream order, "
      "returning at once).");
  m.def(
      "sync",
      [](std::optional<Team> team, nb::handle stream) {
        const Team t = team_or_world(team, "sync");
        Runtime& r = rt("sync");
        if (const std::optional<Stream> s = stream_of(r, stream, "sync"))
          return r.sync_on_stream(t, *s);  // enqueued: the GIL stays
        nb::gil_scoped_release release;
        r.sync(t);
      },
      kTeam, kStream, "Collective: waits until every member has arrived (no quiet).");
}

}  // namespace symmetra::python
