// A TCP port on 127.0.0.1 for a test's rendezvous (torchrun's MASTER_PORT and the like), which
// must be named before the PE that listens on it starts.
#pragma once

#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <fstream>
#include <stdexcept>

namespace symmetra::testing {

// A port below the kernel's ephemeral range, so that no outgoing connection (UCX over TCP opens
// many) can hold it by chance, that binds now. `salt` spreads the tests of one process apart.
// The PE binds it with SO_REUSEADDR, as the probe does, so connections in TIME_WAIT do not
// matter. Throws, saying why, if none of 2000 candidates binds: port 0 would send the PEs to
// wherever the kernel picks.
inline int free_tcp_port(int salt) {
  int lo = 32768;
  std::ifstream("/proc/sys/net/ipv4/ip_local_port_range") >> lo;
  const int base = 10000;
  const int span = lo > base + 2000 ? lo - base : 2000;
  for (int i = 0; i < 2000; ++i) {
    const int port = base + (getpid() * 7 + salt * 131 + i) % span;
    const int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) throw std::runtime_error("free_tcp_port: socket() failed");
    int one = 1;
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_port = htons(static_cast<unsigned short>(port));
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    const bool ok = bind(fd, reinterpret_cast<const sockaddr*>(&a), sizeof(a)) == 0;
    close(fd);
    if (ok) return port;
  }
  throw std::runtime_error("free_tcp_port: no port below the ephemeral range binds");
}

}  // namespace symmetra::testing
