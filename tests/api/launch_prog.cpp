// A PE program for launch_test: joins through whatever launcher started it, passes a value
// around the ring and prints one line the test checks.
#include <sched.h>

#include <cstdio>
#include <string>

#include "symmetra/introspect.hpp"
#include "symmetra/runtime.hpp"

int main() {
  try {
    auto rt = symmetra::Runtime::init();
    const int me = rt->my_pe(), n = rt->n_pes();
    auto* slot = rt->allocate_array<long>(1);
    *slot = -1;
    rt->barrier_all();
    rt->p(slot, 1000L + me, (me + 1) % n);
    rt->barrier_all();
    bool ok = *slot == 1000L + (me + n - 1) % n;
    std::printf("pe %d of %d: %s\n", me, n, ok ? "ring ok" : "ring WRONG");
    // The CPUs the launcher bound this PE to (symrun --bind-to).
    cpu_set_t set;
    std::string cpus;
    if (sched_getaffinity(0, sizeof(set), &set) == 0)
      for (int c = 0; c < CPU_SETSIZE; ++c)
        if (CPU_ISSET(c, &set)) cpus += (cpus.empty() ? "" : ",") + std::to_string(c);
    std::printf("pe %d: cpus %s\n", me, cpus.c_str());
    // The topology the launcher gave (symrun --hosts): members per host and the all-reduce the
    // selector picks for a small message, which runs and is checked.
    constexpr int kN = 1000;
    auto* src = rt->allocate_array<int>(kN);
    auto* dst = rt->allocate_array<int>(kN);
    for (int i = 0; i < kN; ++i) src[i] = (me + 1) * (i + 3);
    const auto algo = symmetra::introspect::allreduce_algo(*rt, rt->team_world(), 64, true);
    rt->allreduce(rt->team_world(), dst, src, kN, symmetra::coll::ReduceOp::kSum);
    bool sum_ok = true;
    for (int i = 0; i < kN; ++i) sum_ok &= dst[i] == n * (n + 1) / 2 * (i + 3);
    std::printf("pe %d: %d per host, small all-reduce %s: %s\n", me,
                symmetra::introspect::team_desc(*rt, symmetra::device::kTeamWorld).local,
                symmetra::coll::algo_name(algo), sum_ok ? "sum ok" : "sum WRONG");
    ok &= sum_ok;
    rt->free(dst);
    rt->free(src);
    rt->free(slot);
    rt->finalize();
    return ok ? 0 : 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "launch_prog: %s\n", e.what());
    return 2;
  }
}
