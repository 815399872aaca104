// 02: a ring of one-sided puts from the host. Each PE puts a block of its own values into the
// next PE's copy of a symmetric array, then checks what the previous PE put into its own.
// Run: symrun -n 4 ./02_host_ring      (exit status 1 if any element is wrong)
#include <cstdio>
#include <random>
#include <vector>

#include <symmetra/runtime.hpp>

int main() {
  auto rt = symmetra::Runtime::init();
  const int me = rt->my_pe(), n = rt->n_pes();
  const int next = (me + 1) % n, prev = (me + n - 1) % n;
  constexpr std::size_t kCount = 1 << 16;

  // Symmetric: the same offset in every PE's heap, so `ring` names every PE's copy.
  auto* ring = rt->allocate_array<long>(kCount);

  // Values that depend on the PE and on a seed all PEs agree on (PE 0's, broadcast).
  auto* seed = rt->allocate_array<long>(1);
  if (me == 0) *seed = static_cast<long>(std::random_device{}() >> 1);
  rt->barrier_all();
  const long base = rt->g(seed, 0);
  auto value = [&](int pe, std::size_t i) { return base + pe * 1000003L + static_cast<long>(i); };

  std::vector<long> mine(kCount);
  for (std::size_t i = 0; i < kCount; ++i) mine[i] = value(me, i);
  rt->put(ring, mine.data(), kCount, next);  // one-sided: `next` does nothing
  rt->barrier_all();                         // quiet + sync: every put is visible

  std::size_t wrong = 0;
  for (std::size_t i = 0; i < kCount; ++i) wrong += ring[i] != value(prev, i);
  std::printf("PE %d: %zu of %zu elements from PE %d %s\n", me, kCount - wrong, kCount, prev,
              wrong == 0 ? "ok" : "WRONG");
  rt->free(seed);
  rt->free(ring);
  rt->finalize();
  return wrong == 0 ? 0 : 1;
}
