// Ring attention's GPU path at the shapes users run (docs/ring_attention.md, Tests): Llama 3 8B's
// attention (32 query heads, 8 KV heads, head_dim 128, batch 1, causal) at 4K, 8K and 16K
// tokens per PE, and head_dim 64 without GQA at batch 2, causal and full. Each case makes a ring,
// runs two rounds of forward then backward on fresh inputs (outputs poisoned first), checks
// every PE's out, lse, dq, dk and dv against an independent fp32 reference at sampled places
// (attention_sample_check.cuh) and prints the errors; then the ring is destroyed and, at the end,
// the job finalized, so a hang after the ring's calls fails the run too.
//
//   SYMMETRA_BACKEND=cuda symrun -n N gpu_ring_attention_shapes [--quick]   (PEs as processes)
//   gpu_ring_attention_shapes --threads N [--quick]                           (PEs as threads)
// --quick: 4K tokens per PE only. SYMMETRA_TEST_SEED replays a run. Exit 0 only if all passed.
#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "attention_sample_check.cuh"
#include "symmetra/kernels/ring_attention.hpp"
#include "symmetra/launch.hpp"
#include "symmetra/runtime.hpp"

namespace {

namespace ac = symmetra::attention_check;
using symmetra::Runtime;
using symmetra::kernels::AttentionShape;
using symmetra::kernels::RingAttention;
using T = __nv_bfloat16;

struct Case {
  int batch, q_heads, kv_heads, head_dim;
  std::int64_t tokens_per_pe;
  bool causal;
};

std::vector<Case> cases(bool quick) {
  std::vector<Case> v;
  for (std::int64_t t : {4096, 8192, 16384})
    if (!quick || t == 4096) v.push_back({1, 32, 8, 128, t, true});
  v.push_back({2, 16, 16, 64, 4096, true});
  v.push_back({2, 16, 16, 64, 4096, false});
  return v;
}

// The largest of every PE's `mine` (symmetric memory is device memory here: put and get move it).
std::uint64_t max_over_pes(Runtime& rt, std::uint64_t mine) {
  auto* box = static_cast<std::uint64_t*>(rt.allocate(2 * sizeof(std::uint64_t)));
  rt.putmem(box, &mine, sizeof mine, rt.my_pe());
  rt.allreduce(rt.team_world(), box + 1, box, 1, symmetra::coll::ReduceOp::kMax);
  std::uint64_t out = 0;
  rt.getmem(&out, box + 1, sizeof out, rt.my_pe());
  rt.free(box);
  return out;
}

struct Tensors {
  T *q = nullptr, *k = nullptr, *v = nullptr, *dout = nullptr, *out = nullptr, *dq = nullptr,
    *dk = nullptr, *dv = nullptr;
  float* lse = nullptr;
  std::size_t qn, kn, ln;
  Tensors(const AttentionShape& s, std::int64_t local) {
    qn = static_cast<std::size_t>(s.batch) * local * s.q_heads * s.head_dim;
    kn = static_cast<std::size_t>(s.batch) * local * s.kv_heads * s.head_dim;
    ln = static_cast<std::size_t>(s.batch) * s.q_heads * local;
    for (auto [p, n] : {std::pair{&q, qn},
                        {&dout, qn},
                        {&out, qn},
                        {&dq, qn},
                        {&k, kn},
                        {&v, kn},
                        {&dk, kn},
                        {&dv, kn}})
      ac::cuda_ok(cudaMalloc(p, n * sizeof(T)), "cudaMalloc");
    ac::cuda_ok(cudaMalloc(&lse, ln * 4), "cudaMalloc");
  }
  ~Tensors() {
    for (void* p : {static_cast<void*>(q), static_cast<void*>(k), static_cast<void*>(v),
                    static_cast<void*>(dout), static_cast<void*>(out), static_cast<void*>(dq),
                    static_cast<void*>(dk), static_cast<void*>(dv), static_cast<void*>(lse)})
      cudaFree(p);
  }
  void fill(const AttentionShape& s, unsigned long long seed, int rank, int n, cudaStream_t st) {
    ac::fill(q, seed, ac::kQ, s, s.q_heads, rank, n, st);
    ac::fill(k, seed, ac::kK, s, s.kv_heads, rank, n, st);
    ac::fill(v, seed, ac::kV, s, s.kv_heads, rank, n, st);
    ac::fill(dout, seed, ac::kDout, s, s.q_heads, rank, n, st);
    for (auto [p, n_] : {std::pair{out, qn}, {dq, qn}, {dk, kn}, {dv, kn}}) ac::poison(p, n_, st);
    ac::poison(lse, ln, st);
  }
};

// Runs every case on this PE; returns the number that failed (the same on every PE).
int run_pe(Runtime& rt, bool quick, std::uint64_t seed) {
  const int me = rt.my_pe(), n = rt.n_pes();
  int failed = 0;
  cudaStream_t st = nullptr;
  ac::cuda_ok(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking), "cudaStreamCreate");
  for (const Case& c : cases(quick)) {
    AttentionShape s;
    s.batch = c.batch;
    s.q_heads = c.q_heads;
    s.kv_heads = c.kv_heads;
    s.head_dim = c.head_dim;
    s.seq_len = c.tokens_per_pe * n;
    s.causal = c.causal;
    char name[128];
    std::snprintf(name, sizeof name, "%d PEs, batch %d, %d/%d heads, d=%d, %lld tokens/PE, %s", n,
                  c.batch, c.q_heads, c.kv_heads, c.head_dim,
                  static_cast<long long>(c.tokens_per_pe), c.causal ? "causal" : "full");
    bool ok = true;
    {
      RingAttention ring(rt, rt.team_world(), s, symmetra::DataType::kBfloat16);
      // Every buffer before the first call (cudaMalloc can wait for the whole GPU).
      Tensors a(s, ring.local_tokens()), b(s, ring.local_tokens());
      rt.barrier_all();
      for (int round = 0; round < 2; ++round) {
        Tensors& t = round == 0 ? a : b;
        const unsigned long long rseed = seed + 1000003ull * round + 7919ull * c.tokens_per_pe;
        t.fill(s, rseed, me, n, st);
        auto* ss = reinterpret_cast<symmetra::Stream>(st);
        ring.forward(t.q, t.k, t.v, t.out, t.lse, ss);
        ring.backward(t.q, t.k, t.v, t.out, t.lse, t.dout, t.dq, t.dk, t.dv, ss);
      }
      ac::cuda_ok(cudaStreamSynchronize(st), "the ring's stream");
      rt.barrier_all();
      for (int round = 0; round < 2; ++round) {
        Tensors& t = round == 0 ? a : b;
        const unsigned long long rseed = seed + 1000003ull * round + 7919ull * c.tokens_per_pe;
        ac::CheckOptions o;
        const ac::Report rep = ac::check<T>(s, me, n, rseed, t.out, t.lse, t.dq, t.dk, t.dv, o,
                                            rseed ^ (0x51ull * (me + 1)));
        std::printf("%s", rep.table(me).c_str());
        ok = ok && rep.ok();
      }
      rt.barrier_all();  // every PE's checks before any frees (cudaFree waits for the GPU)
    }
    const std::uint64_t any = max_over_pes(rt, ok ? 0 : 1);
    if (me == 0) std::printf("case %s: %s\n", name, any ? "FAIL" : "PASS");
    std::fflush(stdout);
    failed += any ? 1 : 0;
  }
  ac::cuda_ok(cudaStreamDestroy(st), "cudaStreamDestroy");
  return failed;
}

std::uint64_t fresh_seed() {
  if (const char* s = std::getenv("SYMMETRA_TEST_SEED")) return std::strtoull(s, nullptr, 10);
  return (static_cast<std::uint64_t>(std::random_device{}()) << 32) ^ std::random_device{}();
}

}  // namespace

int main(int argc, char** argv) {
  int threads = 0;
  bool quick = false;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--threads") == 0 && i + 1 < argc)
      threads = std::atoi(argv[++i]);
    else if (std::strcmp(argv[i], "--quick") == 0)
      quick = true;
    else {
      std::fprintf(stderr, "usage: %s [--threads N] [--quick]\n", argv[0]);
      return 2;
    }
  }
  const symmetra::RuntimeOptions options{symmetra::Backend::kCuda, -1};
  try {
    std::vector<int> failed(threads > 0 ? threads : 1, 0);
    if (threads > 0) {
      const std::uint64_t seed = fresh_seed();
      std::printf("seed %llu (SYMMETRA_TEST_SEED replays it)\n",
                  static_cast<unsigned long long>(seed));
      symmetra::launch_threads(threads, options,
                               [&](Runtime& rt) { failed[rt.my_pe()] = run_pe(rt, quick, seed); });
    } else {
      auto rt = Runtime::init(options);
      // PE 0's seed on every PE.
      const std::uint64_t seed = max_over_pes(*rt, rt->my_pe() == 0 ? fresh_seed() : 0);
      if (rt->my_pe() == 0)
        std::printf("seed %llu (SYMMETRA_TEST_SEED replays it)\n",
                    static_cast<unsigned long long>(seed));
      failed[0] = run_pe(*rt, quick, seed);
      rt->finalize();
    }
    if (failed[0] != 0) {
      std::printf("%d case(s) FAILED\n", failed[0]);
      return 1;
    }
    std::printf("all cases passed\n");
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "gpu_ring_attention_shapes: %s\n", e.what());
    return 1;
  }
}
