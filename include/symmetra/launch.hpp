// PEs as threads of one process (docs/design.md §1.4).
#pragma once

#include <functional>

#include "symmetra/runtime.hpp"

namespace symmetra {

// Runs `fn` on `n_pes` threads, each a PE with its own Runtime, and returns when all finished.
// If a PE throws, the others' setup calls fail and their waits stop, and the first exception is
// rethrown here after every thread ended. Threads: call from any one thread.
void launch_threads(int n_pes, const std::function<void(Runtime&)>& fn);
// The same with options for every PE's Runtime (backend, device: with the CUDA backend and
// device -1, PE i uses device i modulo the device count).
void launch_threads(int n_pes, const RuntimeOptions& options,
                    const std::function<void(Runtime&)>& fn);

}  // namespace symmetra
