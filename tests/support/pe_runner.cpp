#include "pe_runner.hpp"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <thread>

#include "bootstrap/rendezvous_server.hpp"
#include "bootstrap/socket.hpp"
#include "launcher/netns.hpp"
#include "symmetra/launch.hpp"

namespace symmetra::testing {

std::string pe_config_name(const PeConfig& c) {
  return std::to_string(c.n_pes) + (c.mode == Mode::kThreads ? "_threads" : "_processes") +
         (c.backend == Backend::kCuda ? "_cuda" : "");
}

namespace {
// SYMMETRA_TEST_PES=N: only N PEs as processes (the namespace runs, whose PEs are processes in
// network namespaces of their own: tests/CMakeLists.txt, *_ucx_<H>hosts).
std::vector<PeConfig> configs(std::initializer_list<int> counts) {
  if (const char* pes = std::getenv("SYMMETRA_TEST_PES"))
    return {{std::atoi(pes), Mode::kProcesses}};
  std::vector<PeConfig> v;
  for (int n : counts) v.push_back({n, Mode::kThreads});
#if defined(__SANITIZE_THREAD__)
  // ThreadSanitizer runs PEs as processes at one count of 2 or more. It sees the threads of one
  // process, not the stores other processes make to the shared heap, so a process PE shows it
  // only that PE's own helper threads (the rendezvous server, the proxy thread), and one count
  // covers those. Every count repeated the thread runs at many times their time
  // (docs/testing.md). AddressSanitizer, CI's main build, runs every count.
  constexpr bool kOneProcessCount = true;
#else
  constexpr bool kOneProcessCount = false;
#endif
  for (int n : counts) {
    if (kOneProcessCount && n < 2) continue;
    v.push_back({n, Mode::kProcesses});
    if (kOneProcessCount) break;
  }
  return v;
}
}  // namespace

std::vector<PeConfig> standard_configs() {
  return configs({2, 3, 4, 8});
}

std::vector<PeConfig> collective_configs() {
  return configs({1, 2, 3, 4, 5, 8});
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

// Under tools/netns-hosts (SYMMETRA_NETNS_HOST0 set) the PEs meet as on separate machines:
// over TCP at host 0's address, hosted by PE 0, each forced host's PEs in the network namespace
// SYMMETRA_NETNS_PREFIX<host> (none on loopback, where netns-hosts could make none).
struct Netns {
  std::string host0 =
      std::getenv("SYMMETRA_NETNS_HOST0") ? std::getenv("SYMMETRA_NETNS_HOST0") : "";
  std::string prefix =
      std::getenv("SYMMETRA_NETNS_PREFIX") ? std::getenv("SYMMETRA_NETNS_PREFIX") : "";
  int hosts = std::getenv("SYMMETRA_HOSTS") ? std::atoi(std::getenv("SYMMETRA_HOSTS")) : 1;
  bool on() const { return !host0.empty(); }
  // In the child for PE pe of n: enters its host's namespace; false with *why if it cannot.
  bool enter(int pe, int n, std::string* why) const {
    if (prefix.empty() || hosts < 1) return true;
    const int per_host = (n + hosts - 1) / hosts;
    return launcher::enter_netns(prefix + std::to_string(pe / per_host), why);
  }
};

void run_processes(int n, const RuntimeOptions& options, const std::function<void(Runtime&)>& fn,
                   int timeout_s) {
  static int counter = 0;
  const Netns netns;
  std::string address =
      "unix:symmetra-test-" + std::to_string(getpid()) + "-" + std::to_string(++counter);
  Result<int> lfd = -1;
  if (netns.on()) {
    address = "tcp:" + netns.host0 + ":" + std::to_string(launcher::free_tcp_port());
    setenv("SYMMETRA_SECRET", ("test-" + std::to_string(getpid())).c_str(), 0);
  } else {
    lfd = detail::listen_on(address, n + 4);
    ASSERT_TRUE(lfd.ok()) << lfd.status().message();
  }
  (void)run_seed();  // fix the seed before forking so every PE shares it
  std::fflush(nullptr);
  std::vector<pid_t> pids;
  for (int pe = 0; pe < n; ++pe) {
    const pid_t pid = fork();
    if (pid == 0) {
      if (!netns.on()) close(lfd.value());
      std::string why;
      if (!netns.enter(pe, n, &why)) {
        std::fprintf(stderr, "[pe %d] %s\n", pe, why.c_str());
        _exit(3);
      }
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
  // symrun's part: host the rendezvous, unless PE 0 hosts it over TCP.
  std::unique_ptr<detail::RendezvousServer> server;
  std::thread server_thread;
  if (!netns.on()) {
    server = std::make_unique<detail::RendezvousServer>(lfd.value(), n, timeout_s * 1000);
    server_thread = std::thread([&] { (void)server->serve(); });
  }
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
  if (server) {
    server->stop();
    server_thread.join();
  }
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
