#include "coll/nccl.hpp"

#include <dlfcn.h>

#include <cstdlib>
#include <mutex>

namespace symmetra::detail {

Result<const Nccl*> nccl_library() {
  static std::once_flag once;
  static Nccl lib;
  static std::string error;
  std::call_once(once, [] {
    if (const char* off = std::getenv("SYMMETRA_NCCL"); off && std::string(off) == "0") {
      error = "NCCL is disabled (SYMMETRA_NCCL=0)";
      return;
    }
    const char* path = std::getenv("SYMMETRA_NCCL_LIB");
    const std::string name = path && *path ? path : "libnccl.so.2";
    void* h = dlopen(name.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (h == nullptr) {
      error = "NCCL not found: dlopen(" + name + "): " + dlerror() +
              " (set SYMMETRA_NCCL_LIB to libnccl.so.2's path)";
      return;
    }
    auto sym = [&](const char* s) { return dlsym(h, s); };
    lib.get_unique_id = reinterpret_cast<decltype(lib.get_unique_id)>(sym("ncclGetUniqueId"));
    lib.comm_init_rank = reinterpret_cast<decltype(lib.comm_init_rank)>(sym("ncclCommInitRank"));
    lib.comm_destroy = reinterpret_cast<decltype(lib.comm_destroy)>(sym("ncclCommDestroy"));
    lib.all_reduce = reinterpret_cast<decltype(lib.all_reduce)>(sym("ncclAllReduce"));
    lib.get_error_string =
        reinterpret_cast<decltype(lib.get_error_string)>(sym("ncclGetErrorString"));
    auto get_version = reinterpret_cast<int (*)(int*)>(sym("ncclGetVersion"));
    if (!lib.get_unique_id || !lib.comm_init_rank || !lib.comm_destroy || !lib.all_reduce ||
        !lib.get_error_string || !get_version) {
      error = name + " lacks the NCCL 2.x functions Symmetra calls";
      return;
    }
    get_version(&lib.version);
  });
  if (!error.empty()) return Status::fail(error);
  return &lib;
}

void NcclTeams::release(int slot) {
  Entry& e = at(slot);
  if (e.comm != nullptr) {
    auto lib = nccl_library();
    if (lib.ok()) lib.value()->comm_destroy(e.comm);
  }
  e = Entry{};
}

void NcclTeams::release_all() {
  for (int s = 0; s < device::kMaxTeams; ++s) release(s);
}

NcclTeams::~NcclTeams() {
  release_all();
}

}  // namespace symmetra::detail
