// SYMMETRA_TRACE (docs/observability.md): each host form writes one line naming its op, peer,
// bytes, form and path, and only the outermost form of a call writes one. The PEs sit on two
// forced hosts (SYMMETRA_HOSTS=2), so that the trace must tell the local path from the remote
// one; the data moved is checked too, so a form that traces but does not run fails.
#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "support/pe_runner.hpp"

namespace symmetra::testing {
namespace {

struct ScopedEnv {
  ScopedEnv(const char* name, const std::string& value) : name_(name) {
    setenv(name, value.c_str(), 1);
  }
  ~ScopedEnv() { unsetenv(name_); }
  const char* name_;
};

// One trace line, by its fields ("op" -> "put", "peer" -> "1", ...): the writer's format is
// flat JSON of strings and numbers, which this reads without a JSON library.
std::map<std::string, std::string> fields(const std::string& line) {
  std::map<std::string, std::string> f;
  std::size_t i = 0;
  while ((i = line.find('"', i)) != std::string::npos) {
    const std::size_t k = line.find('"', i + 1);
    const std::string key = line.substr(i + 1, k - i - 1);
    std::size_t v = k + 2, e;
    if (line[v] == '"') {
      e = line.find('"', v + 1);
      f[key] = line.substr(v + 1, e - v - 1);
      ++e;
    } else {
      e = line.find_first_of(",}", v);
      f[key] = line.substr(v, e - v);
    }
    i = e;
  }
  return f;
}

std::vector<std::map<std::string, std::string>> read_trace(const std::string& path) {
  std::vector<std::map<std::string, std::string>> lines;
  std::ifstream in(path);
  for (std::string line; std::getline(in, line);) {
    EXPECT_EQ(line.front(), '{') << line;
    EXPECT_EQ(line.back(), '}') << line;
    lines.push_back(fields(line));
  }
  return lines;
}

class ObserveTest : public ::testing::TestWithParam<PeConfig> {};

TEST_P(ObserveTest, TraceNamesEachOperationAndItsPath) {
  const PeConfig cfg = GetParam();
  char dir[] = "/tmp/symmetra-trace-XXXXXX";
  ASSERT_NE(mkdtemp(dir), nullptr);
  const std::string pattern = std::string(dir) + "/pe%p.jsonl";
  const std::uint64_t seed = run_seed();
  {
    ScopedEnv hosts("SYMMETRA_HOSTS", "2");
    ScopedEnv trace("SYMMETRA_TRACE", pattern);
    run_pes(cfg, [&](Runtime& rt) {
      const int me = rt.my_pe(), n = rt.n_pes();
      // PE 0's host holds PEs [0, ceil(n/2)); the last PE is on the other one.
      const int far = n - 1, near = me;
      auto* buf = rt.allocate_array<std::uint64_t>(64);
      auto* word = rt.allocate_array<std::uint64_t>(1);
      std::vector<std::uint64_t> mine(64);
      for (std::size_t i = 0; i < mine.size(); ++i) mine[i] = seed ^ (me * 1000003u + i);
      *word = 0;
      rt.barrier_all();
      if (me == 0) {
        rt.putmem(buf, mine.data(), 64 * sizeof(std::uint64_t), far);  // remote
        rt.p(word, std::uint64_t{7}, near);                            // local
        (void)rt.atomic_fetch_add(word, std::uint64_t{5}, far);        // remote
        rt.fence();                                                    // one line, not two
      }
      rt.barrier_all();
      if (me == far) {
        for (std::size_t i = 0; i < 64; ++i) ASSERT_EQ(buf[i], seed ^ i) << i;
        ASSERT_EQ(*word, 5u);
      }
      if (me == 0) ASSERT_EQ(*word, 7u);
      rt.barrier_all();
    });
  }
  const auto t = read_trace(std::string(dir) + "/pe0.jsonl");
  std::vector<std::string> ops;
  for (const auto& f : t) ops.push_back(f.at("op"));
  const auto find = [&](const std::string& op) {
    for (const auto& f : t)
      if (f.at("op") == op) return f;
    ADD_FAILURE() << "no line for " << op;
    return std::map<std::string, std::string>{};
  };
  const int far = cfg.n_pes - 1;
  auto put = find("put");
  EXPECT_EQ(put["peer"], std::to_string(far));
  EXPECT_EQ(put["bytes"], "512");
  EXPECT_EQ(put["form"], "host");
  EXPECT_EQ(put["path"], "remote");
  auto p = find("p");
  EXPECT_EQ(p["peer"], "0");
  EXPECT_EQ(p["bytes"], "8");
  EXPECT_EQ(p["path"], "local");
  auto amo = find("atomic_fetch_add");
  EXPECT_EQ(amo["path"], "remote");
  EXPECT_EQ(amo["bytes"], "8");
  auto barrier = find("barrier_all");
  EXPECT_EQ(barrier["team"], "0");
  EXPECT_EQ(barrier["path"], cfg.n_pes == 2 ? "remote" : "both");
  // fence runs quiet inside: the outermost form alone is traced.
  EXPECT_EQ(std::count(ops.begin(), ops.end(), "fence"), 1);
  EXPECT_EQ(std::count(ops.begin(), ops.end(), "quiet"), 0);
  // The barriers after each step, and barrier_all inside allocate, are traced; their quiet is not.
  EXPECT_GE(std::count(ops.begin(), ops.end(), "barrier_all"), 3);
  for (const auto& f : t) EXPECT_GE(std::stod(f.at("us")), 0.0) << f.at("op");
  // Every PE wrote its own file.
  for (int pe = 1; pe < cfg.n_pes; ++pe)
    EXPECT_FALSE(read_trace(std::string(dir) + "/pe" + std::to_string(pe) + ".jsonl").empty())
        << "PE " << pe;
  for (int pe = 0; pe < cfg.n_pes; ++pe)
    std::remove((std::string(dir) + "/pe" + std::to_string(pe) + ".jsonl").c_str());
  rmdir(dir);
}

// A trace file that cannot be opened stops init with a message naming it, not a job that runs
// untraced.
TEST(ObserveSetupTest, UnwritableTraceIsAClearError) {
  ScopedEnv trace("SYMMETRA_TRACE", "/nonexistent-dir/trace.jsonl");
  try {
    auto rt = Runtime::init();  // no launcher: a job of one PE
    ADD_FAILURE() << "init succeeded with an unwritable trace";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("SYMMETRA_TRACE: cannot open '/nonexistent-dir/"),
              std::string::npos)
        << e.what();
  }
}

INSTANTIATE_TEST_SUITE_P(Pes, ObserveTest,
                         ::testing::Values(PeConfig{2, Mode::kThreads},
                                           PeConfig{3, Mode::kProcesses},
                                           PeConfig{4, Mode::kThreads}),
                         PeConfigName());

}  // namespace
}  // namespace symmetra::testing
