// Ring attention's GPU path (kernels/ring_attention/ring_gpu.cu: cuDNN SDPA blocks, the ring on
// streams) against full attention on one PE in fp64 (attention_reference.hpp): the same random
// q, k, v and dout, fresh each run; O, LSE, dQ, dK and dV of every PE's zigzag tokens. PEs as
// threads on the GPU, 1 to 4, causal and full, GQA, bf16 and fp16; two rounds through one object,
// forward and backward enqueued back to back on the PE's stream.
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "attention_reference.hpp"
#include "support/pe_runner.hpp"
#include "symmetra/kernels/ring_attention.hpp"

namespace symmetra::testing {
namespace {

using kernels::RingAttention;

#define CK(call)                                                                   \
  do {                                                                             \
    const cudaError_t ck_rc_ = (call);                                             \
    ASSERT_EQ(ck_rc_, cudaSuccess) << #call << ": " << cudaGetErrorString(ck_rc_); \
  } while (0)

// A device copy of a host vector, freed with the object.
template <class T>
struct DeviceArray {
  T* p = nullptr;
  std::size_t n = 0;
  explicit DeviceArray(std::size_t count) : n(count) {
    EXPECT_EQ(cudaMalloc(&p, n * sizeof(T)), cudaSuccess);
  }
  explicit DeviceArray(const std::vector<T>& h) : DeviceArray(h.size()) {
    EXPECT_EQ(cudaMemcpy(p, h.data(), n * sizeof(T), cudaMemcpyHostToDevice), cudaSuccess);
  }
  ~DeviceArray() { cudaFree(p); }
  DeviceArray(const DeviceArray&) = delete;
  DeviceArray& operator=(const DeviceArray&) = delete;
  std::vector<T> fetch() const {
    std::vector<T> h(n);
    EXPECT_EQ(cudaMemcpy(h.data(), p, n * sizeof(T), cudaMemcpyDeviceToHost), cudaSuccess);
    return h;
  }
};

// One PE's device buffers of one round: its tokens of the reference's inputs, and the outputs.
template <class T>
struct Buffers {
  DeviceArray<T> q, k, v, dout, out, dq, dk, dv;
  DeviceArray<float> lse;
  Buffers(const Reference& ref, int me, int n, std::int64_t local)
      : q(ref.local<T>(ref.q, ref.s.q_heads, me, n)),
        k(ref.local<T>(ref.k, ref.s.kv_heads, me, n)),
        v(ref.local<T>(ref.v, ref.s.kv_heads, me, n)),
        dout(ref.local<T>(ref.dout, ref.s.q_heads, me, n)),
        out(q.n),
        dq(q.n),
        dk(k.n),
        dv(v.n),
        lse(static_cast<std::size_t>(ref.s.batch) * ref.s.q_heads * local) {}
};

// The issue's bounds for the GPU path: bf16 within atol = rtol = 2.5e-2, 3.5e-2 with GQA. fp16
// has 3 more mantissa bits; its bound is 1e-2. Block outputs (O, dQ, dK, dV) are rounded to
// 16 bits by cuDNN before the fp32 merge, which the CPU path does not do.
double gpu_tolerance(DataType t, bool gqa) {
  if (t == DataType::kHalf) return 1e-2;
  return gqa ? 3.5e-2 : 2.5e-2;
}

struct GpuCase {
  int n_pes;
  bool causal;
  bool gqa;
  DataType type;
};

std::string gpu_case_name(const ::testing::TestParamInfo<GpuCase>& i) {
  return std::to_string(i.param.n_pes) + "pes_" + (i.param.causal ? "causal" : "full") +
         (i.param.gqa ? "_gqa" : "") + (i.param.type == DataType::kHalf ? "_fp16" : "_bf16");
}

// A spin of `ns` nanoseconds on the stream: a receiver slow on the GPU.
__global__ void spin_kernel(long long ns) {
  const long long start = clock64();
  // clock64 counts SM cycles; about 1.5-2 GHz on the H200, so ns cycles is at least ns / 2 ns.
  while (clock64() - start < 2 * ns) {
  }
}

template <class T>
void run_gpu_ring(const GpuCase& c, int head_dim, const kernels::RingAttentionOptions& options,
                  int rounds) {
  AttentionShape shape;
  shape.batch = 2;
  shape.q_heads = 4;
  shape.kv_heads = c.gqa ? 2 : 4;
  shape.head_dim = head_dim;
  shape.seq_len = 2 * c.n_pes * 64;
  shape.causal = c.causal;
  auto round = [](double x) {
    return static_cast<double>(static_cast<float>(T(static_cast<float>(x))));
  };
  std::vector<Reference> refs;
  for (int r = 0; r < rounds; ++r) refs.emplace_back(shape, run_seed() + 7919 * r, +round);
  const double tol = gpu_tolerance(c.type, c.gqa);
  run_pes({c.n_pes, Mode::kThreads, Backend::kCuda}, [&](Runtime& rt) {
    const int me = rt.my_pe(), n = rt.n_pes();
    cudaStream_t stream = nullptr;
    CK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    {
      RingAttention ring(rt, rt.team_world(), shape, c.type, options);
      // Every buffer of every round first, freed only after the barrier: cudaMalloc and cudaFree
      // can wait for the whole GPU, where other PEs' streams wait for this PE's messages.
      std::vector<std::unique_ptr<Buffers<T>>> bufs;
      for (const Reference& ref : refs)
        bufs.push_back(std::make_unique<Buffers<T>>(ref, me, n, ring.local_tokens()));
      rt.barrier_all();
      auto* s = reinterpret_cast<Stream>(stream);
      for (auto& b : bufs) {
        ring.forward(b->q.p, b->k.p, b->v.p, b->out.p, b->lse.p, s);
        ring.backward(b->q.p, b->k.p, b->v.p, b->out.p, b->lse.p, b->dout.p, b->dq.p, b->dk.p,
                      b->dv.p, s);
      }
      CK(cudaStreamSynchronize(stream));
      rt.barrier_all();
      for (std::size_t r = 0; r < refs.size(); ++r) {
        const Reference& ref = refs[r];
        const Buffers<T>& b = *bufs[r];
        expect_near_all(b.out.fetch(), ref.local<double>(ref.out, shape.q_heads, me, n), "out", me,
                        tol);
        const auto lse_got = b.lse.fetch();
        const auto lse_ref = ref.local_lse(me, n);
        double worst = 0;
        for (std::size_t i = 0; i < lse_got.size(); ++i)
          worst = std::max(worst,
                           std::abs(lse_got[i] - lse_ref[i]) / std::max(1.0, std::abs(lse_ref[i])));
        EXPECT_LE(worst, 1e-3) << "[pe " << me << "] lse";
        expect_near_all(b.dq.fetch(), ref.local<double>(ref.dq, shape.q_heads, me, n), "dq", me,
                        tol);
        expect_near_all(b.dk.fetch(), ref.local<double>(ref.dk, shape.kv_heads, me, n), "dk", me,
                        tol);
        expect_near_all(b.dv.fetch(), ref.local<double>(ref.dv, shape.kv_heads, me, n), "dv", me,
                        tol);
      }
    }  // the ring's destructor: collective, before the stream goes
    CK(cudaStreamDestroy(stream));
  });
}

class RingAttentionGpuTest : public ::testing::TestWithParam<GpuCase> {};

TEST_P(RingAttentionGpuTest, MatchesFullAttention) {
  const GpuCase& c = GetParam();
  const int head_dim = c.gqa ? 128 : 64;  // the benchmark's 128, and 64
  if (c.type == DataType::kHalf)
    run_gpu_ring<half>(c, head_dim, {}, 2);
  else
    run_gpu_ring<bfloat16>(c, head_dim, {}, 2);
}

std::vector<GpuCase> gpu_cases() {
  std::vector<GpuCase> v;
  for (int n = 1; n <= 4; ++n)
    for (bool causal : {true, false})
      for (bool gqa : {false, true}) {
        v.push_back({n, causal, gqa, DataType::kBfloat16});
        if (n == 2 || n == 3) v.push_back({n, causal, gqa, DataType::kHalf});
      }
  return v;
}
INSTANTIATE_TEST_SUITE_P(Pes, RingAttentionGpuTest, ::testing::ValuesIn(gpu_cases()),
                         gpu_case_name);

// The benchmark's baseline (exchange_by_copies: cudaMemcpyAsync and events instead of
// put-with-signal) is the same ring: the same results.
TEST(RingAttentionGpuCopies, TheCopiesBaselineMatchesFullAttention) {
  kernels::RingAttentionOptions copies;
  copies.exchange_by_copies = true;
  run_gpu_ring<bfloat16>({4, true, true, DataType::kBfloat16}, 128, copies, 2);
  run_gpu_ring<bfloat16>({3, false, false, DataType::kBfloat16}, 64, copies, 2);
}

// One slow receiver on the GPU: PE 2 of 4 spins 20 ms on its stream before each block it
// receives, so its compute stream, and with it its credits, lag. Its senders' streams run ahead
// until a credit wait holds them; without the credit wait they overwrite a block PE 2 is still
// to read, and the results change.
TEST(RingAttentionGpuCredits, ASlowReceiverReadsEveryBlockIntact) {
  static thread_local cudaStream_t hook_stream = nullptr;
  static thread_local int hook_pe = -1;
  kernels::RingAttentionOptions slow;
  slow.before_step = [](int, int step) {
    if (hook_pe == 2 && step > 0) spin_kernel<<<1, 1, 0, hook_stream>>>(20'000'000);
  };
  // The hook needs this PE's stream: the test's ring runs on the thread's own, made here.
  AttentionShape shape;
  shape.batch = 1;
  shape.q_heads = 2;
  shape.kv_heads = 1;
  shape.head_dim = 64;
  shape.seq_len = 2 * 4 * 64;
  shape.causal = true;
  const Reference ref(shape, run_seed(), [](double x) {
    return static_cast<double>(static_cast<float>(bfloat16(static_cast<float>(x))));
  });
  run_pes({4, Mode::kThreads, Backend::kCuda}, [&](Runtime& rt) {
    const int me = rt.my_pe(), n = rt.n_pes();
    hook_pe = me;
    CK(cudaStreamCreateWithFlags(&hook_stream, cudaStreamNonBlocking));
    cudaFuncAttributes a;  // loaded now, not lazily in the middle of the ring (ring_gpu.cu)
    CK(cudaFuncGetAttributes(&a, spin_kernel));
    {
      RingAttention ring(rt, rt.team_world(), shape, DataType::kBfloat16, slow);
      Buffers<bfloat16> b(ref, me, n, ring.local_tokens());
      rt.barrier_all();
      auto* s = reinterpret_cast<Stream>(hook_stream);
      for (int round = 0; round < 3; ++round) {
        ring.forward(b.q.p, b.k.p, b.v.p, b.out.p, b.lse.p, s);
        ring.backward(b.q.p, b.k.p, b.v.p, b.out.p, b.lse.p, b.dout.p, b.dq.p, b.dk.p, b.dv.p, s);
      }
      CK(cudaStreamSynchronize(hook_stream));
      rt.barrier_all();
      expect_near_all(b.out.fetch(), ref.local<double>(ref.out, shape.q_heads, me, n), "out", me,
                      2.5e-2);
      expect_near_all(b.dk.fetch(), ref.local<double>(ref.dk, shape.kv_heads, me, n), "dk", me,
                      3.5e-2);
      expect_near_all(b.dv.fetch(), ref.local<double>(ref.dv, shape.kv_heads, me, n), "dv", me,
                      3.5e-2);
    }
    CK(cudaStreamDestroy(hook_stream));
  });
}

// The GPU path's refusals, on every PE: fp32 (cuDNN's SDPA takes 16-bit inputs).
TEST(RingAttentionGpuShapes, Fp32IsRefusedOnEveryPe) {
  AttentionShape shape;
  shape.q_heads = 2;
  shape.kv_heads = 2;
  shape.head_dim = 64;
  shape.seq_len = 2 * 2 * 64;
  std::vector<std::string> errors(2);
  run_pes({2, Mode::kThreads, Backend::kCuda}, [&](Runtime& rt) {
    try {
      RingAttention ring(rt, rt.team_world(), shape, DataType::kFloat);
    } catch (const Error& e) {
      errors[rt.my_pe()] = e.what();
    }
    rt.barrier_all();
  });
  for (int pe = 0; pe < 2; ++pe)
    EXPECT_NE(errors[pe].find("the GPU path takes bfloat16 or float16"), std::string::npos)
        << "pe " << pe << ": " << errors[pe];
}

}  // namespace
}  // namespace symmetra::testing
