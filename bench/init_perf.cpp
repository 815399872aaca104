// Job start-up against PE count: how long `symrun -n N prog` takes until every PE is past
// shmem_init (and a barrier), how long shmem_finalize takes, and the whole job, for PEs as
// processes of this host running an OpenSHMEM program (symmetric static data included).
//
//   symmetra-init-perf [--pes 8,16,...,1024] [--runs R] [--symrun PATH]
//
// Without SYMMETRA_RANK in its environment the program is the driver: for each PE count it
// starts symrun with itself as the PE program, R times (default 3), and reports medians. As a PE
// it times from BENCH_T0_NS (CLOCK_REALTIME when the driver started symrun) to the barrier
// after shmem_init; PE 0 prints the times. Rows: op init, finalize and job; p50/p99 over runs.
#include <shmem.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <string>
#include <vector>

#include "perf_report.hpp"

namespace {

std::int64_t realtime_ns() {
  timespec ts{};
  clock_gettime(CLOCK_REALTIME, &ts);
  return static_cast<std::int64_t>(ts.tv_sec) * 1000000000 + ts.tv_nsec;
}

int run_pe() {
  const char* t0s = std::getenv("BENCH_T0_NS");
  const std::int64_t t0 = t0s ? std::atoll(t0s) : realtime_ns();
  shmem_init();
  shmem_barrier_all();
  const std::int64_t t_init = realtime_ns();
  const int me = shmem_my_pe();
  shmem_finalize();
  const std::int64_t t_fin = realtime_ns();
  if (me == 0)
    std::printf("init_us %.1f finalize_us %.1f\n", (t_init - t0) / 1e3, (t_fin - t_init) / 1e3);
  return 0;
}

std::vector<int> parse_list(const char* s) {
  std::vector<int> v;
  for (const char* p = s; *p;) {
    v.push_back(std::atoi(p));
    while (*p && *p != ',') ++p;
    if (*p == ',') ++p;
  }
  return v;
}

struct Times {
  double init_us = 0, finalize_us = 0, job_us = 0;
  bool ok = false;
};

// One job of n PEs; PE 0's line comes back through a pipe.
Times run_job(const std::string& symrun, const std::string& self, int n) {
  int out[2];
  if (pipe(out) != 0) return {};
  const std::int64_t t0 = realtime_ns();
  const pid_t pid = fork();
  if (pid == 0) {
    dup2(out[1], STDOUT_FILENO);
    close(out[0]);
    close(out[1]);
    setenv("BENCH_T0_NS", std::to_string(t0).c_str(), 1);
    const std::string ns = std::to_string(n);
    execl(symrun.c_str(), symrun.c_str(), "-n", ns.c_str(), self.c_str(),
          static_cast<char*>(nullptr));
    _exit(127);
  }
  close(out[1]);
  std::string text;
  char buf[256];
  for (ssize_t got; (got = read(out[0], buf, sizeof(buf))) > 0;)
    text.append(buf, static_cast<std::size_t>(got));
  close(out[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  Times t;
  t.job_us = (realtime_ns() - t0) / 1e3;
  t.ok = WIFEXITED(status) && WEXITSTATUS(status) == 0 &&
         std::sscanf(text.c_str(), "init_us %lf finalize_us %lf", &t.init_us, &t.finalize_us) == 2;
  return t;
}

}  // namespace

int main(int argc, char** argv) {
  if (std::getenv("SYMMETRA_RANK") != nullptr) return run_pe();
  std::vector<int> pes = {8, 16, 32, 64, 128, 256, 512, 1024};
  int runs = 3;
  std::string self = "/proc/self/exe", symrun;
  char path[4096];
  const ssize_t len = readlink("/proc/self/exe", path, sizeof(path) - 1);
  if (len > 0) self.assign(path, static_cast<std::size_t>(len));
  symrun = self.substr(0, self.rfind('/') + 1) + "symrun";
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--pes" && i + 1 < argc)
      pes = parse_list(argv[++i]);
    else if (a == "--runs" && i + 1 < argc)
      runs = std::atoi(argv[++i]);
    else if (a == "--symrun" && i + 1 < argc)
      symrun = argv[++i];
    else {
      std::fprintf(stderr, "usage: %s [--pes 8,16,...] [--runs R] [--symrun PATH]\n", argv[0]);
      return 2;
    }
  }
  symmetra::bench::Report report;
  for (int n : pes) {
    std::vector<double> init, fin, job;
    for (int r = 0; r < runs; ++r) {
      const Times t = run_job(symrun, self, n);
      if (!t.ok) {
        std::fprintf(stderr, "init-perf: the job of %d PEs failed\n", n);
        return 1;
      }
      init.push_back(t.init_us);
      fin.push_back(t.finalize_us);
      job.push_back(t.job_us);
    }
    double p50, p99;
    symmetra::bench::percentiles(init, &p50, &p99);
    report.add({"init", 0, n, "process", "cpu", p50, p99, 0});
    symmetra::bench::percentiles(fin, &p50, &p99);
    report.add({"finalize", 0, n, "process", "cpu", p50, p99, 0});
    symmetra::bench::percentiles(job, &p50, &p99);
    report.add({"job", 0, n, "process", "cpu", p50, p99, 0});
  }
  report.table();
  return 0;
}
