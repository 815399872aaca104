#include "pe_runner.hpp"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <thread>

#include "bootstrap/rendezvous_server.hpp"
#include "bootstrap/socket.hpp"
#include "symmetra/launch.hpp"

namespace symmetra::testing {

std::string pe_config_name(const PeConfig& c) {
  return std::to_string(c.n_pes) + (c.mode == Mode::kThreads ? "_threads" : "_processes") +
         (c.backend == Backend::kCuda ? "_cuda" : "");
}

std::vector<PeConfig> standard_configs() {
  std::vector<PeConfig> v;
  for (Mode m : {Mode::kThreads, Mode::kProcesses})
    for (int n : {2, 3, 4, 8}) v.push_back({n, m});
  return v;
}

std::vector<PeConfig> collective_configs() {
  std::vector<PeConfig> v;
  for (Mode m : {Mode::kThreads, Mode::kProcesses})
    for (int n : {1, 2, 3, 4, 5, 8}) v.push_back({n, m});
  return v;
}

std::vector<PeConfig> gpu_thread_configs() {
  return {{2, Mode::kThreads, Backend::kCuda}, {4, Mode::kThreads, Backend::kCuda}};
}

std::uint64_t run_seed() {
  static const std::uint64_t seed = [] {
    if (const char* s = std::getenv("SYMMETRA_TEST_SEED"))
      return static_cast<std::uint64_t>(std::strtoull(s, nullptr, 10));
    const std::uint64_t fresh =
        std::random_device{}() ^
        static_cast<std::uint64_t>(std::chrono::steady_clock::now().time_since_epoch().count());
    std::fprintf(stderr, "test seed %llu (SYMMETRA_TEST_SEED=%llu replays it)\n",
                 static_cast<unsigned long long>(fresh), static_cast<unsigned long long>(fresh));
    return fresh;
  }();
  return seed;
}

namespace {

void run_processes(int n, const RuntimeOptions& options, const std::function<void(Runtime&)>& fn,
                   int timeout_s) {
  static int counter = 0;
  const std::string address =
      "unix:symmetra-test-" + std::to_string(getpid()) + "-" + std::to_string(++counter);
  auto lfd = detail::listen_on(address, n + 4);
  ASSERT_TRUE(lfd.ok()) << lfd.status().message();
  (void)run_seed();  // fix the seed before forking so every PE shares it
  std::fflush(nullptr);
  std::vector<pid_t> pids;
  for (int pe = 0; pe < n; ++pe) {
    const pid_t pid = fork();
    if (pid == 0) {
      close(lfd.value());
      setenv("SYMMETRA_RANK", std::to_string(pe).c_str(), 1);
      setenv("SYMMETRA_SIZE", std::to_string(n).c_str(), 1);
      setenv("SYMMETRA_BOOTSTRAP", address.c_str(), 1);
      int code = 0;
      try {
        auto rt = Runtime::init(options);
        fn(*rt);
        rt->finalize();
        code = ::testing::Test::HasFailure() ? 1 : 0;
      } catch (const std::exception& e) {
        std::fprintf(stderr, "[pe %d] exception: %s\n", pe, e.what());
        code = 2;
      }
      std::fflush(nullptr);
      _exit(code);
    }
    pids.push_back(pid);
  }
  detail::RendezvousServer server(lfd.value(), n, timeout_s * 1000);
  std::thread server_thread([&] { (void)server.serve(); });
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(timeout_s);
  int running = n;
  while (running > 0) {
    int status = 0;
    const pid_t pid = waitpid(-1, &status, WNOHANG);
    if (pid > 0) {
      --running;
      int pe = 0;
      while (pids[pe] != pid) ++pe;
      pids[pe] = -1;
      if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        ADD_FAILURE() << "PE " << pe << " of " << n << " failed: "
                      << (WIFEXITED(status) ? "exit " + std::to_string(WEXITSTATUS(status))
                                            : "signal " + std::to_string(WTERMSIG(status)));
      }
      continue;
    }
    if (std::chrono::steady_clock::now() > deadline) {
      ADD_FAILURE() << "PEs still running after " << timeout_s << " s; killing them";
      for (pid_t p : pids)
        if (p > 0) kill(p, SIGKILL);
      while (waitpid(-1, nullptr, 0) > 0) {
      }
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  server.stop();
  server_thread.join();
}

}  // namespace

void run_pes(const PeConfig& cfg, const std::function<void(Runtime&)>& fn, int timeout_s) {
  run_pes(cfg, RuntimeOptions{}, fn, timeout_s);
}

void run_pes(const PeConfig& cfg, RuntimeOptions options, const std::function<void(Runtime&)>& fn,
             int timeout_s) {
  options.backend = cfg.backend;
  options.device = -1;
  if (cfg.mode == Mode::kProcesses) {
    run_processes(cfg.n_pes, options, fn, timeout_s);
    return;
  }
  try {
    launch_threads(cfg.n_pes, options, fn);
  } catch (const std::exception& e) {
    ADD_FAILURE() << "PE threads failed: " << e.what();
  }
}

}  // namespace symmetra::testing
