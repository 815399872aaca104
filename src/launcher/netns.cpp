#include "launcher/netns.hpp"

#include <fcntl.h>
#include <netinet/in.h>
#include <sched.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <thread>

#include "bootstrap/socket.hpp"

namespace symmetra::launcher {

namespace {
// Moves the calling thread into the network namespace at `file`; the failed step, or null.
const char* join_net_ns(const std::string& file) {
  const int fd = open(file.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return "open";
  const int rc = setns(fd, CLONE_NEWNET);
  close(fd);
  return rc != 0 ? "setns" : nullptr;
}
}  // namespace

bool enter_netns(const std::string& name, std::string* error) {
  const std::string file = "/run/netns/" + name;
  auto failed = [&](const char* step) {
    *error = "cannot enter network namespace " + name + " (" + file + "): " + step + ": " +
             std::strerror(errno);
    return false;
  };
  if (const char* step = join_net_ns(file)) return failed(step);
  if (unshare(CLONE_NEWNS) != 0) return failed("unshare");
  if (mount("", "/", nullptr, MS_SLAVE | MS_REC, nullptr) != 0)
    return failed("mount --make-rslave /");
  umount2("/sys", MNT_DETACH);
  if (mount(name.c_str(), "/sys", "sysfs", 0, nullptr) != 0) return failed("mount sysfs");
  return true;
}

int listen_in_netns(const std::string& name, const std::string& address, int backlog,
                    std::string* error) {
  int lfd = -1;
  // A thread of its own: setns moves only the calling thread, and the socket stays in the
  // namespace it was made in.
  std::thread([&] {
    if (!name.empty())
      if (const char* step = join_net_ns("/run/netns/" + name)) {
        *error =
            "cannot enter network namespace " + name + ": " + step + ": " + std::strerror(errno);
        return;
      }
    auto l = symmetra::detail::listen_on(address, backlog);
    if (l.ok())
      lfd = l.value();
    else
      *error = l.status().message();
  }).join();
  return lfd;
}

int free_tcp_port() {
  const int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return -1;
  sockaddr_in a{};
  a.sin_family = AF_INET;
  socklen_t len = sizeof(a);
  int port = -1;
  if (bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof(a)) == 0 &&
      getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len) == 0)
    port = ntohs(a.sin_port);
  close(fd);
  return port;
}

}  // namespace symmetra::launcher
