#include "launcher/binding.hpp"

namespace symmetra::launcher {

std::vector<int> bind_cpus(int pe, int n, const std::vector<int>& allowed) {
  const long c = static_cast<long>(allowed.size());
  if (n > c) return {allowed[static_cast<std::size_t>(pe % c)]};
  std::vector<int> cpus;
  for (long k = pe * c / n; k < (pe + 1) * c / n; ++k)
    cpus.push_back(allowed[static_cast<std::size_t>(k)]);
  return cpus;
}

}  // namespace symmetra::launcher
