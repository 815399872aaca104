// symmetra._symmetra: the Python extension (docs/python.md). This part: the process's Runtime
// (init, finalize, leaving at exit), the exceptions, and teams. Setup calls are collective and
// say so; nothing collective happens in any other call, and importing the module starts nothing.
#include <nanobind/stl/optional.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/string_view.h>

#include <cstring>
#include <memory>
#include <optional>

#include "bindings/python/common.hpp"

namespace symmetra::python {
namespace {

std::unique_ptr<Runtime> g_rt;
bool g_finalized = false;
// A Runtime whose process is ending without finalize (leave()): kept reachable, never torn
// down, so that nothing collective or blocking runs at exit (the C API does the same).
// Volatile: nothing reads it, and an optimized build would drop the store (LeakSanitizer).
Runtime* volatile g_left = nullptr;

Backend backend_of(std::string_view s) {
  if (s.empty() || s == "auto") return Backend::kAuto;
  if (s == "cpu") return Backend::kCpu;
  if (s == "cuda") return Backend::kCuda;
  throw nb::value_error(("init: backend must be 'cpu', 'cuda' or 'auto' (SYMMETRA_BACKEND), not '" +
                         std::string(s) + "'")
                            .c_str());
}

void check_team_live(const char* op) {
  (void)rt(op);
}

}  // namespace

Runtime* rt_or_null() {
  return g_rt.get();
}

Runtime& rt(const char* op) {
  if (!g_rt)
    throw Error(std::string(op) + ": symmetra is " +
                (g_finalized ? "finalized" : "not initialized: call symmetra.init() first"));
  return *g_rt;
}

}  // namespace symmetra::python

NB_MODULE(_symmetra, m) {
  namespace nb = nanobind;
  using namespace symmetra;
  using namespace symmetra::python;
  m.doc() = "Symmetra's extension: use the symmetra package, not this module.";

  // The library's errors keep its "[pe N] op: ..." message. The base first: nanobind tries the
  // most recently registered translator first. Not static: the module holds the types, and a
  // static's destructor would run after the interpreter has ended.
  const nb::exception<Error> error(m, "SymmetraError", PyExc_RuntimeError);
  const nb::exception<JobStopped> stopped(m, "JobStopped", error);
  const nb::exception<OutOfMemory> oom(m, "OutOfMemory", error);
  const nb::exception<Timeout> timeout(m, "Timeout", error);

  m.def(
      "get_unique_id",
      [] {
        const UniqueId id = get_unique_id();
        return nb::bytes(id.bytes, strnlen(id.bytes, sizeof(id.bytes)));
      },
      "PE 0 only, not collective: a job's meeting point as bytes, to pass to every PE's "
      "init(unique_id=...). This process listens for the job from now on.");
  m.def(
      "_init",
      [](std::optional<nb::bytes> unique_id, int rank, int world_size, std::string_view backend,
         int device) {
        if (g_rt) throw Error("init: symmetra is already initialized in this process");
        if (g_finalized)
          throw Error("init: symmetra was finalized in this process and cannot start again");
        RuntimeOptions options;
        options.backend = backend_of(backend);
        options.device = device;
        std::optional<UniqueId> id;
        if (unique_id) {
          if (unique_id->size() >= sizeof(UniqueId::bytes))
            throw nb::value_error("init: unique_id is longer than any that get_unique_id makes");
          id.emplace();
          std::memcpy(id->bytes, unique_id->c_str(), unique_id->size());
        }
        nb::gil_scoped_release release;  // the rendezvous waits for the other PEs
        g_rt = id ? Runtime::init(*id, rank, world_size, options) : Runtime::init(options);
      },
      nb::arg("unique_id").none(), nb::arg("rank"), nb::arg("world_size"), nb::arg("backend"),
      nb::arg("device"));
  m.def(
      "finalize",
      [] {
        Runtime& r = rt("finalize");
        {
          nb::gil_scoped_release release;
#if SYMMETRA_HAVE_JAX_FFI
          release_jax_state();
#endif
          release_rings();
          release_moe();
          r.finalize();
        }
        g_rt.reset();
        g_finalized = true;
      },
      "Collective: completes this PE's operations, waits for every PE, releases the heap. Arrays "
      "must not be used after.");
  m.def("_leave", [] {
    if (!g_rt) return;
    g_rt->leave();
    g_left = g_rt.release();
  });
  m.def("initialized", [] { return g_rt != nullptr; });
  m.def("my_pe", [] { return rt("my_pe").my_pe(); });
  m.def("n_pes", [] { return rt("n_pes").n_pes(); });
  m.def("on_gpu", [] { return rt("on_gpu").on_gpu(); });
  m.def(
      "pe_local", [](int pe) { return rt("pe_local").pe_local(pe); }, nb::arg("pe"),
      "Whether PE pe is reachable by load and store (peer() gives a view of its memory).");
  m.def("heap_used", [] { return rt("heap_used").heap_used(); });

  nb::class_<Team>(m, "Team",
                   "An ordered subset of the world's PEs; numbers passed to a team's calls are "
                   "team ranks.")
      .def_prop_ro("my_pe",
                   [](const Team& t) {
                     check_team_live("Team.my_pe");
                     return t.my_pe();
                   })
      .def_prop_ro("n_pes",
                   [](const Team& t) {
                     check_team_live("Team.n_pes");
                     return t.n_pes();
                   })
      .def(
          "world_pe",
          [](const Team& t, int pe) {
            check_team_live("Team.world_pe");
            if (pe < 0 || pe >= t.n_pes())
              throw nb::value_error(("Team.world_pe: " + std::to_string(pe) +
                                     " is not a member (team of " + std::to_string(t.n_pes()) + ")")
                                        .c_str());
            return t.world_pe(pe);
          },
          nb::arg("pe"))
      .def(
          "translate_pe",
          [](const Team& t, int pe, const Team& dest) {
            check_team_live("Team.translate_pe");
            if (pe < 0 || pe >= t.n_pes())
              throw nb::value_error(("Team.translate_pe: " + std::to_string(pe) +
                                     " is not a member (team of " + std::to_string(t.n_pes()) + ")")
                                        .c_str());
            const int out = t.translate_pe(pe, dest);
            return out < 0 ? std::optional<int>() : std::optional<int>(out);
          },
          nb::arg("pe"), nb::arg("dest"),
          "Member pe's number in team dest, or None where it is not a member.")
      .def(
          "split_strided",
          [](const Team& t, int start, int stride, int size) -> std::optional<Team> {
            Runtime& r = rt("split_strided");
            Team out;
            {
              nb::gil_scoped_release release;
              out = r.split_strided(t, start, stride, size);
            }
            return out.valid() ? std::optional<Team>(out) : std::nullopt;
          },
          nb::arg("start"), nb::arg("stride"), nb::arg("size"),
          "Collective over this team: members start, start+stride, ... (size of them). PEs "
          "outside the new team get None.")
      .def(
          "split_2d",
          [](const Team& t, int xrange) {
            Runtime& r = rt("split_2d");
            Team x, y;
            {
              nb::gil_scoped_release release;
              r.split_2d(t, xrange, &x, &y);
            }
            return std::make_pair(x, y);
          },
          nb::arg("xrange"),
          "Collective over this team: a grid of xrange columns; returns (row team, column team).")
      .def(
          "destroy",
          [](Team& t) {
            Runtime& r = rt("Team.destroy");
            if (t == r.team_world() || t == r.team_shared())
              throw nb::value_error("Team.destroy: the world and shared teams live until finalize");
            nb::gil_scoped_release release;
            r.destroy(t);
          },
          "Collective over the team's members.")
      .def("__eq__", [](const Team& a, const Team& b) { return a == b; })
      .def("__repr__", [](const Team& t) {
        return "symmetra.Team(handle=" + std::to_string(t.handle()) + ")";
      });
  m.def("team_world", [] { return rt("team_world").team_world(); });
  m.def(
      "team_shared", [] { return rt("team_shared").team_shared(); },
      "The PEs of this host that reach each other by load and store.");

  bind_array(m);
  bind_ops(m);
  bind_coll(m);
  bind_bench(m);
  bind_ring(m);
#if SYMMETRA_HAVE_JAX_FFI
  bind_jax(m);
#endif
}
