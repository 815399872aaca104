// symmetra-perf: point-to-point and synchronization costs on CPU PEs.
//
//   symrun -n 4 symmetra-perf [--quick] [--max-bytes N] [--allreduce-max N] [--parts LIST]
//
// PE 0 measures against PE 1 (put/get latency and bandwidth 8 B - 4 MiB, p, put_signal
// ping-pong, fetch_add); barrier latency is measured on teams of 2, 4, ... n PEs. Times come
// from steady_clock around batches of operations after a warm-up; rows report the median and
// 99th percentile over batches. Allocation: malloc + free against barrier_all (--parts alloc
// alone for the large PE counts). All-reduce: every algorithm and the selector's pick, 8 B -
// 64 MiB. bench/oshmem/oshmem_perf.c measures the same with OpenSHMEM.
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "perf_report.hpp"
#include "symmetra/introspect.hpp"
#include "symmetra/runtime.hpp"

namespace {

using symmetra::Runtime;
using symmetra::bench::Report;
using symmetra::bench::Row;

using symmetra::bench::now_us;
using symmetra::bench::sample;

struct Options {
  bool quick = false;
  std::size_t max_bytes = 4u << 20;
  std::size_t allreduce_max = 64u << 20;
  // --parts rma,small,barrier,alloc,coll,allreduce: the sections to run (default all), so that a
  // paired check of a few rows need not run the whole sweep.
  std::string parts = "rma,small,barrier,alloc,coll,allreduce";
  bool runs(const char* part) const {
    const std::string p = "," + parts + ",";
    return p.find("," + std::string(part) + ",") != std::string::npos;
  }
};

void add(Report& report, Runtime& rt, const char* op, std::size_t bytes, std::vector<double> us,
         bool bandwidth) {
  double p50, p99;
  symmetra::bench::percentiles(std::move(us), &p50, &p99);
  report.add(Row{op, bytes, rt.n_pes(), "host", "symmetra-cpu", p50, p99,
                 bandwidth ? bytes / (p50 * 1e3) : 0});
}

void rma_sweep(Runtime& rt, Report& report, const Options& o) {
  auto* buf = static_cast<char*>(rt.allocate(o.max_bytes));
  // The private side of each copy sits 16 bytes past a page, where glibc puts a large malloc
  // block (and where buf sits in its line). A plain vector's place would depend on how much the
  // library malloc'ed before it, and a small get's time on where its destination falls against
  // a page boundary (docs/perf_cpu.md, "Measuring on this VM").
  std::vector<char> storage(o.max_bytes + 4096 + 16);
  char* local = storage.data() + ((16 - reinterpret_cast<std::uintptr_t>(storage.data())) & 4095);
  for (std::size_t i = 0; i < o.max_bytes; ++i) local[i] = static_cast<char>(i * 7 + 1);
  rt.barrier_all();
  const int batches = o.quick ? 5 : 21;
  for (std::size_t bytes = 8; bytes <= o.max_bytes; bytes *= 2) {
    const int per = static_cast<int>(
        std::clamp<std::size_t>((std::size_t{1} << 22) / bytes, 4, 2000) / (o.quick ? 4 : 1));
    if (rt.my_pe() == 0) {
      add(report, rt, "put_lat", bytes,
          sample(batches, per,
                 [&] {
                   rt.putmem(buf, local, bytes, 1);
                   rt.quiet();
                 }),
          false);
      // Bandwidth rows: a batch of nbi operations and the quiet that completes them, as
      // ucx-raw-perf and oshmem_perf time them (a get_nbi is only issued until quiet).
      add(report, rt, "put_bw", bytes,
          sample(
              batches, per, [&] { rt.putmem_nbi(buf, local, bytes, 1); }, [&] { rt.quiet(); }),
          true);
      add(report, rt, "get_lat", bytes,
          sample(batches, per, [&] { rt.getmem(local, buf, bytes, 1); }), false);
      add(report, rt, "get_bw", bytes,
          sample(
              batches, per, [&] { rt.getmem_nbi(local, buf, bytes, 1); }, [&] { rt.quiet(); }),
          true);
      rt.quiet();
    }
    rt.barrier_all();
  }
  rt.free(buf);
}

void small_ops(Runtime& rt, Report& report, const Options& o) {
  auto* word = rt.allocate_array<long>(1);
  auto* sig = rt.allocate_array<std::uint64_t>(1);
  auto* data = rt.allocate_array<long>(1);
  *word = 0;
  *sig = 0;
  rt.barrier_all();
  const int batches = o.quick ? 5 : 21, per = o.quick ? 200 : 2000;
  if (rt.my_pe() == 0) {
    add(report, rt, "p_lat", 8,
        sample(batches, per,
               [&] {
                 rt.p(word, 1L, 1);
                 rt.quiet();
               }),
        false);
    add(report, rt, "fetch_add_lat", 8,
        sample(batches, per, [&] { (void)rt.atomic_fetch_add(word, 1L, 1); }), false);
  }
  rt.barrier_all();
  // put_signal ping-pong between PEs 0 and 1: round-trip time.
  const int rounds = batches * per / 4;
  const long value = 42;
  std::vector<double> rtt;
  if (rt.my_pe() <= 1) {
    const int other = 1 - rt.my_pe();
    std::uint64_t expect = 0;
    symmetra::bench::settle();
    for (int i = 0; i < rounds; ++i) {
      const double t0 = now_us();
      if (rt.my_pe() == 0) {
        rt.put_signal(data, &value, 1, sig, ++expect, symmetra::SignalOp::kSet, other);
        rt.signal_wait_until(sig, symmetra::Cmp::kGe, expect);
      } else {
        rt.signal_wait_until(sig, symmetra::Cmp::kGe, ++expect);
        rt.put_signal(data, &value, 1, sig, expect, symmetra::SignalOp::kSet, other);
      }
      rtt.push_back(now_us() - t0);
    }
    if (rt.my_pe() == 0) {
      rtt.erase(rtt.begin(), rtt.begin() + rounds / 10);  // warm-up
      add(report, rt, "put_signal_pingpong", 8, rtt, false);
    }
  }
  rt.barrier_all();
  rt.free(data);
  rt.free(sig);
  rt.free(word);
}

void barriers(Runtime& rt, Report& report, const Options& o) {
  const int batches = o.quick ? 5 : 21, per = o.quick ? 100 : 500;
  for (int k = 2; k <= rt.n_pes();
       k = (k * 2 > rt.n_pes() && k != rt.n_pes()) ? rt.n_pes() : k * 2) {
    symmetra::Team team = rt.split_strided(rt.team_world(), 0, 1, k);
    if (team.valid()) {
      auto us = sample(batches, per, [&] { rt.barrier(team); });
      if (rt.my_pe() == 0) {
        double p50, p99;
        symmetra::bench::percentiles(us, &p50, &p99);
        report.add(Row{"barrier", 0, k, "host", "symmetra-cpu", p50, p99, 0});
      }
      rt.destroy(team);
    }
    rt.barrier_all();
  }
}

// Symmetric allocation against the barrier it must contain (issue 51: malloc + free cost 5.5
// barriers at 16 PEs and 11.6 at 256). Rows, all on the world team: barrier_all, and
// malloc_free (allocate + free of 4 KiB and of 1 MiB). Each sampled block is checked first: a
// put from the previous PE lands in it. The summary line is malloc_free's p50 in barriers.
void allocations(Runtime& rt, Report& report, const Options& o) {
  const int batches = o.quick ? 5 : 11, per = o.quick ? 10 : 40;
  const int n = rt.n_pes(), me = rt.my_pe();
  const auto bar = sample(batches, per, [&] { rt.barrier_all(); });
  double bar50 = 0, bar99 = 0;
  symmetra::bench::percentiles(bar, &bar50, &bar99);
  if (me == 0) report.add(Row{"barrier_all", 0, n, "host", "symmetra-cpu", bar50, bar99, 0});
  for (std::size_t bytes : {std::size_t{4096}, std::size_t{1} << 20}) {
    // The check, once per size: a block of every PE's, written by the previous PE.
    auto* blk = static_cast<std::uint64_t*>(rt.allocate(bytes));
    rt.p(&blk[bytes / 8 - 1], std::uint64_t(me) + 1, (me + 1) % n);
    rt.barrier_all();
    const std::uint64_t want = std::uint64_t((me + n - 1) % n) + 1;
    if (blk[bytes / 8 - 1] != want) {
      std::fprintf(stderr, "[pe %d] malloc_free %zu B: WRONG RESULT: read %llu, want %llu\n", me,
                   bytes, static_cast<unsigned long long>(blk[bytes / 8 - 1]),
                   static_cast<unsigned long long>(want));
      std::exit(1);
    }
    rt.free(blk);
    const auto us = sample(batches, per, [&] { rt.free(rt.allocate(bytes)); });
    if (me == 0) {
      double p50, p99;
      symmetra::bench::percentiles(us, &p50, &p99);
      report.add(Row{"malloc_free", bytes, n, "host", "symmetra-cpu", p50, p99, 0});
      std::printf(
          "summary: malloc_free %zu B at %d PEs = %.2f barrier_all (p50 %.1f us, barrier "
          "%.1f us; at most 3 is the aim)\n",
          bytes, n, p50 / bar50, p50, bar50);
    }
  }
}

// Collectives on the world team, 8 B - 1 MiB per PE (the block each PE contributes or receives),
// the same operations oshmem_perf.c times through OpenSHMEM 1.4's active-set forms. Each call is
// followed by barrier_all on both sides: the active-set forms need one before their pSync is
// reused, so the rows compare like with like (and include one barrier).
void collectives(Runtime& rt, Report& report, const Options& o) {
  const std::size_t max = std::min<std::size_t>(o.max_bytes, 1u << 20);
  const std::size_t n = static_cast<std::size_t>(rt.n_pes());
  auto* src = static_cast<long*>(rt.allocate(max * n));
  auto* dst = static_cast<long*>(rt.allocate(max * n));
  for (std::size_t i = 0; i < max * n / sizeof(long); ++i) src[i] = static_cast<long>(i);
  const int batches = o.quick ? 5 : 11;
  const symmetra::Team world = rt.team_world();
  for (std::size_t bytes = 8; bytes <= max; bytes *= (o.quick ? 16 : 4)) {
    const std::size_t elems = bytes / sizeof(long);
    const int per =
        static_cast<int>(std::clamp<std::size_t>((std::size_t{1} << 20) / bytes, 2, 200));
    struct Op {
      const char* name;
      std::function<void()> run;
    } ops[] = {
        {"broadcast", [&] { rt.broadcast(world, dst, src, elems, 0); }},
        {"fcollect", [&] { rt.fcollect(world, dst, src, elems); }},
        {"alltoall", [&] { rt.alltoall(world, dst, src, elems); }},
        {"reduce_sum_long",
         [&] { rt.reduce(world, dst, src, elems, symmetra::coll::ReduceOp::kSum); }},
        {"collect", [&] { rt.collect(world, dst, src, elems); }},
        {"alltoalls", [&] { rt.alltoalls(world, dst, src, 1, 1, elems); }},
        // Algorithms and collectives without an OpenSHMEM 1.4 counterpart in oshmem_perf.c:
        {"fcollect_read", [&] { rt.fcollect_read(world, dst, src, elems); }},
        {"fcollect_ring", [&] { rt.fcollect_ring(world, dst, src, elems); }},
        {"reduce_scatter_long",
         [&] {
           rt.reduce_scatter(world, dst, src, elems / n > 0 ? elems / n : 1,
                             symmetra::coll::ReduceOp::kSum);
         }},
        {"permute_ring_shift",
         [&] {
           rt.permute(world, dst, src, elems, (rt.my_pe() + 1) % rt.n_pes(),
                      (rt.my_pe() + rt.n_pes() - 1) % rt.n_pes(),
                      std::max<std::size_t>(elems / 4, 1));
         }},
    };
    for (const Op& op : ops) {
      auto us = sample(batches, per, [&] {
        op.run();
        rt.barrier_all();
      });
      if (rt.my_pe() == 0) add(report, rt, op.name, bytes, std::move(us), false);
    }
    rt.barrier_all();
  }
  rt.free(dst);
  rt.free(src);
}

// All-reduce of float sums on the world team, 8 B - allreduce_max per PE, for every algorithm
// that runs on it and for the selector's pick (auto), back to back (the algorithms synchronize
// themselves).
// Prints which algorithm wins at each size.
// For revisions before coll::runs_on (tools/bench-paired): every PE was local then, so every
// algorithm ran. Where coll::runs_on exists, overload resolution prefers it (not a template).
template <class Desc>
bool runs_on(symmetra::coll::AllreduceAlgo, const Desc&) {
  return true;
}

void allreduces(Runtime& rt, Report& report, const Options& o) {
  using symmetra::coll::AllreduceAlgo;
  const std::size_t max = o.allreduce_max;
  auto* src = static_cast<float*>(rt.allocate(max));
  auto* dst = static_cast<float*>(rt.allocate(max));
  for (std::size_t i = 0; i < max / sizeof(float); ++i)
    src[i] = static_cast<float>(i % 1000) * 0.5f;
  const symmetra::Team world = rt.team_world();
  // Across hosts only the algorithms of puts and LL packets run: coll::runs_on, found by ADL.
  // Where an earlier revision lacks it, the runs_on above stands in, so that tools/bench-paired
  // builds this file on both sides.
  std::vector<AllreduceAlgo> algos;
  for (AllreduceAlgo a : symmetra::coll::kDeviceAllreduceAlgos)
    if (runs_on(a, symmetra::introspect::team_desc(rt, symmetra::device::kTeamWorld)))
      algos.push_back(a);
  algos.push_back(AllreduceAlgo::kAuto);
  std::vector<std::string> winners;
  for (std::size_t bytes = 8; bytes <= max;
       bytes = (bytes < max && bytes * (o.quick ? 16 : 4) > max) ? max
                                                                 : bytes * (o.quick ? 16 : 4)) {
    const std::size_t elems = bytes / sizeof(float);
    const int batches = o.quick ? 5 : 11;
    const int per =
        static_cast<int>(std::clamp<std::size_t>((std::size_t{4} << 20) / bytes, 1, 500));
    double best = 1e30;
    const char* best_name = "";
    for (AllreduceAlgo algo : algos) {
      auto us = sample(batches, per, [&] {
        rt.allreduce(world, dst, src, elems, symmetra::coll::ReduceOp::kSum, algo);
      });
      rt.barrier_all();
      if (rt.my_pe() != 0) continue;
      double p50, p99;
      symmetra::bench::percentiles(us, &p50, &p99);
      const std::string name = std::string("allreduce_") + symmetra::coll::algo_name(algo);
      report.add(
          Row{name, bytes, rt.n_pes(), "host", "symmetra-cpu", p50, p99, bytes / (p50 * 1e3)});
      if (algo != AllreduceAlgo::kAuto && p50 < best)
        best = p50, best_name = symmetra::coll::algo_name(algo);
    }
    if (rt.my_pe() == 0) {
      const char* pick =
          symmetra::coll::algo_name(symmetra::introspect::allreduce_algo(rt, world, bytes, true));
      winners.push_back(std::to_string(bytes) + " B: fastest " + best_name + ", selector picks " +
                        pick);
    }
  }
  if (rt.my_pe() == 0) {
    std::printf("\nall-reduce, %d PEs (float sum, p50):\n", rt.n_pes());
    for (const auto& w : winners) std::printf("  %s\n", w.c_str());
  }
  rt.barrier_all();
  rt.free(dst);
  rt.free(src);
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--quick") == 0) {
      o.quick = true;
      o.max_bytes = 1u << 20;
      o.allreduce_max = 1u << 20;
    } else if (std::strcmp(argv[i], "--max-bytes") == 0 && i + 1 < argc) {
      o.max_bytes = std::strtoull(argv[++i], nullptr, 10);
    } else if (std::strcmp(argv[i], "--allreduce-max") == 0 && i + 1 < argc) {
      o.allreduce_max = std::strtoull(argv[++i], nullptr, 10);
    } else if (std::strcmp(argv[i], "--parts") == 0 && i + 1 < argc) {
      o.parts = argv[++i];
    } else {
      std::fprintf(stderr,
                   "usage: symmetra-perf [--quick] [--max-bytes N] [--allreduce-max N] "
                   "[--parts rma,small,barrier,alloc,coll,allreduce]\n");
      return 2;
    }
  }
  auto rt = symmetra::Runtime::init();
  if (rt->n_pes() < 2) {
    std::fprintf(stderr, "symmetra-perf needs at least 2 PEs: symrun -n 4 symmetra-perf\n");
    return 2;
  }
  Report report;
  if (o.runs("rma")) rma_sweep(*rt, report, o);
  if (o.runs("small")) small_ops(*rt, report, o);
  if (o.runs("barrier")) barriers(*rt, report, o);
  if (o.runs("alloc")) allocations(*rt, report, o);
  if (o.runs("coll")) collectives(*rt, report, o);
  if (o.runs("allreduce")) allreduces(*rt, report, o);
  if (rt->my_pe() == 0) report.table();
  rt->finalize();
  return 0;
}
