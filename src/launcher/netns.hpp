// Forced hosts as separate machines: network namespaces (symrun --netns, the test runner's
// namespace mode) and a port for a TCP rendezvous (symrun --rendezvous).
//
// Threads: setns and unshare act on the calling thread; call it in a freshly forked child,
// before it starts threads.
#pragma once

#include <string>

namespace symmetra::launcher {

// Moves this process into network namespace `name` (ip netns add's /run/netns/<name>), as
// `ip netns exec` does: /sys is mounted again in a mount namespace of its own, because sysfs
// shows the network devices of the namespace that mounted it, and UCX finds its devices there.
// Returns false with *error saying which step failed.
bool enter_netns(const std::string& name, std::string* error);

// A socket listening at `address` (listen_on's form), made inside network namespace `name`
// (none: this process's), from a thread of its own; -1 with *error if it cannot be made.
int listen_in_netns(const std::string& name, const std::string& address, int backlog,
                    std::string* error);

// A TCP port that nothing on this machine listens on now (the kernel's pick for port 0), -1 if
// none. symrun binds it moments later; in a fresh namespace every port is free anyway.
int free_tcp_port();

}  // namespace symmetra::launcher
