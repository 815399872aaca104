// Plugins: parts of libsymmetra built as modules of their own (the UCX transport, the PMIx
// rendezvous), loaded only by the jobs that need them, so that their libraries (and, for UCX,
// its memory hooks) stay out of every other process.
//
// Threads: any; each plugin is loaded once per process and never closed (what it made runs its
// code).
#pragma once

#include <string>

namespace symmetra::detail {

// The address of `entry` in plugin `file` (say "libsymmetra_transport_ucx.so"), looked up next
// to libsymmetra first (the build's lib/, the install's lib/), then by the loader's search path;
// null with *error saying why if neither loads or the entry is missing.
void* plugin_entry(const char* file, const char* entry, std::string* error);

}  // namespace symmetra::detail
