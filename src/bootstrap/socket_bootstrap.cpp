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

class SocketBootstrap final : public Bootstrap {
 public:
  SocketBootstrap(int fd, int rank, int size, int timeout_ms,
                  std::unique_ptr<RendezvousServer> server, std::thread server_thread)
      : fd_(fd), rank_(rank), size_(size), timeout_ms_(timeout_ms), server_(std::move(server)),
        server_thread_(std::move(server_thread)) {}
  ~SocketBootstrap() override {
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

  int fd_;
  int rank_;
  int size_;
  int timeout_ms_;
  std::unique_ptr<RendezvousServer> server_;
  std::thread server_thread_;
};

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
  std::unique_ptr<RendezvousServer> server;
  std::thread server_thread;
  if (li.host_server) {
    auto lfd = listen_on(li.address, li.size + 16);
    if (!lfd.ok())
      return Status::fail("[pe 0] cannot host the rendezvous for " + li.launcher + ": " +
                          lfd.status().message());
    server = std::make_unique<RendezvousServer>(lfd.value(), li.size, timeout_ms);
    server_thread = std::thread([s = server.get()] { (void)s->serve(); });
  }
  auto fd = connect_to(li.address, timeout_ms);
  if (!fd.ok()) {
    if (server) {
      server->stop();
      server_thread.join();
    }
    return Status::fail("[pe " + std::to_string(li.rank) + "] " + fd.status().message());
  }
  WireHeader h;
  h.rank = li.rank;
  SYMMETRA_TRY(send_all(fd.value(), &h, sizeof(h)));
  return std::unique_ptr<Bootstrap>(new SocketBootstrap(fd.value(), li.rank, li.size, timeout_ms,
                                                        std::move(server),
                                                        std::move(server_thread)));
}

}  // namespace symmetra::detail
