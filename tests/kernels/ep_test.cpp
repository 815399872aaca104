// symmetra::ep (kernels/moe) against a reference that knows every PE's routing: every PE draws
// all PEs' tokens and routings from the run's seed, so each can compute the exact rows it must
// receive and the sums it must get back. Random, skewed (every token to one expert), sparse
// (experts left empty, slots of -1) routings; top-1 to top-8; int32 payloads bit for bit,
// bfloat16 and float within rounding; 1 to 8 PEs as threads and as processes; wrong input.
#include "symmetra/ep.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <ostream>
#include <random>
#include <string>
#include <vector>

#include "support/pe_runner.hpp"
#include "symmetra/core/float16.hpp"

namespace {

using symmetra::bfloat16;
using symmetra::DataType;
using symmetra::Runtime;
using symmetra::ep::Config;
using symmetra::ep::Dispatcher;
using symmetra::ep::Received;
using symmetra::testing::PeConfig;
using symmetra::testing::run_pes;

enum class Routing { kRandom, kSkewed, kSparse };

// One PE's input: tokens (as doubles, exact in every payload type used here: integers in
// [-16, 16]), their experts and weights (1, 2 or 3).
struct Input {
  int tokens = 0;
  std::vector<double> x;          // [tokens, hidden]
  std::vector<std::int64_t> idx;  // [tokens, top_k]
  std::vector<float> w;           // [tokens, top_k]
};

Input make_input(const Config& c, Routing routing, int pe, std::uint64_t seed) {
  std::mt19937_64 g(seed * 7919 + static_cast<std::uint64_t>(pe));
  Input in;
  in.tokens =
      routing == Routing::kSkewed ? c.max_tokens : static_cast<int>(g() % (c.max_tokens + 1));
  in.x.resize(static_cast<std::size_t>(in.tokens) * c.hidden);
  for (double& v : in.x) v = static_cast<double>(static_cast<int>(g() % 33) - 16);
  in.idx.assign(static_cast<std::size_t>(in.tokens) * c.top_k, -1);
  in.w.assign(in.idx.size(), 0.0f);
  std::vector<std::int64_t> experts(c.num_experts);
  for (int t = 0; t < in.tokens; ++t) {
    for (int e = 0; e < c.num_experts; ++e) experts[e] = e;
    std::shuffle(experts.begin(), experts.end(), g);
    for (int s = 0; s < c.top_k; ++s) {
      std::int64_t e = experts[s];
      if (routing == Routing::kSkewed) e = s == 0 ? 0 : -1;            // all to expert 0
      if (routing == Routing::kSparse) e = g() % 3 == 0 ? -1 : e % 3;  // experts 0-2 at most
      if (routing == Routing::kSparse)
        for (int r = 0; r < s; ++r)
          if (in.idx[t * c.top_k + r] == e) e = -1;
      in.idx[t * c.top_k + s] = e;
      in.w[t * c.top_k + s] = static_cast<float>(1 + g() % 3);
    }
  }
  return in;
}

template <class T>
std::vector<T> as(const std::vector<double>& v) {
  std::vector<T> out(v.size());
  for (std::size_t i = 0; i < v.size(); ++i) {
    if constexpr (std::is_same_v<T, bfloat16>)
      out[i] = bfloat16(static_cast<float>(v[i]));
    else
      out[i] = static_cast<T>(v[i]);
  }
  return out;
}

template <class T>
double to_double(T v) {
  if constexpr (std::is_same_v<T, bfloat16>)
    return static_cast<float>(v);
  else
    return static_cast<double>(v);
}

// What an expert makes of a token: the token times (1 + its global expert index).
double expert_fn(double x, std::int64_t e) {
  return x * static_cast<double>(1 + e);
}

// The rows this PE must hold after a dispatch of `in` (every PE's input): for each local expert,
// (source rank, token, slot) in source order; `value(src, t, h)` is what row element h holds.
template <class T, class Value>
void check_rows(const Config& c, const std::vector<Input>& in, int me, const Received& r,
                Value value) {
  const int n = static_cast<int>(in.size()), L = c.num_experts / n;
  std::vector<std::vector<std::array<int, 3>>> want(L);
  std::int64_t want_tokens = 0;
  for (int src = 0; src < n; ++src)
    for (int t = 0; t < in[src].tokens; ++t) {
      bool here = false;
      for (int s = 0; s < c.top_k; ++s)
        if (const std::int64_t e = in[src].idx[t * c.top_k + s]; e >= 0 && e / L == me) {
          want[e % L].push_back({src, t, s});
          here = true;
        }
      want_tokens += here;
    }
  ASSERT_EQ(r.tokens, want_tokens);
  std::int64_t row = 0;
  for (int e = 0; e < L; ++e) {
    ASSERT_EQ(r.expert_counts[e], static_cast<std::int32_t>(want[e].size())) << "expert " << e;
    ASSERT_EQ(r.expert_offsets[e], row);
    for (const auto [src, t, s] : want[e]) {
      ASSERT_EQ(r.src_rank[row], src) << "row " << row;
      ASSERT_EQ(r.src_token[row], t) << "row " << row;
      ASSERT_EQ(r.weights[row], in[src].w[t * c.top_k + s]);
      const T* got = static_cast<const T*>(r.x) + row * c.hidden;
      for (int h = 0; h < c.hidden; ++h)
        ASSERT_EQ(to_double(got[h]), value(src, t, h)) << "row " << row << " element " << h;
      ++row;
    }
  }
  ASSERT_EQ(r.rows, row);
  ASSERT_EQ(r.expert_offsets[L], row);
}

// combine's result for this PE's tokens: sum over their experts of (weight or 1) x expert_fn.
template <class T>
void check_sums(const Config& c, const Input& mine, const std::vector<T>& out, bool weighted,
                double tol) {
  for (int t = 0; t < mine.tokens; ++t)
    for (int h = 0; h < c.hidden; ++h) {
      double want = 0;
      for (int s = 0; s < c.top_k; ++s)
        if (const std::int64_t e = mine.idx[t * c.top_k + s]; e >= 0)
          want +=
              (weighted ? mine.w[t * c.top_k + s] : 1.0) * expert_fn(mine.x[t * c.hidden + h], e);
      const double got = to_double(out[static_cast<std::size_t>(t) * c.hidden + h]);
      ASSERT_NEAR(got, want, tol * std::max(1.0, std::fabs(want)))
          << "token " << t << " element " << h << (weighted ? "" : " (unweighted)");
    }
}

template <class T>
void run_case(Runtime& rt, const Config& c, Routing routing, std::uint64_t seed, double tol) {
  const int me = rt.my_pe(), n = rt.n_pes(), L = c.num_experts / n;
  Dispatcher ep(rt, rt.team_world(), c);
  EXPECT_EQ(ep.local_experts(), L);
  // What the experts make of the rows of r: expert_fn, each row by its global expert.
  auto outputs = [&](const Received& r) {
    std::vector<double> y(static_cast<std::size_t>(r.rows) * c.hidden);
    for (int e = 0; e < L; ++e)
      for (std::int64_t i = r.expert_offsets[e]; i < r.expert_offsets[e + 1]; ++i)
        for (int h = 0; h < c.hidden; ++h)
          y[i * c.hidden + h] = expert_fn(to_double(static_cast<const T*>(r.x)[i * c.hidden + h]),
                                          static_cast<std::int64_t>(me) * L + e);
    return as<T>(y);
  };
  symmetra::ep::Handle first;  // round 0's, combined again after round 1's dispatch
  std::vector<T> first_y;
  Input first_in;
  for (int round = 0; round < 2; ++round) {  // fresh inputs through one dispatcher
    std::vector<Input> in;
    for (int pe = 0; pe < n; ++pe) in.push_back(make_input(c, routing, pe, seed + round));
    const Input& mine = in[me];
    const auto x = as<T>(mine.x);
    const Received r = ep.dispatch(x.data(), c.type, mine.idx.data(), mine.w.data(), mine.tokens);
    check_rows<T>(c, in, me, r, [&](int src, int t, int h) {
      return in[src].x[static_cast<std::size_t>(t) * c.hidden + h];
    });
    const std::vector<T> y = outputs(r);
    std::vector<T> out(static_cast<std::size_t>(mine.tokens) * c.hidden, T(-1.0f));
    ep.combine(y.data(), c.type, r.handle, out.data());
    check_sums(c, mine, out, true, tol);
    if (round == 0) {
      first = r.handle, first_y = y, first_in = mine;
      continue;
    }
    // Other tokens along the same routing (the backward of combine), then the unweighted sum
    // (the backward of dispatch), into the same rows.
    Input neg = mine;
    for (double& v : neg.x) v = -v;
    const auto xn = as<T>(neg.x);
    const Received rn = ep.redispatch(xn.data(), c.type, r.handle);
    check_rows<T>(c, in, me, rn, [&](int src, int t, int h) {
      return -in[src].x[static_cast<std::size_t>(t) * c.hidden + h];
    });
    const std::vector<T> yn = outputs(rn);
    ep.combine(yn.data(), c.type, rn.handle, out.data(), symmetra::ep::Weighting::kUnweighted);
    check_sums(c, neg, out, false, tol);
    // One float per row back to its token's slot: 1000 x (1 + expert) + token, exact in float.
    std::vector<float> per_row(r.rows);
    for (int e = 0; e < L; ++e)
      for (std::int64_t i = r.expert_offsets[e]; i < r.expert_offsets[e + 1]; ++i)
        per_row[i] = static_cast<float>(1000 * (1 + me * L + e) + r.src_token[i]);
    std::vector<float> slots(static_cast<std::size_t>(mine.tokens) * c.top_k, -1.0f);
    ep.gather_slots(per_row.data(), r.handle, slots.data());
    for (int t = 0; t < mine.tokens; ++t)
      for (int s = 0; s < c.top_k; ++s) {
        const std::int64_t e = mine.idx[t * c.top_k + s];
        ASSERT_EQ(slots[t * c.top_k + s], e < 0 ? 0.0f : static_cast<float>(1000 * (1 + e) + t))
            << "token " << t << " slot " << s;
      }
    // An earlier dispatch's routing still combines.
    std::vector<T> first_out(static_cast<std::size_t>(first_in.tokens) * c.hidden, T(-1.0f));
    ep.combine(first_y.data(), c.type, first, first_out.data());
    check_sums(c, first_in, first_out, true, tol);
  }
}

struct Case {
  PeConfig pes;
  Routing routing;
  int top_k;
};

std::string case_name(const ::testing::TestParamInfo<Case>& i) {
  const char* r = i.param.routing == Routing::kRandom   ? "random"
                  : i.param.routing == Routing::kSkewed ? "skewed"
                                                        : "sparse";
  return symmetra::testing::pe_config_name(i.param.pes) + "_" + r + "_top" +
         std::to_string(i.param.top_k);
}

void PrintTo(const Case& c, std::ostream* os) {
  *os << c.pes << " routing " << static_cast<int>(c.routing) << " top-" << c.top_k;
}

class EpTest : public ::testing::TestWithParam<Case> {};

Config config_for(const Case& p, int n, DataType type) {
  Config c;
  c.max_tokens = 13;
  c.hidden = 24;
  c.type = type;
  c.num_experts = 4 * n;
  c.top_k = std::min(p.top_k, c.num_experts);
  return c;
}

TEST_P(EpTest, Int32RoutesAndSumsExactly) {
  const Case p = GetParam();
  const std::uint64_t seed = symmetra::testing::run_seed();
  run_pes(p.pes, [&](Runtime& rt) {
    run_case<std::int32_t>(rt, config_for(p, rt.n_pes(), DataType::kInt32), p.routing, seed, 0);
  });
}

TEST_P(EpTest, Bfloat16WithinRounding) {
  const Case p = GetParam();
  const std::uint64_t seed = symmetra::testing::run_seed();
  // Partials round to bfloat16 once on the expert's PE and once at the end: 2 ulps (2^-7 each).
  run_pes(p.pes, [&](Runtime& rt) {
    run_case<bfloat16>(rt, config_for(p, rt.n_pes(), DataType::kBfloat16), p.routing, seed,
                       2.0 / 128);
  });
}

std::vector<Case> cases() {
  std::vector<Case> out;
  for (int n : {1, 2, 3, 4, 8})
    for (auto mode : {symmetra::testing::Mode::kThreads, symmetra::testing::Mode::kProcesses}) {
      if (n == 1 && mode == symmetra::testing::Mode::kProcesses) continue;
      const PeConfig pes{n, mode};
      out.push_back({pes, Routing::kRandom, 8});
      if (n == 8 && mode == symmetra::testing::Mode::kProcesses) continue;  // CI's time
      out.push_back({pes, Routing::kRandom, 1});
      out.push_back({pes, Routing::kSkewed, 2});
      out.push_back({pes, Routing::kSparse, 4});
    }
  return out;
}

INSTANTIATE_TEST_SUITE_P(Pes, EpTest, ::testing::ValuesIn(cases()), case_name);

// all_to_all_v against the rows each PE must get: random splits (zeros among them), row values
// naming their source, destination and index.
class AllToAllVTest : public ::testing::TestWithParam<PeConfig> {};

TEST_P(AllToAllVTest, RowsLandInRankOrder) {
  const std::uint64_t seed = symmetra::testing::run_seed();
  run_pes(GetParam(), [&](Runtime& rt) {
    const int me = rt.my_pe(), n = rt.n_pes();
    constexpr int kWidth = 3;
    auto split = [&](int s, int d, int round) {
      std::mt19937_64 g(seed + static_cast<std::uint64_t>(round * 10007 + s * 101 + d));
      return static_cast<std::int64_t>(g() % 4 == 0 ? 0 : g() % 6);
    };
    auto value = [](int s, int d, std::int64_t j, int w) {
      return static_cast<std::int32_t>(((s * 64 + d) * 64 + j) * kWidth + w);
    };
    constexpr std::int64_t kOutRows = 48;  // 8 PEs x 5 rows at most
    auto* out = rt.allocate_array<std::int32_t>(kOutRows * kWidth);
    symmetra::ep::AllToAllV a2a(rt, rt.team_world());
    for (int round = 0; round < 2; ++round) {
      std::vector<std::int64_t> splits(n);
      std::vector<std::int32_t> in;
      for (int d = 0; d < n; ++d) {
        splits[d] = split(me, d, round);
        for (std::int64_t j = 0; j < splits[d]; ++j)
          for (int w = 0; w < kWidth; ++w) in.push_back(value(me, d, j, w));
      }
      std::vector<std::int64_t> so(2 * n, -1);
      a2a(in.data(), static_cast<std::int64_t>(in.size() / kWidth), splits.data(), out, kOutRows,
          so.data(), kWidth * sizeof(std::int32_t));
      std::int64_t at = 0;
      for (int s = 0; s < n; ++s) {
        ASSERT_EQ(so[s], split(s, me, round)) << "from rank " << s;
        ASSERT_EQ(so[n + s], at) << "from rank " << s;
        for (std::int64_t j = 0; j < so[s]; ++j)
          for (int w = 0; w < kWidth; ++w)
            ASSERT_EQ(out[(at + j) * kWidth + w], value(s, me, j, w))
                << "from rank " << s << " row " << j;
        at += so[s];
      }
      rt.barrier_all();  // every PE has read its out before the next round writes it
    }
    rt.free(out);
  });
}

INSTANTIATE_TEST_SUITE_P(Pes, AllToAllVTest,
                         ::testing::ValuesIn(symmetra::testing::standard_configs()),
                         symmetra::testing::PeConfigName());

TEST(EpErrors, AllToAllVWrongInputIsAnErrorOnEveryPe) {
  run_pes({3, symmetra::testing::Mode::kThreads}, [&](Runtime& rt) {
    const int me = rt.my_pe();
    auto* out = rt.allocate_array<std::int64_t>(4);
    std::vector<std::int64_t> in(4, me), so(6);
    symmetra::ep::AllToAllV a2a(rt, rt.team_world());
    auto expect_error = [&](std::vector<std::int64_t> splits, std::int64_t out_rows,
                            const std::string& what) {
      try {
        a2a(in.data(), 4, splits.data(), out, out_rows, so.data(), sizeof(std::int64_t));
        ADD_FAILURE() << "no error; expected one saying: " << what;
      } catch (const symmetra::Error& e) {
        EXPECT_NE(std::string(e.what()).find(what), std::string::npos) << e.what();
      }
    };
    expect_error({1, me == 2 ? -1 : 1, 1}, 4, "team rank 2 (pe 2) passed in_splits[1] = -1");
    expect_error({me == 0 ? 3 : 1, 1, 1}, 4, "team rank 0 (pe 0)'s in_splits sum to 5 rows");
    expect_error({2, 1, 1}, 4, "team rank 0 would receive 6 rows into an out of 4");
    std::vector<std::int64_t> local(4);
    try {
      std::vector<std::int64_t> splits = {1, 1, 1};
      a2a(in.data(), 4, splits.data(), me == 1 ? local.data() : out, 4, so.data(), 8);
      ADD_FAILURE() << "no error";
    } catch (const symmetra::Error& e) {
      EXPECT_NE(std::string(e.what()).find("team rank 1 (pe 1) passed an `out` that is not in "
                                           "the symmetric heap"),
                std::string::npos)
          << e.what();
    }
    rt.free(out);
  });
}

// Wrong input on one PE is an Error on every PE, naming that PE and the value, before any data
// moved; the dispatcher stays usable.
TEST(EpErrors, WrongInputIsAnErrorOnEveryPe) {
  run_pes({3, symmetra::testing::Mode::kThreads}, [&](Runtime& rt) {
    const int me = rt.my_pe();
    Config c;
    c.max_tokens = 4;
    c.hidden = 8;
    c.type = DataType::kFloat;
    c.num_experts = 6;
    c.top_k = 2;
    Dispatcher ep(rt, rt.team_world(), c);
    std::vector<float> x(4 * 8, 1.0f), w(4 * 2, 1.0f);
    std::vector<std::int64_t> idx = {0, 1, 2, 3, 4, 5, 0, -1};
    auto expect_error = [&](auto call, const std::string& what) {
      try {
        call();
        ADD_FAILURE() << "no error; expected one saying: " << what;
      } catch (const symmetra::Error& e) {
        EXPECT_NE(std::string(e.what()).find(what), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find("[pe " + std::to_string(me) + "]"), std::string::npos)
            << e.what();
      }
    };
    auto bad = idx;
    if (me == 1) bad[3] = 6;  // out of range
    expect_error([&] { ep.dispatch(x.data(), c.type, bad.data(), w.data(), 4); },
                 "team rank 1 (pe 1): topk_idx[1][1] = 6 is not an expert in [0, 6)");
    bad = idx;
    if (me == 2) bad[5] = 4;  // expert 4 twice in token 2
    expect_error([&] { ep.dispatch(x.data(), c.type, bad.data(), w.data(), 4); },
                 "token 2 names expert 4 twice");
    expect_error([&] { ep.dispatch(x.data(), c.type, idx.data(), w.data(), me == 0 ? 5 : 4); },
                 "team rank 0 (pe 0) passed num_tokens 5; the dispatcher was made for 0 to 4");
    expect_error(
        [&] { ep.dispatch(x.data(), me == 2 ? DataType::kHalf : c.type, idx.data(), w.data(), 4); },
        "passed tokens of type float16; the dispatcher moves float32");
    // Still usable: good calls, and a combine (each expert returns its tokens unchanged).
    const Received r0 = ep.dispatch(x.data(), c.type, idx.data(), w.data(), 4);
    const Received r = ep.dispatch(x.data(), c.type, idx.data(), w.data(), 4);
    expect_error(
        [&] { ep.combine(r.x, c.type, me == 1 ? r0.handle : r.handle, x.data()); },
        "team rank 1 (pe 1) passed the handle of dispatch 1, and team rank 0 that of dispatch 2");
    expect_error([&] { ep.redispatch(x.data(), c.type, me == 2 ? nullptr : r.handle); },
                 "team rank 2 (pe 2) passed no handle");
    expect_error([&] { ep.combine(r.x, me == 0 ? DataType::kDouble : c.type, r.handle, x.data()); },
                 "team rank 0 (pe 0) passed rows of type float64; the dispatcher moves float32");
    std::vector<float> out(4 * 8);
    ep.combine(r.x, c.type, r.handle, out.data());
    for (int t = 0; t < 4; ++t)
      EXPECT_EQ(out[t * 8], t == 3 ? 1.0f : 2.0f) << "token " << t;  // token 3 has one expert
  });
}

TEST(EpErrors, TooManyReceivedTokensIsAnErrorOnEveryPe) {
  run_pes({2, symmetra::testing::Mode::kThreads}, [&](Runtime& rt) {
    Config c;
    c.max_tokens = 4;
    c.hidden = 2;
    c.type = DataType::kInt32;
    c.num_experts = 2;
    c.top_k = 1;
    c.max_recv_tokens = 5;  // both PEs send all 4 tokens to expert 0: 8 for team rank 0
    Dispatcher ep(rt, rt.team_world(), c);
    std::vector<std::int32_t> x(8, 7);
    std::vector<std::int64_t> idx(4, 0);
    std::vector<float> w(4, 1.0f);
    try {
      ep.dispatch(x.data(), c.type, idx.data(), w.data(), 4);
      ADD_FAILURE() << "no error";
    } catch (const symmetra::Error& e) {
      EXPECT_NE(std::string(e.what()).find("team rank 0 would receive 8 tokens"), std::string::npos)
          << e.what();
    }
  });
}

TEST(EpErrors, ABadConfigIsAnErrorOnEveryPe) {
  run_pes({2, symmetra::testing::Mode::kThreads}, [&](Runtime& rt) {
    Config c;
    c.max_tokens = 4;
    c.hidden = 2;
    c.type = DataType::kFloat;
    c.num_experts = rt.my_pe() == 0 ? 3 : 4;  // 3 does not split over 2 PEs
    c.top_k = 1;
    try {
      Dispatcher ep(rt, rt.team_world(), c);
      ADD_FAILURE() << "no error";
    } catch (const symmetra::Error& e) {
      const std::string want = rt.my_pe() == 0 ? "num_experts 3 is not a positive multiple"
                                               : "a member of the dispatcher's team refused";
      EXPECT_NE(std::string(e.what()).find(want), std::string::npos) << e.what();
    }
  });
}

}  // namespace
