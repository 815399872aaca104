// The end of the whole job from one PE (OpenSHMEM's shmem_global_exit, NVSHMEM's
// nvshmem_global_exit): shared by the C APIs. Defined in src/runtime/global_exit.cpp.
#pragma once

namespace symmetra {

class Runtime;

// Ends every PE of the job with `status` from this one: the launcher, where it is symrun, ends
// the others and returns it; PEs waiting on this one stop naming it. `rt` may be null (before
// init). Any thread; does not return.
[[noreturn]] void global_exit(Runtime* rt, int status);

}  // namespace symmetra
