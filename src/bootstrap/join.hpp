// Who may join a job: the handshake of a PE's connection to the rendezvous (docs/security.md).
//
// Unix sockets: both ends check the other's uid with SO_PEERCRED before a byte of the job is
// sent; the PE then sends its hello. TCP: the job's secret (SYMMETRA_SECRET, which symrun makes
// up) is required; the server sends a fresh nonce, the PE answers with its hello, a nonce of its
// own and HMAC-SHA256(secret, both nonces, rank), and the server proves the secret back over
// the PE's nonce. Nothing crosses the wire that a replay or a peer without the secret could use.
// Threads: each object handles one connection.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>

#include "symmetra/error.hpp"

namespace symmetra::detail {

// The job's secret from SYMMETRA_SECRET ("" if unset).
std::string job_secret_from_env();
// A fresh secret for a job: 32 random bytes in hex ("" if the kernel gives no random bytes).
std::string new_job_secret();

// The PE's side, on a freshly connected socket to `address`: checks the server and introduces
// this PE as `rank`. Fails with a message saying why it refused or was refused.
Status join_as_client(int fd, const std::string& address, int rank, const std::string& secret,
                      int timeout_ms);

// The server's side of one freshly accepted connection, driven by the server's poll loop so that
// a silent or slow connection never holds up the others: step() whenever the socket is
// readable, until it says admitted (rank()) or refused (the Status says why; the server logs it,
// closes the socket and goes on).
class Admission {
 public:
  enum class State { kWaiting, kAdmitted, kRefused };
  // Sends the TCP challenge at once; a Unix connection is checked by its peer's uid here.
  Admission(int fd, bool tcp, const std::string& secret, int n_pes);
  State state() const { return state_; }
  int fd() const { return fd_; }
  int rank() const { return rank_; }
  const Status& why() const { return why_; }
  const std::string& peer() const { return peer_; }
  // Reads what has arrived, without blocking.
  State step();
  // When the connection was accepted: one that has not said its hello soon after is not a PE.
  std::chrono::steady_clock::time_point since() const { return since_; }

 private:
  State refuse(const std::string& why);

  int fd_;
  bool tcp_;
  const std::string& secret_;
  int n_;
  State state_ = State::kWaiting;
  int rank_ = -1;
  Status why_;
  std::uint8_t nonce_[16] = {};
  std::string peer_;  // who connected, for the log
  std::chrono::steady_clock::time_point since_ = std::chrono::steady_clock::now();
};

}  // namespace symmetra::detail
