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

// Full attention over the whole sequence in fp64, written the textbook way (a softmax matrix and
// its Jacobian), independent of the ring's online softmax and delta trick.
struct Reference {
  AttentionShape s;
  std::vector<double> q, k, v, dout;  // [B, S, H, D]
  std::vector<double> out, lse, dq, dk, dv;

  std::size_t qi(int b, std::int64_t t, int h) const {
    return ((static_cast<std::size_t>(b) * s.seq_len + t) * s.q_heads + h) * s.head_dim;
  }
  std::size_t ki(int b, std::int64_t t, int g) const {
    return ((static_cast<std::size_t>(b) * s.seq_len + t) * s.kv_heads + g) * s.head_dim;
  }

  // round: what the inputs become in the type under test (bf16, fp16), so that the reference
  // is the exact attention of the inputs the ring gets; null: none.
  Reference(const AttentionShape& shape, std::uint64_t seed, double (*round)(double) = nullptr)
      : s(shape) {
    std::mt19937_64 gen(seed);
    std::normal_distribution<double> normal;
    auto fill = [&](std::vector<double>& x, std::size_t n) {
      x.resize(n);
      for (double& e : x) e = round != nullptr ? round(normal(gen)) : normal(gen);
    };
    const std::size_t nq = static_cast<std::size_t>(s.batch) * s.seq_len * s.q_heads * s.head_dim;
    const std::size_t nk = static_cast<std::size_t>(s.batch) * s.seq_len * s.kv_heads * s.head_dim;
    fill(q, nq);
    fill(k, nk);
    fill(v, nk);
    fill(dout, nq);
    out.assign(nq, 0);
    dq.assign(nq, 0);
    dk.assign(nk, 0);
    dv.assign(nk, 0);
    lse.assign(static_cast<std::size_t>(s.batch) * s.q_heads * s.seq_len, 0);
    const double scale = 1.0 / std::sqrt(static_cast<double>(s.head_dim));
    const int group = s.q_heads / s.kv_heads, d_ = s.head_dim;
    const std::int64_t n = s.seq_len;
    std::vector<double> p(n * n), dp(n * n);
    for (int b = 0; b < s.batch; ++b)
      for (int h = 0; h < s.q_heads; ++h) {
        const int g = h / group;
        for (std::int64_t i = 0; i < n; ++i) {
          double mx = -INFINITY;
          for (std::int64_t j = 0; j < n; ++j) {
            double dot = 0;
            for (int d = 0; d < d_; ++d) dot += q[qi(b, i, h) + d] * k[ki(b, j, g) + d];
            p[i * n + j] = (s.causal && j > i) ? -INFINITY : scale * dot;
            mx = std::max(mx, p[i * n + j]);
          }
          double sum = 0;
          for (std::int64_t j = 0; j < n; ++j) sum += std::exp(p[i * n + j] - mx);
          lse[(static_cast<std::size_t>(b) * s.q_heads + h) * n + i] = mx + std::log(sum);
          for (std::int64_t j = 0; j < n; ++j) p[i * n + j] = std::exp(p[i * n + j] - mx) / sum;
          for (std::int64_t j = 0; j < n; ++j)
            for (int d = 0; d < d_; ++d) out[qi(b, i, h) + d] += p[i * n + j] * v[ki(b, j, g) + d];
        }
        // dP = dO V^T; dS = P (dP - rowsum(P dP)); dQ = scale dS K; dK = scale dS^T Q;
        // dV = P^T dO.
        for (std::int64_t i = 0; i < n; ++i) {
          double row = 0;
          for (std::int64_t j = 0; j < n; ++j) {
            double dot = 0;
            for (int d = 0; d < d_; ++d) dot += dout[qi(b, i, h) + d] * v[ki(b, j, g) + d];
            dp[i * n + j] = dot;
            row += p[i * n + j] * dot;
          }
          for (std::int64_t j = 0; j < n; ++j) {
            const double ds = p[i * n + j] * (dp[i * n + j] - row);
            for (int d = 0; d < d_; ++d) {
              dq[qi(b, i, h) + d] += scale * ds * k[ki(b, j, g) + d];
              dk[ki(b, j, g) + d] += scale * ds * q[qi(b, i, h) + d];
              dv[ki(b, j, g) + d] += p[i * n + j] * dout[qi(b, i, h) + d];
            }
          }
        }
      }
  }

  // PE `rank`'s zigzag tokens of a [B, S, heads, D] tensor, as T.
  template <class T>
  std::vector<T> local(const std::vector<double>& x, int heads, int rank, int n_pes) const {
    const std::int64_t local_tokens = s.seq_len / n_pes;
    const std::size_t row = static_cast<std::size_t>(heads) * s.head_dim;
    std::vector<T> out_(static_cast<std::size_t>(s.batch) * local_tokens * row);
    for (int b = 0; b < s.batch; ++b)
      for (std::int64_t i = 0; i < local_tokens; ++i) {
        const std::int64_t t = zigzag_position(i, rank, n_pes, s.seq_len);
        for (std::size_t e = 0; e < row; ++e)
          out_[(static_cast<std::size_t>(b) * local_tokens + i) * row + e] =
              static_cast<T>(x[(static_cast<std::size_t>(b) * s.seq_len + t) * row + e]);
      }
    return out_;
  }
  std::vector<double> local_lse(int rank, int n_pes) const {
    const std::int64_t local_tokens = s.seq_len / n_pes;
    std::vector<double> out_(static_cast<std::size_t>(s.batch) * s.q_heads * local_tokens);
    for (int bh = 0; bh < s.batch * s.q_heads; ++bh)
      for (std::int64_t i = 0; i < local_tokens; ++i)
        out_[bh * local_tokens + i] =
            lse[bh * s.seq_len + zigzag_position(i, rank, n_pes, s.seq_len)];
    return out_;
  }
};

// Within 1e-5 for fp32 (the bound) and 1e-10 for fp64, relative to max(1, |ref|);
// fp64 gradients within 1e-6: the backward reads the forward's fp32 LSE, whose rounding (about
// 6e-8 of values of a few units) every softmax weight inherits.
// The 16-bit types: each element within atol = rtol = 2.5e-2 for bf16 (the bound for
// the GPU path) and 5e-3 for fp16, and the whole tensor within a relative norm of 1e-2 and 2e-3
// (a wrong block moves the norm far more). Their outputs are rounded once from fp32, and the
// backward's delta reads the rounded out, as FlashAttention's does: over 6 runs of every case
// the worst bf16 element was off by 1.7e-2 of max(1, |ref|) (dk), fp16's by 2.6e-3.
template <class T>
double tolerance(bool gradient) {
  if constexpr (std::is_same_v<T, bfloat16>) return 2.5e-2;
  if constexpr (std::is_same_v<T, half>) return 5e-3;
  return sizeof(T) == 4 ? 1e-5 : gradient ? 1e-6 : 1e-10;
}

// An element as double, for the 16-bit types too (their conversion is to float, explicitly).
template <class T>
double as_double(T x) {
  return static_cast<double>(static_cast<float>(x));
}
inline double as_double(double x) {
  return x;
}

template <class T, class U>
void expect_near_all(const std::vector<T>& got, const std::vector<U>& ref, const std::string& what,
                     int pe) {
  constexpr bool k16 = sizeof(T) == 2;
  const bool gradient = what[0] == 'd';
  const double tol = tolerance<T>(gradient);
  ASSERT_EQ(got.size(), ref.size()) << what;
  std::size_t bad = 0, worst = 0;
  double worst_err = 0, diff2 = 0, ref2 = 0;
  for (std::size_t i = 0; i < got.size(); ++i) {
    const double r = static_cast<double>(ref[i]), d = std::abs(as_double(got[i]) - r);
    const double err = k16 ? d / (1 + std::abs(r)) : d / std::max(1.0, std::abs(r));
    diff2 += d * d;
    ref2 += r * r;
    if (err > tol) ++bad;
    if (err > worst_err) worst_err = err, worst = i;
  }
  EXPECT_EQ(bad, 0u) << "[pe " << pe << "] " << what << ": " << bad << " of " << got.size()
                     << " elements off; worst at " << worst << ": " << as_double(got[worst])
                     << " against " << ref[worst];
  if (k16)
    EXPECT_LE(std::sqrt(diff2 / std::max(ref2, 1e-30)), tol / 2.5)
        << "[pe " << pe << "] " << what << ": relative norm of the error";
}

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
