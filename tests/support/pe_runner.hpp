// Runs a test body on N PEs, as threads of this process or as forked processes.
//
// Processes: this process hosts the rendezvous (as symrun does) and forks the PEs; a PE whose
// body recorded a gtest failure exits 1 and the parent reports it. Every run is bounded.
#pragma once

#include <cstdint>
#include <functional>
#include <ostream>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "symmetra/runtime.hpp"

namespace symmetra::testing {

enum class Mode { kThreads, kProcesses };

struct PeConfig {
  int n_pes;
  Mode mode;
  Backend backend = Backend::kCpu;
};

inline std::ostream& operator<<(std::ostream& os, const PeConfig& c) {
  return os << c.n_pes << (c.mode == Mode::kThreads ? "_threads" : "_processes")
            << (c.backend == Backend::kCuda ? "_cuda" : "");
}

// Test-name suffix for INSTANTIATE_TEST_SUITE_P.
std::string pe_config_name(const PeConfig& c);
struct PeConfigName {
  std::string operator()(const ::testing::TestParamInfo<PeConfig>& i) const {
    return pe_config_name(i.param);
  }
};

// Instantiates a TEST_P suite over standard_configs(); in the GPU builds of the API suites
// (compiled with SYMMETRA_API_TEST_GPU, label gpu), over gpu_thread_configs() instead, so one
// test source serves both backends.
#if defined(SYMMETRA_API_TEST_GPU)
#define SYMMETRA_INSTANTIATE_PES(suite)                                                    \
  INSTANTIATE_TEST_SUITE_P(Gpu, suite,                                                     \
                           ::testing::ValuesIn(::symmetra::testing::gpu_thread_configs()), \
                           ::symmetra::testing::PeConfigName())
#else
#define SYMMETRA_INSTANTIATE_PES(suite)                                                  \
  INSTANTIATE_TEST_SUITE_P(Pes, suite,                                                   \
                           ::testing::ValuesIn(::symmetra::testing::standard_configs()), \
                           ::symmetra::testing::PeConfigName())
#endif

// Runs `fn` on every PE and fails the current test if any PE failed or the run timed out.
// A wait inside the PEs ends at its own timeout (SYMMETRA_TIMEOUT_S=60 under ctest) naming the
// peer; this bound catches what no wait covers, so it sits above the slowest test on a loaded CI
// machine (the 64 MiB allreduce on 3 processes takes 37 s here; CI was seen 4-8x slower).
inline constexpr int kRunTimeoutS = 300;
void run_pes(const PeConfig& cfg, const std::function<void(Runtime&)>& fn,
             int timeout_s = kRunTimeoutS);
// The same with these Runtime options (their backend and device come from cfg).
void run_pes(const PeConfig& cfg, RuntimeOptions options, const std::function<void(Runtime&)>& fn,
             int timeout_s = kRunTimeoutS);

// The seed of this test run: SYMMETRA_TEST_SEED if set, else fresh; printed so a failure can be
// replayed. Identical on every PE of one run (processes inherit it from the parent).
std::uint64_t run_seed();

// A per-PE random generator derived from the run seed.
inline std::mt19937_64 pe_rng(const Runtime& rt, std::uint64_t salt = 0) {
  return std::mt19937_64(run_seed() * 1000003u + static_cast<std::uint64_t>(rt.my_pe()) * 7919u +
                         salt);
}

// The standard PE counts and modes of the API tests: 2, 3, 4, 8 PEs, threads and processes.
std::vector<PeConfig> standard_configs();
// The collectives' tests: 1, 2, 3, 4, 5, 8 PEs, threads and processes.
std::vector<PeConfig> collective_configs();
// The GPU tests: 2 and 4 PEs as threads on the GPU(s).
std::vector<PeConfig> gpu_thread_configs();

}  // namespace symmetra::testing
