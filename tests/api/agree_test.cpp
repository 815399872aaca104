// Collectives whose members pass different arguments (src/runtime/agree.cpp), and buffers that
// are not symmetric (Runtime::check_coll_buffers): with checks on
// (SYMMETRA_CHECK=1, as every test here runs), every member gets a symmetra::Error naming the
// field and two members' values, before any data moves; the job then goes on, and the next,
// matching call is right. Issue 44 saw a partial result on one PE and an abort on the other for
// an all-reduce of different sizes, and garbage for different types.
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>
#include <vector>

#include "support/pe_runner.hpp"

namespace symmetra::testing {
namespace {

using coll::ReduceOp;

class AgreeTest : public ::testing::TestWithParam<PeConfig> {};

// Sets an environment variable for one test (processes inherit it; threads read it at init).
struct ScopedEnvForTest {
  std::string name;
  ScopedEnvForTest(const char* n, const char* v) : name(n) { setenv(n, v, 1); }
  ~ScopedEnvForTest() { setenv(name.c_str(), "1", 1); }  // the suite's SYMMETRA_CHECK=1
};

// Runs `call` on this PE and returns the message of the Error it threw ("" if none).
template <class F>
std::string error_of(F&& call) {
  try {
    call();
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

void expect_has(const std::string& msg, const std::vector<std::string>& parts, int me) {
  for (const std::string& p : parts)
    EXPECT_NE(msg.find(p), std::string::npos) << "[pe " << me << "] '" << p << "' not in: " << msg;
}

// After a refused call the job goes on: an all-reduce of matching arguments is exact.
void expect_job_goes_on(Runtime& rt, std::int64_t* buf, std::int64_t* out) {
  const int n = rt.n_pes();
  for (int i = 0; i < 16; ++i) buf[i] = rt.my_pe() * 100 + i;
  rt.barrier_all();
  rt.allreduce(rt.team_world(), out, buf, 16, ReduceOp::kSum);
  for (int i = 0; i < 16; ++i)
    ASSERT_EQ(out[i], 100LL * n * (n - 1) / 2 + static_cast<std::int64_t>(n) * i) << i;
}

TEST_P(AgreeTest, DifferentCountsTypesOpsRootsAndKindsAreErrorsOnEveryPe) {
  run_pes(GetParam(), [](Runtime& rt) {
    const int me = rt.my_pe();
    auto* buf = rt.allocate_array<std::int64_t>(64);
    auto* out = rt.allocate_array<std::int64_t>(64 * rt.n_pes());
    for (int i = 0; i < 64; ++i) out[i] = -7;  // poison: a refused call moves nothing
    rt.barrier_all();
    const Team world = rt.team_world();

    // Counts: PE 0 reduces 4 elements, the others 8.
    std::string e =
        error_of([&] { rt.allreduce(world, out, buf, me == 0 ? 4 : 8, ReduceOp::kSum); });
    expect_has(e,
               {"allreduce: the team's PEs passed different arguments (element count)",
                "PE 0 passed 4 elements", "passed 8 elements"},
               me);
    for (int i = 0; i < 8; ++i) EXPECT_EQ(out[i], -7) << "[pe " << me << "] moved data at " << i;
    expect_job_goes_on(rt, buf, out);

    // Types, through the type-erased entry (the Python and C bindings' way in).
    coll::Call c = coll::make_call(coll::Kind::kAllreduce, world.handle(), out, buf, 4);
    c.type = me == 0 ? DataType::kFloat : DataType::kInt32;
    e = error_of([&] { rt.collective(c); });
    expect_has(e, {"(element type)", "PE 0 passed float32", "passed int32"}, me);
    expect_job_goes_on(rt, buf, out);

    // Operators.
    e = error_of(
        [&] { rt.allreduce(world, out, buf, 4, me == 0 ? ReduceOp::kSum : ReduceOp::kMax); });
    expect_has(e, {"(operator)", "PE 0 passed op 'sum'", "passed op 'max'"}, me);
    expect_job_goes_on(rt, buf, out);

    // Roots.
    e = error_of([&] { rt.broadcast(world, out, buf, 4, me == 0 ? 0 : 1); });
    expect_has(e, {"broadcast: ", "(root)", "PE 0 passed root 0", "passed root 1"}, me);
    expect_job_goes_on(rt, buf, out);

    // Different collectives: PE 0 all-gathers while the others reduce.
    e = error_of([&] {
      if (me == 0)
        rt.fcollect(world, out, buf, 4);
      else
        rt.allreduce(world, out, buf, 4, ReduceOp::kSum);
    });
    expect_has(e, {"(collective)", "PE 0 passed fcollect", "passed allreduce"}, me);
    expect_job_goes_on(rt, buf, out);
    rt.barrier_all();
    rt.free(out);
    rt.free(buf);
  });
}

// Issue 51: PE 0 frees block a while the others free block b; a team split whose size differs
// by PE. Both are errors on every PE naming each side, and nothing changes: the blocks are
// still allocated alike (freed again in agreement) and a matching split works.
TEST_P(AgreeTest, DifferentFreesAndSplitsAreErrorsOnEveryPe) {
  run_pes(GetParam(), [](Runtime& rt) {
    const int me = rt.my_pe(), n = rt.n_pes();
    auto* a = rt.allocate_array<std::int64_t>(8);
    auto* b = rt.allocate_array<std::int64_t>(8);
    std::string e = error_of([&] { rt.free(me == 0 ? a : b); });
    expect_has(e,
               {"free: the PEs freed different blocks: PE 0 freed the block at heap offset",
                "PE 1 the block at heap offset"},
               me);
    e = error_of([&] { rt.free(me == 0 ? nullptr : a); });
    expect_has(e, {"PE 0 freed a null pointer", "PE 1 the block at heap offset"}, me);
    // Nothing was freed: a block made now lands apart from both, alike on every PE.
    auto* c = rt.allocate_array<std::int64_t>(8);
    EXPECT_TRUE(c != a && c != b);
    rt.free(c);
    rt.free(b);
    rt.free(a);

    e = error_of([&] { (void)rt.split_strided(rt.team_world(), 0, 1, me == 0 ? n : n - 1); });
    expect_has(e,
               {"split_strided: the parent team's PEs passed different arguments",
                "PE 0 passed start 0, stride 1, size " + std::to_string(n),
                "passed start 0, stride 1, size " + std::to_string(n - 1)},
               me);
    Team half = rt.split_strided(rt.team_world(), 0, 1, n - 1);
    if (me < n - 1) {
      ASSERT_TRUE(half.valid());
      EXPECT_EQ(half.n_pes(), n - 1);
      rt.barrier(half);
      rt.destroy(half);
    }
    rt.barrier_all();
  });
}

// Issue 51, item 2: a collective into memory that is not symmetric (a malloc'd dest, a stack
// source) is an Error naming the call, the buffer and its address on every PE, in every build
// and with SYMMETRA_CHECK=0 too; before, a release build's broadcast into malloc'd memory ended
// in a segfault. The all-reduce takes any memory and is not refused.
TEST_P(AgreeTest, PrivateBuffersOfACollectiveAreErrorsWithChecksOff) {
  ScopedEnvForTest off("SYMMETRA_CHECK", "0");
  run_pes(GetParam(), [](Runtime& rt) {
    const int me = rt.my_pe(), n = rt.n_pes();
    auto* sym = rt.allocate_array<std::int64_t>(16 * static_cast<std::size_t>(n));
    std::vector<std::int64_t> priv(16 * static_cast<std::size_t>(n), 3);
    const Team world = rt.team_world();
    std::string e = error_of([&] { rt.broadcast(world, priv.data(), sym, 16, 0); });
    expect_has(e, {"broadcast: dest (128 bytes at 0x", "is not in the symmetric heap"}, me);
    e = error_of([&] { rt.fcollect(world, sym, priv.data(), 16); });
    expect_has(e, {"fcollect: source (128 bytes at 0x", "is not in the symmetric heap"}, me);
    e = error_of([&] { rt.alltoall(world, priv.data(), sym, 16); });
    expect_has(e, {"alltoall: dest (" + std::to_string(128 * n) + " bytes at 0x"}, me);
    e = error_of([&] {
      rt.collective(coll::make_call(coll::Kind::kReduceScatter, world.handle(), sym,
                                    static_cast<const std::int64_t*>(priv.data()), 8));
    });
    expect_has(e, {"reduce_scatter: source (", "is not in the symmetric heap"}, me);
    // The all-reduce of private buffers stays allowed, and right.
    for (std::size_t i = 0; i < 16; ++i) priv[i] = me + 1;
    std::vector<std::int64_t> out(16, -1);
    rt.allreduce(world, out.data(), priv.data(), 16, coll::ReduceOp::kSum);
    for (std::size_t i = 0; i < 16; ++i) ASSERT_EQ(out[i], n * (n + 1) / 2) << i;
    rt.barrier_all();
    rt.free(sym);
  });
}

INSTANTIATE_TEST_SUITE_P(Pes, AgreeTest,
                         ::testing::Values(PeConfig{2, Mode::kThreads}, PeConfig{3, Mode::kThreads},
                                           PeConfig{2, Mode::kProcesses},
                                           PeConfig{3, Mode::kProcesses}),
                         PeConfigName());

}  // namespace
}  // namespace symmetra::testing
