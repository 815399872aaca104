// Team collectives on 1, 2, 3, 4, 5 and 8 PEs, as threads and as processes, on the world team
// and on a strided subset: fresh random data on every call, every element checked against an
// independent reference (exact for integers, float64 for floating point), and many back-to-back
// calls on the same buffers to catch stale data.
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <cstring>
#include <functional>
#include <thread>
#include <vector>

#include "support/coll_reference.hpp"
#include "support/pe_runner.hpp"
#include "symmetra/collectives.hpp"

namespace symmetra::testing {
namespace {

using coll::ReduceOp;

class CollTest : public ::testing::TestWithParam<PeConfig> {};

TEST_P(CollTest, BroadcastFromEveryRootBackToBack) {
  run_pes(GetParam(), [](Runtime& rt) {
    constexpr std::size_t kN = 333;
    auto* src = rt.allocate_array<std::int64_t>(kN);
    auto* dst = rt.allocate_array<std::int64_t>(kN);
    for_each_team(rt, [&](const Team& t) {
      for (std::uint64_t call = 0; call < 200; ++call) {
        const int root = static_cast<int>(call % t.n_pes());
        for (std::size_t i = 0; i < kN; ++i)
          src[i] = static_cast<std::int64_t>(mix(call, t.my_pe(), i));
        for (std::size_t i = 0; i < kN; ++i) dst[i] = -1;  // poison
        rt.broadcast(t, dst, src, kN, root);
        for (std::size_t i = 0; i < kN; ++i)
          SYMMETRA_ASSERT_EQ(dst[i], static_cast<std::int64_t>(mix(call, root, i)))
              << "call " << call << " i " << i;
      }
    });
  });
}

TEST_P(CollTest, FcollectPushPullRingAndCollect) {
  run_pes(GetParam(), [](Runtime& rt) {
    constexpr std::size_t kN = 129;
    const std::size_t n = static_cast<std::size_t>(rt.n_pes());
    auto* src = rt.allocate_array<std::uint32_t>(kN);
    auto* dst = rt.allocate_array<std::uint32_t>(kN * n);
    for_each_team(rt, [&](const Team& t) {
      const int m = t.n_pes();
      for (std::uint64_t call = 0; call < 300; ++call) {
        // collect: member r contributes 1 + (r + call) % kN elements
        const bool varied = call % 4 == 2;
        const std::size_t mine = varied ? 1 + (t.my_pe() + call) % kN : kN;
        for (std::size_t i = 0; i < kN; ++i)
          src[i] = static_cast<std::uint32_t>(mix(call, t.my_pe(), i));
        for (std::size_t i = 0; i < kN * n; ++i) dst[i] = 0xDEADBEEF;
        if (call % 4 == 0) rt.fcollect(t, dst, src, kN);
        if (call % 4 == 1) rt.fcollect_read(t, dst, src, kN);
        if (call % 4 == 2) rt.collect(t, dst, src, mine);
        if (call % 4 == 3) rt.fcollect_ring(t, dst, src, kN);
        std::size_t at = 0;
        for (int r = 0; r < m; ++r) {
          const std::size_t len = varied ? 1 + (r + call) % kN : kN;
          for (std::size_t i = 0; i < len; ++i, ++at)
            SYMMETRA_ASSERT_EQ(dst[at], static_cast<std::uint32_t>(mix(call, r, i)))
                << "call " << call << " member " << r;
        }
        SYMMETRA_ASSERT_EQ(dst[at < kN * n ? at : 0],
                           at < kN * n ? 0xDEADBEEFu : dst[0]);  // nothing past the end
      }
    });
  });
}

TEST_P(CollTest, AlltoallAndStrided) {
  run_pes(GetParam(), [](Runtime& rt) {
    constexpr std::size_t kN = 37;
    const std::size_t n = static_cast<std::size_t>(rt.n_pes());
    auto* src = rt.allocate_array<double>(kN * n * 2);
    auto* dst = rt.allocate_array<double>(kN * n * 3);
    for_each_team(rt, [&](const Team& t) {
      const int m = t.n_pes(), me = t.my_pe();
      for (std::uint64_t call = 0; call < 100; ++call) {
        // element i of the block for member k, from member r
        auto v = [&](int r, int k, std::size_t i) {
          return static_cast<double>(mix(call, r, k * kN + i) % 1000003) * 0.25;
        };
        for (int k = 0; k < m; ++k)
          for (std::size_t i = 0; i < kN; ++i) src[k * kN + i] = v(me, k, i);
        for (std::size_t i = 0; i < kN * n * 3; ++i) dst[i] = -1;
        rt.alltoall(t, dst, src, kN);
        for (int r = 0; r < m; ++r)
          for (std::size_t i = 0; i < kN; ++i)
            SYMMETRA_ASSERT_EQ(dst[r * kN + i], v(r, me, i)) << "alltoall from " << r;
        // strided: source stride 2, dest stride 3
        for (int k = 0; k < m; ++k)
          for (std::size_t i = 0; i < kN; ++i) src[2 * (k * kN + i)] = v(me, k, i) + 0.5;
        for (std::size_t i = 0; i < kN * n * 3; ++i) dst[i] = -1;
        rt.alltoalls(t, dst, src, 3, 2, kN);
        for (int r = 0; r < m; ++r)
          for (std::size_t i = 0; i < kN; ++i) {
            SYMMETRA_ASSERT_EQ(dst[3 * (r * kN + i)], v(r, me, i) + 0.5) << "alltoalls from " << r;
            SYMMETRA_ASSERT_EQ(dst[3 * (r * kN + i) + 1], -1.0);
          }
      }
    });
  });
}

// Every member but one returns from each call at once and makes the next; the slow one (a
// different member each call) sleeps before it checks its dest. A collective that wrote into a
// member's dest before that member entered the call (coll/credit.hpp) would overwrite the slow
// member's result with the next call's data.
TEST_P(CollTest, NoMemberWrittenBeforeItEnters) {
  run_pes(GetParam(), [](Runtime& rt) {
    constexpr std::size_t kN = 64;
    const std::size_t n = static_cast<std::size_t>(rt.n_pes());
    auto* src = rt.allocate_array<std::uint64_t>(kN * n);
    auto* dst = rt.allocate_array<std::uint64_t>(kN * n);
    for_each_team(rt, [&](const Team& t) {
      const int m = t.n_pes(), me = t.my_pe();
      for (std::uint64_t call = 0; call < 24; ++call) {
        const int kind = static_cast<int>(call % 4), slow = static_cast<int>((call / 4) % m);
        auto v = [&](int from, std::size_t i) { return mix(call, from, i, 7); };
        for (std::size_t i = 0; i < kN * n; ++i) src[i] = v(me, i);
        const int root = (slow + 1) % m;  // broadcast: the slow member is not the root
        if (kind == 0) rt.broadcast(t, dst, src, kN, root);
        if (kind == 1) rt.fcollect(t, dst, src, kN);
        if (kind == 2) rt.alltoall(t, dst, src, kN);
        if (kind == 3) rt.alltoalls(t, dst, src, 1, 1, kN);
        if (me == slow) std::this_thread::sleep_for(std::chrono::milliseconds(2));
        for (int r = 0; r < (kind == 0 ? 1 : m); ++r)
          for (std::size_t i = 0; i < kN; ++i) {
            const std::uint64_t want = kind == 0   ? v(root, i)
                                       : kind == 1 ? v(r, i)
                                                   : v(r, me * kN + i);
            SYMMETRA_ASSERT_EQ(dst[r * kN + i], want)
                << "kind " << kind << " call " << call << " block " << r << " i " << i;
          }
      }
      rt.barrier(t);
    });
  });
}

// RuntimeOptions::dest_ready_by_program (OpenSHMEM's rule; coll/credit.hpp): the program readies
// every dest, so calls skip the credit hop and members run ahead into later calls, whose signals
// a receiver may count before the last of the current call's. Calls go to four dests in turn
// with a barrier after every fourth (so each dest is ready when reused); a slow member (a
// different one every few calls) enters late; calls with credits (fcollect, fcollect_ring,
// permute) are mixed in, whose counts the uncredited calls' signals must never reach.
TEST_P(CollTest, DestReadyByProgramSkipsCredits) {
  RuntimeOptions options;
  options.dest_ready_by_program = true;
  run_pes(GetParam(), options, [](Runtime& rt) {
    constexpr std::size_t kN = 48;
    constexpr int kDests = 4;
    const std::size_t n = static_cast<std::size_t>(rt.n_pes());
    auto* src = rt.allocate_array<std::uint64_t>(kN * n);
    std::uint64_t* dst[kDests];
    for (auto& d : dst) d = rt.allocate_array<std::uint64_t>(kN * n);
    for_each_team(rt, [&](const Team& t) {
      const int m = t.n_pes(), me = t.my_pe();
      // The value of element i of the block member `from` sends to member `to` in call `call`.
      auto v = [](std::uint64_t call, int from, int to, std::size_t i) {
        return mix(call, from, to * 1000 + i, 11);
      };
      for (std::uint64_t call = 0; call < 120; ++call) {
        const int kind = static_cast<int>(call % 6), slow = static_cast<int>((call / 5) % m);
        const int root = static_cast<int>((call / 2) % m);
        std::uint64_t* d = dst[call % kDests];
        for (int to = 0; to < m; ++to)
          for (std::size_t i = 0; i < kN; ++i)
            src[to * kN + i] = v(call, me, kind == 0 || kind == 1 || kind == 4 ? 0 : to, i);
        if (me == slow && call % 3 == 0)
          std::this_thread::sleep_for(std::chrono::microseconds(500));
        const int next = (me + 1) % m, prev = (me + m - 1) % m;
        switch (kind) {
          case 0:
            rt.broadcast(t, d, src, kN, root);
            break;
          case 1:
            rt.fcollect(t, d, src, kN);
            break;
          case 2:
            rt.alltoall(t, d, src, kN);
            break;
          case 3:
            rt.alltoalls(t, d, src, 1, 1, kN);
            break;
          case 4:
            rt.fcollect_ring(t, d, src, kN);
            break;
          case 5:
            rt.permute(t, d, src + next * kN, kN, next, prev, 16);
            break;
        }
        auto want = [&](int block, std::size_t i) -> std::uint64_t {
          switch (kind) {
            case 0:
              return v(call, root, 0, i);
            case 1:
            case 4:
              return v(call, block, 0, i);
            case 5:
              return v(call, prev, me, i);
            default:
              return v(call, block, me, i);
          }
        };
        const int blocks = kind == 0 || kind == 5 ? 1 : m;
        for (int b = 0; b < blocks; ++b)
          for (std::size_t i = 0; i < kN; ++i)
            SYMMETRA_ASSERT_EQ(d[b * kN + i], want(b, i))
                << "kind " << kind << " call " << call << " block " << b << " i " << i;
        if (call % kDests == kDests - 1) rt.barrier(t);
      }
      rt.barrier(t);
    });
  });
}

// --- reductions -------------------------------------------------------------------------------

template <class T>
void check_reductions(Runtime& rt, const Team& t, T* src, T* dst, std::size_t kN,
                      std::uint64_t calls) {
  const int m = t.n_pes(), me = t.my_pe();
  std::vector<ReduceOp> ops = {ReduceOp::kSum, ReduceOp::kProd, ReduceOp::kMin, ReduceOp::kMax};
  if constexpr (std::is_integral_v<T>)
    ops.insert(ops.end(), {ReduceOp::kAnd, ReduceOp::kOr, ReduceOp::kXor});
  for (std::uint64_t call = 0; call < calls; ++call) {
    const ReduceOp op = ops[call % ops.size()];
    // Five forms in turn (five is prime to both op counts, so each op meets each form): the
    // reduce and the reduce-scatter, each into dst and in place.
    const std::uint64_t form = call % 5;
    const bool scatter = form == 1 || form == 3, in_place = form == 2 || form == 3;
    const std::size_t total = scatter ? kN * static_cast<std::size_t>(m) : kN;
    for (std::size_t i = 0; i < total; ++i) src[i] = make<T>(mix(call, me, i, sizeof(T)), op);
    T* out = in_place ? src : dst;
    if (!in_place)
      for (std::size_t i = 0; i < kN; ++i) std::memset(&dst[i], 0xFF, sizeof(T));
    if (scatter) {
      rt.reduce_scatter(t, out, src, kN, op);
    } else {
      rt.reduce(t, out, src, kN, op);
    }
    std::vector<T> vals(static_cast<std::size_t>(m));
    for (std::size_t i = 0; i < kN; ++i) {
      const std::size_t at = scatter ? static_cast<std::size_t>(me) * kN + i : i;
      for (int r = 0; r < m; ++r) vals[r] = make<T>(mix(call, r, at, sizeof(T)), op);
      std::uint64_t exact = 0;
      const double ref = reference(op, vals, &exact);
      if constexpr (std::is_integral_v<T>) {
        SYMMETRA_ASSERT_EQ(out[i], static_cast<T>(exact))
            << "op " << static_cast<int>(op) << " call " << call << " i " << i;
      } else {
        SYMMETRA_ASSERT_NEAR(as_double(out[i]), ref, tolerance<T>(ref, m))
            << "op " << static_cast<int>(op) << " call " << call << " i " << i;
      }
    }
    rt.barrier(
        t);  // in place: nobody rewrites src before every member checked (it reads only its own)
  }
}

template <class T>
void reductions_for(Runtime& rt) {
  constexpr std::size_t kN = 61;
  const std::size_t n = static_cast<std::size_t>(rt.n_pes());
  auto* src = rt.allocate_array<T>(kN * n);
  auto* dst = rt.allocate_array<T>(kN);
  for_each_team(rt, [&](const Team& t) { check_reductions<T>(rt, t, src, dst, kN, 42); });
  rt.free(dst);
  rt.free(src);
}

TEST_P(CollTest, ReductionsEveryOpAndType) {
  run_pes(GetParam(), [](Runtime& rt) {
    reductions_for<std::int32_t>(rt);
    reductions_for<std::uint64_t>(rt);
    reductions_for<std::int8_t>(rt);
    reductions_for<short>(rt);
    reductions_for<long long>(rt);
    reductions_for<float>(rt);
    reductions_for<double>(rt);
    reductions_for<half>(rt);
    reductions_for<bfloat16>(rt);
  });
}

TEST_P(CollTest, ReduceThousandBackToBackCalls) {
  run_pes(GetParam(), [](Runtime& rt) {
    auto* src = rt.allocate_array<std::int64_t>(4);
    auto* dst = rt.allocate_array<std::int64_t>(4);
    const int n = rt.n_pes(), me = rt.my_pe();
    for (std::uint64_t call = 0; call < 1000; ++call) {
      for (int i = 0; i < 4; ++i) src[i] = static_cast<std::int64_t>(mix(call, me, i) % 1000);
      rt.reduce(rt.team_world(), dst, src, 4, ReduceOp::kSum);
      for (int i = 0; i < 4; ++i) {
        std::int64_t want = 0;
        for (int r = 0; r < n; ++r) want += static_cast<std::int64_t>(mix(call, r, i) % 1000);
        SYMMETRA_ASSERT_EQ(dst[i], want) << "call " << call;
      }
    }
  });
}

// The collectives as values (coll::Call through Runtime::collective), as bindings call them:
// an all-reduce with the selector's pick, an in-place reduce-scatter (into a temporary on the
// CPU), and a team handle that is not a team of this PE, which must throw naming the call.
TEST_P(CollTest, CallsAsValues) {
  run_pes(GetParam(), [](Runtime& rt) {
    constexpr std::size_t kN = 1000;
    const int n = rt.n_pes(), me = rt.my_pe();
    const std::uint64_t salt = run_seed();
    auto* src = rt.allocate_array<std::int32_t>(kN * static_cast<std::size_t>(n));
    auto* dst = rt.allocate_array<std::int32_t>(kN);
    for (std::uint64_t call = 0; call < 20; ++call) {
      for (std::size_t i = 0; i < kN * n; ++i)
        src[i] = static_cast<std::int32_t>(mix(call, me, i, salt) % 100000);
      for (std::size_t i = 0; i < kN; ++i) dst[i] = -1;  // poison
      auto c = coll::make_call(coll::Kind::kAllreduce, device::kTeamWorld, dst, src, kN);
      c.op = ReduceOp::kMax;
      rt.collective(c);
      for (std::size_t i = 0; i < kN; ++i) {
        std::int32_t want = 0;
        for (int r = 0; r < n; ++r)
          want = std::max(want, static_cast<std::int32_t>(mix(call, r, i, salt) % 100000));
        SYMMETRA_ASSERT_EQ(dst[i], want) << "all-reduce call " << call << " i " << i;
      }
      rt.barrier_all();
      // In place: member r's result, block r of the sum, lands at the start of src.
      auto rs = coll::make_call(coll::Kind::kReduceScatter, device::kTeamWorld, src, src, kN);
      if (!rt.on_gpu()) {
        rt.collective(rs);
        for (std::size_t i = 0; i < kN; ++i) {
          std::int64_t want = 0;
          for (int r = 0; r < n; ++r)
            want += static_cast<std::int64_t>(mix(call, r, me * kN + i, salt) % 100000);
          SYMMETRA_ASSERT_EQ(src[i], static_cast<std::int32_t>(want))
              << "reduce_scatter call " << call;
        }
      }
      rt.barrier_all();
    }
    auto bad = coll::make_call(coll::Kind::kBroadcast, 17, dst, src, kN);
    try {
      rt.collective(bad);
      ADD_FAILURE() << "a call on a team this PE is not in returned";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("broadcast: team handle 17"), std::string::npos)
          << e.what();
    }
  });
}

// --- permute --------------------------------------------------------------------------------

TEST_P(CollTest, PermuteRingShiftChunksBackToBack) {
  run_pes(GetParam(), [](Runtime& rt) {
    constexpr std::size_t kN = 1000, kChunk = 96;
    auto* src = rt.allocate_array<std::uint64_t>(kN);
    auto* dst = rt.allocate_array<std::uint64_t>(kN);
    for_each_team(rt, [&](const Team& t) {
      const int m = t.n_pes(), me = t.my_pe();
      const int to = (me + 1) % m, from = (me + m - 1) % m;
      for (std::uint64_t call = 0; call < 1000; ++call) {
        const std::size_t len = call % 2 ? kN : 1 + call % kN;  // sizes vary between calls
        for (std::size_t i = 0; i < len; ++i) src[i] = mix(call, me, i);
        std::size_t seen_chunks = 0, bad = 0;
        rt.permute(t, dst, src, len, to, from, kChunk,
                   [&](std::size_t c, const std::uint64_t* p, std::size_t count) {
                     bad += c != seen_chunks++;  // chunks arrive in order
                     for (std::size_t i = 0; i < count; ++i)
                       bad += p[i] != mix(call, from, c * kChunk + i);
                   });
        SYMMETRA_ASSERT_EQ(bad, 0u) << "call " << call;
        SYMMETRA_ASSERT_EQ(seen_chunks, (len + kChunk - 1) / kChunk);
      }
    });
  });
}

// The pairs change on every call (shift by 1, 2, ...): a sender must wait for its receiver of
// this call, not for whichever member last granted it a credit.
TEST_P(CollTest, PermuteChangingPairsBackToBack) {
  run_pes(GetParam(), [](Runtime& rt) {
    constexpr std::size_t kN = 257;
    auto* src = rt.allocate_array<std::uint32_t>(kN);
    auto* dst = rt.allocate_array<std::uint32_t>(kN);
    const int m = rt.n_pes(), me = rt.my_pe();
    for (std::uint64_t call = 0; call < 500; ++call) {
      const int shift = 1 + static_cast<int>(call % static_cast<std::uint64_t>(m > 1 ? m - 1 : 1));
      const int to = (me + shift) % m, from = (me + m - shift) % m;
      for (std::size_t i = 0; i < kN; ++i) src[i] = static_cast<std::uint32_t>(mix(call, me, i));
      std::size_t bad = 0;
      rt.permute(rt.team_world(), dst, src, kN, to, from, 100,
                 [&](std::size_t c, const std::uint32_t* p, std::size_t count) {
                   for (std::size_t i = 0; i < count; ++i)
                     bad += p[i] != static_cast<std::uint32_t>(mix(call, from, c * 100 + i));
                 });
      SYMMETRA_ASSERT_EQ(bad, 0u) << "call " << call << " shift " << shift;
      for (std::size_t i = 0; i < kN; ++i)
        SYMMETRA_ASSERT_EQ(dst[i], static_cast<std::uint32_t>(mix(call, from, i)))
            << "call " << call;
    }
  });
}

// Only some members send: pairs 0 -> last and last -> 0; the others pass -1 and receive nothing.
TEST_P(CollTest, PermutePartialPairs) {
  run_pes(GetParam(), [](Runtime& rt) {
    constexpr std::size_t kN = 300;
    auto* src = rt.allocate_array<std::int32_t>(kN);
    auto* dst = rt.allocate_array<std::int32_t>(kN);
    const int n = rt.n_pes(), me = rt.my_pe(), last = n - 1;
    for (std::uint64_t call = 0; call < 100; ++call) {
      for (std::size_t i = 0; i < kN; ++i) src[i] = static_cast<std::int32_t>(mix(call, me, i));
      for (std::size_t i = 0; i < kN; ++i) dst[i] = -7;
      const int to = me == 0 ? last : me == last ? 0 : -1;
      const int from = to;
      rt.permute(rt.team_world(), dst, src, kN, to, from, 64);
      for (std::size_t i = 0; i < kN; ++i)
        SYMMETRA_ASSERT_EQ(dst[i], from < 0 ? -7 : static_cast<std::int32_t>(mix(call, from, i)))
            << "call " << call;
      rt.barrier_all();  // dst is reset above: keep calls apart for the untouched PEs' check
    }
  });
}

INSTANTIATE_TEST_SUITE_P(Pes, CollTest, ::testing::ValuesIn(collective_configs()), PeConfigName());

}  // namespace
}  // namespace symmetra::testing
