// A PE program for launch_test: joins through whatever launcher started it, passes a value
// around the ring and prints one line the test checks.
#include <cstdio>

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
    const bool ok = *slot == 1000L + (me + n - 1) % n;
    std::printf("pe %d of %d: %s\n", me, n, ok ? "ring ok" : "ring WRONG");
    rt->free(slot);
    rt->finalize();
    return ok ? 0 : 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "launch_prog: %s\n", e.what());
    return 2;
  }
}
