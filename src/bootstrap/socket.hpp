// Stream sockets for the rendezvous: Unix (abstract names, fd passing) and TCP.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "symmetra/error.hpp"

namespace symmetra::detail {

// An address "unix:<name>" (abstract namespace) or "tcp:<host>:<port>".
Result<int> listen_on(const std::string& address, int backlog);
// Connects, retrying until `timeout_ms` passes (the server may not be up yet).
Result<int> connect_to(const std::string& address, int timeout_ms);

// The port a listening TCP socket is bound to (after listen_on("tcp:host:0")).
Result<int> bound_port(int fd);
// An IPv4 address of this host for a TCP rendezvous other hosts reach: the interface that
// SYMMETRA_BOOTSTRAP_IFACE names, else the first one up that is not loopback, else 127.0.0.1.
std::string host_address();

// The process at the other end of a Unix socket, as the kernel saw it connect (SO_PEERCRED).
struct PeerCred {
  int pid;
  unsigned uid;
};
Result<PeerCred> peer_cred(int fd);

Status send_all(int fd, const void* buf, std::size_t n);
// Receives exactly n bytes, waiting at most timeout_ms (-1: forever). EOF is an error.
Status recv_all(int fd, void* buf, std::size_t n, int timeout_ms);

// Sends `fds` (at most kMaxFdsPerMessage) with a small byte payload over a Unix socket.
inline constexpr std::size_t kMaxFdsPerMessage = 200;
Status send_fds(int fd, const int* fds, std::size_t count, const void* buf, std::size_t n);
// Receives exactly n payload bytes and the fds sent with them (at most `max`; *got says how many).
Status recv_fds(int fd, int* fds, std::size_t max, std::size_t* got, void* buf, std::size_t n,
                int timeout_ms);

}  // namespace symmetra::detail
