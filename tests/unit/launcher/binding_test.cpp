// symrun's CPU binding (src/launcher/binding.hpp): disjoint blocks while CPUs suffice, an even
// share of CPUs once PEs outnumber them.
#include "launcher/binding.hpp"

#include <gtest/gtest.h>

#include <map>
#include <set>
#include <vector>

namespace symmetra::launcher {
namespace {

TEST(Binding, FewerPesThanCpusGetDisjointBlocksCoveringEveryCpu) {
  const std::vector<int> allowed = {0, 1, 2, 3, 8, 9, 10};  // an affinity mask with a gap
  for (int n = 1; n <= 7; ++n) {
    std::multiset<int> used;
    for (int pe = 0; pe < n; ++pe) {
      const auto cpus = bind_cpus(pe, n, allowed);
      ASSERT_FALSE(cpus.empty()) << "pe " << pe << " of " << n;
      EXPECT_LE(cpus.size(), (allowed.size() + n - 1) / n);
      for (int c : cpus) used.insert(c);
    }
    EXPECT_EQ(used, std::multiset<int>(allowed.begin(), allowed.end())) << n << " PEs";
  }
  EXPECT_EQ(bind_cpus(1, 2, {0, 1, 2, 3}), (std::vector<int>{2, 3}));
}

TEST(Binding, MorePesThanCpusShareThemEvenly) {
  const std::vector<int> allowed = {4, 5};
  std::map<int, int> load;
  for (int pe = 0; pe < 5; ++pe) {
    const auto cpus = bind_cpus(pe, 5, allowed);
    ASSERT_EQ(cpus.size(), 1u);
    ++load[cpus[0]];
  }
  EXPECT_EQ(load, (std::map<int, int>{{4, 3}, {5, 2}}));
  EXPECT_EQ(bind_cpus(2, 4, allowed), (std::vector<int>{4}));  // PE 2 shares PE 0's CPU
  EXPECT_EQ(bind_cpus(3, 4, allowed), (std::vector<int>{5}));
}

}  // namespace
}  // namespace symmetra::launcher
