#include "rendezvous_server.hpp"

#include <poll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstring>

#include "socket.hpp"
#include "wire.hpp"

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

RendezvousServer::RendezvousServer(int listen_fd, int n_pes, int timeout_ms)
    : listen_fd_(listen_fd),
      n_(n_pes),
      timeout_ms_(timeout_ms),
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

int RendezvousServer::poll_ms() const { return wake_fd_ >= 0 ? -1 : kPollMs; }

Status RendezvousServer::accept_all() {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms_);
  for (int joined = 0; joined < n_;) {
    if (stop_.load()) return Status::fail("rendezvous stopped");
    if (std::chrono::steady_clock::now() > deadline)
      return Status::fail("only " + std::to_string(joined) + " of " + std::to_string(n_) +
                          " PEs joined within " + std::to_string(timeout_ms_ / 1000) + " s");
    const long long left = std::max<long long>(
        0, std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now()).count() + 1);
    const int tick = poll_ms();
    pollfd p[2] = {{listen_fd_, POLLIN, 0}, {wake_fd_, POLLIN, 0}};
    if (poll(p, 2, static_cast<int>(tick < 0 ? left : std::min<long long>(left, tick))) <= 0 ||
        p[0].revents == 0)
      continue;
    const int fd = accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC);
    if (fd < 0) continue;
    WireHeader h;
    auto st = recv_all(fd, &h, sizeof(h), timeout_ms_);
    if (!st.ok() || h.magic != kWireMagic || h.op != WireOp::kHello || h.rank < 0 ||
        h.rank >= n_ || clients_[h.rank] >= 0) {
      close(fd);
      return Status::fail("bad hello on the rendezvous socket (rank " + std::to_string(h.rank) +
                          " of " + std::to_string(n_) + "): is another job using this address?");
    }
    clients_[h.rank] = fd;
    ++joined;
  }
  return {};
}

void RendezvousServer::abort_all(const std::string& why) {
  WireHeader h;
  h.op = WireOp::kAbort;
  h.len = why.size();
  for (int fd : clients_) {
    if (fd < 0) continue;
    (void)send_all(fd, &h, sizeof(h));
    (void)send_all(fd, why.data(), why.size());
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
    for (int r = 0; r < n_ && len > 0; ++r) std::memcpy(all.data() + r * len, pending[r].data.data(), len);
    h.len = all.size();
    for (int fd : clients_) {
      SYMMETRA_TRY(send_all(fd, &h, sizeof(h)));
      SYMMETRA_TRY(send_all(fd, all.data(), all.size()));
    }
  } else if (op == WireOp::kFdBcast) {
    const int root = static_cast<int>(pending[0].root);
    for (int r = 0; r < n_; ++r) {
      if (pending[r].root != pending[0].root || (pending[r].fd >= 0) != (r == root))
        return Status::fail("PEs disagree on the root of an fd broadcast (PE " + std::to_string(r) + ")");
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

Status RendezvousServer::serve() {
  auto st = accept_all();
  if (!st.ok()) {
    abort_all(st.message());
    return st;
  }
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
        abort_all(why);
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
        abort_all(why);
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
