// The C API from C++ (symc++): the typed names, the generic names as C++ overloads (shmem_cxx.h),
// and shmemx_runtime handing the C++ Runtime under it to code that mixes in the C++ API (here a
// selector-chosen all-reduce on the same heap).
#include <shmem.h>
#include <shmemx.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <symmetra/runtime.hpp>
#include <vector>

#define CHECK(cond, what)                                                                     \
  do {                                                                                        \
    if (!(cond)) {                                                                            \
      std::fprintf(stderr, "[pe %d] %s:%d: check failed: %s (%s)\n", shmem_my_pe(), __FILE__, \
                   __LINE__, #cond, what);                                                    \
      shmem_global_exit(1);                                                                   \
    }                                                                                         \
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
  rt->allreduce(rt->team_world(), b, a, 1000,
                symmetra::coll::ReduceOp::kSum);  // the C++ API, same heap
  for (int i = 0; i < 1000; ++i) {
    double want = 0;
    for (int r = 0; r < n; ++r) want += r * 1000 + i;
    CHECK(b[i] == want, "allreduce through the Runtime");
  }
  shmem_long_atomic_add(&counter, me + 1, 0);
  shmem_barrier_all();
  if (me == 0) CHECK(counter == n * (n + 1) / 2, "atomics on static data from C++");

  // The generic names as overloads: each call must reach the typed name of its argument type.
  const int right = (me + 1) % n, left = (me + n - 1) % n;
  auto* words = static_cast<long long*>(shmem_calloc(n, sizeof(long long)));
  auto* halves = static_cast<short*>(shmem_calloc(4, sizeof(short)));
  auto* flag = static_cast<int*>(shmem_calloc(1, sizeof(int)));
  auto* sums = static_cast<unsigned*>(shmem_calloc(3, sizeof(unsigned)));
  auto* mine = static_cast<unsigned*>(shmem_malloc(3 * sizeof(unsigned)));
  auto* root_vals = static_cast<float*>(shmem_malloc(5 * sizeof(float)));
  auto* got_vals = static_cast<float*>(shmem_calloc(5, sizeof(float)));
  const long long big = 0x123456789abLL * (me + 3);
  shmem_p(&words[me], big, right);  // long long overload
  const short hv[4] = {static_cast<short>(me), static_cast<short>(-me), 7,
                       static_cast<short>(me * 3)};
  shmem_put(SHMEM_CTX_DEFAULT, halves, hv, 4, right);  // ctx form, short overload
  shmem_quiet();
  shmem_barrier_all();
  CHECK(words[left] == 0x123456789abLL * (left + 3),
        "shmem_p(long long*) delivered the whole value");
  CHECK(halves[0] == left && halves[1] == -left && halves[2] == 7 && halves[3] == left * 3,
        "shmem_put(ctx, short*)");
  CHECK(shmem_g(&words[me], right) == big, "shmem_g(long long*) read the whole value");
  double back[3] = {};
  shmem_get(back, a + 10, 3, right);  // double overload
  CHECK(back[0] == right * 1000 + 10 && back[2] == right * 1000 + 12, "shmem_get(double*)");
  const unsigned long before =
      shmem_atomic_fetch_add(reinterpret_cast<unsigned long*>(&counter), 2ul, 0);
  CHECK(before >= static_cast<unsigned long>(n * (n + 1) / 2),
        "shmem_atomic_fetch_add(unsigned long*)");
  shmem_barrier_all();
  if (me == 0) CHECK(counter == n * (n + 1) / 2 + 2 * n, "overloaded fetch-adds all landed");
  shmem_atomic_set(flag, me + 100, right);  // int overload of the extended AMOs
  shmem_wait_until(flag, SHMEM_CMP_EQ, left + 100);
  CHECK(shmem_atomic_fetch(flag, me) == left + 100,
        "shmem_atomic_set/fetch(int*), shmem_wait_until(int*)");
  // Vector waits and tests (unsigned long long overloads): every PE raises word me on every PE.
  auto* marks = static_cast<unsigned long long*>(shmem_calloc(n, sizeof(unsigned long long)));
  shmem_barrier_all();
  for (int pe = 0; pe < n; ++pe)
    shmem_atomic_set(&marks[me], static_cast<unsigned long long>(me) + 5u, pe);
  std::vector<unsigned long long> wants(n);
  for (int r = 0; r < n; ++r) wants[r] = static_cast<unsigned long long>(r) + 5u;
  shmem_wait_until_all_vector(marks, n, nullptr, SHMEM_CMP_EQ, wants.data());
  CHECK(shmem_test_all_vector(marks, n, nullptr, SHMEM_CMP_EQ, wants.data()) == 1,
        "shmem_test_all_vector");
  wants[0] += 1;  // now word 0 does not match
  CHECK(shmem_test_any_vector(marks, 1, nullptr, SHMEM_CMP_EQ, wants.data()) == SIZE_MAX,
        "shmem_test_any_vector finds no match where none is");
  shmem_barrier_all();
  shmem_free(marks);
  for (unsigned i = 0; i < 3; ++i) mine[i] = static_cast<unsigned>(me) * 7u + i + 1u;
  shmem_barrier_all();
  CHECK(shmem_sum_reduce(SHMEM_TEAM_WORLD, sums, mine, 3) == 0, "shmem_sum_reduce(unsigned*)");
  for (unsigned i = 0; i < 3; ++i) {
    unsigned want = 0;
    for (int r = 0; r < n; ++r) want += static_cast<unsigned>(r) * 7u + i + 1u;
    CHECK(sums[i] == want, "shmem_sum_reduce result");
  }
  for (int i = 0; i < 5; ++i) root_vals[i] = 0.5f * static_cast<float>(i) + static_cast<float>(me);
  shmem_barrier_all();
  CHECK(shmem_broadcast(SHMEM_TEAM_WORLD, got_vals, root_vals, 5, n - 1) == 0,
        "shmem_broadcast(float*)");
  for (int i = 0; i < 5; ++i)
    CHECK(got_vals[i] == 0.5f * static_cast<float>(i) + static_cast<float>(n - 1),
          "broadcast value");
  shmem_barrier_all();
  shmem_free(got_vals);
  shmem_free(root_vals);
  shmem_free(mine);
  shmem_free(sums);
  shmem_free(flag);
  shmem_free(halves);
  shmem_free(words);
  shmem_free(b);
  shmem_free(a);
  if (me == 0) std::printf("PASS cxx %d PEs\n", n);
  shmem_finalize();
  return 0;
}
