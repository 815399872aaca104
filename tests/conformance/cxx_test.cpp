// The C API from C++ (symc++): the typed names, and shmemx_runtime handing the C++ Runtime under
// it to code that mixes in the C++ API (here a selector-chosen all-reduce on the same heap).
#include <shmem.h>
#include <shmemx.h>

#include <cstdio>
#include <cstdlib>
#include <symmetra/runtime.hpp>
#include <symmetra/runtime_coll.hpp>
#include <vector>

#define CHECK(cond, what)                                                                    \
  do {                                                                                       \
    if (!(cond)) {                                                                           \
      std::fprintf(stderr, "[pe %d] %s:%d: check failed: %s (%s)\n", shmem_my_pe(), __FILE__, __LINE__, #cond, what); \
      shmem_global_exit(1);                                                                  \
    }                                                                                        \
  } while (0)

static long counter = 0;  // static data is symmetric from C++ too

int main() {
  shmem_init();
  const int me = shmem_my_pe(), n = shmem_n_pes();
  auto* rt = static_cast<symmetra::Runtime*>(shmemx_runtime());
  CHECK(rt != nullptr && rt->my_pe() == me && rt->n_pes() == n, "shmemx_runtime");
  double* a = static_cast<double*>(shmem_malloc(1000 * sizeof(double)));
  double* b = static_cast<double*>(shmem_malloc(1000 * sizeof(double)));
  for (int i = 0; i < 1000; ++i) a[i] = me * 1000 + i;
  shmem_barrier_all();
  rt->allreduce(rt->team_world(), b, a, 1000, symmetra::coll::ReduceOp::kSum);  // the C++ API, same heap
  for (int i = 0; i < 1000; ++i) {
    double want = 0;
    for (int r = 0; r < n; ++r) want += r * 1000 + i;
    CHECK(b[i] == want, "allreduce through the Runtime");
  }
  shmem_long_atomic_add(&counter, me + 1, 0);
  shmem_barrier_all();
  if (me == 0) CHECK(counter == n * (n + 1) / 2, "atomics on static data from C++");
  shmem_free(b);
  shmem_free(a);
  if (me == 0) std::printf("PASS cxx %d PEs\n", n);
  shmem_finalize();
  return 0;
}
