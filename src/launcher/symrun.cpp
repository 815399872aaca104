// symrun: starts N PEs as processes of this host and hosts their rendezvous.
//
//   symrun -n N [--tag-output] [--timeout S] [--hosts H [--netns PREFIX]] [-ppn P]
//          [--rendezvous tcp:HOST[:PORT]] [--bind-to core|none] prog [args...]
//
// Each PE is bound to CPUs of symrun's own affinity (binding.hpp says which), as mpirun binds
// by default; --bind-to none leaves placement to the scheduler.
// Returns 0 when every PE exits 0. When a PE exits non-zero or dies by a signal, symrun names it,
// ends the others (SIGTERM, then SIGKILL after a grace period) and returns that PE's status
// (128 + signal for a signal). -np is accepted for -n, as oshrun and mpirun do.
#include <dirent.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "bootstrap/join.hpp"
#include "bootstrap/rendezvous_server.hpp"
#include "bootstrap/socket.hpp"
#include "core/config.hpp"
#include "launcher/binding.hpp"
#include "launcher/netns.hpp"

namespace {

struct Options {
  int n = 1;
  int hosts = 1;
  std::string netns;       // --netns: the PEs of forced host h run in network namespace <netns><h>
  std::string rendezvous;  // --rendezvous tcp:HOST[:PORT]: PE 0 hosts it, over TCP
  bool tag_output = false;
  bool bind = true;
  double timeout_s = 0;
  std::vector<char*> argv;
};

void usage() {
  std::fprintf(stderr,
               "usage: symrun -n N [--tag-output] [--timeout S] [--hosts H [--netns PREFIX]] "
               "[--rendezvous tcp:HOST[:PORT]] [--bind-to core|none] prog [args...]\n"
               "  -n, -np N       number of PEs\n"
               "  --tag-output    prefix every output line with [pe N]\n"
               "  --timeout S     bound of every wait, exported as SYMMETRA_TIMEOUT_S\n"
               "  --hosts H       pretend the PEs sit on H hosts (sets SYMMETRA_HOST_ID)\n"
               "  -ppn P          P PEs per host: --hosts N/P (Hydra's option, as nvshmrun)\n"
               "  --netns PREFIX  run host h's PEs in network namespace PREFIXh (ip netns; as\n"
               "                  root), so that hosts reach each other only over the network\n"
               "  --rendezvous tcp:HOST[:PORT]\n"
               "                  the PEs meet over TCP at HOST, hosted by PE 0, as PEs of\n"
               "                  separate machines do (default: on a Unix socket of symrun's);\n"
               "                  PORT: a free one of this machine's by default\n"
               "  --bind-to B     core (default): bind each PE to its own CPUs, shared evenly\n"
               "                  when PEs outnumber CPUs; none: no binding\n");
}

bool parse(int argc, char** argv, Options* o) {
  int i = 1, ppn = 0;
  for (; i < argc && argv[i][0] == '-'; ++i) {
    const std::string a = argv[i];
    auto value = [&]() -> const char* { return i + 1 < argc ? argv[++i] : nullptr; };
    if (a == "-n" || a == "-np" || a == "--np") {
      const char* v = value();
      if (!v || (o->n = std::atoi(v)) < 1) return false;
    } else if (a == "--hosts") {
      const char* v = value();
      if (!v || (o->hosts = std::atoi(v)) < 1) return false;
    } else if (a == "-ppn" || a == "--ppn") {  // Hydra's (nvshmrun's, mpiexec's) PEs per host
      const char* v = value();
      if (!v || (ppn = std::atoi(v)) < 1) return false;
    } else if (a == "--netns") {
      const char* v = value();
      if (!v || !*v) return false;
      o->netns = v;
    } else if (a == "--rendezvous") {
      const char* v = value();
      if (!v || std::strncmp(v, "tcp:", 4) != 0 || !v[4]) {
        std::fprintf(stderr, "symrun: --rendezvous takes tcp:HOST[:PORT]\n");
        return false;
      }
      o->rendezvous = v;
    } else if (a == "--timeout") {
      const char* v = value();
      if (!v || (o->timeout_s = std::atof(v)) <= 0) return false;
    } else if (a == "--bind-to") {
      const char* v = value();
      if (!v || (std::strcmp(v, "core") != 0 && std::strcmp(v, "none") != 0)) {
        std::fprintf(stderr, "symrun: --bind-to takes core or none\n");
        return false;
      }
      o->bind = std::strcmp(v, "core") == 0;
    } else if (a == "--tag-output") {
      o->tag_output = true;
    } else if (a == "--") {
      ++i;
      break;
    } else if (a == "-h" || a == "--help") {
      return false;
    } else {
      std::fprintf(stderr, "symrun: unknown option %s\n", a.c_str());
      return false;
    }
  }
  if (ppn > 0) {  // -n N -ppn P: N / P forced hosts of P PEs each
    if (o->n % ppn != 0) {
      std::fprintf(stderr, "symrun: -ppn %d does not divide -n %d\n", ppn, o->n);
      return false;
    }
    o->hosts = o->n / ppn;
  }
  for (; i < argc; ++i) o->argv.push_back(argv[i]);
  o->argv.push_back(nullptr);
  return o->argv.size() > 1;
}

// A private directory for the rendezvous socket's path (--netns), removed with it at exit.
struct SocketDir {
  std::string path;
  bool make() {
    char t[] = "/tmp/symrun-XXXXXX";
    if (mkdtemp(t) == nullptr) return false;
    path = t;
    return true;
  }
  ~SocketDir() {  // the rendezvous and the sockets of the PEs' host groups beside it
    if (path.empty()) return;
    if (DIR* d = opendir(path.c_str())) {
      while (const dirent* e = readdir(d))
        if (e->d_name[0] != '.') unlink((path + "/" + e->d_name).c_str());
      closedir(d);
    }
    rmdir(path.c_str());
  }
};

// Copies a PE's output to ours, one whole line at a time, each prefixed with "[pe N] ".
class Tagger {
 public:
  void add(int fd, int pe, FILE* to) { streams_.push_back({fd, pe, to, {}}); }
  void run() {
    std::vector<pollfd> polls;
    for (auto& s : streams_) polls.push_back({s.fd, POLLIN, 0});
    for (int open = static_cast<int>(polls.size()); open > 0;) {
      if (poll(polls.data(), polls.size(), 200) <= 0) continue;
      for (std::size_t k = 0; k < polls.size(); ++k) {
        if (polls[k].fd < 0 || polls[k].revents == 0) continue;
        char buf[4096];
        const ssize_t got = read(polls[k].fd, buf, sizeof(buf));
        if (got <= 0) {
          flush(streams_[k], true);
          close(polls[k].fd);
          polls[k].fd = -1;
          --open;
          continue;
        }
        streams_[k].pending.append(buf, static_cast<std::size_t>(got));
        flush(streams_[k], false);
      }
    }
  }

 private:
  struct Stream {
    int fd;
    int pe;
    FILE* to;
    std::string pending;
  };
  static void flush(Stream& s, bool all) {
    std::size_t start = 0, nl;
    while ((nl = s.pending.find('\n', start)) != std::string::npos) {
      std::fprintf(s.to, "[pe %d] %.*s\n", s.pe, static_cast<int>(nl - start),
                   s.pending.data() + start);
      start = nl + 1;
    }
    s.pending.erase(0, start);
    if (all && !s.pending.empty()) std::fprintf(s.to, "[pe %d] %s\n", s.pe, s.pending.c_str());
    std::fflush(s.to);
  }
  std::vector<Stream> streams_;
};

// The signals symrun acts on. They stay blocked in every thread of symrun and are taken with
// sigtimedwait, so that the main thread sleeps until a PE ends or a signal comes instead of
// polling: on a host where PEs outnumber CPUs, every wake-up of symrun takes a PE's CPU.
// SIGUSR1 is shmem_global_exit's: a PE queues it with the job's exit status as its value.
sigset_t handled_signals() {
  sigset_t set;
  sigemptyset(&set);
  for (int sig : {SIGCHLD, SIGINT, SIGTERM, SIGUSR1}) sigaddset(&set, sig);
  return set;
}

// SIGCHLD's default action discards it; with a handler installed it stays pending for
// sigtimedwait whatever the kernel does with blocked, ignored signals.
void on_child(int) {}

std::string describe(int status) {
  if (WIFEXITED(status)) return "exited with status " + std::to_string(WEXITSTATUS(status));
  if (WIFSIGNALED(status))
    return std::string("was killed by signal ") + std::to_string(WTERMSIG(status)) + " (" +
           strsignal(WTERMSIG(status)) + ")";
  return "ended";
}

// The CPUs this process may run on, in order (empty if unknown).
std::vector<int> allowed_cpus() {
  cpu_set_t set;
  std::vector<int> cpus;
  if (sched_getaffinity(0, sizeof(set), &set) != 0) return cpus;
  for (int c = 0; c < CPU_SETSIZE; ++c)
    if (CPU_ISSET(c, &set)) cpus.push_back(c);
  return cpus;
}

// In the child, before exec: failure to bind costs speed, not correctness, so it only warns.
void bind_pe(int pe, int n, const std::vector<int>& allowed) {
  cpu_set_t set;
  CPU_ZERO(&set);
  for (int c : symmetra::launcher::bind_cpus(pe, n, allowed)) CPU_SET(c, &set);
  if (sched_setaffinity(0, sizeof(set), &set) != 0)
    std::fprintf(stderr, "symrun: cannot bind PE %d to its CPUs: %s (running unbound)\n", pe,
                 std::strerror(errno));
}

int exit_code(int status) {
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  if (!parse(argc, argv, &o)) {
    usage();
    return 2;
  }
  using namespace symmetra::detail;
  // Blocked before the first thread starts, so that every thread inherits the mask and the
  // signals wait for the main loop's sigtimedwait. The PEs get the old mask back before exec.
  const sigset_t handled = handled_signals();
  sigset_t pe_mask;
  pthread_sigmask(SIG_BLOCK, &handled, &pe_mask);
  signal(SIGCHLD, on_child);
  if (o.timeout_s > 0) setenv("SYMMETRA_TIMEOUT_S", std::to_string(o.timeout_s).c_str(), 1);
  // CUDA's most hardware queues (its default is 8) unless the user chose: a helper thread's copy
  // into the GPU heap queued behind a kernel that waits for it never runs (docs/gpu_backend.md,
  // "Hardware queues and helper threads"). CUDA reads it when a PE makes its context, after this.
  setenv("CUDA_DEVICE_MAX_CONNECTIONS", "32", 0);
  // The job's secret: what a PE proves to join over TCP (docs/security.md). Made up here unless
  // the user gave one; the PEs inherit it. (On symrun's own Unix socket the kernel's word on the
  // peer's uid decides.)
  if (std::getenv("SYMMETRA_SECRET") == nullptr) {
    const std::string secret = new_job_secret();
    if (!secret.empty()) setenv("SYMMETRA_SECRET", secret.c_str(), 1);
  }
  // symrun hosts the rendezvous: over TCP at --rendezvous's address; else on an abstract socket,
  // which needs no cleaning up, or with --netns on a path, since abstract names live in one
  // network namespace and the PEs then sit in others.
  std::string address = o.rendezvous;
  SocketDir socket_dir;
  std::unique_ptr<RendezvousServer> server;
  if (!address.empty()) {
    if (address.find(':', 4) == std::string::npos) {
      const int port = symmetra::launcher::free_tcp_port();
      if (port <= 0) {
        std::perror("symrun: cannot find a free TCP port");
        return 1;
      }
      address += ":" + std::to_string(port);
    }
    // symrun hosts the TCP rendezvous too (in host 0's namespace with --netns, where its address
    // is), so that it knows which PE the job lost first: with PE 0 hosting it, a PE that died
    // could be reported by a bystander's status (issue 51). The PEs learn it from
    // SYMMETRA_RENDEZVOUS_HOSTED and only connect.
    std::string why;
    const int lfd = symmetra::launcher::listen_in_netns(
        o.netns.empty() ? std::string() : o.netns + "0", address, o.n + 16, &why);
    if (lfd < 0) {
      std::fprintf(stderr, "symrun: cannot host the rendezvous at %s: %s\n", address.c_str(),
                   why.c_str());
      return 1;
    }
    const char* secret = std::getenv("SYMMETRA_SECRET");
    server = std::make_unique<RendezvousServer>(lfd, o.n, timeout_ms_from_env(), true,
                                                secret ? secret : "", "symrun: ");
    setenv("SYMMETRA_RENDEZVOUS_HOSTED", "1", 1);
  } else {
    address = "unix:symmetra-run-" + std::to_string(getpid()) + "-" +
              std::to_string(std::chrono::steady_clock::now().time_since_epoch().count());
    if (!o.netns.empty()) {
      if (!socket_dir.make()) {
        std::perror("symrun: mkdtemp");
        return 1;
      }
      address = "unix:" + socket_dir.path + "/rendezvous";
    }
    auto lfd = listen_on(address, o.n + 16);
    if (!lfd.ok()) {
      std::fprintf(stderr, "symrun: %s\n", lfd.status().message().c_str());
      return 1;
    }
    server = std::make_unique<RendezvousServer>(lfd.value(), o.n, timeout_ms_from_env(), false, "",
                                                "symrun: ");
  }
  // A signal or shmem_global_exit ends the job: a PE leaving then is no news. So the server's
  // failure is reported by the main thread, after it has taken every pending signal: the PE in
  // shmem_global_exit queues its signal before its socket closes, so the SIGCHLD the server
  // raises below comes after it. (Checked on the server's thread, a signal the main thread had
  // just taken but not yet acted on went unseen: 1 run in 200 under load printed "left the job
  // before finalize" for a global exit.)
  bool ending = false;  // the main thread's alone: set by take(), read by report_server_error
  std::mutex server_mu;
  std::string server_error;
  std::thread server_thread;
  auto report_server_error = [&] {
    std::lock_guard<std::mutex> lock(server_mu);
    if (!server_error.empty() && !ending)
      std::fprintf(stderr, "symrun: %s\n", server_error.c_str());
    server_error.clear();
  };
  // shmem_global_exit signals this process only when it is the PE's parent and says so here:
  // under another launcher the parent is a daemon that SIGUSR1 would end.
  setenv("SYMMETRA_LAUNCHER_PID", std::to_string(getpid()).c_str(), 1);
  Tagger tagger;
  std::vector<pid_t> pids(o.n, -1);
  const int per_host = (o.n + o.hosts - 1) / o.hosts;
  const std::vector<int> cpus = allowed_cpus();
  // Bound PEs each see only their own CPUs; the runtime learns the job's share from this.
  if (!cpus.empty()) setenv("SYMMETRA_CPUS", std::to_string(cpus.size()).c_str(), 0);
  for (int pe = 0; pe < o.n; ++pe) {
    int out[2] = {-1, -1}, err[2] = {-1, -1};
    if (o.tag_output && (pipe2(out, O_CLOEXEC) != 0 || pipe2(err, O_CLOEXEC) != 0)) {
      std::perror("symrun: pipe");
      return 1;
    }
    const pid_t pid = fork();
    if (pid == 0) {
      setenv("SYMMETRA_RANK", std::to_string(pe).c_str(), 1);
      setenv("SYMMETRA_SIZE", std::to_string(o.n).c_str(), 1);
      setenv("SYMMETRA_BOOTSTRAP", address.c_str(), 1);
      // Every PE runs on this machine (--hosts only labels them): the local rank is the PE.
      setenv("SYMMETRA_LOCAL_RANK", std::to_string(pe).c_str(), 1);
      if (o.hosts > 1)
        setenv("SYMMETRA_HOST_ID", ("host" + std::to_string(pe / per_host)).c_str(), 1);
      std::string why;
      if (!o.netns.empty() &&
          !symmetra::launcher::enter_netns(o.netns + std::to_string(pe / per_host), &why)) {
        std::fprintf(stderr, "symrun: %s\n", why.c_str());
        _exit(126);
      }
      if (o.bind && !cpus.empty()) bind_pe(pe, o.n, cpus);
      if (o.tag_output) {
        dup2(out[1], STDOUT_FILENO);
        dup2(err[1], STDERR_FILENO);
      }
      signal(SIGCHLD, SIG_DFL);
      sigprocmask(SIG_SETMASK, &pe_mask, nullptr);
      execvp(o.argv[0], o.argv.data());
      std::fprintf(stderr, "symrun: cannot start %s: %s\n", o.argv[0], std::strerror(errno));
      _exit(127);
    }
    if (pid < 0) {
      std::perror("symrun: fork");
      return 1;
    }
    pids[pe] = pid;
    if (o.tag_output) {
      close(out[1]);
      close(err[1]);
      tagger.add(out[0], pe, stdout);
      tagger.add(err[0], pe, stderr);
    }
  }
  // The rendezvous serves only once every PE is forked: a child runs setenv and the rest between
  // fork and exec, and a malloc lock that the server's thread held at the fork (it allocates
  // for each PE that joins) would be held forever in the child, which then never joined ("only
  // 1 of 2 PEs joined within 60 s", under load). The PEs that connect before it serves wait in
  // the listener's backlog, which has room for every PE.
  if (server)
    server_thread = std::thread([&] {
      // Rounds: PEs that call shmem_init again after shmem_finalize join a new one; the main
      // loop stops the server once the PEs have ended.
      auto st = server->serve(/*rounds=*/true);
      if (st.ok()) return;
      {
        std::lock_guard<std::mutex> lock(server_mu);
        server_error = st.message();
      }
      kill(getpid(), SIGCHLD);  // wakes the main loop
    });
  std::thread tag_thread;
  if (o.tag_output) tag_thread = std::thread([&] { tagger.run(); });

  int result = 0, running = o.n;
  bool killing = false;
  auto kill_deadline = std::chrono::steady_clock::time_point::max();
  auto end_all = [&] {  // SIGTERM now, SIGKILL after 3 s
    killing = true;
    for (pid_t p : pids)
      if (p > 0) kill(p, SIGTERM);
    kill_deadline = std::chrono::steady_clock::now() + std::chrono::seconds(3);
  };
  // The first of a global exit, SIGINT or SIGTERM, or a failed PE decides the job's status.
  auto take = [&](int sig, const siginfo_t& info) {
    if (sig == SIGCHLD) return;  // the reaping below handles it
    ending = true;
    if (killing) {
      // A second SIGINT or SIGTERM (Ctrl-C again) does not wait out the grace period: SIGKILL
      // now, as mpirun does. A global exit or failed PE after the first changes nothing.
      if (sig == SIGINT || sig == SIGTERM) {
        std::fprintf(stderr, "symrun: signal %d again, killing the PEs\n", sig);
        kill_deadline = std::chrono::steady_clock::now();
      }
      return;
    }
    if (sig == SIGUSR1) {  // the job ends with shmem_global_exit's status
      result = info.si_value.sival_int;
    } else {
      std::fprintf(stderr, "symrun: signal %d, ending the PEs\n", sig);
      result = 128 + sig;
    }
    end_all();
  };
  while (running > 0) {
    // Sleep until a signal comes (a PE ending raises SIGCHLD), or until the SIGKILL deadline.
    timespec wait{3600, 0};
    if (kill_deadline != std::chrono::steady_clock::time_point::max()) {
      const auto left = std::max(kill_deadline - std::chrono::steady_clock::now(),
                                 std::chrono::steady_clock::duration{0});
      const auto ns = std::chrono::duration_cast<std::chrono::nanoseconds>(left).count();
      wait = {static_cast<time_t>(ns / 1000000000), static_cast<long>(ns % 1000000000)};
    }
    siginfo_t info{};
    int sig = sigtimedwait(&handled, &info, &wait);
    // Every pending signal is taken before any PE is reaped: a PE in shmem_global_exit queues
    // SIGUSR1 before it exits, and its exit status must not be reported as a failure.
    const timespec now{0, 0};
    while (sig > 0) {
      take(sig, info);
      sig = sigtimedwait(&handled, &info, &now);
    }
    report_server_error();
    int status = 0;
    pid_t pid;
    std::vector<std::pair<int, int>> failed;  // (PE, status) of this round's failures
    while (running > 0 && (pid = waitpid(-1, &status, WNOHANG)) > 0) {
      int pe = 0;
      while (pe < o.n && pids[pe] != pid) ++pe;
      if (pe == o.n) continue;
      pids[pe] = -1;
      --running;
      if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) failed.emplace_back(pe, status);
    }
    if (!failed.empty() && !killing) {
      // The job's status is that of the PE that started its end: the one the rendezvous lost
      // first. The others stop as soon as they see it gone, which can be before its own exit is
      // complete (a PE ending without finalize marks the heaps first), so give it a moment.
      const auto grace = std::chrono::steady_clock::now() + std::chrono::seconds(1);
      auto first_lost = [&] { return server ? server->first_lost() : -1; };
      int lost = first_lost();
      for (; std::chrono::steady_clock::now() < grace; lost = first_lost()) {
        if (lost >= 0 && pids[lost] < 0) break;  // reaped already
        if (lost >= 0 && waitpid(pids[lost], &status, WNOHANG) == pids[lost]) {
          pids[lost] = -1;
          --running;
          if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) failed.emplace_back(lost, status);
          break;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(2));
      }
      // Else one that exited with a status over one that was stopped by a signal.
      auto rank = [&](const std::pair<int, int>& f) {
        return f.first == lost ? 0 : WIFEXITED(f.second) ? 1 : 2;
      };
      std::stable_sort(failed.begin(), failed.end(),
                       [&](auto& a, auto& b) { return rank(a) < rank(b); });
      std::fprintf(stderr, "symrun: PE %d %s; ending the other %d PEs\n", failed[0].first,
                   describe(failed[0].second).c_str(), running);
      result = exit_code(failed[0].second);
      end_all();
    }
    if (killing && std::chrono::steady_clock::now() >= kill_deadline) {
      for (pid_t p : pids)
        if (p > 0) kill(p, SIGKILL);
      kill_deadline = std::chrono::steady_clock::time_point::max();
    }
  }
  if (server) {
    server->stop();
    server_thread.join();
    report_server_error();
  }
  if (tag_thread.joinable()) tag_thread.join();
  return result;
}
