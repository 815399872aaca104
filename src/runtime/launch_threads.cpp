// PEs as threads (include/symmetra/launch.hpp).
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

#include "../bootstrap/thread_bootstrap.hpp"
#include "../core/config.hpp"
#include "symmetra/launch.hpp"

namespace symmetra {
namespace detail {
void prepare_cuda_env();  // runtime.cpp
}  // namespace detail


void launch_threads(int n_pes, const std::function<void(Runtime&)>& fn) {
  launch_threads(n_pes, RuntimeOptions{}, fn);
}

void launch_threads(int n_pes, const RuntimeOptions& options, const std::function<void(Runtime&)>& fn) {
  if (n_pes < 1) throw Error("launch_threads: need at least one PE, got " + std::to_string(n_pes));
  detail::prepare_cuda_env();  // before the PE threads exist (runtime.cpp)
  auto job = std::make_shared<detail::ThreadJob>(n_pes, detail::timeout_ms_from_env());
  std::mutex m;
  std::exception_ptr first;
  std::vector<std::thread> threads;
  threads.reserve(n_pes);
  for (int pe = 0; pe < n_pes; ++pe) {
    threads.emplace_back([&, pe] {
      std::unique_ptr<Runtime> rt;
      try {
        rt = std::make_unique<Runtime>(std::make_unique<detail::ThreadBootstrap>(job, pe), options);
        fn(*rt);
        rt->finalize();
      } catch (...) {
        {
          std::lock_guard<std::mutex> lock(m);
          if (!first) first = std::current_exception();
        }
        // Stop the others: their bootstrap calls fail, their waits see the abort mark.
        job->fail("PE " + std::to_string(pe) + " failed");
        if (rt) rt->abandon();
      }
    });
  }
  for (auto& t : threads) t.join();
  if (first) std::rethrow_exception(first);
}

}  // namespace symmetra
