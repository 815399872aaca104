// The bootstraps on their own: thread job collectives, the rendezvous server with socket
// clients (allgather, fd passing, a client that disappears), and launcher detection.
#include <gtest/gtest.h>
#include <sys/mman.h>
#include <unistd.h>

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

// Clients speak the wire protocol through the real SocketBootstrap, started from symrun's env.
std::unique_ptr<Bootstrap> join(const std::string& address, int rank, int size) {
  setenv("SYMMETRA_RANK", std::to_string(rank).c_str(), 1);
  setenv("SYMMETRA_SIZE", std::to_string(size).c_str(), 1);
  setenv("SYMMETRA_BOOTSTRAP", address.c_str(), 1);
  auto bs = bootstrap_from_env();
  EXPECT_TRUE(bs.ok()) << bs.status().message();
  return bs.ok() ? std::move(bs.value()) : nullptr;
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
      const int fd = memfd_create("t", 0);
      if (ftruncate(fd, 4096) != 0) _exit(13);
      auto* mine =
          static_cast<int*>(mmap(nullptr, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0));
      *mine = 1000 + r;
      std::vector<int> fds;
      if (!bs->allgather_fds(fd, &fds).ok() || fds.size() != kN) _exit(14);
      for (int k = 0; k < kN; ++k) {
        auto* theirs = static_cast<int*>(mmap(nullptr, 4096, PROT_READ, MAP_SHARED, fds[k], 0));
        if (theirs == MAP_FAILED || *theirs != 1000 + k) _exit(15);
      }
      if (!bs->barrier().ok()) _exit(16);
      bs->finalize();
      _exit(0);
    }
    pids.push_back(pid);
  }
  RendezvousServer server(lfd.value(), kN, 30000);
  const Status st = server.serve();
  EXPECT_TRUE(st.ok()) << st.message();
  for (pid_t p : pids) {
    int status = 0;
    waitpid(p, &status, 0);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "child status " << status;
  }
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
