// The host forms of the team collectives with their algorithms, compiled into the including
// code. Runtime::broadcast, fcollect, reduce, allreduce ... are declared in runtime.hpp, and the
// library has them for every element type collectives take: include this header only for a
// permute with a chunk consumer (its callback is your code), or to have the CPU backend's
// algorithms inlined where you call them.
#pragma once

#include "symmetra/runtime.hpp"

#define SYMMETRA_RUNTIME_CONTRACT 1
#include "symmetra/impl/runtime_coll_host.hpp"
