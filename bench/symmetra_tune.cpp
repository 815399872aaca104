// symmetra-tune: measures every all-reduce algorithm on this machine and writes the crossover
// table that the selector loads (SYMMETRA_TUNE_FILE; format in docs/selector.md).
//
//   symrun -n 8 symmetra-tune [--out FILE] [--max-bytes N]      PEs as processes
//   symrun -n 4 --hosts 2 symmetra-tune ...                      members on 2 (forced) hosts
//   symmetra-tune --threads 8 [--out FILE] [--max-bytes N]      PEs as threads (the GPU backend
//                                                               with several PEs on one GPU)
//
// For each size (powers of two from 8 B) every algorithm runs back to back on the world team
// (float sums, host form: on the GPU backend each call is a kernel and a synchronization, a cost
// that is the same for every algorithm and so does not move the crossovers); the fastest p50
// wins (the previous size's winner stays if it is within 5%), and runs of sizes with the same
// winner become one row. Rows carry the team shape (size,
// members per host), so one file can hold rows for several shapes.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include "perf_report.hpp"
#include "symmetra/coll.hpp"
#include "symmetra/introspect.hpp"
#include "symmetra/launch.hpp"
#include "symmetra/runtime.hpp"

namespace {

using symmetra::coll::AllreduceAlgo;

struct Options {
  int threads = 0;
  std::string out = "symmetra-tune.txt";
  std::size_t max_bytes = 64u << 20;
};

struct Winner {
  std::size_t bytes;
  AllreduceAlgo algo;
  double us;
};

void tune(symmetra::Runtime& rt, const Options& o) {
  // Across hosts only the algorithms of puts and LL packets run (coll::runs_on): with
  // symrun --hosts H the table learns the crossovers of remote members.
  std::vector<AllreduceAlgo> algos;
  for (AllreduceAlgo a : symmetra::coll::kDeviceAllreduceAlgos)
    if (symmetra::coll::runs_on(a,
                                symmetra::introspect::team_desc(rt, symmetra::device::kTeamWorld)))
      algos.push_back(a);
  auto* src = static_cast<float*>(rt.allocate(o.max_bytes));
  auto* dst = static_cast<float*>(rt.allocate(o.max_bytes));
  const symmetra::Team world = rt.team_world();
  rt.allreduce(world, dst, src, 1,
               symmetra::coll::ReduceOp::kSum);  // the team's first call decides on NCCL
  if (symmetra::introspect::nccl_ready(rt, world)) algos.push_back(AllreduceAlgo::kNccl);
  std::vector<Winner> winners;
  if (rt.my_pe() == 0) std::printf("%10s %-20s %10s\n", "bytes", "algorithm", "p50 us");
  for (std::size_t bytes = 8; bytes <= o.max_bytes; bytes *= 2) {
    const int per =
        static_cast<int>(std::clamp<std::size_t>((std::size_t{2} << 20) / bytes, 1, 200));
    Winner best{bytes, AllreduceAlgo::kOneShot, 1e30};
    double prev_us = 1e30;  // the previous size's winner at this size
    for (AllreduceAlgo algo : algos) {
      auto us = symmetra::bench::sample(7, per, [&] {
        rt.allreduce(world, dst, src, bytes / sizeof(float), symmetra::coll::ReduceOp::kSum, algo);
      });
      double p50, p99;
      symmetra::bench::percentiles(us, &p50, &p99);
      if (p50 < best.us) best = {bytes, algo, p50};
      if (!winners.empty() && winners.back().algo == algo) prev_us = p50;
      rt.barrier_all();
    }
    // Within 5% the previous winner stays: noise should not split the table into flapping rows.
    if (prev_us <= best.us * 1.05) best = {bytes, winners.back().algo, prev_us};
    if (rt.my_pe() == 0)
      std::printf("%10zu %-20s %10.2f\n", bytes, symmetra::coll::algo_name(best.algo), best.us);
    winners.push_back(best);
  }
  if (rt.my_pe() == 0) {
    const auto& t = symmetra::introspect::team_desc(rt, symmetra::device::kTeamWorld);
    const int local = symmetra::coll::team_local(t);
    std::ofstream f(o.out);
    f << "# symmetra-tune: all-reduce crossovers, " << t.size << " PEs, " << local << " per host, "
      << (rt.on_gpu() ? "GPU" : "CPU") << " backend\n"
      << "# allreduce <team size> <members per host> <max bytes> <algorithm>\n";
    for (std::size_t i = 0; i < winners.size(); ++i) {
      const bool last = i + 1 == winners.size();
      if (!last && winners[i + 1].algo == winners[i].algo) continue;  // the run goes on
      f << "allreduce " << t.size << ' ' << local << ' '
        << (last ? ~std::size_t{0} : winners[i].bytes) << ' '
        << symmetra::coll::algo_name(winners[i].algo) << '\n';
    }
    std::printf("wrote %s (use it with SYMMETRA_TUNE_FILE=%s)\n", o.out.c_str(), o.out.c_str());
  }
  rt.free(dst);
  rt.free(src);
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--threads") == 0 && i + 1 < argc) {
      o.threads = std::atoi(argv[++i]);
    } else if (std::strcmp(argv[i], "--out") == 0 && i + 1 < argc) {
      o.out = argv[++i];
    } else if (std::strcmp(argv[i], "--max-bytes") == 0 && i + 1 < argc) {
      o.max_bytes = std::strtoull(argv[++i], nullptr, 10);
    } else {
      std::fprintf(stderr, "usage: symmetra-tune [--threads N] [--out FILE] [--max-bytes N]\n");
      return 2;
    }
  }
  o.max_bytes = std::max<std::size_t>(o.max_bytes, 8);
  try {
    if (o.threads > 0) {
      symmetra::launch_threads(o.threads, [&](symmetra::Runtime& rt) { tune(rt, o); });
    } else {
      auto rt = symmetra::Runtime::init();
      tune(*rt, o);
      rt->finalize();
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "symmetra-tune: %s\n", e.what());
    return 1;
  }
  return 0;
}
