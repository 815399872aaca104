// The rendezvous server: the hub of a process-mode job's bootstrap.
//
// Hosted by symrun, or by a thread of PE 0 when another launcher started the job. It admits one
// connection per PE (join.hpp: same uid on Unix sockets, the job's secret over TCP; anything
// else is refused and logged, and the join goes on), then serves collectives (allgather, fd
// exchange) in lockstep. A PE that disconnects without saying goodbye fails the job: every other
// PE gets an abort message naming it and its connection shut down, which the PEs' watches
// (Bootstrap::watch) turn into a stop of every wait, so nobody hangs, in setup or after.
#pragma once

#include <atomic>
#include <functional>
#include <string>
#include <vector>

#include "symmetra/error.hpp"

namespace symmetra::detail {

class RendezvousServer {
 public:
  // Takes ownership of `listen_fd`. `timeout_ms` bounds waiting for connections. `tcp`: admit
  // by `secret` (join.hpp); else by uid. `log_prefix` starts the lines it logs ("symrun: ").
  RendezvousServer(int listen_fd, int n_pes, int timeout_ms, bool tcp = false,
                   std::string secret = {}, std::string log_prefix = "symmetra: ");
  ~RendezvousServer();
  RendezvousServer(const RendezvousServer&) = delete;
  RendezvousServer& operator=(const RendezvousServer&) = delete;

  // Serves until every PE said goodbye (ok), stop() (ok), or a PE failed (the Status names it).
  // With `rounds`, a goodbye of every PE starts another round instead, for when the PEs
  // initialize again (OpenSHMEM 1.6's repeated shmem_init): it waits for the round's first PE
  // without a bound, so the caller ends it with stop() (symrun, once the PEs ended). Call once.
  Status serve(bool rounds = false);
  // Makes serve() return soon; safe from another thread. serve() sleeps in poll until a PE
  // writes or stop() wakes it, so a job's hub costs no CPU between bootstrap collectives.
  void stop();
  // Sends every connected PE an abort message with `why`, naming PE `lost` (-1: none), and
  // shuts their connections down.
  void abort_all(const std::string& why, int lost = -1, bool left = false);
  // The PE whose loss stopped the job (it left without saying goodbye), -1 if none. Any thread.
  int first_lost() const { return first_lost_.load(); }

 private:
  // One round: admits every PE (again: its bound starts at the first), serves until all said
  // goodbye, stop(), or a failure.
  Status serve_round(bool again);
  Status accept_all(bool again);
  Status reply(std::vector<struct Pending>& pending);
  int poll_ms() const;  // poll's timeout: none with the eventfd, kPollMs without

  int listen_fd_;
  int n_;
  int timeout_ms_;
  bool tcp_;
  std::string secret_;
  std::string log_prefix_;
  std::atomic<int> first_lost_{-1};
  std::vector<int> clients_;
  std::atomic<bool> stop_{false};
  int wake_fd_;  // eventfd that stop() writes; -1 if none could be made (then serve() polls)
};

}  // namespace symmetra::detail
