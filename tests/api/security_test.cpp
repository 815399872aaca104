// Who may join a job (docs/security.md): a squatter on the job's socket name, a process of
// another uid and strays during the join, and a wrong secret over TCP. Each is refused and
// logged; the stray and foreign ones do not stop the job, which then starts normally. The
// foreign-uid cases drop a forked child's privileges to `nobody`, so they need root (as CI is).
#include <gtest/gtest.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstring>
#include <map>
#include <string>
#include <thread>

#include "bootstrap/join.hpp"
#include "bootstrap/socket.hpp"
#include "bootstrap/wire.hpp"
#include "support/command.hpp"
#include "support/free_port.hpp"

namespace {

using symmetra::testing::free_tcp_port;
using symmetra::testing::PeRun;
using symmetra::testing::spawn;
namespace detail = symmetra::detail;

constexpr unsigned kNobody = 65534;

std::map<std::string, std::string> slurm_env(int r, int n, const std::string& job) {
  return {{"SLURM_PROCID", std::to_string(r)},
          {"SLURM_NTASKS", std::to_string(n)},
          {"SLURM_JOB_ID", job},
          {"SLURM_STEP_ID", "0"},
          {"SYMMETRA_TIMEOUT_S", "20"}};
}

std::string all_output(const std::vector<PeRun>& runs) {
  std::string s;
  for (std::size_t r = 0; r < runs.size(); ++r)
    s += "--- PE " + std::to_string(r) + ":\n" + runs[r].output;
  return s;
}

void expect_ring_ok(const std::vector<PeRun>& runs) {
  const int n = static_cast<int>(runs.size());
  for (int r = 0; r < n; ++r) {
    EXPECT_EQ(runs[r].status, 0) << all_output(runs);
    EXPECT_TRUE(runs[r].has("pe " + std::to_string(r) + " of " + std::to_string(n) + ": ring ok"))
        << all_output(runs);
  }
}

// Forks a child that drops to `nobody` (if uid) and runs fn; returns its pid.
pid_t child(bool as_nobody, const std::function<int()>& fn) {
  const pid_t pid = fork();
  if (pid == 0) {
    if (as_nobody && (setgid(kNobody) != 0 || setuid(kNobody) != 0)) _exit(90);
    _exit(fn());
  }
  return pid;
}
int reap(pid_t pid) {
  int st = 0;
  waitpid(pid, &st, 0);
  return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

// A connection from a child to `address`, which sends `bytes` and then holds the socket open for
// hold_ms. Exit status 0 if it connected.
pid_t stray(bool as_nobody, const std::string& address, std::string bytes, int hold_ms) {
  return child(as_nobody, [=] {
    auto fd = detail::connect_to(address, 5000);
    if (!fd.ok()) return 1;
    if (!bytes.empty()) (void)detail::send_all(fd.value(), bytes.data(), bytes.size());
    std::this_thread::sleep_for(std::chrono::milliseconds(hold_ms));
    return 0;
  });
}

std::string hello(int rank) {
  detail::WireHeader h;
  h.op = detail::WireOp::kHello;
  h.rank = rank;
  return std::string(reinterpret_cast<const char*>(&h), sizeof(h));
}

#define SKIP_UNLESS_ROOT() \
  if (geteuid() != 0) GTEST_SKIP() << "needs root to drop a child's privileges to nobody"

// Another user's process holds the job's socket name before the job starts: no PE sends it a
// byte; the job fails at once with messages that say what happened.
TEST(Join, SquatterOfAnotherUidGetsNothing) {
  SKIP_UNLESS_ROOT();
  const std::string job = "sq" + std::to_string(getpid());
  int ready[2], got[2];
  ASSERT_EQ(pipe(ready), 0);
  ASSERT_EQ(pipe(got), 0);
  const pid_t squatter = child(true, [&] {
    auto lfd = detail::listen_on("unix:symmetra-slurm-" + job + ".0", 16);
    if (!lfd.ok()) return 1;
    (void)!write(ready[1], "x", 1);
    long bytes = 0;
    // Whatever the PEs send in 3 s.
    const auto end = std::chrono::steady_clock::now() + std::chrono::seconds(3);
    std::vector<int> conns;
    while (std::chrono::steady_clock::now() < end) {
      pollfd p{lfd.value(), POLLIN, 0};
      if (poll(&p, 1, 50) > 0) conns.push_back(accept(lfd.value(), nullptr, nullptr));
      for (int c : conns) {
        char buf[256];
        const ssize_t k = recv(c, buf, sizeof(buf), MSG_DONTWAIT);
        if (k > 0) bytes += k;
      }
    }
    (void)!write(got[1], &bytes, sizeof(bytes));
    return 0;
  });
  char x;
  ASSERT_EQ(read(ready[0], &x, 1), 1);
  const auto runs = spawn(
      3, [&](int r) { return slurm_env(r, 3, job); }, {LAUNCH_PROG_PATH}, 20);
  long bytes = -1;
  ASSERT_EQ(read(got[0], &bytes, sizeof(bytes)), static_cast<ssize_t>(sizeof(bytes)));
  EXPECT_EQ(reap(squatter), 0);
  EXPECT_EQ(bytes, 0) << "the squatter received bytes of the job\n" << all_output(runs);
  for (int r = 0; r < 3; ++r) {
    EXPECT_NE(runs[r].status, 0) << all_output(runs);
    EXPECT_LT(runs[r].seconds, 5.0) << all_output(runs);
  }
  EXPECT_TRUE(runs[0].has("cannot host the rendezvous")) << all_output(runs);
  EXPECT_TRUE(runs[1].has("of uid 65534, not by this user (uid 0): refusing to join"))
      << all_output(runs);
}

// During the join, a process of another uid connects claiming rank 1, and strays of our own uid
// send garbage or nothing: each is refused and logged, and the real PEs then start the job.
TEST(Join, ForeignAndStrayConnectionsAreRefusedAndTheJobGoesOn) {
  SKIP_UNLESS_ROOT();
  const std::string job = "fo" + std::to_string(getpid());
  const std::string address = "unix:symmetra-slurm-" + job + ".0";
  // PE 0 hosts the rendezvous; the others start after the intruders have come and gone.
  std::vector<PeRun> runs;
  std::thread pes([&] {
    runs = spawn(
        3,
        [&](int r) {
          auto env = slurm_env(r, 3, job);
          if (r > 0) env["SYMMETRA_TEST_DELAY_MS"] = "800";
          return env;
        },
        {"/bin/sh", "-c",
         "[ -n \"$SYMMETRA_TEST_DELAY_MS\" ] && sleep 0.8; exec " LAUNCH_PROG_PATH},
        20);
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(200));  // PE 0 is listening
  const pid_t foreign = stray(true, address, hello(1), 300);
  const pid_t garbage = stray(false, address, "GET / HTTP/1.0\r\n\r\n......", 300);
  const pid_t silent = stray(false, address, "", 3000);  // holds its connection past the join
  pes.join();
  EXPECT_EQ(reap(foreign), 0);
  EXPECT_EQ(reap(garbage), 0);
  EXPECT_EQ(reap(silent), 0);
  expect_ring_ok(runs);
  EXPECT_TRUE(runs[0].has("rendezvous refused a connection from pid")) << all_output(runs);
  EXPECT_TRUE(runs[0].has("(uid 65534): uid 65534 is not this job's user (uid 0)"))
      << all_output(runs);
  EXPECT_TRUE(runs[0].has("not a Symmetra hello")) << all_output(runs);
}

// Issue 51: 200 idle connections and 20 that send garbage, open while a 16-PE job starts, do not
// keep a PE out. Before, 66 idle connections filled the joining slots and the PEs that came
// after them were refused. Now the oldest silent connection makes room, and one silent for 5 s
// is dropped; both are logged.
TEST(Join, IdleAndGarbageConnectionsNeverHoldUpTheJoin) {
  const std::string job = "id" + std::to_string(getpid());
  const std::string address = "unix:symmetra-slurm-" + job + ".0";
  constexpr int kPes = 16;
  std::vector<PeRun> runs;
  std::thread pes([&] {
    runs = spawn(
        kPes, [&](int r) { return slurm_env(r, kPes, job); },
        {"/bin/sh", "-c", "[ \"$SLURM_PROCID\" != 0 ] && sleep 0.8; exec " LAUNCH_PROG_PATH}, 40);
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(200));  // PE 0 is listening
  std::vector<int> held;
  for (int i = 0; i < 220; ++i) {
    auto fd = detail::connect_to(address, 5000);
    if (!fd.ok()) continue;
    if (i >= 200) {
      const std::string junk = "GET / HTTP/1.0\r\n\r\n" + std::string(64, static_cast<char>(i));
      (void)detail::send_all(fd.value(), junk.data(), junk.size());
    }
    held.push_back(fd.value());
  }
  pes.join();
  for (int fd : held) close(fd);
  EXPECT_GE(held.size(), 200u) << "the test's connections did not reach the rendezvous";
  expect_ring_ok(runs);
  EXPECT_TRUE(runs[0].has("rendezvous refused")) << all_output(runs);
}

// Over TCP only the secret admits: a PE with a wrong one is refused (and told), the job goes
// on; a PE without one fails at once; and a server that cannot prove it is refused by the PE.
TEST(Join, TcpAdmitsOnlyTheJobsSecret) {
  const int port = free_tcp_port(31);
  const std::string address = "tcp:127.0.0.1:" + std::to_string(port);
  std::vector<PeRun> runs;
  std::thread pes([&] {
    runs = spawn(
        3,
        [&](int r) {
          auto env = slurm_env(r, 3, "tcp" + std::to_string(getpid()));
          env["SYMMETRA_BOOTSTRAP"] = address;
          env["SYMMETRA_SECRET"] = "the job's secret";
          return env;
        },
        {"/bin/sh", "-c", "[ \"$SLURM_PROCID\" != 0 ] && sleep 0.8; exec " LAUNCH_PROG_PATH}, 20);
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  const pid_t wrong = child(false, [&] {
    auto fd = detail::connect_to(address, 5000);
    if (!fd.ok()) return 1;
    const auto st = detail::join_as_client(fd.value(), address, 1, "a guess", 5000);
    std::fprintf(stderr, "wrong secret: %s\n", st.ok() ? "admitted" : st.message().c_str());
    return st.ok()                                                                    ? 2
           : st.message().find("did not prove the job's secret") != std::string::npos ? 0
                                                                                      : 3;
  });
  EXPECT_EQ(reap(wrong), 0);
  pes.join();
  expect_ring_ok(runs);
  EXPECT_TRUE(runs[0].has("claimed rank 1 but did not prove the job's secret")) << all_output(runs);

  const auto none = spawn(
      1,
      [&](int) {
        auto env = slurm_env(1, 2, "tcp-none");
        env["SYMMETRA_BOOTSTRAP"] = address;
        return env;
      },
      {LAUNCH_PROG_PATH}, 20);
  EXPECT_NE(none[0].status, 0);
  EXPECT_LT(none[0].seconds, 2.0);
  EXPECT_TRUE(none[0].has("admits only PEs that prove the job's secret: set SYMMETRA_SECRET"))
      << none[0].output;
}

TEST(Join, PeRefusesATcpServerWithoutTheSecret) {
  // Port 0: the kernel picks a free one. A fixed port (41000 + pid % 20000) failed once in a
  // fresh-clone run, "Address already in use": it lies in the ephemeral range, where a
  // concurrent test's connection may hold it.
  auto lfd = detail::listen_on("tcp:127.0.0.1:0", 4);
  ASSERT_TRUE(lfd.ok()) << lfd.status().message();
  const auto port = detail::bound_port(lfd.value());
  ASSERT_TRUE(port.ok()) << port.status().message();
  const std::string address = "tcp:127.0.0.1:" + std::to_string(port.value());
  std::thread impostor([&] {  // challenges, then "proves" a secret it does not have
    const int c = accept(lfd.value(), nullptr, nullptr);
    detail::WireHeader h;
    h.op = detail::WireOp::kChallenge;
    h.len = 16;
    const char nonce[16] = {1, 2, 3};
    (void)detail::send_all(c, &h, sizeof(h));
    (void)detail::send_all(c, nonce, sizeof(nonce));
    char hello_and_proof[sizeof(h) + 48];
    (void)detail::recv_all(c, hello_and_proof, sizeof(hello_and_proof), 5000);
    h.op = detail::WireOp::kWelcome;
    h.len = 32;
    const char proof[32] = {};
    (void)detail::send_all(c, &h, sizeof(h));
    (void)detail::send_all(c, proof, sizeof(proof));
    close(c);
  });
  auto fd = detail::connect_to(address, 5000);
  ASSERT_TRUE(fd.ok());
  const auto st = detail::join_as_client(fd.value(), address, 0, "the job's secret", 5000);
  impostor.join();
  close(fd.value());
  close(lfd.value());
  EXPECT_FALSE(st.ok());
  EXPECT_NE(st.message().find("does not know the job's secret: refusing to join"),
            std::string::npos)
      << st.message();
}

}  // namespace
