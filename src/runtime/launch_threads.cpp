// PEs as threads (include/symmetra/launch.hpp).
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

#include "bootstrap/thread_bootstrap.hpp"
#include "core/config.hpp"
#include "symmetra/launch.hpp"

namespace symmetra {
namespace {
// PEs as threads share one CUDA context, where the first launch of a lazily loaded kernel (CUDA's
// default loading since 12.2) waits for every running kernel: a PE launching a kernel of its own
// for the first time while a peer's kernel waits for this PE deadlocks
// (bench/probes/blocking_calls.cu). Load modules eagerly unless the user chose; it takes effect
// if no CUDA context exists yet. One PE per process keeps lazy loading, which starts large
// programs faster. Any number of PEs gets the most hardware queues (32; CUDA's default is 8),
// as under symrun: work on streams that share a queue runs in order, so a helper thread's copy
// into the GPU heap, or a PE's kernel, queued behind a kernel that waits for it never runs
// (docs/gpu_backend.md, "Hardware queues and helper threads"). setenv needs the process still
// single-threaded: before the PE threads.
void prepare_cuda_env(int n_pes) {
  if (n_pes > 1) setenv("CUDA_MODULE_LOADING", "EAGER", 0);
  setenv("CUDA_DEVICE_MAX_CONNECTIONS", "32", 0);
}
}  // namespace

void launch_threads(int n_pes, const std::function<void(Runtime&)>& fn) {
  launch_threads(n_pes, RuntimeOptions{}, fn);
}

void launch_threads(int n_pes, const RuntimeOptions& options,
                    const std::function<void(Runtime&)>& fn) {
  if (n_pes < 1) throw Error("launch_threads: need at least one PE, got " + std::to_string(n_pes));
  prepare_cuda_env(n_pes);
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
