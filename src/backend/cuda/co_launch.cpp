// See co_launch.hpp.
#include "backend/cuda/co_launch.hpp"

#include "core/blocked.hpp"
#include "symmetra/core/cpu_relax.hpp"

#include <algorithm>
#include <chrono>
#include <thread>

namespace symmetra::detail {
namespace {

// Spins (pausing) for the first few thousand polls, then yields; false at the deadline.
template <class Pred>
bool spin_until(Pred done, std::chrono::steady_clock::time_point deadline) {
  for (int i = 0;; ++i) {
    if (done()) return true;
    if (i < 4096) {
      cpu_relax();
      continue;
    }
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::yield();
  }
}

}  // namespace

int CoLaunch::join(const Key& key, const std::vector<int>& members, int pe, const Launch& launch,
                   std::uint64_t timeout_ns, std::string* missing) {
  const int n = static_cast<int>(members.size());
  std::shared_ptr<Batch> b;
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto& entry = open_[key];
    if (!entry) entry = std::make_shared<Batch>();
    b = entry;
    b->pes.push_back(pe);
    // Complete: the key may come again (a new team in the slot) and must find a new batch.
    if (static_cast<int>(b->pes.size()) == n) open_.erase(key);
    b->joined.fetch_add(1, std::memory_order_release);
  }
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::nanoseconds(timeout_ns);
  auto report = [&](const char* what) {
    std::lock_guard<std::mutex> lock(mu_);
    std::string who;
    for (int m : members)
      if (std::find(b->pes.begin(), b->pes.end(), m) == b->pes.end())
        who += (who.empty() ? "" : ", ") + std::to_string(m);
    *missing = who.empty() ? std::string(what) : who;
    return -1;
  };
  if (!spin_until([&] { return b->joined.load(std::memory_order_acquire) == n; }, deadline))
    return report("");
  int rc = 0;
  {
    const BlockedIn blocked("a collective's kernel launch", pe);
    rc = launch();
  }
  b->launched.fetch_add(1, std::memory_order_release);
  if (!spin_until([&] { return b->launched.load(std::memory_order_acquire) == n; }, deadline))
    return report("(all joined; some launch call did not return)");
  return rc;
}

}  // namespace symmetra::detail
