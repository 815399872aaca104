// Ring attention (kernels/ring_attention) against full attention on one PE: the same random q,
// k, v and dout, fresh each run; forward O and LSE, dQ, dK and dV of every PE's zigzag tokens.
// PEs as threads, 1 to 4 of them (odd counts too), causal and full, GQA, fp32, fp64, bf16, fp16.
#include "symmetra/kernels/ring_attention.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <random>
#include <string>
#include <thread>
#include <tuple>
#include <type_traits>
#include <vector>

#include "attention_reference.hpp"
#include "symmetra/core/float16.hpp"
#include "symmetra/launch.hpp"

namespace {

using symmetra::bfloat16;
using symmetra::DataType;
using symmetra::half;
using symmetra::Runtime;
using symmetra::kernels::AttentionShape;
using symmetra::kernels::RingAttention;
using symmetra::kernels::zigzag_position;
using symmetra::testing::expect_near_all;
using symmetra::testing::Reference;

struct Case {
  int n_pes;
  bool causal;
  bool gqa;
  DataType type;  // kFloat, kDouble, kBfloat16, kHalf
};

std::string case_name(const ::testing::TestParamInfo<Case>& i) {
  const char* type = i.param.type == DataType::kFloat    ? "_fp32"
                     : i.param.type == DataType::kDouble ? "_fp64"
                     : i.param.type == DataType::kHalf   ? "_fp16"
                                                         : "_bf16";
  return std::to_string(i.param.n_pes) + "pes_" + (i.param.causal ? "causal" : "full") +
         (i.param.gqa ? "_gqa" : "") + type;
}

template <class T>
DataType type_of() {
  if constexpr (std::is_same_v<T, bfloat16>) return DataType::kBfloat16;
  if constexpr (std::is_same_v<T, half>) return DataType::kHalf;
  return sizeof(T) == 4 ? DataType::kFloat : DataType::kDouble;
}

template <class T>
void run_ring(const Case& c, const symmetra::kernels::RingAttentionOptions& options = {}) {
  AttentionShape shape;
  shape.batch = 2;
  shape.q_heads = 4;
  shape.kv_heads = c.gqa ? 2 : 4;
  shape.head_dim = 8;
  shape.seq_len = 2 * c.n_pes * 5;
  shape.causal = c.causal;
  // Two rounds of fresh inputs through one RingAttention: the channels' message numbers go on
  // growing across calls.
  double (*round)(double) = nullptr;
  if constexpr (sizeof(T) == 2)
    round = [](double x) {
      return static_cast<double>(static_cast<float>(T(static_cast<float>(x))));
    };
  const Reference refs[2] = {Reference(shape, std::random_device{}(), round),
                             Reference(shape, std::random_device{}(), round)};
  const DataType type = type_of<T>();
  symmetra::launch_threads(c.n_pes, [&](Runtime& rt) {
    const int me = rt.my_pe(), n = rt.n_pes();
    RingAttention ring(rt, rt.team_world(), shape, type, options);
    for (const Reference& ref : refs) {
      const auto q = ref.local<T>(ref.q, shape.q_heads, me, n);
      const auto k = ref.local<T>(ref.k, shape.kv_heads, me, n);
      const auto v = ref.local<T>(ref.v, shape.kv_heads, me, n);
      const auto dout = ref.local<T>(ref.dout, shape.q_heads, me, n);
      std::vector<T> out(q.size()), dq(q.size()), dk(k.size()), dv(v.size());
      std::vector<float> lse(static_cast<std::size_t>(shape.batch) * shape.q_heads *
                             ring.local_tokens());
      ring.forward(q.data(), k.data(), v.data(), out.data(), lse.data());
      ring.backward(q.data(), k.data(), v.data(), out.data(), lse.data(), dout.data(), dq.data(),
                    dk.data(), dv.data());
      expect_near_all(out, ref.local<double>(ref.out, shape.q_heads, me, n), "out", me);
      // The LSE is fp32 on every path: within fp32's rounding of values of a few units.
      std::vector<double> lse_d(lse.begin(), lse.end());
      const auto lse_ref = ref.local_lse(me, n);
      for (std::size_t i = 0; i < lse_d.size(); ++i)
        ASSERT_NEAR(lse_d[i], lse_ref[i], 1e-5 * std::max(1.0, std::abs(lse_ref[i]))) << i;
      expect_near_all(dq, ref.local<double>(ref.dq, shape.q_heads, me, n), "dq", me);
      expect_near_all(dk, ref.local<double>(ref.dk, shape.kv_heads, me, n), "dk", me);
      expect_near_all(dv, ref.local<double>(ref.dv, shape.kv_heads, me, n), "dv", me);
    }
  });
}

class RingAttentionTest : public ::testing::TestWithParam<Case> {};

TEST_P(RingAttentionTest, MatchesFullAttention) {
  switch (GetParam().type) {
    case DataType::kDouble:
      return run_ring<double>(GetParam());
    case DataType::kBfloat16:
      return run_ring<bfloat16>(GetParam());
    case DataType::kHalf:
      return run_ring<half>(GetParam());
    default:
      return run_ring<float>(GetParam());
  }
}

std::vector<Case> cases() {
  std::vector<Case> v;
  for (int n = 1; n <= 4; ++n)
    for (bool causal : {true, false})
      for (bool gqa : {false, true})
        for (DataType t :
             {DataType::kFloat, DataType::kDouble, DataType::kBfloat16, DataType::kHalf})
          v.push_back({n, causal, gqa, t});
  return v;
}
INSTANTIATE_TEST_SUITE_P(Pes, RingAttentionTest, ::testing::ValuesIn(cases()), case_name);

// One slow receiver (PE 2 of 4 holds each block 20 ms before computing against it): its
// senders run ahead of it by up to 3 steps, and only the credits keep them from writing into a
// buffer it is still reading. The results must not change.
TEST(RingAttentionCredits, ASlowReceiverReadsEveryBlockIntact) {
  symmetra::kernels::RingAttentionOptions slow;
  // The PEs are threads: the hook learns its PE from a thread-local set below.
  static thread_local int hook_pe = -1;
  slow.before_step = [](int, int step) {
    if (hook_pe == 2 && step > 0) std::this_thread::sleep_for(std::chrono::milliseconds(20));
  };
  AttentionShape shape;
  shape.batch = 1;
  shape.q_heads = 2;
  shape.kv_heads = 1;
  shape.head_dim = 8;
  shape.seq_len = 2 * 4 * 6;
  shape.causal = true;
  const Reference ref(shape, std::random_device{}());
  symmetra::launch_threads(4, [&](Runtime& rt) {
    const int me = rt.my_pe(), n = rt.n_pes();
    hook_pe = me;
    RingAttention ring(rt, rt.team_world(), shape, DataType::kFloat, slow);
    const auto q = ref.local<float>(ref.q, shape.q_heads, me, n);
    const auto k = ref.local<float>(ref.k, shape.kv_heads, me, n);
    const auto v = ref.local<float>(ref.v, shape.kv_heads, me, n);
    const auto dout = ref.local<float>(ref.dout, shape.q_heads, me, n);
    std::vector<float> out(q.size()), lse(shape.q_heads * ring.local_tokens()), dq(q.size()),
        dk(k.size()), dv(v.size());
    for (int round = 0; round < 3; ++round) {
      ring.forward(q.data(), k.data(), v.data(), out.data(), lse.data());
      ring.backward(q.data(), k.data(), v.data(), out.data(), lse.data(), dout.data(), dq.data(),
                    dk.data(), dv.data());
      expect_near_all(out, ref.local<double>(ref.out, shape.q_heads, me, n), "out", me);
      expect_near_all(dk, ref.local<double>(ref.dk, shape.kv_heads, me, n), "dk", me);
      expect_near_all(dv, ref.local<double>(ref.dv, shape.kv_heads, me, n), "dv", me);
    }
  });
}

TEST(RingAttentionShapes, WrongShapesAreErrorsOnEveryPe) {
  for (const auto& [seq, q_heads, kv_heads, want] :
       std::vector<std::tuple<int, int, int, std::string>>{
           {25, 4, 2, "seq_len 25 does not split into 2 x 3 equal chunks"},
           {30, 4, 3, "q_heads 4 is not a multiple of kv_heads 3"}}) {
    AttentionShape shape;
    shape.q_heads = q_heads;
    shape.kv_heads = kv_heads;
    shape.head_dim = 4;
    shape.seq_len = seq;
    std::vector<std::string> errors(3);
    symmetra::launch_threads(3, [&](Runtime& rt) {
      try {
        RingAttention ring(rt, rt.team_world(), shape, DataType::kFloat);
      } catch (const symmetra::Error& e) {
        errors[rt.my_pe()] = e.what();
      }
      rt.barrier_all();  // the job goes on after the error
    });
    for (int pe = 0; pe < 3; ++pe)
      EXPECT_NE(errors[pe].find(want), std::string::npos) << "pe " << pe << ": " << errors[pe];
  }
}

// A ring over a team that leaves PEs out: they construct it (symmetric allocation is collective
// over the world) and call nothing; the members' results match a job of their own size.
TEST(RingAttentionTeams, ARingOverEveryOtherPe) {
  AttentionShape shape;
  shape.q_heads = 2;
  shape.kv_heads = 2;
  shape.head_dim = 4;
  shape.seq_len = 2 * 2 * 3;
  const Reference ref(shape, std::random_device{}());
  symmetra::launch_threads(4, [&](Runtime& rt) {
    symmetra::Team evens = rt.split_strided(rt.team_world(), 0, 2, 2);
    RingAttention ring(rt, evens, shape, DataType::kDouble);
    if (evens.valid()) {
      const int me = evens.my_pe();
      const auto q = ref.local<double>(ref.q, 2, me, 2);
      const auto k = ref.local<double>(ref.k, 2, me, 2);
      const auto v = ref.local<double>(ref.v, 2, me, 2);
      std::vector<double> out(q.size());
      std::vector<float> lse(2 * ring.local_tokens());
      ring.forward(q.data(), k.data(), v.data(), out.data(), lse.data());
      expect_near_all(out, ref.local<double>(ref.out, 2, me, 2), "out", rt.my_pe());
    } else {
      EXPECT_THROW(ring.forward(nullptr, nullptr, nullptr, nullptr, nullptr), symmetra::Error);
    }
  });
}

}  // namespace
