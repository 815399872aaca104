// Randomized model-based test: thousands of random put / get / p / g / iput / iget / atomic /
// signal operations across PEs, checked against a sequential model of every PE's memory at
// every barrier, and every fetched or read value checked when it returns.
//
// Every PE generates the operation streams of all PEs from the run seed, executes its own and
// applies all of them to the model. Concurrent operations in one epoch never conflict in ways
// the model cannot predict: writes of data go to the writer's own slice of the epoch's half,
// reads come from the other half (stable), shared counters take only commutative updates, and
// each PE's "owned" words on every PE are touched only by that PE, so their fetch results are
// exact.
#include <gtest/gtest.h>

#include <vector>

#include "support/pe_runner.hpp"

namespace symmetra::testing {
namespace {

constexpr int kSlice = 48;    // data words per writer per half
constexpr int kCounters = 8;  // add-only and xor-only words
constexpr int kOwned = 4;     // words per owner
constexpr int kEpochs = 30;
constexpr int kOpsPerEpoch = 40;

struct Layout {
  int n;
  int data(int half, int slice, int j) const { return (half * n + slice) * kSlice + j; }
  int add_counter(int c) const { return 2 * n * kSlice + c; }
  int xor_counter(int c) const { return 2 * n * kSlice + kCounters + c; }
  int owned(int owner, int k) const { return 2 * n * kSlice + 2 * kCounters + owner * kOwned + k; }
  int sig_add() const { return 2 * n * kSlice + 2 * kCounters + n * kOwned; }
  int sig_owned(int owner) const { return sig_add() + 1 + owner; }
  int words() const { return sig_owned(n); }
};

enum class Kind {
  kPut,
  kP,
  kIput,
  kGet,
  kG,
  kIget,
  kAdd,
  kXor,
  kOwnedAmo,
  kPutSignalAdd,
  kPutSignalSet,
  kQuiet,
  kCount
};
enum class OwnedOp {
  kSwap,
  kCswap,
  kSet,
  kFetch,
  kFetchInc,
  kFetchAdd,
  kFetchAnd,
  kFetchOr,
  kFetchXor,
  kAnd,
  kOr,
  kXor,
  kInc,
  kCount
};

struct Op {
  Kind kind;
  int pe;     // target
  int half;   // for reads: the stable half
  int slice;  // for reads: whose slice
  int offset;
  int len;
  int stride;
  int counter;
  OwnedOp owned_op;
  std::uint64_t values[kSlice];
  std::uint64_t value, cond;
};

Op generate(std::mt19937_64& rng, int n, int epoch) {
  Op op{};
  op.kind = static_cast<Kind>(rng() % static_cast<int>(Kind::kCount));
  op.pe = static_cast<int>(rng() % n);
  op.half = 1 - epoch % 2;
  op.slice = static_cast<int>(rng() % n);
  op.len = 1 + static_cast<int>(rng() % kSlice);
  op.offset = static_cast<int>(rng() % (kSlice - op.len + 1));
  op.stride = 1 + static_cast<int>(rng() % 3);
  op.counter = static_cast<int>(rng() % kCounters);
  op.owned_op = static_cast<OwnedOp>(rng() % static_cast<int>(OwnedOp::kCount));
  for (auto& v : op.values) v = rng() | 1;
  op.value = rng() | 1;
  op.cond = rng() % 2;  // cswap: 0 means "use the current value", so it sometimes succeeds
  return op;
}

class ModelTest : public ::testing::TestWithParam<PeConfig> {};

TEST_P(ModelTest, RandomOperationsMatchSequentialModel) {
  run_pes(GetParam(), [](Runtime& rt) {
    const int me = rt.my_pe(), n = rt.n_pes();
    const Layout L{n};
    auto* mem = rt.allocate_array<std::uint64_t>(L.words());
    std::vector<std::vector<std::uint64_t>> model(n, std::vector<std::uint64_t>(L.words()));
    for (int p = 0; p < n; ++p)
      for (int w = 0; w < L.words(); ++w)
        model[p][w] = (static_cast<std::uint64_t>(p) << 48) + w * 3 + 1;
    // Through the host API on this PE, so the same test runs on either backend.
    rt.put(mem, model[me].data(), L.words(), me);
    rt.barrier_all();
    std::vector<std::uint64_t> image(L.words());  // this PE's memory, read back each epoch
    std::vector<std::mt19937_64> streams;
    for (int p = 0; p < n; ++p)
      streams.emplace_back(run_seed() * 31 + static_cast<std::uint64_t>(p));
    std::uint64_t ops_done = 0;
    for (int epoch = 0; epoch < kEpochs; ++epoch) {
      const int wh = epoch % 2;  // the half written this epoch
      for (int p = 0; p < n; ++p) {
        for (int k = 0; k < kOpsPerEpoch; ++k) {
          Op op = generate(streams[p], n, epoch);
          auto& tm = model[op.pe];
          const bool mine = p == me;
          ops_done += mine;
          switch (op.kind) {
            case Kind::kPut:
              for (int j = 0; j < op.len; ++j) tm[L.data(wh, p, op.offset + j)] = op.values[j];
              if (mine) {
                rt.put(&mem[L.data(wh, p, op.offset)], op.values, op.len, op.pe);
                rt.fence();
              }
              break;
            case Kind::kP:
              tm[L.data(wh, p, op.offset)] = op.value;
              if (mine) {
                rt.p(&mem[L.data(wh, p, op.offset)], op.value, op.pe);
                rt.fence();
              }
              break;
            case Kind::kIput: {
              const int count = (kSlice - op.offset + op.stride - 1) / op.stride;
              for (int j = 0; j < count; ++j)
                tm[L.data(wh, p, op.offset + j * op.stride)] = op.values[j];
              if (mine) {
                rt.iput(&mem[L.data(wh, p, op.offset)], op.values, op.stride, 1, count, op.pe);
                rt.fence();
              }
              break;
            }
            case Kind::kGet:
              if (mine) {
                std::uint64_t got[kSlice];
                rt.get(got, &mem[L.data(op.half, op.slice, op.offset)], op.len, op.pe);
                for (int j = 0; j < op.len; ++j)
                  ASSERT_EQ(got[j], tm[L.data(op.half, op.slice, op.offset + j)])
                      << "get, epoch " << epoch;
              }
              break;
            case Kind::kG:
              if (mine) {
                ASSERT_EQ(rt.g(&mem[L.data(op.half, op.slice, op.offset)], op.pe),
                          tm[L.data(op.half, op.slice, op.offset)])
                    << "g, epoch " << epoch;
              }
              break;
            case Kind::kIget:
              if (mine) {
                std::uint64_t got[2 * kSlice];
                const int count = (kSlice - op.offset + op.stride - 1) / op.stride;
                rt.iget(got, &mem[L.data(op.half, op.slice, op.offset)], 2, op.stride, count,
                        op.pe);
                for (int j = 0; j < count; ++j)
                  ASSERT_EQ(got[2 * j], tm[L.data(op.half, op.slice, op.offset + j * op.stride)])
                      << "iget";
              }
              break;
            case Kind::kAdd:
              tm[L.add_counter(op.counter)] += op.value;
              if (mine) {
                if (op.value % 4 == 1) {
                  rt.atomic_add(&mem[L.add_counter(op.counter)], op.value, op.pe);
                } else {
                  (void)rt.atomic_fetch_add(&mem[L.add_counter(op.counter)], op.value, op.pe);
                }
              }
              break;
            case Kind::kXor:
              tm[L.xor_counter(op.counter)] ^= op.value;
              if (mine) rt.atomic_xor(&mem[L.xor_counter(op.counter)], op.value, op.pe);
              break;
            case Kind::kOwnedAmo: {
              std::uint64_t& w = tm[L.owned(p, op.counter % kOwned)];
              std::uint64_t* addr = &mem[L.owned(p, op.counter % kOwned)];
              const std::uint64_t old = w, v = op.value;
              std::uint64_t got = old;
              switch (op.owned_op) {
                case OwnedOp::kSwap:
                  w = v;
                  if (mine) got = rt.atomic_swap(addr, v, op.pe);
                  break;
                case OwnedOp::kCswap: {
                  const std::uint64_t cond = op.cond ? old : old + 1;
                  if (old == cond) w = v;
                  if (mine) got = rt.atomic_compare_swap(addr, cond, v, op.pe);
                  break;
                }
                case OwnedOp::kSet:
                  w = v;
                  if (mine) rt.atomic_set(addr, v, op.pe);
                  break;
                case OwnedOp::kFetch:
                  if (mine) got = rt.atomic_fetch(addr, op.pe);
                  break;
                case OwnedOp::kFetchInc:
                  w = old + 1;
                  if (mine) got = rt.atomic_fetch_inc(addr, op.pe);
                  break;
                case OwnedOp::kFetchAdd:
                  w = old + v;
                  if (mine) got = rt.atomic_fetch_add(addr, v, op.pe);
                  break;
                case OwnedOp::kFetchAnd:
                  w = old & v;
                  if (mine) got = rt.atomic_fetch_and(addr, v, op.pe);
                  break;
                case OwnedOp::kFetchOr:
                  w = old | v;
                  if (mine) got = rt.atomic_fetch_or(addr, v, op.pe);
                  break;
                case OwnedOp::kFetchXor:
                  w = old ^ v;
                  if (mine) got = rt.atomic_fetch_xor(addr, v, op.pe);
                  break;
                case OwnedOp::kAnd:
                  w = old & v;
                  if (mine) rt.atomic_and(addr, v, op.pe);
                  break;
                case OwnedOp::kOr:
                  w = old | v;
                  if (mine) rt.atomic_or(addr, v, op.pe);
                  break;
                case OwnedOp::kXor:
                  w = old ^ v;
                  if (mine) rt.atomic_xor(addr, v, op.pe);
                  break;
                case OwnedOp::kInc:
                  w = old + 1;
                  if (mine) rt.atomic_inc(addr, op.pe);
                  break;
                case OwnedOp::kCount:
                  break;
              }
              if (mine) {
                ASSERT_EQ(got, old)
                    << "owned atomic " << static_cast<int>(op.owned_op) << ", epoch " << epoch;
              }
              break;
            }
            case Kind::kPutSignalAdd:
              for (int j = 0; j < op.len; ++j) tm[L.data(wh, p, op.offset + j)] = op.values[j];
              tm[L.sig_add()] += op.value;
              if (mine) {
                rt.put_signal(&mem[L.data(wh, p, op.offset)], op.values, op.len, &mem[L.sig_add()],
                              op.value, SignalOp::kAdd, op.pe);
                rt.fence();
              }
              break;
            case Kind::kPutSignalSet:
              for (int j = 0; j < op.len; ++j) tm[L.data(wh, p, op.offset + j)] = op.values[j];
              tm[L.sig_owned(p)] = op.value;
              if (mine) {
                rt.put_signal_nbi(&mem[L.data(wh, p, op.offset)], op.values, op.len,
                                  &mem[L.sig_owned(p)], op.value, SignalOp::kSet, op.pe);
                rt.fence();
              }
              break;
            case Kind::kQuiet:
              if (mine) rt.quiet();
              break;
            case Kind::kCount:
              break;
          }
        }
      }
      rt.barrier_all();
      rt.get(image.data(), mem, L.words(), me);
      for (int w = 0; w < L.words(); ++w)
        ASSERT_EQ(image[w], model[me][w])
            << "word " << w << " after epoch " << epoch << " (seed " << run_seed() << ")";
      rt.barrier_all();  // nobody starts the next epoch's writes before everyone checked
    }
    EXPECT_EQ(ops_done, static_cast<std::uint64_t>(kEpochs) * kOpsPerEpoch);
    rt.free(mem);
  });
}

SYMMETRA_INSTANTIATE_PES(ModelTest);  // gpu_model_test: the GPU configurations

}  // namespace
}  // namespace symmetra::testing
