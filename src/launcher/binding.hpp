// symrun's CPU binding: which CPUs each PE runs on.
//
// Pinned PEs stay where they start: with more PEs than CPUs, an unpinned job's barrier took
// nearly twice as long in some runs as in others, by where the scheduler happened to put the
// processes; pinned, it took the short time in every run (docs/perf_cpu.md#oversubscription).
// Threads: any (pure function).
#pragma once

#include <vector>

namespace symmetra::launcher {

// The CPUs PE `pe` of `n` runs on, out of `allowed` (the launcher's own affinity, in order;
// not empty): with no more PEs than CPUs, PE pe gets the contiguous block
// [pe * c / n, (pe + 1) * c / n) of the c allowed CPUs, so blocks are disjoint and a PE that
// runs threads has several; with more PEs than CPUs, CPU pe mod c, so every CPU carries the
// same number of PEs (within one).
std::vector<int> bind_cpus(int pe, int n, const std::vector<int>& allowed);

}  // namespace symmetra::launcher
