// NVSHMEM's environment variables on Symmetra (docs/nvshmem.md#environment): those with a
// Symmetra counterpart set it where the user has not; the rest are known to have no effect here,
// or not known at all, and nvshmem_init says so once.
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "bindings/nvshmem/state.hpp"

namespace symmetra::nvshmem {
namespace {

// A variable and the Symmetra variable it sets; `values` maps NVSHMEM's values to Symmetra's as
// "NVSHMEM=symmetra" pairs (case-insensitive on NVSHMEM's side), empty to copy the value.
struct Mapped {
  const char* name;
  const char* symmetra;
  std::vector<const char*> values;
};
const std::vector<Mapped>& mapped() {
  static const std::vector<Mapped> m = {
      {"NVSHMEM_SYMMETRIC_SIZE", "SYMMETRA_SYMMETRIC_SIZE", {}},
      {"NVSHMEM_DEBUG", "SYMMETRA_LOG", {"WARN=warn", "INFO=info", "TRACE=debug", "VERSION=info"}},
      {"NVSHMEM_REMOTE_TRANSPORT", "SYMMETRA_TRANSPORT", {"ucx=ucx"}},
      {"NVSHMEM_BOOTSTRAP", "SYMMETRA_BOOTSTRAP", {"PMIX=pmix", "PMI-2=pmix"}},
  };
  return m;
}

// Variables of NVSHMEM's that have no counterpart here: its transports, NICs, NVLS, CUDA memory
// granularity and its own bootstrap plugins, which Symmetra's design replaces (docs/nvshmem.md).
bool no_effect(const std::string& name) {
  static const char* const kPrefixes[] = {"NVSHMEM_IB_",
                                          "NVSHMEM_IBGDA_",
                                          "NVSHMEM_HCA_",
                                          "NVSHMEM_ENABLE_NIC",
                                          "NVSHMEM_DISABLE_NVLS",
                                          "NVSHMEM_CUMEM_",
                                          "NVSHMEM_DISABLE_CUDA_VMM",
                                          "NVSHMEM_BOOTSTRAP_",
                                          "NVSHMEM_INFO",
                                          "NVSHMEM_VERSION",
                                          "NVSHMEM_DEBUG_",
                                          "NVSHMEM_NVTX",
                                          "NVSHMEM_MAX_TEAMS",
                                          "NVSHMEM_TEAM_",
                                          "NVSHMEM_CUDA_PATH",
                                          "NVSHMEM_LIBFABRIC_",
                                          "NVSHMEM_DISABLE_NCCL",
                                          "NVSHMEM_MAX_P2P_GPUS",
                                          "NVSHMEM_MAX_PEER_STREAMS",
                                          "NVSHMEM_DISABLE_LOCAL_ONLY_PROXY",
                                          "NVSHMEM_ENABLE_RAIL_OPT",
                                          "NVSHMEM_SYMMETRIC_SIZE_"};
  for (const char* p : kPrefixes)
    if (name.compare(0, std::strlen(p), p) == 0) return true;
  return false;
}

std::string upper(std::string s) {
  for (char& c : s) c = static_cast<char>(c >= 'a' && c <= 'z' ? c - 'a' + 'A' : c);
  return s;
}

}  // namespace

std::vector<std::string> map_environment() {
  std::vector<std::string> notes;
  for (char** e = environ; *e != nullptr; ++e) {
    const std::string entry = *e;
    if (entry.compare(0, 8, "NVSHMEM_") != 0) continue;
    const std::size_t eq = entry.find('=');
    const std::string name = entry.substr(0, eq), value = entry.substr(eq + 1);
    const Mapped* m = nullptr;
    for (const Mapped& c : mapped())
      if (name == c.name) m = &c;
    if (m == nullptr) {
      if (name == "NVSHMEM_DISABLE_P2P" && value != "0")
        notes.push_back(name +
                        ": not supported; PEs of one host reach each other by load and store");
      else if (!no_effect(name) && name != "NVSHMEM_DISABLE_P2P")
        notes.push_back(name + " is not a variable Symmetra knows: ignored");
      continue;
    }
    std::string to = value;
    if (!m->values.empty()) {
      to.clear();
      for (const char* pair : m->values) {
        const char* sep = std::strchr(pair, '=');
        if (upper(value) == upper(std::string(pair, sep))) to = sep + 1;
      }
      if (to.empty()) {
        notes.push_back(name + "=" + value + ": no counterpart here; " + m->symmetra +
                        " keeps its default");
        continue;
      }
    }
    if (std::getenv(m->symmetra) == nullptr) setenv(m->symmetra, to.c_str(), 0);
  }
  return notes;
}

}  // namespace symmetra::nvshmem
