// symrun's CPU binding: which CPUs each PE runs on.
//
// Pinned PEs stay where they start: with more PEs than CPUs, an unpinned job on the 2-core CI
// machine ran its 4-PE barrier at 2.2 or 3.9 us from run to run, by where the scheduler happened
// to put the processes; pinned, 2.2-2.4 in every run (docs/perf_notes.md, session 7).
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
