#include "bootstrap/join.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "bootstrap/socket.hpp"
#include "bootstrap/wire.hpp"
#include "core/sha256.hpp"

namespace symmetra::detail {
namespace {

constexpr std::size_t kNonce = 16;
constexpr std::size_t kHelloAuth = kNonce + 32;  // the PE's nonce and its proof

Status random_bytes(void* out, std::size_t n) {
  auto* p = static_cast<std::uint8_t*>(out);
  while (n > 0) {
    const ssize_t k = getrandom(p, n, 0);
    if (k < 0 && errno == EINTR) continue;
    if (k <= 0) return Status::fail(std::string("getrandom: ") + std::strerror(errno));
    p += k;
    n -= static_cast<std::size_t>(k);
  }
  return {};
}

// The PE's proof binds the server's nonce, its own and its rank; the server's binds them the
// other way round, so neither can be replayed as the other.
Digest client_proof(const std::string& secret, const std::uint8_t* sn, const std::uint8_t* cn,
                    std::int32_t rank) {
  std::uint8_t msg[13 + 2 * kNonce + 4];
  std::memcpy(msg, "symmetra-join", 13);
  std::memcpy(msg + 13, sn, kNonce);
  std::memcpy(msg + 13 + kNonce, cn, kNonce);
  std::memcpy(msg + 13 + 2 * kNonce, &rank, 4);
  return hmac_sha256(secret, msg, sizeof(msg));
}
Digest server_proof(const std::string& secret, const std::uint8_t* sn, const std::uint8_t* cn) {
  std::uint8_t msg[13 + 2 * kNonce];
  std::memcpy(msg, "symmetra-host", 13);
  std::memcpy(msg + 13, cn, kNonce);
  std::memcpy(msg + 13 + kNonce, sn, kNonce);
  return hmac_sha256(secret, msg, sizeof(msg));
}

std::string describe_peer(int fd, bool tcp) {
  if (tcp) {
    sockaddr_storage a{};
    socklen_t len = sizeof(a);
    char host[INET6_ADDRSTRLEN] = "?";
    int port = 0;
    if (getpeername(fd, reinterpret_cast<sockaddr*>(&a), &len) == 0) {
      if (a.ss_family == AF_INET) {
        const auto* in = reinterpret_cast<const sockaddr_in*>(&a);
        inet_ntop(AF_INET, &in->sin_addr, host, sizeof(host));
        port = ntohs(in->sin_port);
      } else if (a.ss_family == AF_INET6) {
        const auto* in6 = reinterpret_cast<const sockaddr_in6*>(&a);
        inet_ntop(AF_INET6, &in6->sin6_addr, host, sizeof(host));
        port = ntohs(in6->sin6_port);
      }
    }
    return std::string("a connection from ") + host + ":" + std::to_string(port);
  }
  auto c = peer_cred(fd);
  if (!c.ok()) return "a connection";
  return "a connection from pid " + std::to_string(c.value().pid) + " (uid " +
         std::to_string(c.value().uid) + ")";
}

}  // namespace

std::string new_job_secret() {
  std::uint8_t raw[32];
  if (!random_bytes(raw, sizeof(raw)).ok()) return "";
  std::string hex;
  for (std::uint8_t b : raw) {
    static constexpr char kDigits[] = "0123456789abcdef";
    hex += kDigits[b >> 4];
    hex += kDigits[b & 15];
  }
  return hex;
}

std::string job_secret_from_env() {
  const char* s = std::getenv("SYMMETRA_SECRET");
  return s != nullptr ? s : "";
}

Status join_as_client(int fd, const std::string& address, int rank, const std::string& secret,
                      int timeout_ms) {
  WireHeader h;
  h.op = WireOp::kHello;
  h.rank = rank;
  if (address.rfind("tcp:", 0) != 0) {
    auto c = peer_cred(fd);
    SYMMETRA_TRY(c);
    if (c.value().uid != geteuid())
      return Status::fail("the rendezvous socket " + address + " is held by pid " +
                          std::to_string(c.value().pid) + " of uid " +
                          std::to_string(c.value().uid) + ", not by this user (uid " +
                          std::to_string(geteuid()) +
                          "): refusing to join (another user's process took the job's "
                          "name; docs/security.md)");
    return send_all(fd, &h, sizeof(h));
  }
  if (secret.empty())
    return Status::fail("the TCP rendezvous " + address +
                        " admits only PEs that prove the job's secret: set SYMMETRA_SECRET to one "
                        "random value on every "
                        "PE (docs/security.md)");
  WireHeader c;
  std::uint8_t sn[kNonce];
  if (!recv_all(fd, &c, sizeof(c), timeout_ms).ok() || c.magic != kWireMagic ||
      c.op != WireOp::kChallenge || c.len != kNonce || !recv_all(fd, sn, kNonce, timeout_ms).ok())
    return Status::fail("the TCP rendezvous " + address +
                        " sent no challenge: it is not this job's (refusing to join)");
  std::uint8_t auth[kHelloAuth];
  SYMMETRA_TRY(random_bytes(auth, kNonce));
  const Digest proof = client_proof(secret, sn, auth, rank);
  std::memcpy(auth + kNonce, proof.data(), proof.size());
  h.len = kHelloAuth;
  SYMMETRA_TRY(send_all(fd, &h, sizeof(h)));
  SYMMETRA_TRY(send_all(fd, auth, sizeof(auth)));
  WireHeader w;
  SYMMETRA_TRY(recv_all(fd, &w, sizeof(w), timeout_ms));
  if (w.magic == kWireMagic && w.op == WireOp::kAbort && w.len < 4096) {
    std::string why(w.len, '\0');
    (void)recv_all(fd, why.data(), why.size(), timeout_ms);
    return Status::fail("the rendezvous " + address + " refused this PE: " + why);
  }
  Digest theirs;
  if (w.magic != kWireMagic || w.op != WireOp::kWelcome || w.len != theirs.size() ||
      !recv_all(fd, theirs.data(), theirs.size(), timeout_ms).ok() ||
      !digests_equal(theirs, server_proof(secret, sn, auth)))
    return Status::fail("the TCP rendezvous " + address +
                        " does not know the job's secret: refusing to join");
  return {};
}

Admission::Admission(int fd, bool tcp, const std::string& secret, int n_pes)
    : fd_(fd), tcp_(tcp), secret_(secret), n_(n_pes), peer_(describe_peer(fd, tcp)) {
  if (!tcp_) {
    auto c = peer_cred(fd_);
    if (!c.ok()) {
      refuse(c.status().message());
    } else if (c.value().uid != geteuid()) {
      refuse("uid " + std::to_string(c.value().uid) + " is not this job's user (uid " +
             std::to_string(geteuid()) + ")");
    }
    return;
  }
  if (secret_.empty()) {
    refuse("this rendezvous has no secret to check it against (SYMMETRA_SECRET)");
    return;
  }
  WireHeader c;
  c.op = WireOp::kChallenge;
  c.len = kNonce;
  if (!random_bytes(nonce_, kNonce).ok() || !send_all(fd_, &c, sizeof(c)).ok() ||
      !send_all(fd_, nonce_, kNonce).ok())
    refuse("cannot send the challenge");
}

Admission::State Admission::refuse(const std::string& why) {
  state_ = State::kRefused;
  why_ = Status::fail(peer_ + ": " + why);
  return state_;
}

Admission::State Admission::step() {
  if (state_ != State::kWaiting) return state_;
  // The whole hello must be there: peek, and read it only once complete.
  const std::size_t want = sizeof(WireHeader) + (tcp_ ? kHelloAuth : 0);
  std::uint8_t buf[sizeof(WireHeader) + kHelloAuth];
  const ssize_t k = recv(fd_, buf, want, MSG_PEEK | MSG_DONTWAIT);
  if (k == 0) return refuse("closed before its hello");
  if (k < 0) return (errno == EAGAIN || errno == EINTR) ? state_ : refuse(std::strerror(errno));
  WireHeader h;
  std::memcpy(&h, buf, std::min<std::size_t>(sizeof(h), static_cast<std::size_t>(k)));
  if (static_cast<std::size_t>(k) >= sizeof(h) &&
      (h.magic != kWireMagic || h.op != WireOp::kHello || h.len != want - sizeof(WireHeader)))
    return refuse("not a Symmetra hello");
  if (static_cast<std::size_t>(k) < want) return state_;  // the rest is on its way
  (void)recv(fd_, buf, want, MSG_DONTWAIT);
  if (h.rank < 0 || h.rank >= n_)
    return refuse("rank " + std::to_string(h.rank) + " is not in [0, " + std::to_string(n_) + ")");
  if (tcp_) {
    Digest theirs;
    std::memcpy(theirs.data(), buf + sizeof(h) + kNonce, theirs.size());
    if (!digests_equal(theirs, client_proof(secret_, nonce_, buf + sizeof(h), h.rank))) {
      const std::string text = "it did not prove the job's secret";
      WireHeader a;
      a.op = WireOp::kAbort;
      a.len = text.size();
      (void)send_all(fd_, &a, sizeof(a));
      (void)send_all(fd_, text.data(), text.size());
      return refuse("claimed rank " + std::to_string(h.rank) +
                    " but did not prove the job's secret");
    }
    const Digest ours = server_proof(secret_, nonce_, buf + sizeof(h));
    WireHeader w;
    w.op = WireOp::kWelcome;
    w.len = ours.size();
    if (!send_all(fd_, &w, sizeof(w)).ok() || !send_all(fd_, ours.data(), ours.size()).ok())
      return refuse("closed during its welcome");
  }
  rank_ = h.rank;
  state_ = State::kAdmitted;
  return state_;
}

}  // namespace symmetra::detail
