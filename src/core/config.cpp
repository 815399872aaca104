#include "core/config.hpp"

#include <algorithm>
#include <cstdlib>
#include <string>

namespace symmetra::detail {
namespace {

const char* env(const char* name) {
  const char* v = std::getenv(name);
  return (v != nullptr && *v != '\0') ? v : nullptr;
}

Result<double> env_seconds(const char* name, double fallback) {
  const char* v = env(name);
  if (v == nullptr) return fallback;
  char* end = nullptr;
  const double s = std::strtod(v, &end);
  if (end == v || *end != '\0' || !(s > 0))
    return Status::fail(std::string(name) + "='" + v + "' is not a positive number of seconds");
  return s;
}

// An integer setting in [lo, hi]: *out keeps its default when `name` is unset; otherwise
// "NAME='value': <hint>" for anything but a whole number in range.
Status env_int(const char* name, long lo, long hi, const char* hint, int* out) {
  const char* v = env(name);
  if (v == nullptr) return {};
  char* end = nullptr;
  const long n = std::strtol(v, &end, 10);
  if (end == v || *end != '\0' || n < lo || n > hi)
    return Status::fail(std::string(name) + "='" + v + "': " + hint);
  *out = static_cast<int>(n);
  return {};
}

}  // namespace

Result<std::uint64_t> parse_size(const char* text) {
  char* end = nullptr;
  const unsigned long long x = std::strtoull(text, &end, 10);
  if (end == text) return Status::fail(std::string("'") + text + "' is not a size");
  int shift = 0;
  switch (*end) {
    case '\0':
      break;
    case 'k':
    case 'K':
      shift = 10;
      break;
    case 'm':
    case 'M':
      shift = 20;
      break;
    case 'g':
    case 'G':
      shift = 30;
      break;
    case 't':
    case 'T':
      shift = 40;
      break;
    default:
      return Status::fail(std::string("'") + text + "' is not a size (use K, M, G or T)");
  }
  if (*end != '\0' && end[1] != '\0' && !((end[1] == 'B' || end[1] == 'b') && end[2] == '\0'))
    return Status::fail(std::string("'") + text + "' is not a size");
  return static_cast<std::uint64_t>(x) << shift;
}

Result<Config> config_from_env() {
  Config c;
#ifndef NDEBUG
  c.check = true;
#endif
  for (auto [name, field] : {std::pair{"SYMMETRA_SYMMETRIC_SIZE", &c.symmetric_size},
                             std::pair{"SYMMETRA_MAX_SYMMETRIC_SIZE", &c.max_symmetric_size},
                             std::pair{"SYMMETRA_COLL_WORKSPACE", &c.ws_world_bytes},
                             std::pair{"SYMMETRA_COLL_TEAM_WORKSPACE", &c.ws_team_bytes},
                             std::pair{"SYMMETRA_CHANNEL_BYTES", &c.channel_bytes}}) {
    if (const char* v = env(name)) {
      auto size = parse_size(v);
      if (!size.ok()) return Status::fail(std::string(name) + ": " + size.status().message());
      *field = size.value();
    }
  }
  // Whole pages, and room for at least a few LL lines per region.
  for (auto* ws : {&c.ws_world_bytes, &c.ws_team_bytes})
    *ws = (std::max<std::uint64_t>(*ws, 64 << 10) + 4095) & ~std::uint64_t{4095};
  if (c.max_symmetric_size < c.symmetric_size) c.max_symmetric_size = c.symmetric_size;
  auto t = env_seconds("SYMMETRA_TIMEOUT_S", 120.0);
  SYMMETRA_TRY(t);
  c.timeout_ns = static_cast<std::uint64_t>(t.value() * 1e9);
  if (const char* v = env("SYMMETRA_CHECK")) c.check = std::string(v) != "0";
  if (const char* v = env("SYMMETRA_STREAM_WAIT")) {
    const std::string s = v;
    if (s == "value") {
      c.stream_wait = Config::StreamWait::kValue;
    } else if (s == "kernel") {
      c.stream_wait = Config::StreamWait::kKernel;
    } else {
      return Status::fail("SYMMETRA_STREAM_WAIT='" + s + "' is not value or kernel");
    }
  }
  if (const char* v = env("SYMMETRA_LL_LANES")) c.ll_lanes = std::string(v) == "1";
  if (const char* v = env("SYMMETRA_TRACE")) c.trace_path = v;
  if (const char* v = env("SYMMETRA_NVTX")) c.nvtx = std::string(v) != "0";
  if (c.channel_bytes == 0) return Status::fail("SYMMETRA_CHANNEL_BYTES must be positive");
  SYMMETRA_TRY(
      env_int("SYMMETRA_MAX_CHANNELS", 1, 32, "use a number from 1 to 32", &c.max_channels));
  SYMMETRA_TRY(env_int("SYMMETRA_CPUS", 1, 1 << 20, "use a positive number of CPUs", &c.cpus));
  SYMMETRA_TRY(
      env_int("SYMMETRA_HOSTS", 1, 1 << 20, "use a positive number of forced hosts", &c.hosts));
  SYMMETRA_TRY(env_int("SYMMETRA_PROGRESS_POLL_US", 0, 1000000,
                       "use microseconds from 0 to 1000000", &c.progress_poll_us));
  if (const char* v = env("SYMMETRA_PROXY")) c.proxy = std::string(v) == "1";
  if (const char* v = env("SYMMETRA_UCX_SERVED")) c.ucx_served = std::string(v) == "1";
  if (const char* v = env("SYMMETRA_UCX_CUDA")) c.ucx_cuda = std::string(v) == "0" ? 0 : 1;
  if (const char* v = env("SYMMETRA_PROXY_RING")) {
    auto entries = parse_size(v);
    if (!entries.ok() || entries.value() < 16 || entries.value() > (1ull << 30) ||
        (entries.value() & (entries.value() - 1)) != 0)
      return Status::fail(std::string("SYMMETRA_PROXY_RING='") + v +
                          "': use a power of two of entries from 16 to 1G");
    c.proxy_ring_entries = static_cast<std::uint32_t>(entries.value());
  }
  if (const char* v = env("SYMMETRA_TRANSPORT")) {
    const std::string name = v;
    if (name == "auto")
      c.transport = Config::TransportChoice::kAuto;
    else if (name == "loopback")
      c.transport = Config::TransportChoice::kLoopback;
    else if (name == "ucx")
      c.transport = Config::TransportChoice::kUcx;
    else
      return Status::fail("SYMMETRA_TRANSPORT='" + name + "': use auto, loopback or ucx");
  }
  if (const char* v = env("SYMMETRA_SYNC")) {
    const std::string s = v;
    if (s == "auto")
      c.sync = Config::Sync::kAuto;
    else if (s == "dissemination")
      c.sync = Config::Sync::kDissemination;
    else if (s == "central")
      c.sync = Config::Sync::kCentral;
    else
      return Status::fail("SYMMETRA_SYNC='" + s + "': use auto, dissemination or central");
  }
  return c;
}

int timeout_ms_from_env() {
  auto t = env_seconds("SYMMETRA_TIMEOUT_S", 120.0);
  return static_cast<int>((t.ok() ? t.value() : 120.0) * 1000);
}

}  // namespace symmetra::detail
