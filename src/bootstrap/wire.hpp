// The rendezvous wire format, shared by RendezvousServer and SocketBootstrap.
#pragma once

#include <cstdint>

namespace symmetra::detail {

inline constexpr std::uint32_t kWireMagic = 0x53594d57;  // "SYMW"

enum class WireOp : std::uint32_t {
  kHello = 1,      // client -> server: rank
  kAllgather = 2,  // client -> server: len bytes; server -> client: size * len bytes
  kFds = 3,        // client -> server: one fd; server -> client: batches of fds
  kBye = 4,        // client -> server: leaving cleanly
  kAbort = 5,      // server -> client: len bytes of text, the job is failing
  kFdBcast = 6,    // client -> server: the root sends one fd, the others none (rank: the root);
                   // server -> client: the root's fd
  kChallenge = 7,  // server -> client (TCP): len bytes of nonce, before the hello (join.hpp)
  kWelcome = 8,    // server -> client (TCP): len bytes of the server's proof of the secret
  kLeave = 9,      // client -> server: ending without finalize; server -> client: noted
};
// kAbort carries in `rank` the PE whose loss stops the job (-1: none in particular), and in
// `fd_count` how it was lost: kAbortLost (its connection closed) or kAbortLeft (kLeave).
inline constexpr std::uint32_t kAbortLost = 0;
inline constexpr std::uint32_t kAbortLeft = 1;

struct WireHeader {
  std::uint32_t magic = kWireMagic;
  WireOp op = WireOp::kHello;
  std::int32_t rank = 0;
  std::uint32_t fd_count = 0;
  std::uint64_t len = 0;
};

}  // namespace symmetra::detail
