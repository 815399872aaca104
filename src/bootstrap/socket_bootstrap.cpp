// Bootstrap for PEs that are processes: a star of sockets around a RendezvousServer.
#include <unistd.h>

#include <cstring>
#include <thread>

#include "bootstrap.hpp"
#include "launcher_env.hpp"
#include "rendezvous_server.hpp"
#include "socket.hpp"
#include "thread_bootstrap.hpp"
#include "wire.hpp"

namespace symmetra::detail {

int timeout_ms_from_env();  // src/core/config.cpp

namespace {

Result<std::unique_ptr<Bootstrap>> connect_bootstrap(const std::string& address, int rank,
                                                     int size, bool host_server, int timeout_ms,
                                                     const std::string& launcher);

class SocketBootstrap final : public Bootstrap {
 public:
  SocketBootstrap(std::string address, int fd, int rank, int size, int timeout_ms,
                  std::unique_ptr<RendezvousServer> server, std::thread server_thread)
      : address_(std::move(address)), fd_(fd), rank_(rank), size_(size), timeout_ms_(timeout_ms),
        server_(std::move(server)), server_thread_(std::move(server_thread)) {}
  ~SocketBootstrap() override {
    local_.reset();
    finalize();
    if (server_thread_.joinable()) {
      server_->stop();
      server_thread_.join();
    }
  }

  int rank() const override { return rank_; }
  int size() const override { return size_; }
  bool threads() const override { return false; }

  Status allgather(const void* in, void* out, std::size_t bytes) override {
    WireHeader h;
    h.op = WireOp::kAllgather;
    h.rank = rank_;
    h.len = bytes;
    SYMMETRA_TRY(send_all(fd_, &h, sizeof(h)));
    if (bytes != 0) SYMMETRA_TRY(send_all(fd_, in, bytes));
    SYMMETRA_TRY(recv_reply(&h, nullptr, 0));
    if (h.len != bytes * size_) return Status::fail("bootstrap: malformed allgather reply");
    if (bytes != 0) SYMMETRA_TRY(recv_all(fd_, out, h.len, timeout_ms_));
    return {};
  }

  Status allgather_fds(int fd, std::vector<int>* out) override {
    // fds travel only over Unix sockets: a TCP job (torchrun) opens a per-host Unix channel,
    // named from its TCP address, hosted by PE 0. (Every PE sits on one host until the UCX
    // transport exists; the Runtime checks that before it gets here.)
    if (address_.rfind("tcp:", 0) == 0) {
      SYMMETRA_TRY(ensure_local());
      return local_->allgather_fds(fd, out);
    }
    WireHeader h;
    h.op = WireOp::kFds;
    h.rank = rank_;
    SYMMETRA_TRY(send_fds(fd_, &fd, 1, &h, sizeof(h)));
    out->clear();
    while (out->size() < static_cast<std::size_t>(size_)) {
      int fds[kMaxFdsPerMessage];
      std::size_t got = 0;
      SYMMETRA_TRY(recv_reply(&h, fds, &got));
      if (h.op != WireOp::kFds || got != h.fd_count) return Status::fail("bootstrap: malformed fd reply");
      out->insert(out->end(), fds, fds + got);
    }
    return {};
  }

  Result<int> broadcast_fd(int root, int fd) override {
    if (address_.rfind("tcp:", 0) == 0) {  // fds travel over the per-host Unix channel
      SYMMETRA_TRY(ensure_local());
      return local_->broadcast_fd(root, fd);
    }
    WireHeader h;
    h.op = WireOp::kFdBcast;
    h.rank = rank_;
    h.fd_count = static_cast<std::uint32_t>(root);
    if (rank_ == root) {
      SYMMETRA_TRY(send_fds(fd_, &fd, 1, &h, sizeof(h)));
    } else {
      SYMMETRA_TRY(send_all(fd_, &h, sizeof(h)));
    }
    int got_fd = -1;
    std::size_t got = 0;
    SYMMETRA_TRY(recv_reply(&h, &got_fd, &got));
    if (h.op != WireOp::kFdBcast || got != 1) return Status::fail("bootstrap: malformed fd broadcast reply");
    return got_fd;
  }

  void finalize() override {
    if (fd_ < 0) return;
    WireHeader h;
    h.op = WireOp::kBye;
    h.rank = rank_;
    (void)send_all(fd_, &h, sizeof(h));
    close(fd_);
    fd_ = -1;
  }

 private:
  // The per-host Unix channel of a TCP job, hosted by PE 0.
  Status ensure_local() {
    if (local_) return {};
    std::string name = "unix:symmetra-fds-" + address_.substr(4);
    auto local = connect_bootstrap(name, rank_, size_, rank_ == 0, timeout_ms_, "fd exchange");
    SYMMETRA_TRY(local);
    local_ = std::move(local.value());
    return {};
  }

  // Receives a reply header (with fds if `fds`), turning an abort message into a failed Status.
  Status recv_reply(WireHeader* h, int* fds, std::size_t* got) {
    std::size_t none = 0;
    SYMMETRA_TRY(recv_fds(fd_, fds, fds ? kMaxFdsPerMessage : 0, got ? got : &none, h, sizeof(*h),
                          timeout_ms_));
    if (h->magic != kWireMagic) return Status::fail("bootstrap: corrupt message");
    if (h->op == WireOp::kAbort) {
      std::string why(h->len, '\0');
      (void)recv_all(fd_, why.data(), why.size(), timeout_ms_);
      return Status::fail("the job is stopping: " + why);
    }
    return {};
  }

  std::string address_;
  std::unique_ptr<Bootstrap> local_;  // Unix channel for fds when address_ is TCP
  int fd_;
  int rank_;
  int size_;
  int timeout_ms_;
  std::unique_ptr<RendezvousServer> server_;
  std::thread server_thread_;
};

// Joins the rendezvous at `address` (hosting it first when `host_server`).
Result<std::unique_ptr<Bootstrap>> connect_bootstrap(const std::string& address, int rank,
                                                     int size, bool host_server, int timeout_ms,
                                                     const std::string& launcher) {
  std::unique_ptr<RendezvousServer> server;
  std::thread server_thread;
  if (host_server) {
    auto lfd = listen_on(address, size + 16);
    if (!lfd.ok())
      return Status::fail("[pe " + std::to_string(rank) + "] cannot host the rendezvous for " +
                          launcher + ": " + lfd.status().message());
    server = std::make_unique<RendezvousServer>(lfd.value(), size, timeout_ms);
    server_thread = std::thread([s = server.get()] { (void)s->serve(); });
  }
  auto fd = connect_to(address, timeout_ms);
  if (!fd.ok()) {
    if (server) {
      server->stop();
      server_thread.join();
    }
    return Status::fail("[pe " + std::to_string(rank) + "] " + fd.status().message());
  }
  WireHeader h;
  h.rank = rank;
  SYMMETRA_TRY(send_all(fd.value(), &h, sizeof(h)));
  return std::unique_ptr<Bootstrap>(new SocketBootstrap(address, fd.value(), rank, size,
                                                        timeout_ms, std::move(server),
                                                        std::move(server_thread)));
}

}  // namespace

Result<std::unique_ptr<Bootstrap>> bootstrap_from_env() {
  auto info = launch_info_from_env();
  SYMMETRA_TRY(info);
  const LaunchInfo& li = info.value();
  const int timeout_ms = timeout_ms_from_env();
  if (li.size == 1 && li.address.empty()) {
    auto job = std::make_shared<ThreadJob>(1, timeout_ms);
    return std::unique_ptr<Bootstrap>(new ThreadBootstrap(job, 0));
  }
  return connect_bootstrap(li.address, li.rank, li.size, li.host_server, timeout_ms, li.launcher);
}

}  // namespace symmetra::detail
