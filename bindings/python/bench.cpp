// What bench/python/overhead.py --stream compares Python against: the C++ stream forms, called
// from C++ in the same process, on the same stream and memory as the Python calls. Two processes
// (one per side) sharing the GPU spread by more than the difference being measured; blocks of
// the two sides alternating in one process see the same GPU and the same launch queue.
#include <nanobind/stl/string_view.h>

#include <chrono>
#include <string>
#include <string_view>

#include "bindings/python/common.hpp"

namespace symmetra::python {

void bind_bench(nb::module_& m) {
  m.def(
      "_bench_cpp_enqueues",
      [](std::string_view op, nb::handle a, nb::handle b, int peer, nb::handle stream, int calls) {
        Runtime& r = rt("_bench_cpp_enqueues");
        const std::optional<Stream> s = stream_of(r, stream, "_bench_cpp_enqueues");
        if (!s) throw nb::value_error("_bench_cpp_enqueues: needs a stream");
        check_pe(r, peer, "_bench_cpp_enqueues");
        void* x = symmetric(a, "_bench_cpp_enqueues", "a").data;
        void* y = symmetric(b, "_bench_cpp_enqueues", "b").data;
        const Team world = r.team_world();
        const auto t0 = std::chrono::steady_clock::now();
        if (op == "put") {
          for (int i = 0; i < calls; ++i) r.putmem_on_stream(x, y, 64, peer, *s);
        } else if (op == "signal_op") {
          auto* sig = static_cast<std::uint64_t*>(x);
          for (int i = 0; i < calls; ++i) r.signal_op_on_stream(sig, 1, SignalOp::kSet, peer, *s);
        } else if (op == "allreduce") {
          auto* d = static_cast<float*>(x);
          const auto* src = static_cast<const float*>(y);
          for (int i = 0; i < calls; ++i)
            r.allreduce_on_stream(world, d, src, 8, coll::ReduceOp::kSum, *s);
        } else if (op == "barrier_all") {
          for (int i = 0; i < calls; ++i) r.barrier_all_on_stream(*s);
        } else {
          throw nb::value_error(("_bench_cpp_enqueues: no op '" + std::string(op) + "'").c_str());
        }
        return std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0)
                   .count() /
               calls;
      },
      nb::arg("op"), nb::arg("a"), nb::arg("b"), nb::arg("peer"), nb::arg("stream").none(),
      nb::arg("calls"),
      "Benchmarks only (bench/python/overhead.py): `calls` enqueues of op's C++ stream form "
      "(put 64 bytes a <- b, signal_op on a, allreduce of 8 float32 a <- b, barrier_all); returns "
      "microseconds per call.");
}

}  // namespace symmetra::python
