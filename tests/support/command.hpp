// Runs a shell command for tests that drive programs (symrun, mpirun): exit status, merged
// output and duration; and starts PE processes with a launcher's environment.
#pragma once

#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <chrono>
#include <cstdio>
#include <functional>
#include <map>
#include <string>
#include <vector>

namespace symmetra::testing {

struct CommandResult {
  int status = -1;  // exit status, or 128 + signal
  std::string output;
  double seconds = 0;
  bool has(const std::string& text) const { return output.find(text) != std::string::npos; }
};

inline CommandResult run_command(const std::string& cmd) {
  CommandResult r;
  const auto t0 = std::chrono::steady_clock::now();
  FILE* f = popen((cmd + " 2>&1").c_str(), "r");
  if (f == nullptr) return r;
  std::array<char, 4096> buf;
  std::size_t got;
  while ((got = fread(buf.data(), 1, buf.size(), f)) > 0) r.output.append(buf.data(), got);
  const int st = pclose(f);
  r.status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return r;
}

struct PeRun {
  int status = -1;  // exit status, or 128 + signal
  std::string output;
  double seconds = 0;  // from the start of all PEs to this one's end
  bool has(const std::string& s) const { return output.find(s) != std::string::npos; }
};

// Starts n processes of `argv` with env(rank) added (as a launcher would set it: the tests play
// the launcher), collects each one's output, and kills whatever still runs after limit_s.
inline std::vector<PeRun> spawn(int n,
                                const std::function<std::map<std::string, std::string>(int)>& env,
                                const std::vector<std::string>& argv, double limit_s = 30) {
  std::vector<PeRun> runs(static_cast<std::size_t>(n));
  std::vector<pid_t> pids;
  std::vector<int> outs;
  const auto t0 = std::chrono::steady_clock::now();
  for (int r = 0; r < n; ++r) {
    int p[2];
    if (pipe(p) != 0) return runs;
    const pid_t pid = fork();
    if (pid == 0) {
      dup2(p[1], STDOUT_FILENO);
      dup2(p[1], STDERR_FILENO);
      close(p[0]);
      close(p[1]);
      for (const char* v :
           {"SYMMETRA_RANK", "SYMMETRA_SIZE", "SYMMETRA_BOOTSTRAP", "SYMMETRA_LAUNCHER_PID"})
        unsetenv(v);
      setenv("SYMMETRA_TIMEOUT_S", "60", 1);
      for (const auto& [k, v] : env(r)) setenv(k.c_str(), v.c_str(), 1);
      std::vector<char*> args;
      for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
      args.push_back(nullptr);
      execv(args[0], args.data());
      _exit(127);
    }
    close(p[1]);
    pids.push_back(pid);
    outs.push_back(p[0]);
  }
  auto elapsed = [&] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  };
  for (int left = n; left > 0;) {
    std::vector<pollfd> polls;
    for (int fd : outs) polls.push_back({fd, POLLIN, 0});
    poll(polls.data(), polls.size(), 50);
    for (int r = 0; r < n; ++r) {
      if (outs[r] < 0 || polls[r].revents == 0) continue;
      char buf[4096];
      const ssize_t k = read(outs[r], buf, sizeof(buf));
      if (k > 0) {
        runs[r].output.append(buf, static_cast<std::size_t>(k));
        continue;
      }
      close(outs[r]);
      outs[r] = -1;
      int st = 0;
      waitpid(pids[r], &st, 0);
      runs[r].status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
      runs[r].seconds = elapsed();
      --left;
    }
    if (elapsed() > limit_s) {
      for (int r = 0; r < n; ++r)
        if (outs[r] >= 0) kill(pids[r], SIGKILL);
    }
  }
  return runs;
}

}  // namespace symmetra::testing
