// The bootstraps on their own: thread job collectives, the rendezvous server with socket
// clients (allgather, fd passing, a client that disappears), and launcher detection.
#include <gtest/gtest.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>
#include <vector>

#include "bootstrap/launcher_env.hpp"
#include "bootstrap/rendezvous_server.hpp"
#include "bootstrap/socket.hpp"
#include "bootstrap/thread_bootstrap.hpp"

namespace symmetra::detail {
namespace {

TEST(ThreadBootstrap, AllgatherManyRounds) {
  constexpr int kN = 5;
  auto job = std::make_shared<ThreadJob>(kN, 30000);
  std::vector<std::thread> threads;
  std::vector<int> errors(kN, 0);
  for (int r = 0; r < kN; ++r) {
    threads.emplace_back([&, r] {
      ThreadBootstrap bs(job, r);
      for (int round = 0; round < 200; ++round) {
        const std::uint64_t mine = static_cast<std::uint64_t>(round) * 100 + r;
        std::uint64_t all[kN];
        if (!bs.allgather(&mine, all, sizeof(mine)).ok()) ++errors[r];
        for (int k = 0; k < kN; ++k)
          errors[r] += all[k] != static_cast<std::uint64_t>(round) * 100 + k;
        if (round % 7 == 0 && !bs.barrier().ok()) ++errors[r];
      }
    });
  }
  for (auto& t : threads) t.join();
  for (int r = 0; r < kN; ++r) EXPECT_EQ(errors[r], 0) << "rank " << r;
}

TEST(ThreadBootstrap, FailureReleasesWaiters) {
  auto job = std::make_shared<ThreadJob>(3, 30000);
  Status seen;
  std::thread waiter([&] { seen = ThreadBootstrap(job, 0).barrier(); });
  job->fail("PE 2 failed");
  waiter.join();
  ASSERT_FALSE(seen.ok());
  EXPECT_EQ(seen.message(), "PE 2 failed");
}

// split(color): groups of the PEs with one color, ranked in the job's order, whose collectives
// see only their members; a second split makes groups of its own.
TEST(ThreadBootstrap, SplitMakesGroupsByColor) {
  constexpr int kN = 7;
  auto job = std::make_shared<ThreadJob>(kN, 30000);
  std::vector<std::thread> threads;
  std::vector<std::string> errors(kN);
  for (int r = 0; r < kN; ++r) {
    threads.emplace_back([&, r] {
      ThreadBootstrap bs(job, r);
      for (int colors : {3, 2}) {  // PEs r, r + colors, ... share a color
        auto g = bs.split(r % colors);
        if (!g.ok()) {
          errors[r] = g.status().message();
          return;
        }
        Bootstrap& group = *g.value();
        const int size = (kN - r % colors + colors - 1) / colors;
        if (group.rank() != r / colors || group.size() != size || group.pe() != r)
          errors[r] += "rank " + std::to_string(group.rank()) + " of " +
                       std::to_string(group.size()) + ", pe " + std::to_string(group.pe()) + "; ";
        std::vector<int> all(static_cast<std::size_t>(group.size()));
        if (!group.allgather(&r, all.data(), sizeof(r)).ok()) errors[r] += "allgather failed; ";
        for (int k = 0; k < group.size(); ++k)
          if (all[static_cast<std::size_t>(k)] != r % colors + k * colors)
            errors[r] += "member " + std::to_string(k) + " is PE " +
                         std::to_string(all[static_cast<std::size_t>(k)]) + "; ";
      }
    });
  }
  for (auto& t : threads) t.join();
  for (int r = 0; r < kN; ++r) EXPECT_EQ(errors[r], "") << "PE " << r;
}

TEST(ThreadBootstrap, FailureReachesTheGroups) {
  auto big = std::make_shared<ThreadJob>(3, 30000);
  std::unique_ptr<Bootstrap> pair[2];
  std::thread t1([&] { pair[1] = ThreadBootstrap(big, 1).split(0).value_or_throw(); });
  std::thread t2([&] { (void)ThreadBootstrap(big, 2).split(1); });
  pair[0] = ThreadBootstrap(big, 0).split(0).value_or_throw();
  t1.join();
  t2.join();
  Status seen;
  std::thread waiter([&] { seen = pair[0]->barrier(); });  // its partner never comes
  big->fail("PE 1 failed");
  waiter.join();
  ASSERT_FALSE(seen.ok());
  EXPECT_EQ(seen.message(), "PE 1 failed");
}

// Clients speak the wire protocol through the real SocketBootstrap, started from symrun's env.
std::unique_ptr<Bootstrap> join(const std::string& address, int rank, int size) {
  setenv("SYMMETRA_RANK", std::to_string(rank).c_str(), 1);
  setenv("SYMMETRA_SIZE", std::to_string(size).c_str(), 1);
  setenv("SYMMETRA_BOOTSTRAP", address.c_str(), 1);
  auto bs = bootstrap_from_env();
  EXPECT_TRUE(bs.ok()) << bs.status().message();
  return bs.ok() ? std::move(bs.value()) : nullptr;
}

// Each PE of `bs` shares a memfd holding `mine`; true if member k's shows expect(k).
template <class Expect>
bool fds_carry(Bootstrap& bs, int mine, Expect expect) {
  const int fd = memfd_create("t", 0);
  if (ftruncate(fd, 4096) != 0) return false;
  auto* p = static_cast<int*>(mmap(nullptr, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0));
  *p = mine;
  std::vector<int> fds;
  if (!bs.allgather_fds(fd, &fds).ok() || fds.size() != static_cast<std::size_t>(bs.size()))
    return false;
  for (int k = 0; k < bs.size(); ++k) {
    auto* theirs = static_cast<int*>(mmap(nullptr, 4096, PROT_READ, MAP_SHARED, fds[k], 0));
    if (theirs == MAP_FAILED || *theirs != expect(k)) return false;
  }
  return true;
}

// Hosts the rendezvous on `lfd` for the forked PEs, as symrun does, and checks that each
// exited 0.
void serve_and_reap(int lfd, const std::vector<pid_t>& pids) {
  RendezvousServer server(lfd, static_cast<int>(pids.size()), 30000);
  const Status st = server.serve();
  EXPECT_TRUE(st.ok()) << st.message();
  for (pid_t p : pids) {
    int status = 0;
    waitpid(p, &status, 0);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "child status " << status;
  }
}

TEST(Rendezvous, AllgatherAndFdPassingBetweenProcesses) {
  constexpr int kN = 4;
  const std::string address = "unix:symmetra-unit-" + std::to_string(getpid());
  auto lfd = listen_on(address, kN);
  ASSERT_TRUE(lfd.ok()) << lfd.status().message();
  std::vector<pid_t> pids;
  for (int r = 0; r < kN; ++r) {
    const pid_t pid = fork();
    if (pid == 0) {
      auto bs = join(address, r, kN);
      if (!bs) _exit(10);
      int all[kN];
      if (!bs->allgather(&r, all, sizeof(r)).ok()) _exit(11);
      for (int k = 0; k < kN; ++k)
        if (all[k] != k) _exit(12);
      // Each PE shares a memfd holding its rank; every PE reads every other's through the fd.
      if (!fds_carry(*bs, 1000 + r, [](int k) { return 1000 + k; })) _exit(14);
      if (!bs->barrier().ok()) _exit(16);
      bs->finalize();
      _exit(0);
    }
    pids.push_back(pid);
  }
  serve_and_reap(lfd.value(), pids);
}

// Processes split into groups that meet on sockets of their own, abstract or a path beside
// the job's, and pass fds among their members only.
void split_and_pass_fds(const std::string& address) {
  constexpr int kN = 5;
  auto lfd = listen_on(address, kN);
  ASSERT_TRUE(lfd.ok()) << lfd.status().message();
  std::vector<pid_t> pids;
  for (int r = 0; r < kN; ++r) {
    const pid_t pid = fork();
    if (pid == 0) {
      auto bs = join(address, r, kN);
      if (!bs) _exit(10);
      auto g = bs->split(r % 2);  // {0, 2, 4} and {1, 3}
      if (!g.ok()) {
        std::fprintf(stderr, "PE %d: %s\n", r, g.status().message().c_str());
        _exit(11);
      }
      Bootstrap& group = *g.value();
      if (group.rank() != r / 2 || group.size() != (r % 2 == 0 ? 3 : 2) || group.pe() != r)
        _exit(12);
      if (!fds_carry(group, 1000 + r, [&](int k) { return 1000 + r % 2 + 2 * k; })) _exit(14);
      if (!group.barrier().ok() || !bs->barrier().ok()) _exit(16);
      g.value().reset();
      bs->finalize();
      _exit(0);
    }
    pids.push_back(pid);
  }
  serve_and_reap(lfd.value(), pids);
}

TEST(Rendezvous, SplitGroupsPassFdsAmongThemselves) {
  split_and_pass_fds("unix:symmetra-unit-split-" + std::to_string(getpid()));
}

TEST(Rendezvous, SplitGroupsBesideAPathMeetOnPaths) {
  char dir[] = "/tmp/symmetra-unit-XXXXXX";
  ASSERT_NE(mkdtemp(dir), nullptr);
  split_and_pass_fds(std::string("unix:") + dir + "/rendezvous");
  unlink((std::string(dir) + "/rendezvous").c_str());
  EXPECT_EQ(rmdir(dir), 0) << "the groups' sockets were left behind in " << dir;
}

TEST(Rendezvous, ClientLeavingEarlyAbortsTheOthers) {
  constexpr int kN = 3;
  const std::string address = "unix:symmetra-unit-leave-" + std::to_string(getpid());
  auto lfd = listen_on(address, kN);
  ASSERT_TRUE(lfd.ok());
  RendezvousServer server(lfd.value(), kN, 30000);
  Status served;
  std::thread srv([&] { served = server.serve(); });
  // Rank 2 connects and vanishes; ranks 0 and 1 must get an error naming it, not hang.
  std::vector<std::unique_ptr<Bootstrap>> clients;
  for (int r = 0; r < kN; ++r) clients.push_back(join(address, r, kN));
  std::vector<Status> results(2);
  std::vector<std::thread> waiters;
  for (int r = 0; r < 2; ++r) waiters.emplace_back([&, r] { results[r] = clients[r]->barrier(); });
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  clients[2].reset();  // says goodbye in the destructor: a clean leave must not fail the job...
  for (auto& w : waiters) w.join();
  srv.join();
  // ...but ranks 0 and 1 were waiting in a collective that can now never complete.
  for (int r = 0; r < 2; ++r) {
    EXPECT_FALSE(results[r].ok());
    EXPECT_NE(results[r].message().find("PE 2"), std::string::npos) << results[r].message();
  }
  EXPECT_FALSE(served.ok());
}

TEST(LauncherEnv, RecognizesEachLauncher) {
  for (const char* v :
       {"SYMMETRA_RANK", "SYMMETRA_SIZE", "SYMMETRA_BOOTSTRAP", "OMPI_COMM_WORLD_RANK",
        "OMPI_COMM_WORLD_SIZE", "PMI_RANK", "PMI_SIZE", "SLURM_PROCID", "SLURM_NTASKS", "RANK",
        "WORLD_SIZE", "MASTER_ADDR", "MASTER_PORT", "SYMMETRA_LOCAL_RANK",
        "OMPI_COMM_WORLD_LOCAL_RANK", "MPI_LOCALRANKID", "SLURM_LOCALID", "LOCAL_RANK"})
    unsetenv(v);
  auto none = launch_info_from_env();
  ASSERT_TRUE(none.ok());
  EXPECT_EQ(none.value().size, 1);
  EXPECT_EQ(none.value().launcher, "none");

  setenv("RANK", "3", 1);
  setenv("WORLD_SIZE", "8", 1);
  setenv("MASTER_ADDR", "127.0.0.1", 1);
  setenv("MASTER_PORT", "29500", 1);
  auto torch = launch_info_from_env();
  ASSERT_TRUE(torch.ok());
  EXPECT_EQ(torch.value().launcher, "torchrun");
  EXPECT_EQ(torch.value().rank, 3);
  EXPECT_EQ(torch.value().address, "tcp:127.0.0.1:29501");
  EXPECT_FALSE(torch.value().host_server);
  EXPECT_EQ(torch.value().local_rank, -1) << "no local rank given";
  setenv("LOCAL_RANK", "1", 1);
  EXPECT_EQ(launch_info_from_env().value().local_rank, 1);
  setenv("LOCAL_RANK", "8", 1);
  auto out_of_job = launch_info_from_env();
  ASSERT_FALSE(out_of_job.ok());
  EXPECT_NE(out_of_job.status().message().find("LOCAL_RANK=8 is not a local rank"),
            std::string::npos)
      << out_of_job.status().message();
  setenv("LOCAL_RANK", "2", 1);

  setenv("SLURM_PROCID", "0", 1);
  setenv("SLURM_NTASKS", "4", 1);
  setenv("SLURM_JOB_ID", "77", 1);
  auto slurm = launch_info_from_env();
  ASSERT_TRUE(slurm.ok());
  EXPECT_EQ(slurm.value().launcher, "slurm");
  EXPECT_TRUE(slurm.value().host_server);
  EXPECT_EQ(slurm.value().address, "unix:symmetra-slurm-77.0");
  EXPECT_EQ(slurm.value().local_rank, 2) << "torchrun's LOCAL_RANK when Slurm gives none";

  setenv("OMPI_COMM_WORLD_RANK", "1", 1);
  setenv("OMPI_COMM_WORLD_SIZE", "2", 1);
  setenv("OMPI_COMM_WORLD_LOCAL_RANK", "1", 1);
  auto mpi = launch_info_from_env();
  ASSERT_TRUE(mpi.ok());
  EXPECT_EQ(mpi.value().launcher, "mpi");
  EXPECT_EQ(mpi.value().size, 2);
  EXPECT_EQ(mpi.value().local_rank, 1) << "Open MPI's local rank comes before torchrun's";

  // Across hosts: a Unix socket cannot serve, so PE 0 shares a TCP address through the
  // launcher's PMIx server where there is one, and without one the PE fails at once.
  setenv("OMPI_COMM_WORLD_LOCAL_SIZE", "1", 1);
  auto no_pmix = launch_info_from_env();
  ASSERT_FALSE(no_pmix.ok());
  EXPECT_NE(no_pmix.status().message().find("set SYMMETRA_BOOTSTRAP=tcp:"), std::string::npos)
      << no_pmix.status().message();
  setenv("PMIX_RANK", "1", 1);
  auto pmix = launch_info_from_env();
  ASSERT_TRUE(pmix.ok()) << pmix.status().message();
  EXPECT_EQ(pmix.value().address, "pmix");
  unsetenv("PMIX_RANK");
  unsetenv("OMPI_COMM_WORLD_LOCAL_SIZE");

  setenv("OMPI_COMM_WORLD_RANK", "5", 1);
  auto bad = launch_info_from_env();
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("does not fit"), std::string::npos);
  for (const char* v :
       {"OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE", "OMPI_COMM_WORLD_LOCAL_RANK",
        "SLURM_PROCID", "SLURM_NTASKS", "SLURM_JOB_ID", "RANK", "WORLD_SIZE", "MASTER_ADDR",
        "MASTER_PORT", "LOCAL_RANK"})
    unsetenv(v);
}

}  // namespace
}  // namespace symmetra::detail
