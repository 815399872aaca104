// Runs a shell command for tests that drive programs (symrun, mpirun): exit status, merged
// output and duration.
#pragma once

#include <sys/wait.h>

#include <array>
#include <chrono>
#include <cstdio>
#include <string>

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

}  // namespace symmetra::testing
