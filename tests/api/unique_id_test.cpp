// Jobs whose processes the program starts and numbers itself: PE 0 makes a unique id
// (symmetra::get_unique_id) and passes it on, every PE joins with Runtime::init(id, rank, size).
// What frameworks with a store of their own (torch.distributed, JAX) use, through the Python
// package.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "symmetra/runtime.hpp"

namespace {

using symmetra::Runtime;
using symmetra::UniqueId;

std::uint64_t value_of(std::uint64_t seed, int pe) {
  return seed * 0x9e3779b97f4a7c15ull + static_cast<std::uint64_t>(pe) * 0xbf58476d1ce4e5b9ull;
}

// One PE of the ring: puts its value to the next PE, checks what the previous one put.
int ring_pe(const UniqueId& id, int rank, int n, std::uint64_t seed) {
  try {
    auto rt = Runtime::init(id, rank, n);
    if (rt->my_pe() != rank || rt->n_pes() != n) return 2;
    auto* word = rt->allocate_array<std::uint64_t>(1);
    *word = 0;
    rt->barrier_all();
    rt->p(word, value_of(seed, rank), (rank + 1) % n);
    rt->barrier_all();
    const bool ok = *word == value_of(seed, (rank + n - 1) % n);
    if (!ok)
      std::fprintf(stderr, "[pe %d] got %llx\n", rank, static_cast<unsigned long long>(*word));
    rt->free(word);
    rt->finalize();
    return ok ? 0 : 3;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "[pe %d] %s\n", rank, e.what());
    return 4;
  }
}

// Waits up to `seconds` for every child; kills the ones left. Returns how many exited 0.
int reap(const std::vector<pid_t>& pids, int seconds) {
  int ok = 0;
  const auto end = std::chrono::steady_clock::now() + std::chrono::seconds(seconds);
  for (pid_t p : pids) {
    int status = 0;
    while (waitpid(p, &status, WNOHANG) == 0) {
      if (std::chrono::steady_clock::now() > end) {
        std::fprintf(stderr, "pid %d did not end in %d s: killed\n", p, seconds);
        kill(p, SIGKILL);
        waitpid(p, &status, 0);
        break;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    ok += WIFEXITED(status) && WEXITSTATUS(status) == 0;
  }
  return ok;
}

TEST(UniqueId, JoinsProcessesTheProgramNumbered) {
  const int n = 4;
  const std::uint64_t seed = std::random_device{}();
  std::vector<int> to(n, -1), from(n, -1);  // PE 0 writes the id into each other PE's pipe
  for (int r = 1; r < n; ++r) {
    int fds[2];
    ASSERT_EQ(pipe(fds), 0);
    from[r] = fds[0];
    to[r] = fds[1];
  }
  setenv("SYMMETRA_TIMEOUT_S", "30", 1);
  std::vector<pid_t> pids;
  for (int r = 0; r < n; ++r) {
    const pid_t pid = fork();
    if (pid == 0) {
      UniqueId id;
      if (r == 0) {
        id = symmetra::get_unique_id();
        for (int q = 1; q < n; ++q)
          if (write(to[q], &id, sizeof(id)) != static_cast<ssize_t>(sizeof(id))) _exit(5);
      } else if (read(from[r], &id, sizeof(id)) != static_cast<ssize_t>(sizeof(id))) {
        _exit(6);
      }
      _exit(ring_pe(id, r, n, seed));
    }
    pids.push_back(pid);
  }
  for (int r = 1; r < n; ++r) {
    close(to[r]);
    close(from[r]);
  }
  EXPECT_EQ(reap(pids, 60), n);
}

TEST(UniqueId, WhatCannotJoinSaysWhy) {
  UniqueId bad;
  std::snprintf(bad.bytes, sizeof(bad.bytes), "%s", "not an id");
  try {
    (void)Runtime::init(bad, 1, 2);
    FAIL() << "a malformed id joined";
  } catch (const symmetra::Error& e) {
    EXPECT_NE(std::string(e.what()).find("is not a unique id"), std::string::npos) << e.what();
  }
  const UniqueId id = symmetra::get_unique_id();
  EXPECT_EQ(std::string(id.bytes).rfind("tcp:", 0), 0u) << id.bytes;
  try {
    (void)Runtime::init(id, 2, 2);
    FAIL() << "rank 2 of 2 joined";
  } catch (const symmetra::Error& e) {
    EXPECT_NE(std::string(e.what()).find("rank 2 is not a PE of a job of 2"), std::string::npos)
        << e.what();
  }
  // PE 0 of an id that another process made: it cannot host that rendezvous.
  UniqueId foreign = id;
  foreign.bytes[std::string(foreign.bytes).find(' ') - 1] ^= 1;  // another port
  try {
    (void)Runtime::init(foreign, 0, 2);
    FAIL() << "PE 0 joined with an id it did not make";
  } catch (const symmetra::Error& e) {
    EXPECT_NE(std::string(e.what()).find("PE 0 must be the process that called get_unique_id"),
              std::string::npos)
        << e.what();
  }
}

// A PE whose PE 0 never comes: the rendezvous is bounded, and says so.
TEST(UniqueId, AJoinWithoutPeZeroEndsAtTheTimeout) {
  const UniqueId id = symmetra::get_unique_id();  // listening here, but nobody serves
  setenv("SYMMETRA_TIMEOUT_S", "1", 1);
  const auto start = std::chrono::steady_clock::now();
  try {
    (void)Runtime::init(id, 1, 2);
    FAIL() << "joined a job whose PE 0 never came";
  } catch (const symmetra::Error& e) {
    EXPECT_NE(std::string(e.what()).find("[pe 1]"), std::string::npos) << e.what();
  }
  unsetenv("SYMMETRA_TIMEOUT_S");
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(10));
}

}  // namespace
