// make_transport (transport/transport.hpp). The UCX transport is a plugin
// (libsymmetra_transport_ucx.so, src/transport/ucx/), loaded here only when a job asks for it, so
// that UCX and its memory hooks stay out of every process that does not use them.
#include <cstdlib>

#include <string>

#include "core/plugin.hpp"
#include "transport/loopback/loopback_transport.hpp"
#include "transport/transport.hpp"

namespace symmetra::detail {
namespace {

// The plugin's one entry point (ucx_transport.cpp): a connected transport, or null with *error.
using MakeFn = Transport* (*)(const TransportParams* params, std::string* error);
constexpr const char* kUcxPlugin = "libsymmetra_transport_ucx.so";
constexpr const char* kUcxEntry = "symmetra_make_ucx_transport";

// The plugin's entry, loaded once, even with PEs as threads joining together.
MakeFn ucx_entry(std::string* error) {
  struct Loaded {
    MakeFn fn = nullptr;
    std::string why;
  };
  static const Loaded loaded = [] {
    Loaded l;
#if defined(__SANITIZE_THREAD__) || defined(__SANITIZE_ADDRESS__)
    // UCX's memory hooks (UCM) patch malloc and mmap, which the sanitizers intercept too: with
    // them, the sanitizer builds' UCX tests hung or crashed. UCX reads the setting as it loads.
    // Off, UCX only loses its registration cache, which TCP does not use.
    setenv("UCX_MEM_EVENTS", "no", 0);
#endif
    l.fn = reinterpret_cast<MakeFn>(plugin_entry(kUcxPlugin, kUcxEntry, &l.why));
    return l;
  }();
  if (loaded.fn == nullptr) *error = "the UCX transport: " + loaded.why;
  return loaded.fn;
}

}  // namespace

bool transport_built(TransportKind kind) {
  return kind == TransportKind::kLoopback || SYMMETRA_HAVE_UCX;
}

Result<std::unique_ptr<Transport>> make_transport(TransportKind kind,
                                                  const TransportParams& params) {
  switch (kind) {
    case TransportKind::kLoopback:
      return LoopbackTransport::connect(params);
    case TransportKind::kUcx: {
      if (!SYMMETRA_HAVE_UCX)
        return Status::fail(
            "this build has no UCX transport (UCX's headers were not found when it was built: "
            "tools/setup installs libucx-dev)");
      std::string error;
      const MakeFn entry = ucx_entry(&error);
      if (entry == nullptr) return Status::fail(error);
      Transport* t = entry(&params, &error);
      if (t == nullptr) return Status::fail(error);
      return std::unique_ptr<Transport>(t);
    }
  }
  return Status::fail("unknown transport");
}

}  // namespace symmetra::detail
