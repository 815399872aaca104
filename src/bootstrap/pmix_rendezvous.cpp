#include "bootstrap/pmix_rendezvous.hpp"

#include <unistd.h>

#include "bootstrap/join.hpp"
#include "bootstrap/socket.hpp"
#include "core/plugin.hpp"

namespace symmetra::detail {
namespace {

// libsymmetra_bootstrap_pmix.so's entry (src/bootstrap/pmix/pmix_share.cpp).
using ShareFn = int (*)(const char* value, char* out, std::size_t out_len, int timeout_s, char* err,
                        std::size_t err_len);

}  // namespace

Result<PmixRendezvous> pmix_rendezvous(int rank, int size, int timeout_ms) {
  const std::string pe = "[pe " + std::to_string(rank) + "] ";
  std::string why;
  auto share = reinterpret_cast<ShareFn>(
      plugin_entry("libsymmetra_bootstrap_pmix.so", "symmetra_pmix_share", &why));
  if (share == nullptr)
    return Status::fail(pe + "this job spans hosts and meets through PMIx, but " + why +
                        " (a build without PMIx's headers has none: tools/setup installs "
                        "libpmix-dev); or set SYMMETRA_BOOTSTRAP=tcp:<host>:<port> and "
                        "SYMMETRA_SECRET on every PE");
  PmixRendezvous r;
  std::string value;
  if (rank == 0) {
    const std::string host = host_address();
    auto lfd = listen_on("tcp:" + host + ":0", size + 16);
    if (!lfd.ok()) return Status::fail(pe + lfd.status().message());
    auto port = bound_port(lfd.value());
    r.secret = new_job_secret();
    if (!port.ok() || r.secret.empty()) {
      close(lfd.value());
      return Status::fail(pe + "cannot set up the TCP rendezvous: " +
                          (port.ok() ? "no random bytes for a secret" : port.status().message()));
    }
    r.listen_fd = lfd.value();
    r.address = "tcp:" + host + ":" + std::to_string(port.value());
    value = r.address + " " + r.secret;
  }
  char out[512] = {}, err[512] = {};
  if (share(value.c_str(), out, sizeof(out), (timeout_ms + 999) / 1000, err, sizeof(err)) != 0) {
    if (r.listen_fd >= 0) close(r.listen_fd);
    return Status::fail(pe + "cannot learn PE 0's rendezvous through PMIx: " + err);
  }
  const std::string got = out;
  const auto space = got.find(' ');
  if (got.rfind("tcp:", 0) != 0 || space == std::string::npos)
    return Status::fail(pe + "PMIx gave a malformed rendezvous: '" + got + "'");
  r.address = got.substr(0, space);
  r.secret = got.substr(space + 1);
  return r;
}

}  // namespace symmetra::detail
