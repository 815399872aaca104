#include "bootstrap/socket.hpp"

#include <arpa/inet.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <thread>

namespace symmetra::detail {
namespace {

std::string errno_text() {
  return std::strerror(errno);
}

// Abstract Unix addresses: no file to clean up when a job dies. A name that starts with '/' is
// a path instead: abstract names belong to a network namespace, paths to the file system, so
// PEs that symrun --netns put in namespaces of their own still meet on one.
Result<sockaddr_un> unix_address(const std::string& name, socklen_t* len) {
  sockaddr_un a{};
  a.sun_family = AF_UNIX;
  if (name.size() + 1 > sizeof(a.sun_path)) return Status::fail("socket name too long: " + name);
  const std::size_t at = name[0] == '/' ? 0 : 1;  // abstract: a NUL first
  if (at == 1) a.sun_path[0] = '\0';
  std::memcpy(a.sun_path + at, name.data(), name.size());
  *len = static_cast<socklen_t>(offsetof(sockaddr_un, sun_path) + at + name.size());
  return a;
}

Status split_tcp(const std::string& rest, std::string* host, std::string* port) {
  const auto colon = rest.rfind(':');
  if (colon == std::string::npos) return Status::fail("tcp address needs host:port: " + rest);
  *host = rest.substr(0, colon);
  *port = rest.substr(colon + 1);
  return {};
}

Result<int> tcp_socket(const std::string& rest, bool listening, int backlog) {
  std::string host, port;
  SYMMETRA_TRY(split_tcp(rest, &host, &port));
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* res = nullptr;
  // A listener binds the address it was given (MASTER_ADDR), never every interface: the
  // rendezvous answers only where the job said it would (docs/security.md).
  const int rc = getaddrinfo(host.c_str(), port.c_str(), &hints, &res);
  if (rc != 0) return Status::fail("cannot resolve " + rest + ": " + gai_strerror(rc));
  int fd = -1;
  std::string err = "no address";
  for (addrinfo* ai = res; ai != nullptr && fd < 0; ai = ai->ai_next) {
    fd = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC, ai->ai_protocol);
    if (fd < 0) continue;
    int one = 1;
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
    const bool ok = listening
                        ? (bind(fd, ai->ai_addr, ai->ai_addrlen) == 0 && listen(fd, backlog) == 0)
                        : connect(fd, ai->ai_addr, ai->ai_addrlen) == 0;
    if (!ok) {
      err = errno_text();
      close(fd);
      fd = -1;
    }
  }
  freeaddrinfo(res);
  if (fd < 0)
    return Status::fail((listening ? "cannot listen on tcp:" : "cannot connect to tcp:") + rest +
                        ": " + err);
  return fd;
}

Result<int> unix_socket(const std::string& name, bool listening, int backlog) {
  socklen_t len = 0;
  auto addr = unix_address(name, &len);
  SYMMETRA_TRY(addr);
  const int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return Status::fail("socket: " + errno_text());
  const auto* sa = reinterpret_cast<const sockaddr*>(&addr.value());
  const bool ok =
      listening ? (bind(fd, sa, len) == 0 && listen(fd, backlog) == 0) : connect(fd, sa, len) == 0;
  if (!ok) {
    const std::string err = errno_text();
    close(fd);
    return Status::fail((listening ? "cannot listen on unix:" : "cannot connect to unix:") + name +
                        ": " + err);
  }
  return fd;
}

Result<int> open_socket(const std::string& address, bool listening, int backlog) {
  if (address.rfind("unix:", 0) == 0) return unix_socket(address.substr(5), listening, backlog);
  if (address.rfind("tcp:", 0) == 0) return tcp_socket(address.substr(4), listening, backlog);
  return Status::fail("bootstrap address must start with unix: or tcp:, got '" + address + "'");
}

Status wait_readable(int fd, int timeout_ms) {
  pollfd p{fd, POLLIN, 0};
  for (;;) {
    const int rc = poll(&p, 1, timeout_ms);
    if (rc > 0) return {};
    if (rc == 0)
      return Status::fail("timed out after " + std::to_string(timeout_ms / 1000) +
                          " s waiting for the other PEs (SYMMETRA_TIMEOUT_S sets the bound)");
    if (errno != EINTR) return Status::fail("poll: " + errno_text());
  }
}

}  // namespace

Result<PeerCred> peer_cred(int fd) {
  ucred c{};
  socklen_t len = sizeof(c);
  if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &c, &len) != 0 || len != sizeof(c))
    return Status::fail("SO_PEERCRED: " + errno_text());
  return PeerCred{static_cast<int>(c.pid), static_cast<unsigned>(c.uid)};
}

Result<int> bound_port(int fd) {
  sockaddr_storage a{};
  socklen_t len = sizeof(a);
  if (getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len) != 0)
    return Status::fail("getsockname: " + errno_text());
  if (a.ss_family == AF_INET) return ntohs(reinterpret_cast<const sockaddr_in*>(&a)->sin_port);
  if (a.ss_family == AF_INET6) return ntohs(reinterpret_cast<const sockaddr_in6*>(&a)->sin6_port);
  return Status::fail("not a TCP socket");
}

std::string host_address() {
  const char* want = std::getenv("SYMMETRA_BOOTSTRAP_IFACE");
  ifaddrs* all = nullptr;
  if (getifaddrs(&all) != 0) return "127.0.0.1";
  std::string found;
  for (const ifaddrs* i = all; i != nullptr && found.empty(); i = i->ifa_next) {
    if (i->ifa_addr == nullptr || i->ifa_addr->sa_family != AF_INET || !(i->ifa_flags & IFF_UP))
      continue;
    if (want != nullptr ? std::strcmp(i->ifa_name, want) != 0 : (i->ifa_flags & IFF_LOOPBACK))
      continue;
    char text[INET_ADDRSTRLEN] = {};
    inet_ntop(AF_INET, &reinterpret_cast<const sockaddr_in*>(i->ifa_addr)->sin_addr, text,
              sizeof(text));
    found = text;
  }
  freeifaddrs(all);
  return found.empty() ? "127.0.0.1" : found;
}

Result<int> listen_on(const std::string& address, int backlog) {
  return open_socket(address, true, backlog);
}

Result<int> connect_to(const std::string& address, int timeout_ms) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  for (int delay_ms = 1;; delay_ms = std::min(delay_ms * 2, 100)) {
    auto fd = open_socket(address, false, 0);
    if (fd.ok() || std::chrono::steady_clock::now() > deadline) return fd;
    std::this_thread::sleep_for(std::chrono::milliseconds(delay_ms));
  }
}

Status send_all(int fd, const void* buf, std::size_t n) {
  const auto* p = static_cast<const char*>(buf);
  while (n > 0) {
    const ssize_t k = send(fd, p, n, MSG_NOSIGNAL);
    if (k < 0 && errno == EINTR) continue;
    if (k <= 0) return Status::fail("send: " + errno_text());
    p += k;
    n -= static_cast<std::size_t>(k);
  }
  return {};
}

Status recv_all(int fd, void* buf, std::size_t n, int timeout_ms) {
  auto* p = static_cast<char*>(buf);
  while (n > 0) {
    SYMMETRA_TRY(wait_readable(fd, timeout_ms));
    const ssize_t k = recv(fd, p, n, 0);
    if (k < 0 && errno == EINTR) continue;
    if (k == 0) return Status::fail("connection closed by peer");
    if (k < 0) return Status::fail("recv: " + errno_text());
    p += k;
    n -= static_cast<std::size_t>(k);
  }
  return {};
}

Status send_fds(int fd, const int* fds, std::size_t count, const void* buf, std::size_t n) {
  if (count > kMaxFdsPerMessage || n == 0) return Status::fail("send_fds: bad message shape");
  std::vector<char> control(CMSG_SPACE(sizeof(int) * count));
  iovec iov{const_cast<void*>(buf), n};
  msghdr msg{};
  msg.msg_iov = &iov;
  msg.msg_iovlen = 1;
  if (count > 0) {
    msg.msg_control = control.data();
    msg.msg_controllen = control.size();
    cmsghdr* c = CMSG_FIRSTHDR(&msg);
    c->cmsg_level = SOL_SOCKET;
    c->cmsg_type = SCM_RIGHTS;
    c->cmsg_len = CMSG_LEN(sizeof(int) * count);
    std::memcpy(CMSG_DATA(c), fds, sizeof(int) * count);
  }
  for (;;) {
    const ssize_t k = sendmsg(fd, &msg, MSG_NOSIGNAL);
    if (k < 0 && errno == EINTR) continue;
    if (k < 0) return Status::fail("sendmsg: " + errno_text());
    // The fds travel with the first byte; the rest of the payload may follow separately.
    return send_all(fd, static_cast<const char*>(buf) + k, n - static_cast<std::size_t>(k));
  }
}

Status recv_fds(int fd, int* fds, std::size_t max, std::size_t* got, void* buf, std::size_t n,
                int timeout_ms) {
  std::vector<char> control(CMSG_SPACE(sizeof(int) * std::max<std::size_t>(max, 1)));
  iovec iov{buf, n};
  msghdr msg{};
  msg.msg_iov = &iov;
  msg.msg_iovlen = 1;
  msg.msg_control = control.data();
  msg.msg_controllen = control.size();
  SYMMETRA_TRY(wait_readable(fd, timeout_ms));
  ssize_t k;
  do {
    k = recvmsg(fd, &msg, MSG_CMSG_CLOEXEC);
  } while (k < 0 && errno == EINTR);
  if (k == 0) return Status::fail("connection closed by peer");
  if (k < 0) return Status::fail("recvmsg: " + errno_text());
  *got = 0;
  for (cmsghdr* c = CMSG_FIRSTHDR(&msg); c != nullptr; c = CMSG_NXTHDR(&msg, c)) {
    if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS) {
      *got = std::min((c->cmsg_len - CMSG_LEN(0)) / sizeof(int), max);
      if (*got > 0) std::memcpy(fds, CMSG_DATA(c), sizeof(int) * *got);
    }
  }
  if (msg.msg_flags & MSG_CTRUNC) return Status::fail("recvmsg: more fds than expected");
  return recv_all(fd, static_cast<char*>(buf) + k, n - static_cast<std::size_t>(k), timeout_ms);
}

}  // namespace symmetra::detail
