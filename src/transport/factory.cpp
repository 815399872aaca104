// make_transport (transport/transport.hpp). The UCX transport is a plugin
// (libsymmetra_transport_ucx.so, src/transport/ucx/), loaded here only when a job asks for it, so
// that UCX and its memory hooks stay out of every process that does not use them.
#include <dlfcn.h>

#include <cstdlib>

#include <string>

#include "transport/loopback/loopback_transport.hpp"
#include "transport/transport.hpp"

namespace symmetra::detail {
namespace {

// The plugin's one entry point (ucx_transport.cpp): a connected transport, or null with *error.
using MakeFn = Transport* (*)(const TransportParams* params, std::string* error);
constexpr const char* kUcxPlugin = "libsymmetra_transport_ucx.so";
constexpr const char* kUcxEntry = "symmetra_make_ucx_transport";

// The plugin next to this library (build/.../lib, or the install's lib/), else by the loader's
// search path; null with *error if neither loads. Loaded once and never closed: the transports
// it makes run its code.
MakeFn ucx_entry(std::string* error) {
  struct Loaded {
    MakeFn fn = nullptr;
    std::string why;
  };
  static const Loaded loaded = [] {  // once, even with PEs as threads joining together
    Loaded l;
#if defined(__SANITIZE_THREAD__) || defined(__SANITIZE_ADDRESS__)
    // UCX's memory hooks (UCM) patch malloc and mmap, which the sanitizers intercept too: with
    // them, the sanitizer builds' UCX tests hung or crashed. UCX reads the setting as it loads.
    // Off, UCX only loses its registration cache, which TCP does not use.
    setenv("UCX_MEM_EVENTS", "no", 0);
#endif
    std::string here;
    Dl_info info{};
    if (dladdr(reinterpret_cast<void*>(&ucx_entry), &info) != 0 && info.dli_fname != nullptr) {
      here = info.dli_fname;
      here = here.substr(0, here.rfind('/') + 1);
    }
    void* h = nullptr;
    for (const std::string& path : {here + kUcxPlugin, std::string(kUcxPlugin)}) {
      h = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
      if (h != nullptr) break;
      l.why += (l.why.empty() ? "" : "; ") + std::string(dlerror());
    }
    if (h == nullptr)
      l.why = "cannot load the UCX transport (" + l.why + ")";
    else if ((l.fn = reinterpret_cast<MakeFn>(dlsym(h, kUcxEntry))) == nullptr)
      l.why = std::string("the UCX transport plugin has no ") + kUcxEntry;
    return l;
  }();
  if (loaded.fn == nullptr) *error = loaded.why;
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
