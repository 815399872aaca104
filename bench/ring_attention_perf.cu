// symmetra-ring-attention-perf: ring attention's GPU path (docs/ring_attention.md) on Llama 3
// 8B's attention (32 query heads, 8 KV heads, head_dim 128, bf16, causal), PEs as threads on
// the GPU, forward and forward+backward, side by side with:
// - ideal: the ring's own attention kernels and merges, with nothing exchanged
//   (RingAttentionOptions::compute_only), each PE alone on the GPU in turn, summed: the ring's
//   overhead is its excess over this;
// - one PE: cuDNN on the whole sequence (a ring over a team of one), the same FLOPs;
// - copies: the same ring with its exchange done by cudaMemcpyAsync and CUDA events instead of
//   put-with-signal (RingAttentionOptions::exchange_by_copies), a baseline free of Symmetra's
//   communication.
// PEs as threads share the one GPU, so the ring's time is all PEs' work; on one GPU per PE the
// ideal is the slowest PE's share instead.
//
// Every timed configuration but the ideal (which computes each step against the PE's own block
// by design) is checked on its first iteration of each shape and pass: outputs poisoned, then
// out, lse (and dq, dk, dv after a backward) against the tests' fp32 reference at sampled places
// (tests/kernels/attention_sample_check.cuh). A row whose check fails prints its errors and no
// time, and the program exits 1.
//
//   symmetra-ring-attention-perf [--quick]   (--quick: 2 PEs, 4K tokens per PE)
#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "attention_sample_check.cuh"
#include "cuda_check.cuh"
#include "perf_report.hpp"
#include "symmetra/kernels/ring_attention.hpp"
#include "symmetra/launch.hpp"
#include "symmetra/runtime.hpp"

namespace {

using symmetra::DataType;
using symmetra::Runtime;
using symmetra::Stream;
using symmetra::bench::now_us;
using symmetra::kernels::AttentionShape;
using symmetra::kernels::RingAttention;

namespace ac = symmetra::attention_check;

// q, k, v, dout, out, dq, dk, dv, lse of PE `rank` of `n` (n = 1: the whole sequence), the inputs
// made by the check's fill (a hash of seed and global position).
struct Tensors {
  std::vector<void*> all;
  __nv_bfloat16 *q, *k, *v, *dout, *out, *dq, *dk, *dv;
  float* lse;
  std::size_t nq, nk, nl;
  Tensors(const AttentionShape& s, int rank, int n, unsigned long long seed) {
    const std::int64_t tokens = s.seq_len / n;
    nq = static_cast<std::size_t>(s.batch) * tokens * s.q_heads * s.head_dim;
    nk = static_cast<std::size_t>(s.batch) * tokens * s.kv_heads * s.head_dim;
    nl = static_cast<std::size_t>(s.batch) * s.q_heads * tokens;
    __nv_bfloat16** bf[] = {&q, &k, &v, &dout, &out, &dq, &dk, &dv};
    const std::size_t sizes[] = {nq, nk, nk, nq, nq, nq, nk, nk};
    for (int i = 0; i < 8; ++i) {
      CK(cudaMalloc(bf[i], sizes[i] * 2));
      all.push_back(*bf[i]);
    }
    CK(cudaMalloc(&lse, nl * 4));
    all.push_back(lse);
    ac::fill(q, seed, ac::kQ, s, s.q_heads, rank, n, nullptr);
    ac::fill(k, seed, ac::kK, s, s.kv_heads, rank, n, nullptr);
    ac::fill(v, seed, ac::kV, s, s.kv_heads, rank, n, nullptr);
    ac::fill(dout, seed, ac::kDout, s, s.q_heads, rank, n, nullptr);
    CK(cudaDeviceSynchronize());
  }
  ~Tensors() {
    for (void* p : all) cudaFree(p);
  }
  void poison(cudaStream_t st) {
    ac::poison(out, nq, st);
    ac::poison(dq, nq, st);
    ac::poison(dk, nk, st);
    ac::poison(dv, nk, st);
    ac::poison(lse, nl, st);
  }
  // The check of the last pass's outputs (pass 1: the backward's too); prints what failed.
  bool check(const AttentionShape& s, int rank, int n, unsigned long long seed, int pass,
             const char* what) {
    ac::CheckOptions o;
    o.backward = pass == 1;
    o.sample_rows = 128;
    o.sample_keys = 64;
    const ac::Report r = ac::check(s, rank, n, seed, out, lse, dq, dk, dv, o, seed ^ (rank + 1));
    if (!r.ok())
      std::printf("WRONG RESULT (%s, pass %d): no time for this row\n%s", what, pass,
                  r.table(rank).c_str());
    return r.ok();
  }
};

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

struct Result {
  double ring[2], ideal[2], single[2], copies[2];  // ms; [0] forward, [1] forward+backward
  bool ok[2] = {true, true};  // every checked configuration of the pass was right
};

// Forward (pass 0) or forward+backward (pass 1) of `ring` with `t`, on `s`.
void run_pass(RingAttention& ring, Tensors& t, int pass, cudaStream_t s) {
  auto* st = reinterpret_cast<Stream>(s);
  ring.forward(t.q, t.k, t.v, t.out, t.lse, st);
  if (pass == 1) ring.backward(t.q, t.k, t.v, t.out, t.lse, t.dout, t.dq, t.dk, t.dv, st);
}

Result measure(int pes, std::int64_t tokens, int iters, unsigned long long seed) {
  AttentionShape shape;
  shape.batch = 1;
  shape.q_heads = 32;
  shape.kv_heads = 8;
  shape.head_dim = 128;
  shape.seq_len = pes * tokens;
  shape.causal = true;
  Result res{};
  const symmetra::RuntimeOptions options{symmetra::Backend::kCuda, -1};
  symmetra::launch_threads(pes, options, [&](Runtime& rt) {
    const int me = rt.my_pe();
    cudaStream_t s = nullptr;
    CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    {
      RingAttention ring(rt, rt.team_world(), shape, DataType::kBfloat16);
      symmetra::kernels::RingAttentionOptions compute_only;
      compute_only.compute_only = true;
      RingAttention ideal(rt, rt.team_world(), shape, DataType::kBfloat16, compute_only);
      symmetra::kernels::RingAttentionOptions by_copies;
      by_copies.exchange_by_copies = true;
      RingAttention copies(rt, rt.team_world(), shape, DataType::kBfloat16, by_copies);
      symmetra::Team solo = rt.split_strided(rt.team_world(), 0, 1, 1);
      RingAttention single(rt, solo, shape, DataType::kBfloat16);  // PE 0: the whole sequence
      Tensors mine(shape, me, pes, seed);
      std::unique_ptr<Tensors> whole;
      if (me == 0) whole = std::make_unique<Tensors>(shape, 0, 1, seed);
      std::vector<char> wrong(2, 0);  // this PE saw a wrong result in pass 0 / 1
      rt.barrier_all();
      for (int pass = 0; pass < 2; ++pass) {
        // The ring and the copies baseline: all PEs together, wall time from a barrier to the
        // last PE's stream done.
        for (RingAttention* r : {&ring, &copies}) {
          std::vector<double> ms;
          for (int i = 0; i < iters + 1; ++i) {
            if (i == 0) mine.poison(s);
            rt.barrier_all();
            const double t0 = now_us();
            run_pass(*r, mine, pass, s);
            CK(cudaStreamSynchronize(s));
            rt.barrier_all();
            if (i > 0) ms.push_back((now_us() - t0) / 1e3);  // the first warms up and is checked
            if (i == 0 && !mine.check(shape, me, pes, seed, pass, r == &ring ? "ring" : "copies"))
              wrong[pass] = 1;
          }
          if (me == 0) (r == &ring ? res.ring : res.copies)[pass] = median(ms);
        }
        // The ideal: each PE's compute alone on the GPU, in turn; PE 0 sums the medians.
        double sum = 0;
        for (int p = 0; p < rt.n_pes(); ++p) {
          std::vector<double> own;
          for (int i = 0; i < iters + 1; ++i) {
            rt.barrier_all();
            if (me != p) continue;
            const double t0 = now_us();
            run_pass(ideal, mine, pass, s);
            CK(cudaStreamSynchronize(s));
            if (i > 0) own.push_back((now_us() - t0) / 1e3);
          }
          double m = me == p ? median(own) : 0;
          double* box = static_cast<double*>(rt.allocate(2 * sizeof(double)));
          rt.putmem(box, &m, sizeof m, me);
          rt.allreduce(rt.team_world(), box + 1, box, 1, symmetra::coll::ReduceOp::kSum);
          rt.getmem(&m, box + 1, sizeof m, me);
          rt.free(box);
          sum += m;
        }
        if (me == 0) res.ideal[pass] = sum;
        // Whether any PE saw a wrong result in this pass, through the same all-reduce.
        {
          double w = wrong[pass];
          double* box = static_cast<double*>(rt.allocate(2 * sizeof(double)));
          rt.putmem(box, &w, sizeof w, me);
          rt.allreduce(rt.team_world(), box + 1, box, 1, symmetra::coll::ReduceOp::kMax);
          rt.getmem(&w, box + 1, sizeof w, me);
          rt.free(box);
          if (me == 0) res.ok[pass] = w == 0;
        }
        // One PE, the whole sequence.
        if (me == 0) {
          std::vector<double> one;
          for (int i = 0; i < iters + 1; ++i) {
            if (i == 0) whole->poison(s);
            const double t0 = now_us();
            run_pass(single, *whole, pass, s);
            CK(cudaStreamSynchronize(s));
            if (i > 0) one.push_back((now_us() - t0) / 1e3);
            if (i == 0 && !whole->check(shape, 0, 1, seed, pass, "one PE")) wrong[pass] = 1;
          }
          res.single[pass] = median(one);
          if (wrong[pass]) res.ok[pass] = false;
        }
        rt.barrier_all();
      }
      CK(cudaStreamSynchronize(s));
      rt.barrier_all();
    }
    CK(cudaStreamDestroy(s));
  });
  return res;
}

}  // namespace

int main(int argc, char** argv) {
  // A line at a time: a run stopped at its step's bound keeps the rows it printed.
  std::setvbuf(stdout, nullptr, _IOLBF, 0);
  const bool quick = argc > 1 && std::strcmp(argv[1], "--quick") == 0;
  const std::vector<int> pe_counts = quick ? std::vector<int>{2} : std::vector<int>{2, 4};
  const std::vector<std::int64_t> token_counts =
      quick ? std::vector<std::int64_t>{4096} : std::vector<std::int64_t>{4096, 8192, 16384};
  const int iters = quick ? 3 : 5;
  // Fresh inputs each run (SYMMETRA_TEST_SEED replays one).
  const char* env_seed = std::getenv("SYMMETRA_TEST_SEED");
  const unsigned long long seed =
      env_seed ? std::strtoull(env_seed, nullptr, 10)
               : (static_cast<unsigned long long>(std::random_device{}()) << 32) ^
                     std::random_device{}();
  std::printf(
      "seed %llu; every row below passed its check (out, lse; dq, dk, dv after a "
      "backward) before it was timed\n",
      seed);
  int wrong = 0;
  std::printf("%-4s %-7s %-8s %10s %10s %10s %10s %8s %10s %8s %10s\n", "pes", "tokens", "pass",
              "ring_ms", "ideal_ms", "one_pe_ms", "copies_ms", "of_ideal", "ring_TF/s", "vs_one",
              "vs_copies");
  for (int pes : pe_counts)
    for (std::int64_t tokens : token_counts) {
      const Result r = measure(pes, tokens, iters, seed);
      const double seq = static_cast<double>(pes) * tokens;
      // Causal attention: 4 * heads * dim * seq^2 / 2 FLOPs forward; backward 2.5 times that.
      const double fwd_flops = 2.0 * 32 * 128 * seq * seq;
      for (int pass = 0; pass < 2; ++pass) {
        const double flops = pass == 0 ? fwd_flops : 3.5 * fwd_flops;
        const char* name = pass == 0 ? "fwd" : "fwd+bwd";
        if (!r.ok[pass]) {
          std::printf("%-4d %-7lld %-8s WRONG RESULT: not timed\n", pes,
                      static_cast<long long>(tokens), name);
          ++wrong;
          continue;
        }
        const double of_ideal = r.ideal[pass] / r.ring[pass];
        const double tflops = flops / (r.ring[pass] * 1e-3) / 1e12;
        std::printf("%-4d %-7lld %-8s %10.3f %10.3f %10.3f %10.3f %8.3f %10.1f %8.3f %10.3f\n", pes,
                    static_cast<long long>(tokens), name, r.ring[pass], r.ideal[pass],
                    r.single[pass], r.copies[pass], of_ideal, tflops, r.single[pass] / r.ring[pass],
                    r.copies[pass] / r.ring[pass]);
        std::printf(
            "{\"op\":\"ring_attention\",\"pass\":\"%s\",\"pes\":%d,\"tokens_per_pe\":%lld,"
            "\"ring_ms\":%.4f,\"ideal_ms\":%.4f,\"one_pe_ms\":%.4f,\"copies_ms\":%.4f,"
            "\"of_ideal\":%.4f,\"ring_tflops\":%.2f,\"backend\":\"cuda\"}\n",
            name, pes, static_cast<long long>(tokens), r.ring[pass], r.ideal[pass], r.single[pass],
            r.copies[pass], of_ideal, tflops);
      }
    }
  if (wrong > 0) {
    std::printf("%d row(s) computed a wrong result\n", wrong);
    return 1;
  }
  return 0;
}
