// Bootstrap for PEs that are processes: a star of sockets around a RendezvousServer.
#include <poll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <map>
#include <mutex>
#include <thread>

#include "bootstrap/bootstrap.hpp"
#include "bootstrap/join.hpp"
#include "bootstrap/launcher_env.hpp"
#include "bootstrap/pmix_rendezvous.hpp"
#include "bootstrap/rendezvous_server.hpp"
#include "bootstrap/socket.hpp"
#include "bootstrap/thread_bootstrap.hpp"
#include "bootstrap/wire.hpp"
#include "core/log.hpp"

namespace symmetra::detail {

int timeout_ms_from_env();  // src/core/config.cpp

namespace {

struct JoinSpec {
  std::string address;
  int pe = 0;  // in the whole job, for messages
  int rank = 0;
  int size = 1;
  bool host_server = false;  // this PE hosts the rendezvous (PE 0 under every launcher but symrun)
  int hub_pe = -1;           // the PE whose process hosts it, -1 for symrun
  int timeout_ms = 0;
  std::string launcher;
  std::string secret;
  int listen_fd = -1;  // host_server: the socket already listening at `address`, if any
};
Result<std::unique_ptr<Bootstrap>> connect_bootstrap(const JoinSpec& spec);

class SocketBootstrap final : public Bootstrap {
 public:
  SocketBootstrap(JoinSpec spec, int fd, std::unique_ptr<RendezvousServer> server,
                  std::thread server_thread)
      : spec_(std::move(spec)),
        address_(spec_.address),
        fd_(fd),
        rank_(spec_.rank),
        size_(spec_.size),
        timeout_ms_(spec_.timeout_ms),
        server_(std::move(server)),
        server_thread_(std::move(server_thread)) {
    if (spec_.pe != spec_.rank) pe_ = spec_.pe;
  }
  ~SocketBootstrap() override {
    unwatch();
    local_.reset();
    finalize();
    if (server_thread_.joinable()) {
      server_->stop();
      server_thread_.join();
    }
    if (server_ && address_.rfind("unix:/", 0) == 0) unlink(address_.c_str() + 5);
  }

  void watch(std::function<void(int, bool)> on_lost) override {
    if (fd_ < 0 || watch_thread_.joinable()) return;
    watch_stop_ = eventfd(0, EFD_CLOEXEC);
    if (watch_stop_ < 0) return;  // no watch: waits still end at their timeout
    watch_thread_ = std::thread([this, on_lost = std::move(on_lost)] {
      // Hang-ups only: replies to the main thread's collectives are its own to read.
      pollfd p[2] = {{fd_, POLLRDHUP, 0}, {watch_stop_, POLLIN, 0}};
      for (;;) {
        const int rc = poll(p, 2, -1);
        if (rc < 0 && errno == EINTR) continue;
        if (rc < 0 || p[1].revents != 0) return;
        if (p[0].revents != 0) break;
      }
      // The server names the lost PE in the abort it sent before hanging up; no message means
      // the server itself is gone.
      WireHeader h;
      int lost = spec_.hub_pe;
      bool left = false;
      if (recv(fd_, &h, sizeof(h), MSG_PEEK | MSG_DONTWAIT) == static_cast<ssize_t>(sizeof(h)) &&
          h.magic == kWireMagic && h.op == WireOp::kAbort) {
        lost = h.rank;
        left = h.fd_count == kAbortLeft;
      }
      on_lost(lost, left);
    });
  }

  void unwatch() override {
    if (!watch_thread_.joinable()) return;
    const std::uint64_t one = 1;
    (void)!write(watch_stop_, &one, sizeof(one));
    watch_thread_.join();
    close(watch_stop_);
    watch_stop_ = -1;
  }

  void leave() override {
    unwatch();
    if (local_) local_->leave();
    if (fd_ < 0) return;
    // The rendezvous takes this PE as lost and stops the others. Its answer (a note, an abort
    // if it stopped already, or a hang-up) is awaited briefly: then this PE is the one the job
    // is known to end for, before its heap marks make the others stop.
    WireHeader h;
    h.op = WireOp::kLeave;
    h.rank = rank_;
    if (send_all(fd_, &h, sizeof(h)).ok()) (void)recv_all(fd_, &h, sizeof(h), 1000);
    close(fd_);
    fd_ = -1;
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
    // fds travel only over Unix sockets: a TCP job opens a Unix channel of all its PEs, so
    // it must sit on one host; a job across hosts exchanges fds in groups of one host each
    // (split), as the Runtime does.
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
      if (h.op != WireOp::kFds || got != h.fd_count)
        return Status::fail("bootstrap: malformed fd reply");
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
    if (h.op != WireOp::kFdBcast || got != 1)
      return Status::fail("bootstrap: malformed fd broadcast reply");
    return got_fd;
  }

  Result<std::unique_ptr<Bootstrap>> split(int color) override {
    std::vector<int> colors(static_cast<std::size_t>(size_));
    SYMMETRA_TRY(allgather(&color, colors.data(), sizeof(color)));
    JoinSpec group = spec_;
    group.pe = pe();
    group.listen_fd = -1;
    group.rank = group.size = 0;
    group.hub_pe = -1;
    for (int p = 0; p < size_; ++p) {
      if (colors[static_cast<std::size_t>(p)] != color) continue;
      if (group.hub_pe < 0) group.hub_pe = p;  // its first PE hosts it
      if (p < rank_) ++group.rank;
      ++group.size;
    }
    group.address = group_address(splits_++, color);
    group.host_server = group.rank == 0;
    group.launcher = "a group of PEs";
    return connect_bootstrap(group);
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
  // Where split number `seq`'s group of `color` meets: a Unix socket named after this job's
  // address, a path beside a path (symrun --netns puts hosts in network namespaces, where
  // abstract names do not cross) and an abstract name otherwise.
  std::string group_address(std::uint64_t seq, int color) const {
    const std::string tag = ".g" + std::to_string(seq) + "-" + std::to_string(color);
    if (address_.rfind("unix:", 0) == 0) return address_ + tag;
    std::string name = address_.substr(4);  // tcp:host:port
    for (char& c : name)
      if (c == ':' || c == '/') c = '-';
    return "unix:symmetra-" + std::to_string(geteuid()) + "-" + name + tag;
  }

  // The per-host Unix channel of a TCP job: every PE of the job in one group (the Runtime splits
  // by host first where the job spans hosts, and exchanges fds in those groups).
  Status ensure_local() {
    if (local_) return {};
    auto b = split(0);
    SYMMETRA_TRY(b);
    local_ = std::move(b.value());
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

  JoinSpec spec_;
  std::string address_;
  std::unique_ptr<Bootstrap> local_;  // Unix channel for fds when address_ is TCP
  std::thread watch_thread_;
  int watch_stop_ = -1;  // eventfd that unwatch() writes
  int fd_;
  int rank_;
  int size_;
  int timeout_ms_;
  std::unique_ptr<RendezvousServer> server_;
  std::thread server_thread_;
  std::uint64_t splits_ = 0;  // split() calls so far: alike on every PE, they are collective
};

// Joins the rendezvous at spec.address (hosting it first when spec.host_server).
Result<std::unique_ptr<Bootstrap>> connect_bootstrap(const JoinSpec& spec) {
  const std::string pe = "[pe " + std::to_string(spec.pe) + "] ";
  const bool tcp = spec.address.rfind("tcp:", 0) == 0;
  if (tcp && spec.secret.empty())
    return Status::fail(pe + "the TCP rendezvous " + spec.address +
                        " admits only PEs that prove the job's secret: set SYMMETRA_SECRET to one "
                        "random value on every "
                        "PE (docs/security.md)");
  std::unique_ptr<RendezvousServer> server;
  std::thread server_thread;
  if (spec.host_server) {
    auto lfd =
        spec.listen_fd >= 0 ? Result<int>(spec.listen_fd) : listen_on(spec.address, spec.size + 16);
    if (!lfd.ok())
      return Status::fail(pe + "cannot host the rendezvous for " + spec.launcher + ": " +
                          lfd.status().message() +
                          (tcp ? ""
                               : " (if another process holds the name, the job cannot start here; "
                                 "docs/security.md)"));
    server = std::make_unique<RendezvousServer>(lfd.value(), spec.size, spec.timeout_ms, tcp,
                                                spec.secret);
    server_thread = std::thread([s = server.get()] { (void)s->serve(); });
  }
  auto stop_server = [&] {
    if (!server) return;
    server->stop();
    server_thread.join();
  };
  auto fd = connect_to(spec.address, spec.timeout_ms);
  if (!fd.ok()) {
    stop_server();
    return Status::fail(pe + fd.status().message());
  }
  const Status joined =
      join_as_client(fd.value(), spec.address, spec.rank, spec.secret, spec.timeout_ms);
  if (!joined.ok()) {
    close(fd.value());
    stop_server();
    return Status::fail(pe + joined.message());
  }
  return std::unique_ptr<Bootstrap>(
      new SocketBootstrap(spec, fd.value(), std::move(server), std::move(server_thread)));
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
  std::string address = li.address, secret = job_secret_from_env();
  int listen_fd = -1;
  if (address == "pmix") {  // PE 0 hosts at an address of its host, shared through PMIx
    auto r = pmix_rendezvous(li.rank, li.size, timeout_ms);
    SYMMETRA_TRY(r);
    address = r.value().address;
    secret = r.value().secret;
    listen_fd = r.value().listen_fd;
  }
  JoinSpec spec;
  spec.address = address;
  spec.pe = spec.rank = li.rank;
  spec.size = li.size;
  spec.host_server = li.host_server;
  spec.hub_pe = li.pe0_hosts() ? 0 : -1;
  spec.timeout_ms = timeout_ms;
  spec.launcher = li.launcher;
  spec.secret = secret;
  spec.listen_fd = listen_fd;
  auto joined = connect_bootstrap(spec);
  if (joined.ok())
    SYMMETRA_LOG(kInfo, li.rank, "met at %s (%s%s)", address.c_str(), li.launcher.c_str(),
                 li.address == "pmix" ? ", the address shared through PMIx" : "");
  return joined;
}

namespace {

// The sockets that new_unique_id opened, by the address they listen at, until this process
// joins as PE 0 (or ends).
struct UniqueIdListeners {
  std::mutex mu;
  std::map<std::string, int> fds;
};
UniqueIdListeners& unique_id_listeners() {
  static UniqueIdListeners l;
  return l;
}

}  // namespace

Result<std::string> new_unique_id() {
  const std::string host = host_address();
  // The job's size is not known yet: room for a large job's PEs knocking at once.
  auto lfd = listen_on("tcp:" + host + ":0", 4096);
  if (!lfd.ok()) return Status::fail("get_unique_id: " + lfd.status().message());
  auto port = bound_port(lfd.value());
  const std::string secret = new_job_secret();
  if (!port.ok() || secret.empty()) {
    close(lfd.value());
    return Status::fail("get_unique_id: " + (port.ok() ? std::string("no random bytes for a secret")
                                                       : port.status().message()));
  }
  const std::string address = "tcp:" + host + ":" + std::to_string(port.value());
  UniqueIdListeners& l = unique_id_listeners();
  const std::lock_guard lock(l.mu);
  l.fds[address] = lfd.value();
  return address + " " + secret;
}

Result<std::unique_ptr<Bootstrap>> bootstrap_from_unique_id(const std::string& id, int rank,
                                                            int size) {
  const std::string pe = "[pe " + std::to_string(rank) + "] ";
  if (size < 1 || rank < 0 || rank >= size)
    return Status::fail(pe + "init: rank " + std::to_string(rank) + " is not a PE of a job of " +
                        std::to_string(size) + " (0 <= rank < size)");
  const auto space = id.find(' ');
  if (id.rfind("tcp:", 0) != 0 || space == std::string::npos || space + 1 == id.size())
    return Status::fail(pe + "init: '" + id.substr(0, 64) +
                        "' is not a unique id: pass on the bytes that get_unique_id returned "
                        "on PE 0");
  JoinSpec spec;
  spec.address = id.substr(0, space);
  spec.secret = id.substr(space + 1);
  spec.pe = spec.rank = rank;
  spec.size = size;
  spec.hub_pe = 0;
  spec.host_server = rank == 0;
  spec.timeout_ms = timeout_ms_from_env();
  spec.launcher = "unique id";
  if (rank == 0) {
    UniqueIdListeners& l = unique_id_listeners();
    const std::lock_guard lock(l.mu);
    const auto it = l.fds.find(spec.address);
    if (it == l.fds.end())
      return Status::fail(pe + "init: this process did not make the unique id " + spec.address +
                          " (or already joined with it): PE 0 must be the process that called "
                          "get_unique_id, once per job");
    spec.listen_fd = it->second;
    l.fds.erase(it);
  }
  auto joined = connect_bootstrap(spec);
  if (joined.ok()) SYMMETRA_LOG(kInfo, rank, "met at %s (unique id)", spec.address.c_str());
  return joined;
}

}  // namespace symmetra::detail
