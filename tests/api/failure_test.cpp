// Failure paths where no launcher helps (docs/design_notes.md, "Failure handling"):
// - a PE that dies, or leaves without finalize, stops every waiting PE within 2 s with an error
//   naming it: PEs as threads, processes under a Slurm-like environment (the test starts them and
//   kills nobody), and under a real mpirun told not to end the job itself;
// - a PE that calls exit() early while the others wait in a barrier leaves at once (no
//   collective step), the others never pass that barrier, and symrun returns its status;
// - PEs of two hosts stop within 2 s when a PE, or the whole other host, is lost, naming its
//   host;
// - a job whose launcher says it spans hosts but gives no TCP rendezvous fails at once.
#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "support/command.hpp"
#include "support/free_port.hpp"
#include "symmetra/launch.hpp"

namespace {

using symmetra::testing::free_tcp_port;
using symmetra::testing::PeRun;
using symmetra::testing::run_command;
using symmetra::testing::spawn;

std::string all_output(const std::vector<PeRun>& runs) {
  std::string s;
  for (std::size_t r = 0; r < runs.size(); ++r)
    s += "--- PE " + std::to_string(r) + ":\n" + runs[r].output;
  return s;
}

// The ms a waiter reported in "pe N stopped after X ms: ..." (fault_prog lost_while_waiting).
long stopped_after_ms(const PeRun& r) {
  const auto at = r.output.find("stopped after ");
  return at == std::string::npos ? -1 : std::atol(r.output.c_str() + at + 14);
}

std::map<std::string, std::string> slurm_env(int r, int n, const std::string& job) {
  return {{"SLURM_PROCID", std::to_string(r)},
          {"SLURM_NTASKS", std::to_string(n)},
          {"SLURM_JOB_ID", job},
          {"SLURM_STEP_ID", "7"},
          {"SLURM_LOCALID", std::to_string(r)}};
}

// Every PE but the victim stopped its wait within 2 s, with an error naming the victim.
void expect_waiters_stopped(const std::vector<PeRun>& runs, int victim) {
  for (int r = 0; r < static_cast<int>(runs.size()); ++r) {
    if (r == victim) continue;
    const long ms = stopped_after_ms(runs[r]);
    EXPECT_GE(ms, 0) << "PE " << r << " did not stop with an error\n" << all_output(runs);
    EXPECT_LT(ms, 2000) << "PE " << r << "\n" << all_output(runs);
    EXPECT_TRUE(runs[r].has("stopping: PE " + std::to_string(victim) + " ")) << "PE " << r << "\n"
                                                                             << all_output(runs);
  }
}

TEST(FailurePaths, ThreadsStopWithinTwoSecondsNamingTheFailedPe) {
  setenv("SYMMETRA_TIMEOUT_S", "60", 1);
  std::mutex m;
  std::map<int, std::pair<long, std::string>> stopped;
  try {
    symmetra::launch_threads(4, [&](symmetra::Runtime& rt) {
      auto* word = rt.allocate_array<long>(1);
      const auto t0 = std::chrono::steady_clock::now();
      try {
        // The barrier too: PE 2 may leave it and fail before another PE has seen it end, and
        // that PE then stops in the barrier, as good a stop as in the wait.
        rt.barrier_all();
        if (rt.my_pe() == 2) throw std::runtime_error("PE 2 gives up");
        rt.wait_until(word, symmetra::Cmp::kGe, 1L);
      } catch (const symmetra::Error& e) {
        const long ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                            std::chrono::steady_clock::now() - t0)
                            .count();
        std::lock_guard<std::mutex> lock(m);
        stopped[rt.my_pe()] = {ms, e.what()};
      }
    });
    ADD_FAILURE() << "launch_threads did not rethrow PE 2's error";
  } catch (const std::runtime_error& e) {
    EXPECT_STREQ(e.what(), "PE 2 gives up");
  }
  unsetenv("SYMMETRA_TIMEOUT_S");
  ASSERT_EQ(stopped.size(), 3u) << "a PE ended its part with no symmetra::Error";
  for (const auto& [pe, s] : stopped) {
    EXPECT_LT(s.first, 2000) << "PE " << pe << ": " << s.second;
    EXPECT_NE(s.second.find("stopping: PE 2 failed"), std::string::npos)
        << "PE " << pe << ": " << s.second;
  }
}

// A PE that comes late to a barrier, past SYMMETRA_TIMEOUT_S: the waiting PEs' barrier throws a
// catchable error (Timeout, or JobStopped once another waiter stopped the job), not an abort of
// the process; a Timeout names the PE not yet arrived, and the late PE's own barrier, if it
// waits at all, stops naming the PE that timed out. Then every PE finalizes (launch_threads does):
// the job ends. The late PE comes 3 s after the others, within a second timeout of theirs, so that
// finalize's own meeting (bounded by the same timeout) sees it.
TEST(FailurePaths, ATimeoutIsCatchableAndNamesThePeNotArrived) {
  setenv("SYMMETRA_TIMEOUT_S", "2", 1);
  std::mutex m;
  std::map<int, std::pair<bool, std::string>> caught;  // PE -> (a Timeout, its message)
  symmetra::launch_threads(3, [&](symmetra::Runtime& rt) {
    rt.barrier_all();
    if (rt.my_pe() == 1) std::this_thread::sleep_for(std::chrono::milliseconds(3000));
    try {
      rt.barrier_all();
    } catch (const symmetra::Error& e) {
      std::lock_guard<std::mutex> lock(m);
      caught[rt.my_pe()] = {dynamic_cast<const symmetra::Timeout*>(&e) != nullptr, e.what()};
    }
  });
  unsetenv("SYMMETRA_TIMEOUT_S");
  // PEs 0 and 2 cannot pass the barrier without PE 1. PE 1 may: it can be the last to arrive at
  // a central counter whose other arrivals stand, and then it releases the barrier itself.
  ASSERT_TRUE(caught.count(0) && caught.count(2)) << "a PE passed the barrier PE 1 came late to";
  int timeouts = 0;
  for (const auto& [pe, c] : caught) {
    if (c.first) {
      ++timeouts;
      EXPECT_NE(pe, 1) << c.second;
      EXPECT_NE(c.second.find("timed out after 2 s"), std::string::npos) << c.second;
      EXPECT_NE(c.second.find("not yet arrived: PE 1 (at sync"), std::string::npos) << c.second;
    } else {
      EXPECT_NE(c.second.find("timed out waiting for another PE"), std::string::npos)
          << "PE " << pe << ": " << c.second;
    }
  }
  EXPECT_GE(timeouts, 1);
}

// No launcher to end the job: the test starts the PEs as Slurm would and kills nobody. PE 0
// hosts the rendezvous, which sees the victim's connection close.
TEST(FailurePaths, SlurmLikeProcessesStopWhenAPeIsKilled) {
  const std::string job = "ft" + std::to_string(getpid());
  const auto runs = spawn(4, [&](int r) { return slurm_env(r, 4, job); },
                          {FAULT_PROG_PATH, "lost_while_waiting", "2", "kill"});
  EXPECT_EQ(runs[2].status, 128 + SIGKILL);
  expect_waiters_stopped(runs, 2);
}

// The victim is PE 0, which hosts the rendezvous: the others see it gone.
TEST(FailurePaths, SlurmLikeProcessesStopWhenTheHostingPeIsKilled) {
  const std::string job = "fh" + std::to_string(getpid());
  const auto runs = spawn(3, [&](int r) { return slurm_env(r, 3, job); },
                          {FAULT_PROG_PATH, "lost_while_waiting", "0", "kill"});
  expect_waiters_stopped(runs, 0);
}

// exit() without finalize, and nothing in the job's heaps marked: the rendezvous alone tells.
TEST(FailurePaths, SlurmLikeProcessesStopWhenAPeExitsWithoutFinalize) {
  const std::string job = "fe" + std::to_string(getpid());
  const auto runs = spawn(3, [&](int r) { return slurm_env(r, 3, job); },
                          {FAULT_PROG_PATH, "lost_while_waiting", "1", "exit"});
  EXPECT_EQ(runs[1].status, 3) << all_output(runs);
  expect_waiters_stopped(runs, 1);
}

// PEs of two hosts of two, as torchrun starts them on two nodes: they meet over TCP at PE 0's
// and reach the other node through UCX (the loopback test transport where the build has none).
std::map<std::string, std::string> two_node_env(int r, int port) {
  std::map<std::string, std::string> env{{"RANK", std::to_string(r)},
                                         {"WORLD_SIZE", "4"},
                                         {"LOCAL_RANK", std::to_string(r % 2)},
                                         {"LOCAL_WORLD_SIZE", "2"},
                                         {"MASTER_ADDR", "127.0.0.1"},
                                         {"MASTER_PORT", std::to_string(port)},
                                         {"SYMMETRA_HOST_ID", "node" + std::to_string(r / 2)},
                                         {"SYMMETRA_SECRET", "s3cret"}};
  if (SYMMETRA_TEST_UCX) {
    env["SYMMETRA_TRANSPORT"] = "ucx";
    env["UCX_TLS"] = "tcp";
  }
  return env;
}

// A PE of the other node is killed: the others stop within 2 s, naming it and its host.
TEST(FailurePaths, TwoNodesStopWhenAPeOfTheOtherIsKilled) {
  const int port = free_tcp_port(23);
  const auto runs = spawn(4, [&](int r) { return two_node_env(r, port); },
                          {FAULT_PROG_PATH, "lost_while_waiting", "3", "kill"});
  EXPECT_EQ(runs[3].status, 128 + SIGKILL) << all_output(runs);
  expect_waiters_stopped(runs, 3);
  for (int r : {0, 1})
    EXPECT_TRUE(runs[r].has("stopping: PE 3 (host 'node1') is gone")) << all_output(runs);
}

// The whole second node goes (both its PEs killed at once): the first node's PEs stop within
// 2 s, naming a PE of it and its host.
TEST(FailurePaths, TwoNodesStopWhenTheOtherNodeDies) {
  const int port = free_tcp_port(29);
  const auto runs = spawn(4, [&](int r) { return two_node_env(r, port); },
                          {FAULT_PROG_PATH, "lost_while_waiting", "host", "kill"});
  for (int r : {2, 3}) EXPECT_EQ(runs[r].status, 128 + SIGKILL) << all_output(runs);
  for (int r : {0, 1}) {
    const long ms = stopped_after_ms(runs[r]);
    EXPECT_GE(ms, 0) << "PE " << r << " did not stop with an error\n" << all_output(runs);
    EXPECT_LT(ms, 2000) << "PE " << r << "\n" << all_output(runs);
    EXPECT_TRUE(runs[r].has("(host 'node1') is gone")) << all_output(runs);
  }
}

bool have_mpirun() {
  return std::system("command -v mpirun >/dev/null 2>&1") == 0;
}
// mpirun that leaves a PE's non-zero exit to the job (it would end the others itself).
const std::string kMpirun =
    "mpirun --allow-run-as-root --oversubscribe --mca orte_abort_on_non_zero_status 0 "
    "-x SYMMETRA_TIMEOUT_S=60 ";

TEST(FailurePaths, MpirunProcessesStopWhenAPeExitsEarly) {
  if (!have_mpirun()) GTEST_SKIP() << "mpirun is not installed (tools/setup installs Open MPI)";
  const auto r = run_command(kMpirun + "-n 4 " FAULT_PROG_PATH " lost_while_waiting 2 exit");
  for (int pe : {0, 1, 3}) {
    const auto at = r.output.find("pe " + std::to_string(pe) + " stopped after ");
    ASSERT_NE(at, std::string::npos) << r.output;
    EXPECT_LT(std::atol(r.output.c_str() + at + 20), 2000) << r.output;
  }
  EXPECT_TRUE(r.has("stopping: PE 2 ")) << r.output;
  EXPECT_LT(r.seconds, 20.0) << r.output;
}

// --- A PE that exits early while the others wait in a barrier (OpenSHMEM C API) ---

void expect_nobody_passed(const std::string& output) {
  EXPECT_EQ(output.find("passed a barrier"), std::string::npos) << output;
}

TEST(EarlyExit, SymrunReturnsTheStatusOfThePeThatLeft) {
  for (const char* how : {"c_exit_early", "c_return_early"}) {
    for (int n : {2, 4}) {
      const auto r = run_command("SYMMETRA_TIMEOUT_S=60 " SYMRUN_PATH " -n " + std::to_string(n) +
                                 " " EXIT_PROG_PATH " " + how);
      EXPECT_EQ(r.status, 3) << how << " " << n << " PEs\n" << r.output;
      EXPECT_TRUE(r.has("PE 1 exited with status 3")) << r.output;
      EXPECT_LT(r.seconds, 2.0) << how << " " << n << " PEs: the job did not end at once\n"
                                << r.output;
      expect_nobody_passed(r.output);
    }
  }
}

// --- The C API's argument errors: each ends the job with "[pe N] routine: what was wrong" ---

TEST(CApiErrors, EachEndsTheJobWithItsMessage) {
  struct Case {
    const char* how;
    const char* message;
  };
  for (const Case& c : {
           Case{"c_before_init", "shmem_long_p: called before shmem_init"},
           Case{"c_invalid_ctx", "[pe 1] shmem_ctx_putmem: the context is SHMEM_CTX_INVALID"},
           Case{"c_ctx_not_member",
                "[pe 0] shmem_ctx_long_p: PE 1 is not a member of the context's team"},
           // Issue 51: with checks off (below) this was a bare segfault.
           Case{"c_bcast_private", "shmem_long_broadcast: broadcast: dest (32 bytes at 0x"},
           Case{"c_ibput_overlap",
                "[pe 0] shmem_long_ibput: dst 3 and sst 4 with bsize 4 and 2 blocks: the strides "
                "must be positive and dst at least bsize"},
           Case{"c_pe_quiet_bad_pe",
                "[pe 1] shmem_pe_quiet: target_pes[1] is 5, not a PE of the context's team (0-1)"},
       }) {
    const auto r = run_command("SYMMETRA_TIMEOUT_S=60 SYMMETRA_CHECK=0 " SYMRUN_PATH
                               " -n 2 " EXIT_PROG_PATH " " +
                               std::string(c.how));
    EXPECT_NE(r.status, 0) << c.how << "\n" << r.output;
    EXPECT_NE(r.status, 128 + 11) << c.how << ": a segfault, not a message\n" << r.output;
    EXPECT_TRUE(r.has(c.message)) << c.how << "\n" << r.output;
    EXPECT_EQ(r.output.find("passed the bad call"), std::string::npos) << c.how << "\n" << r.output;
    EXPECT_LT(r.seconds, 20.0) << c.how << ": the job did not end promptly\n" << r.output;
  }
}

TEST(EarlyExit, SlurmLikeOthersStopNamingIt) {
  const std::string job = "ee" + std::to_string(getpid());
  const auto runs =
      spawn(3, [&](int r) { return slurm_env(r, 3, job); }, {EXIT_PROG_PATH, "c_exit_early"});
  EXPECT_EQ(runs[1].status, 3) << all_output(runs);
  for (int pe : {0, 2}) {
    EXPECT_NE(runs[pe].status, 0) << all_output(runs);
    EXPECT_LT(runs[pe].seconds, 2.0) << all_output(runs);
    EXPECT_TRUE(runs[pe].has("[pe " + std::to_string(pe) + "] shmem_barrier_all: "))
        << all_output(runs);
    EXPECT_TRUE(runs[pe].has("stopping: PE 1 left the job without finalize")) << all_output(runs);
  }
  expect_nobody_passed(all_output(runs));
}

TEST(EarlyExit, MpirunOthersStopNamingIt) {
  if (!have_mpirun()) GTEST_SKIP() << "mpirun is not installed (tools/setup installs Open MPI)";
  const auto r = run_command(kMpirun + "-n 3 " EXIT_PROG_PATH " c_exit_early");
  // (mpirun's own status: with orte_abort_on_non_zero_status 0 it returns 0 whatever the PEs'.)
  EXPECT_TRUE(r.has("stopping: PE 1 left the job without finalize")) << r.output;
  EXPECT_LT(r.seconds, 20.0) << r.output;
  expect_nobody_passed(r.output);
}

TEST(EarlyExit, ThreadsExitAtOnceWithTheStatus) {
  const auto r = run_command("SYMMETRA_TIMEOUT_S=60 " EXIT_PROG_PATH " threads_exit_early 4");
  EXPECT_EQ(r.status, 3) << r.output;
  EXPECT_LT(r.seconds, 2.0) << r.output;
  expect_nobody_passed(r.output);
}

// --- A job that spans hosts but names no TCP rendezvous ---

// One PE of a job its launcher places on two hosts, meeting on a Unix socket that the other
// host cannot reach: it fails at once, saying what to set.
void expect_fails_at_once(const std::map<std::string, std::string>& env, const std::string& from) {
  const auto runs = spawn(
      1, [&](int) { return env; }, {FAULT_PROG_PATH, "idle", "0"}, 20);
  EXPECT_NE(runs[0].status, 0) << runs[0].output;
  EXPECT_LT(runs[0].seconds, 2.0) << runs[0].output;
  EXPECT_TRUE(runs[0].has("spans more than one host (" + from + ")")) << runs[0].output;
  EXPECT_TRUE(runs[0].has("set SYMMETRA_BOOTSTRAP=tcp:")) << runs[0].output;
}

TEST(MultiHost, OpenMpiJobOnTwoHostsFailsAtOnce) {
  expect_fails_at_once({{"OMPI_COMM_WORLD_RANK", "2"},
                        {"OMPI_COMM_WORLD_SIZE", "4"},
                        {"OMPI_COMM_WORLD_LOCAL_SIZE", "2"},
                        {"OMPI_COMM_WORLD_LOCAL_RANK", "0"},
                        {"OMPI_MCA_ess_base_jobid", "mh" + std::to_string(getpid())}},
                       "OMPI_COMM_WORLD_LOCAL_SIZE=2");
}

TEST(MultiHost, SlurmJobOnTwoNodesFailsAtOnce) {
  auto env = slurm_env(1, 4, "mh" + std::to_string(getpid()));
  env["SLURM_STEP_NUM_NODES"] = "2";
  expect_fails_at_once(env, "SLURM_STEP_NUM_NODES=2");
}

}  // namespace
