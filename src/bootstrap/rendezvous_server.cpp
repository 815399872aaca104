#include "bootstrap/rendezvous_server.hpp"

#include <poll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <memory>

#include "bootstrap/join.hpp"
#include "bootstrap/socket.hpp"
#include "bootstrap/wire.hpp"

namespace symmetra::detail {

struct Pending {
  bool has = false;
  WireOp op = WireOp::kHello;
  std::vector<char> data;
  int fd = -1;
  std::uint32_t root = 0;  // kFdBcast
};

namespace {
constexpr int kPollMs = 100;  // how often serve() looks at stop_ when it has no eventfd
}

RendezvousServer::RendezvousServer(int listen_fd, int n_pes, int timeout_ms, bool tcp,
                                   std::string secret, std::string log_prefix)
    : listen_fd_(listen_fd),
      n_(n_pes),
      timeout_ms_(timeout_ms),
      tcp_(tcp),
      secret_(std::move(secret)),
      log_prefix_(std::move(log_prefix)),
      clients_(n_pes, -1),
      wake_fd_(eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK)) {}

RendezvousServer::~RendezvousServer() {
  for (int fd : clients_)
    if (fd >= 0) close(fd);
  if (listen_fd_ >= 0) close(listen_fd_);
  if (wake_fd_ >= 0) close(wake_fd_);
}

void RendezvousServer::stop() {
  stop_.store(true);
  if (wake_fd_ >= 0) {
    const std::uint64_t one = 1;
    (void)!write(wake_fd_, &one, sizeof(one));
  }
}

int RendezvousServer::poll_ms() const {
  return wake_fd_ >= 0 ? -1 : kPollMs;
}

// Admits PEs until every rank joined. Connections in the middle of their handshake wait in the
// poll set beside the listener, so that one that is silent (a stray client, a port scan) or
// slow never holds up the others; refused ones are logged and closed.
Status RendezvousServer::accept_all(bool again) {
  // A later round (the PEs initialize again after finalize) may never come: the PEs may end
  // instead, and the launcher stops this server then. Its bound starts at the first connection.
  const auto never = std::chrono::steady_clock::time_point::max();
  auto deadline =
      again ? never : std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms_);
  std::vector<std::unique_ptr<Admission>> joining;
  const std::size_t kMaxJoining = static_cast<std::size_t>(n_) + 64;  // bounds what strays cost
  // A PE sends its hello (over TCP its answer to the challenge) as soon as it is connected: a
  // connection silent for this long is not a PE at work, and is dropped, so that idle
  // connections cannot fill the joining slots and keep the PEs out (issue 51).
  constexpr auto kHello = std::chrono::seconds(5);
  auto drop = [&](std::size_t k, bool log) {
    if (log)
      std::fprintf(stderr, "%srendezvous refused %s\n", log_prefix_.c_str(),
                   joining[k]->why().message().c_str());
    close(joining[k]->fd());
    joining.erase(joining.begin() + static_cast<std::ptrdiff_t>(k));
  };
  for (int joined = 0; joined < n_;) {
    if (stop_.load()) {
      for (auto& a : joining) close(a->fd());
      return {};  // stopped: the job ended (its PEs may never have joined); nothing to report
    }
    if (std::chrono::steady_clock::now() > deadline) {
      for (auto& a : joining) close(a->fd());
      return Status::fail("only " + std::to_string(joined) + " of " + std::to_string(n_) +
                          " PEs joined within " + std::to_string(timeout_ms_ / 1000) + " s");
    }
    const long long left =
        deadline == never
            ? 1000
            : std::max<long long>(0, std::chrono::duration_cast<std::chrono::milliseconds>(
                                         deadline - std::chrono::steady_clock::now())
                                             .count() +
                                         1);
    const auto now = std::chrono::steady_clock::now();
    for (std::size_t k = joining.size(); k-- > 0;)
      if (now - joining[k]->since() > kHello) {
        std::fprintf(stderr, "%srendezvous refused %s: no hello within %lld s\n",
                     log_prefix_.c_str(), joining[k]->peer().c_str(),
                     static_cast<long long>(kHello.count()));
        drop(k, false);
      }
    // Wake for the oldest connection's deadline too.
    long long until_expiry = left;
    for (const auto& a : joining)
      until_expiry = std::min<long long>(
          until_expiry,
          std::chrono::duration_cast<std::chrono::milliseconds>(a->since() + kHello - now).count() +
              1);
    const int tick = poll_ms();
    std::vector<pollfd> p = {{listen_fd_, POLLIN, 0}, {wake_fd_, POLLIN, 0}};
    for (auto& a : joining) p.push_back({a->fd(), POLLIN, 0});
    const long long wait = std::max<long long>(0, std::min(left, until_expiry));
    if (poll(p.data(), p.size(),
             static_cast<int>(tick < 0 ? wait : std::min<long long>(wait, tick))) <= 0)
      continue;
    // Handshakes first (newest last), then the listener.
    for (std::size_t k = joining.size(); k-- > 0;) {
      if (p[2 + k].revents == 0) continue;
      Admission& a = *joining[k];
      if (a.step() == Admission::State::kWaiting) continue;
      if (a.state() == Admission::State::kRefused) {
        drop(k, true);
        continue;
      }
      if (clients_[a.rank()] >= 0) {
        std::fprintf(stderr, "%srendezvous refused a second connection claiming rank %d\n",
                     log_prefix_.c_str(), a.rank());
        drop(k, false);
        continue;
      }
      clients_[a.rank()] = a.fd();
      joining.erase(joining.begin() + static_cast<std::ptrdiff_t>(k));
      ++joined;
    }
    if (p[0].revents == 0) continue;
    const int fd = accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC);
    if (fd < 0) continue;
    if (deadline == never)
      deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms_);
    if (joining.size() >= kMaxJoining) {
      // Full: the oldest goes, not the newcomer. A PE says its hello at once, so the oldest
      // silent connection is the likeliest stray, and a PE connecting behind many idle ones
      // still gets in.
      std::fprintf(stderr,
                   "%srendezvous refused %s: %zu connections are joining, it is the oldest\n",
                   log_prefix_.c_str(), joining[0]->peer().c_str(), joining.size());
      drop(0, false);
    }
    joining.push_back(std::make_unique<Admission>(fd, tcp_, secret_, n_));
    if (joining.back()->state() == Admission::State::kRefused) drop(joining.size() - 1, true);
  }
  for (auto& a : joining) close(a->fd());  // late strays
  return {};
}

void RendezvousServer::abort_all(const std::string& why, int lost, bool left) {
  WireHeader h;
  h.op = WireOp::kAbort;
  h.rank = lost;
  h.fd_count = left ? kAbortLeft : kAbortLost;
  h.len = why.size();
  // Every PE gets the message before any sees a hang-up: a PE stops on its hang-up and its
  // process may end, and where that process hosts this server, the PEs not yet told would see
  // only the server's loss and blame its host PE instead of `lost`.
  for (int fd : clients_) {
    if (fd < 0) continue;
    (void)send_all(fd, &h, sizeof(h));
    (void)send_all(fd, why.data(), why.size());
  }
  for (int fd : clients_) {
    if (fd >= 0) shutdown(fd, SHUT_WR);  // the PEs' watches see the hang-up (Bootstrap::watch)
  }
}

Status RendezvousServer::reply(std::vector<Pending>& pending) {
  const WireOp op = pending[0].op;
  const std::size_t len = pending[0].data.size();
  for (int r = 0; r < n_; ++r) {
    if (pending[r].op != op || pending[r].data.size() != len)
      return Status::fail("PEs called different bootstrap collectives (PE 0 and PE " +
                          std::to_string(r) + " disagree)");
  }
  WireHeader h;
  h.op = op;
  if (op == WireOp::kAllgather) {
    std::vector<char> all(len * n_);
    for (int r = 0; r < n_ && len > 0; ++r)
      std::memcpy(all.data() + r * len, pending[r].data.data(), len);
    h.len = all.size();
    for (int fd : clients_) {
      SYMMETRA_TRY(send_all(fd, &h, sizeof(h)));
      SYMMETRA_TRY(send_all(fd, all.data(), all.size()));
    }
  } else if (op == WireOp::kFdBcast) {
    const int root = static_cast<int>(pending[0].root);
    for (int r = 0; r < n_; ++r) {
      if (pending[r].root != pending[0].root || (pending[r].fd >= 0) != (r == root))
        return Status::fail("PEs disagree on the root of an fd broadcast (PE " + std::to_string(r) +
                            ")");
    }
    h.fd_count = 1;
    for (int fd : clients_) SYMMETRA_TRY(send_fds(fd, &pending[root].fd, 1, &h, sizeof(h)));
    close(pending[root].fd);
  } else {
    std::vector<int> fds(n_);
    for (int r = 0; r < n_; ++r) fds[r] = pending[r].fd;
    for (int fd : clients_) {
      for (int first = 0; first < n_; first += static_cast<int>(kMaxFdsPerMessage)) {
        h.fd_count = static_cast<std::uint32_t>(std::min<int>(n_ - first, kMaxFdsPerMessage));
        SYMMETRA_TRY(send_fds(fd, fds.data() + first, h.fd_count, &h, sizeof(h)));
      }
    }
    for (int fd : fds) close(fd);
  }
  for (auto& p : pending) p = Pending{};
  return {};
}

Status RendezvousServer::serve(bool rounds) {
  // Rounds: a job, and with `rounds` again each time its PEs initialize after finalize
  // (OpenSHMEM 1.6), until stop() (the launcher saw the PEs end) or a failure.
  for (bool again = false;; again = true) {
    if (auto st = serve_round(again); !st.ok() || stop_.load() || !rounds) return st;
    for (int& c : clients_) c = -1;  // closed by the round's goodbyes
  }
}

Status RendezvousServer::serve_round(bool again) {
  auto st = accept_all(again);
  if (!st.ok()) {
    abort_all(st.message());
    return st;
  }
  if (stop_.load()) return {};
  std::vector<Pending> pending(n_);
  std::vector<bool> gone(n_, false);
  int arrived = 0, left = 0;
  // Clients that left are skipped (fd -1) by abort_all and reply.
  std::vector<pollfd> polls;
  std::vector<int> poll_rank;  // the PE of each entry: no search per event (1024 PEs: 10^6 steps)
  while (left < n_ && !stop_.load()) {
    polls.clear();
    poll_rank.clear();
    for (int r = 0; r < n_; ++r) {
      if (!gone[r] && !pending[r].has) {
        polls.push_back({clients_[r], POLLIN, 0});
        poll_rank.push_back(r);
      }
    }
    polls.push_back({wake_fd_, POLLIN, 0});  // last; poll skips it when it is -1
    if (poll(polls.data(), polls.size(), poll_ms()) <= 0) continue;
    polls.pop_back();
    for (std::size_t k = 0; k < polls.size(); ++k) {
      const pollfd& p = polls[k];
      if (p.revents == 0) continue;
      const int r = poll_rank[k];
      WireHeader h;
      int fd = -1;
      std::size_t got = 0;
      st = recv_fds(p.fd, &fd, 1, &got, &h, sizeof(h), timeout_ms_);
      if (st.ok() && h.len > 0) {
        pending[r].data.resize(h.len);
        st = recv_all(p.fd, pending[r].data.data(), h.len, timeout_ms_);
      }
      if (!st.ok() || h.magic != kWireMagic) {
        const std::string why = "PE " + std::to_string(r) + " left the job before finalize";
        close(clients_[r]);
        clients_[r] = -1;
        int none = -1;
        first_lost_.compare_exchange_strong(none, r);
        abort_all(why, r);
        return Status::fail(why);
      }
      if (h.op == WireOp::kLeave) {
        // A PE ending without finalize says so before it marks the heaps, so that it, and not
        // the first PE to stop because of it, is the one the job ends for (symrun's status).
        // The others are told before it is answered: its answer lets it mark the heaps, and a
        // PE stopped by a mark may end its process (this server's, too) before they are told.
        const std::string why = "PE " + std::to_string(r) + " left the job without finalize";
        int none = -1;
        first_lost_.compare_exchange_strong(none, r);
        const int leaver = clients_[r];
        clients_[r] = -1;
        abort_all(why, r, true);
        WireHeader ack;
        ack.op = WireOp::kLeave;
        (void)send_all(leaver, &ack, sizeof(ack));
        close(leaver);
        return Status::fail(why);
      }
      if (h.op == WireOp::kBye) {
        gone[r] = true;
        ++left;
        close(clients_[r]);
        clients_[r] = -1;
      } else {
        pending[r].has = true;
        pending[r].op = h.op;
        pending[r].fd = fd;
        pending[r].root = h.fd_count;
        ++arrived;
      }
      // A collective that a departed PE will never join can never complete.
      if (left > 0 && arrived > 0) {
        int who = 0;
        while (!gone[who]) ++who;
        const std::string why = "PE " + std::to_string(who) +
                                " left the job while other PEs wait in a bootstrap collective";
        abort_all(why, who);
        return Status::fail(why);
      }
      if (arrived == n_) {
        arrived = 0;
        st = reply(pending);
        if (!st.ok()) {
          abort_all(st.message());
          return st;
        }
      }
    }
  }
  return {};
}

}  // namespace symmetra::detail
