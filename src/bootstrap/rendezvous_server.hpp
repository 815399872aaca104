// The rendezvous server: the hub of a process-mode job's bootstrap.
//
// Hosted by symrun, or by a thread of PE 0 when another launcher started the job. It accepts one
// connection per PE, then serves collectives (allgather, fd exchange) in lockstep. A PE that
// disconnects without saying goodbye fails the job: every other PE gets an abort message naming
// it, so nobody hangs in setup.
#pragma once

#include <atomic>
#include <functional>
#include <string>
#include <vector>

#include "symmetra/error.hpp"

namespace symmetra::detail {

class RendezvousServer {
 public:
  // Takes ownership of `listen_fd`. `timeout_ms` bounds waiting for connections.
  RendezvousServer(int listen_fd, int n_pes, int timeout_ms);
  ~RendezvousServer();
  RendezvousServer(const RendezvousServer&) = delete;
  RendezvousServer& operator=(const RendezvousServer&) = delete;

  // Serves until every PE said goodbye (ok) or one failed (the Status names it). Call once.
  Status serve();
  // Makes serve() return soon; safe from another thread. serve() sleeps in poll until a PE
  // writes or stop() wakes it, so a job's hub costs no CPU between bootstrap collectives.
  void stop();
  // Sends every connected PE an abort message with `why`.
  void abort_all(const std::string& why);

 private:
  Status accept_all();
  Status reply(std::vector<struct Pending>& pending);
  int poll_ms() const;  // poll's timeout: none with the eventfd, kPollMs without

  int listen_fd_;
  int n_;
  int timeout_ms_;
  std::vector<int> clients_;
  std::atomic<bool> stop_{false};
  int wake_fd_;  // eventfd that stop() writes; -1 if none could be made (then serve() polls)
};

}  // namespace symmetra::detail
