#include "core/plugin.hpp"

#include <dlfcn.h>

namespace symmetra::detail {

void* plugin_entry(const char* file, const char* entry, std::string* error) {
  std::string here;
  Dl_info info{};
  if (dladdr(reinterpret_cast<void*>(&plugin_entry), &info) != 0 && info.dli_fname != nullptr) {
    here = info.dli_fname;
    here = here.substr(0, here.rfind('/') + 1);
  }
  void* h = nullptr;
  std::string why;
  for (const std::string& path : {here + file, std::string(file)}) {
    h = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);  // a second dlopen returns the same handle
    if (h != nullptr) break;
    why += (why.empty() ? "" : "; ") + std::string(dlerror());
  }
  if (h == nullptr) {
    *error = "cannot load " + std::string(file) + " (" + why + ")";
    return nullptr;
  }
  void* fn = dlsym(h, entry);
  if (fn == nullptr) *error = std::string(file) + " has no " + entry;
  return fn;
}

}  // namespace symmetra::detail
