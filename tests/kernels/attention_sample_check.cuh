// An independent check of ring attention's GPU outputs at model shapes, where a full fp64
// reference on the CPU (attention_reference.hpp) would take minutes: the inputs are a hash of
// (seed, tensor, global index), so any PE can make any element of the whole sequence without
// communication, and a plain fp32 attention on the GPU (a warp per query row or key, written
// from the definitions: a softmax row, then P, dP and dS) computes the reference at sampled
// places:
// - out, lse and dq of random rows across every (batch, head, local token);
// - out and lse of every local row of one random (batch, kv-head group), and dk and dv of random
//   keys of that group (their reference needs the group's lse and delta = rowsum(dout * out)
//   over the whole sequence, computed here for every row of the group);
// - every element of out, dq, dk, dv and lse finite (the caller poisons them first with
//   poison(), so an element the ring never wrote shows as NaN).
// Used by the model-shape test (ring_attention_shapes_prog.cu) and the benchmark
// (bench/ring_attention_perf.cu), which prints no time for a result that fails it.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <random>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "symmetra/kernels/ring_attention.hpp"

namespace symmetra::attention_check {

using kernels::AttentionShape;

enum Which : unsigned { kQ = 0, kK = 1, kV = 2, kDout = 3 };

inline void cuda_ok(cudaError_t e, const char* what) {
  if (e != cudaSuccess) throw std::runtime_error(std::string(what) + ": " + cudaGetErrorString(e));
}

__host__ __device__ inline unsigned long long mix64(unsigned long long x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

// A standard normal value of tensor `which` at global element `index` ([B, S, H, D] order).
__device__ inline float normal_at(unsigned long long seed, unsigned which,
                                  unsigned long long index) {
  const unsigned long long a = mix64(seed ^ (0x632be59bd9b4e019ull * (which + 1)) ^ mix64(index));
  const unsigned long long b = mix64(a);
  const float u1 = (static_cast<float>(a >> 40) + 1.f) / 16777217.f;  // (0, 1]
  const float u2 = static_cast<float>(b >> 40) / 16777216.f;
  return sqrtf(-2.f * logf(u1)) * cospif(2.f * u2);
}

__device__ inline float to_f(__nv_bfloat16 x) {
  return __bfloat162float(x);
}
__device__ inline float to_f(__half x) {
  return __half2float(x);
}
template <class T>
__device__ inline T from_f(float x);
template <>
__device__ inline __nv_bfloat16 from_f<__nv_bfloat16>(float x) {
  return __float2bfloat16(x);
}
template <>
__device__ inline __half from_f<__half>(float x) {
  return __float2half(x);
}
template <>
__device__ inline float from_f<float>(float x) {
  return x;
}

__host__ __device__ inline long long zigzag(long long i, int rank, int n, long long seq) {
  const long long chunk = seq / (2 * n);
  return i < chunk ? rank * chunk + i : (2LL * n - 1 - rank) * chunk + (i - chunk);
}

// dst [B, local, H, D]: PE `rank` of `n`'s tokens of tensor `which` (n = 1: the whole sequence).
template <class T>
__global__ void fill_kernel(T* dst, unsigned long long seed, unsigned which, int B, long long local,
                            int H, int D, int rank, int n, long long seq) {
  const long long total = static_cast<long long>(B) * local * H * D;
  for (long long e = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x; e < total;
       e += static_cast<long long>(gridDim.x) * blockDim.x) {
    const long long d = e % D, h = e / D % H, l = e / (static_cast<long long>(D) * H) % local;
    const long long b = e / (static_cast<long long>(D) * H * local);
    const long long g = ((b * seq + zigzag(l, rank, n, seq)) * H + h) * D + d;
    dst[e] = from_f<T>(normal_at(seed, which, static_cast<unsigned long long>(g)));
  }
}

// dst [seq, heads, D]: heads h0 .. h0 + heads - 1 of batch b of tensor `which` (H heads in all).
template <class T>
__global__ void fill_heads_kernel(T* dst, unsigned long long seed, unsigned which, int b, int H,
                                  int h0, int heads, int D, long long seq) {
  const long long total = seq * heads * D;
  for (long long e = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x; e < total;
       e += static_cast<long long>(gridDim.x) * blockDim.x) {
    const long long d = e % D, h = e / D % heads, s = e / (static_cast<long long>(D) * heads);
    const long long g = ((b * seq + s) * H + h0 + h) * D + d;
    dst[e] = from_f<T>(normal_at(seed, which, static_cast<unsigned long long>(g)));
  }
}

template <class T>
__global__ void poison_kernel(T* p, long long n) {
  for (long long e = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x; e < n;
       e += static_cast<long long>(gridDim.x) * blockDim.x)
    p[e] = from_f<T>(NAN);
}

constexpr int kMaxSlices = 8;  // head_dim up to 256: a lane holds dims lane + 32 t

struct Dims {
  int B, Hq, Hk, D;
  long long S;
  bool causal;
  float scale;
};

// A warp per query row (b, h, pos): out, lse and delta = dout . out by the softmax's definition
// (two passes over the keys: the row's maximum and sum, then the weighted values), and dq when
// dq_ref is not null. Rows come from (rb, rh, rpos), or, where rb is null, every position of
// heads h0 .. h0 + (rows / S) - 1 of batch b0, in [head][pos] order. Keys and values: [B, S, Hk,
// D].
template <class T>
__global__ void rows_kernel(Dims m, const T* K, const T* V, unsigned long long seed, int rows,
                            const int* rb, const int* rh, const long long* rpos, int b0, int h0,
                            float* out_ref, float* lse_ref, float* delta_ref, float* dq_ref) {
  extern __shared__ float sh[];  // per warp: q[D], dout[D]
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int row = blockIdx.x * (blockDim.x / 32) + warp;
  if (row >= rows) return;
  float* q = sh + warp * 2 * m.D;
  float* dout = q + m.D;
  const int b = rb ? rb[row] : b0;
  const int h = rb ? rh[row] : h0 + static_cast<int>(row / m.S);
  const long long pos = rb ? rpos[row] : row % m.S;
  const int hk = h / (m.Hq / m.Hk);
  for (int d = lane; d < m.D; d += 32) {
    const unsigned long long g = ((b * m.S + pos) * m.Hq + h) * m.D + d;
    q[d] = to_f(from_f<T>(normal_at(seed, kQ, g)));
    dout[d] = to_f(from_f<T>(normal_at(seed, kDout, g)));
  }
  __syncwarp();
  const long long end = m.causal ? pos + 1 : m.S;
  auto key = [&](long long j) { return K + ((b * m.S + j) * m.Hk + hk) * m.D; };
  auto val = [&](long long j) { return V + ((b * m.S + j) * m.Hk + hk) * m.D; };
  auto dot = [&](const float* x, const T* y) {
    float s = 0;
    for (int d = 0; d < m.D; ++d) s += x[d] * to_f(y[d]);
    return s;
  };
  // Pass 1: the row's maximum score, then its sum of exponentials (lane-per-key).
  float mx = -INFINITY;
  for (long long j0 = 0; j0 < end; j0 += 32) {
    const long long j = j0 + lane;
    if (j < end) mx = fmaxf(mx, dot(q, key(j)) * m.scale);
  }
  for (int o = 16; o > 0; o /= 2) mx = fmaxf(mx, __shfl_xor_sync(~0u, mx, o));
  float sum = 0;
  float acc[kMaxSlices] = {};
  for (long long j0 = 0; j0 < end; j0 += 32) {
    const long long j = j0 + lane;
    const float p = j < end ? expf(dot(q, key(j)) * m.scale - mx) : 0.f;
    sum += p;
    for (int kk = 0; kk < 32 && j0 + kk < end; ++kk) {
      const float pk = __shfl_sync(~0u, p, kk);
      const T* vj = val(j0 + kk);
#pragma unroll
      for (int t = 0; t < kMaxSlices; ++t)
        if (lane + 32 * t < m.D) acc[t] += pk * to_f(vj[lane + 32 * t]);
    }
  }
  for (int o = 16; o > 0; o /= 2) sum += __shfl_xor_sync(~0u, sum, o);
  const float lse = mx + logf(sum);
  float delta = 0;
#pragma unroll
  for (int t = 0; t < kMaxSlices; ++t)
    if (lane + 32 * t < m.D) {
      acc[t] /= sum;
      out_ref[static_cast<long long>(row) * m.D + lane + 32 * t] = acc[t];
      delta += acc[t] * dout[lane + 32 * t];
    }
  for (int o = 16; o > 0; o /= 2) delta += __shfl_xor_sync(~0u, delta, o);
  if (lane == 0) {
    lse_ref[row] = lse;
    if (delta_ref) delta_ref[row] = delta;
  }
  if (!dq_ref) return;
  // Pass 2: dq = scale * sum_j P_j (dout . v_j - delta) k_j.
  float dq[kMaxSlices] = {};
  for (long long j0 = 0; j0 < end; j0 += 32) {
    const long long j = j0 + lane;
    float ds = 0;
    if (j < end) {
      const float p = expf(dot(q, key(j)) * m.scale - lse);
      ds = p * (dot(dout, val(j)) - delta);
    }
    for (int kk = 0; kk < 32 && j0 + kk < end; ++kk) {
      const float dk = __shfl_sync(~0u, ds, kk);
      const T* kj = key(j0 + kk);
#pragma unroll
      for (int t = 0; t < kMaxSlices; ++t)
        if (lane + 32 * t < m.D) dq[t] += dk * to_f(kj[lane + 32 * t]);
    }
  }
#pragma unroll
  for (int t = 0; t < kMaxSlices; ++t)
    if (lane + 32 * t < m.D)
      dq_ref[static_cast<long long>(row) * m.D + lane + 32 * t] = dq[t] * m.scale;
}

// A warp per key (batch b0, kv head hk, position kpos[i]): dk and dv, summed over the group's
// query heads and every query that sees the key. Qg and dOg: [S, g, D] of the group's heads;
// lse_g, delta_g: [g][S] from rows_kernel over the group.
template <class T>
__global__ void keys_kernel(Dims m, const T* K, const T* V, const T* Qg, const T* dOg,
                            const float* lse_g, const float* delta_g, int b0, int hk, int keys,
                            const long long* kpos, float* dk_ref, float* dv_ref) {
  extern __shared__ float sh[];  // per warp: k[D], v[D]
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int key = blockIdx.x * (blockDim.x / 32) + warp;
  if (key >= keys) return;
  float* k = sh + warp * 2 * m.D;
  float* v = k + m.D;
  const long long j = kpos[key];
  for (int d = lane; d < m.D; d += 32) {
    k[d] = to_f(K[((b0 * m.S + j) * m.Hk + hk) * m.D + d]);
    v[d] = to_f(V[((b0 * m.S + j) * m.Hk + hk) * m.D + d]);
  }
  __syncwarp();
  const int g = m.Hq / m.Hk;
  float dk[kMaxSlices] = {}, dv[kMaxSlices] = {};
  const long long begin = m.causal ? j : 0;
  for (int hh = 0; hh < g; ++hh)
    for (long long i0 = begin; i0 < m.S; i0 += 32) {
      const long long i = i0 + lane;
      float p = 0, ds = 0;
      if (i < m.S) {
        const T* qi = Qg + (i * g + hh) * m.D;
        const T* oi = dOg + (i * g + hh) * m.D;
        float s = 0, dp = 0;
        for (int d = 0; d < m.D; ++d) {
          s += to_f(qi[d]) * k[d];
          dp += to_f(oi[d]) * v[d];
        }
        p = expf(s * m.scale - lse_g[hh * m.S + i]);
        ds = p * (dp - delta_g[hh * m.S + i]);
      }
      for (int kk = 0; kk < 32 && i0 + kk < m.S; ++kk) {
        const float pk = __shfl_sync(~0u, p, kk), dsk = __shfl_sync(~0u, ds, kk);
        const T* qi = Qg + ((i0 + kk) * g + hh) * m.D;
        const T* oi = dOg + ((i0 + kk) * g + hh) * m.D;
#pragma unroll
        for (int t = 0; t < kMaxSlices; ++t)
          if (lane + 32 * t < m.D) {
            dv[t] += pk * to_f(oi[lane + 32 * t]);
            dk[t] += dsk * to_f(qi[lane + 32 * t]);
          }
      }
    }
#pragma unroll
  for (int t = 0; t < kMaxSlices; ++t)
    if (lane + 32 * t < m.D) {
      dk_ref[static_cast<long long>(key) * m.D + lane + 32 * t] = dk[t] * m.scale;
      dv_ref[static_cast<long long>(key) * m.D + lane + 32 * t] = dv[t];
    }
}

inline unsigned grid_for(long long n) {
  return static_cast<unsigned>(std::min<long long>(std::max<long long>((n + 255) / 256, 1), 8192));
}

// This PE's tokens of tensor `which` ([B, local, H, D], zigzag order) for the run's seed.
template <class T>
void fill(T* dst, unsigned long long seed, Which which, const AttentionShape& s, int heads,
          int rank, int n, cudaStream_t st) {
  const long long local = s.seq_len / n;
  const long long total = static_cast<long long>(s.batch) * local * heads * s.head_dim;
  fill_kernel<T><<<grid_for(total), 256, 0, st>>>(dst, seed, which, s.batch, local, heads,
                                                  s.head_dim, rank, n, s.seq_len);
  cuda_ok(cudaGetLastError(), "fill kernel");
}

template <class T>
void poison(T* p, std::size_t n, cudaStream_t st) {
  poison_kernel<T>
      <<<grid_for(static_cast<long long>(n)), 256, 0, st>>>(p, static_cast<long long>(n));
  cuda_ok(cudaGetLastError(), "poison kernel");
}

// One tensor's comparison against the reference.
struct TensorError {
  std::string name;
  std::size_t compared = 0, nonfinite = 0;
  double worst = 0;     // max |got - ref| / (tol + tol |ref|): at most 1 passes
  double rel_max = 0;   // max |got - ref| / max |ref|
  double rel_norm = 0;  // ||got - ref|| / ||ref||
  double tol = 0, norm_tol = 0;
  double diff2 = 0, ref2 = 0, max_diff = 0, max_ref = 0;
  void add(double got, double ref) {
    ++compared;
    const double d = std::abs(got - ref);
    if (!std::isfinite(got)) ++nonfinite;
    worst = std::max(worst, std::isfinite(d) ? d / (tol + tol * std::abs(ref)) : INFINITY);
    max_diff = std::max(max_diff, std::isfinite(d) ? d : INFINITY);
    max_ref = std::max(max_ref, std::abs(ref));
    diff2 += d * d;
    ref2 += ref * ref;
  }
  void finish() {
    rel_max = max_ref > 0 ? max_diff / max_ref : max_diff;
    rel_norm = ref2 > 0 ? std::sqrt(diff2 / ref2) : std::sqrt(diff2);
  }
  bool ok() const { return nonfinite == 0 && worst <= 1 && rel_norm <= norm_tol; }
};

struct Report {
  std::vector<TensorError> errors;
  bool ok() const {
    for (const TensorError& e : errors)
      if (!e.ok()) return false;
    return !errors.empty();
  }
  // One line per tensor: name, elements compared, the three measures, non-finite count.
  std::string table(int pe) const {
    std::string t;
    char line[256];
    for (const TensorError& e : errors) {
      std::snprintf(line, sizeof line,
                    "[pe %d] %-6s compared %9zu  worst/tol %8.3f  rel_max %9.2e  rel_norm %9.2e  "
                    "nonfinite %zu  %s\n",
                    pe, e.name.c_str(), e.compared, e.worst, e.rel_max, e.rel_norm, e.nonfinite,
                    e.ok() ? "ok" : "WRONG");
      t += line;
    }
    return t;
  }
};

template <class T>
std::vector<float> host_floats(const T* p, std::size_t n) {
  std::vector<std::uint16_t> raw(n);
  cuda_ok(cudaMemcpy(raw.data(), p, n * 2, cudaMemcpyDeviceToHost), "cudaMemcpy");
  std::vector<float> f(n);
  for (std::size_t i = 0; i < n; ++i) {
    if constexpr (std::is_same_v<T, __nv_bfloat16>) {
      const std::uint32_t bits = static_cast<std::uint32_t>(raw[i]) << 16;
      std::memcpy(&f[i], &bits, 4);
    } else {
      __half_raw r;
      r.x = raw[i];
      f[i] = __half2float(__half(r));
    }
  }
  return f;
}
inline std::vector<float> host_floats(const float* p, std::size_t n) {
  std::vector<float> f(n);
  cuda_ok(cudaMemcpy(f.data(), p, n * 4, cudaMemcpyDeviceToHost), "cudaMemcpy");
  return f;
}
template <class X>
X* device_copy(const std::vector<X>& h) {
  X* p = nullptr;
  cuda_ok(cudaMalloc(&p, std::max<std::size_t>(h.size(), 1) * sizeof(X)), "cudaMalloc");
  cuda_ok(cudaMemcpy(p, h.data(), h.size() * sizeof(X), cudaMemcpyHostToDevice), "cudaMemcpy");
  return p;
}

struct CheckOptions {
  double tol = 2.5e-2;     // bf16's element bound; attention_reference.hpp's gpu_tolerance
  double norm_tol = 1e-2;  // the tensor's relative norm
  double lse_tol = 1e-3;   // lse within this of max(1, |ref|)
  int sample_rows = 256;   // random (batch, head, token) rows
  int sample_keys = 128;   // random keys of the chosen group
  bool backward = true;    // dq, dk, dv were computed too
};

// Checks PE `rank` of `n`'s outputs of ring attention over inputs made by fill() with `seed`.
// dq, dk, dv are ignored unless o.backward. The caller synchronized the ring's stream. Uses
// (and frees) its own device memory; about B * S * Hk * D * 4 + S * g * D * 4 bytes.
template <class T>
Report check(const AttentionShape& s, int rank, int n, unsigned long long seed, const T* out,
             const float* lse, const T* dq, const T* dk, const T* dv, const CheckOptions& o,
             std::uint64_t sample_seed) {
  const long long S = s.seq_len, local = S / n;
  const int B = s.batch, Hq = s.q_heads, Hk = s.kv_heads, D = s.head_dim, g = Hq / Hk;
  if (D % 32 != 0 || D > 32 * kMaxSlices)
    throw std::runtime_error("attention_check: head_dim must be a multiple of 32, at most 256");
  const Dims m{B,
               Hq,
               Hk,
               D,
               S,
               s.causal,
               static_cast<float>(s.scale != 0 ? s.scale : 1.0 / std::sqrt(double(D)))};
  std::mt19937_64 rng(sample_seed);
  const int bg = static_cast<int>(rng() % B), hk = static_cast<int>(rng() % Hk);
  std::vector<void*> owned;
  auto alloc = [&](std::size_t bytes) {
    void* p = nullptr;
    cuda_ok(cudaMalloc(&p, std::max<std::size_t>(bytes, 1)), "cudaMalloc");
    owned.push_back(p);
    return p;
  };
  struct Free {
    std::vector<void*>& v;
    ~Free() {
      for (void* p : v) cudaFree(p);
    }
  } free_all{owned};
  const cudaStream_t st = nullptr;
  // The whole sequence's keys and values; the group's queries and output gradients.
  const long long kv_n = static_cast<long long>(B) * S * Hk * D, grp_n = S * g * D;
  T* K = static_cast<T*>(alloc(kv_n * sizeof(T)));
  T* V = static_cast<T*>(alloc(kv_n * sizeof(T)));
  T* Qg = static_cast<T*>(alloc(grp_n * sizeof(T)));
  T* dOg = static_cast<T*>(alloc(grp_n * sizeof(T)));
  fill_kernel<T><<<grid_for(kv_n), 256, 0, st>>>(K, seed, kK, B, S, Hk, D, 0, 1, S);
  fill_kernel<T><<<grid_for(kv_n), 256, 0, st>>>(V, seed, kV, B, S, Hk, D, 0, 1, S);
  fill_heads_kernel<T><<<grid_for(grp_n), 256, 0, st>>>(Qg, seed, kQ, bg, Hq, hk * g, g, D, S);
  fill_heads_kernel<T><<<grid_for(grp_n), 256, 0, st>>>(dOg, seed, kDout, bg, Hq, hk * g, g, D, S);
  cuda_ok(cudaGetLastError(), "fill kernels");
  const int warps = 8;
  const std::size_t shmem = static_cast<std::size_t>(warps) * 2 * D * sizeof(float);
  // Every row of the group: out, lse, delta.
  const int grows = static_cast<int>(g * S);
  float* g_out = static_cast<float*>(alloc(static_cast<std::size_t>(grows) * D * 4));
  float* g_lse = static_cast<float*>(alloc(static_cast<std::size_t>(grows) * 4));
  float* g_delta = static_cast<float*>(alloc(static_cast<std::size_t>(grows) * 4));
  rows_kernel<T><<<(grows + warps - 1) / warps, warps * 32, shmem, st>>>(
      m, K, V, seed, grows, nullptr, nullptr, nullptr, bg, hk * g, g_out, g_lse, g_delta, nullptr);
  cuda_ok(cudaGetLastError(), "rows kernel");
  // Random rows of this PE across every batch and head.
  std::vector<int> rb(o.sample_rows), rh(o.sample_rows);
  std::vector<long long> rl(o.sample_rows), rpos(o.sample_rows);
  for (int i = 0; i < o.sample_rows; ++i) {
    rb[i] = static_cast<int>(rng() % B);
    rh[i] = static_cast<int>(rng() % Hq);
    rl[i] = static_cast<long long>(rng() % local);
    rpos[i] = zigzag(rl[i], rank, n, S);
  }
  int* d_rb = device_copy(rb);
  int* d_rh = device_copy(rh);
  long long* d_rpos = device_copy(rpos);
  owned.insert(owned.end(), {d_rb, d_rh, d_rpos});
  float* r_out = static_cast<float*>(alloc(static_cast<std::size_t>(o.sample_rows) * D * 4));
  float* r_lse = static_cast<float*>(alloc(static_cast<std::size_t>(o.sample_rows) * 4));
  float* r_dq = static_cast<float*>(alloc(static_cast<std::size_t>(o.sample_rows) * D * 4));
  rows_kernel<T><<<(o.sample_rows + warps - 1) / warps, warps * 32, shmem, st>>>(
      m, K, V, seed, o.sample_rows, d_rb, d_rh, d_rpos, 0, 0, r_out, r_lse, nullptr,
      o.backward ? r_dq : nullptr);
  cuda_ok(cudaGetLastError(), "rows kernel");
  // Random keys of this PE in the group.
  std::vector<long long> kl(o.sample_keys), kpos(o.sample_keys);
  for (int i = 0; i < o.sample_keys; ++i) {
    kl[i] = static_cast<long long>(rng() % local);
    kpos[i] = zigzag(kl[i], rank, n, S);
  }
  long long* d_kpos = device_copy(kpos);
  owned.push_back(d_kpos);
  float* k_dk = static_cast<float*>(alloc(static_cast<std::size_t>(o.sample_keys) * D * 4));
  float* k_dv = static_cast<float*>(alloc(static_cast<std::size_t>(o.sample_keys) * D * 4));
  if (o.backward) {
    keys_kernel<T><<<(o.sample_keys + warps - 1) / warps, warps * 32, shmem, st>>>(
        m, K, V, Qg, dOg, g_lse, g_delta, bg, hk, o.sample_keys, d_kpos, k_dk, k_dv);
    cuda_ok(cudaGetLastError(), "keys kernel");
  }
  cuda_ok(cudaDeviceSynchronize(), "the reference kernels");

  // The ring's outputs and the references, on the host.
  const std::size_t qn = static_cast<std::size_t>(B) * local * Hq * D;
  const std::size_t kn = static_cast<std::size_t>(B) * local * Hk * D;
  const std::size_t ln = static_cast<std::size_t>(B) * Hq * local;
  const auto h_out = host_floats(out, qn);
  const auto h_lse = host_floats(lse, ln);
  const auto go = host_floats(g_out, static_cast<std::size_t>(grows) * D);
  const auto gl = host_floats(g_lse, grows);
  const auto ro = host_floats(r_out, static_cast<std::size_t>(o.sample_rows) * D);
  const auto rlse = host_floats(r_lse, o.sample_rows);
  auto qat = [&](int b, long long l, int h) {
    return ((static_cast<std::size_t>(b) * local + l) * Hq + h) * D;
  };
  auto kat = [&](int b, long long l, int h) {
    return ((static_cast<std::size_t>(b) * local + l) * Hk + h) * D;
  };
  auto lat = [&](int b, int h, long long l) {
    return (static_cast<std::size_t>(b) * Hq + h) * local + l;
  };
  Report rep;
  TensorError e_out{"out"}, e_lse{"lse"};
  e_out.tol = o.tol;
  e_out.norm_tol = o.norm_tol;
  e_lse.tol = o.lse_tol;  // lse: |d| <= tol (1 + |ref|), about max(1, |ref|)
  e_lse.norm_tol = o.lse_tol;
  for (int hh = 0; hh < g; ++hh)
    for (long long l = 0; l < local; ++l) {
      const long long pos = zigzag(l, rank, n, S);
      const std::size_t r = static_cast<std::size_t>(hh) * S + pos;
      for (int d = 0; d < D; ++d) e_out.add(h_out[qat(bg, l, hk * g + hh) + d], go[r * D + d]);
      e_lse.add(h_lse[lat(bg, hk * g + hh, l)], gl[r]);
    }
  for (int i = 0; i < o.sample_rows; ++i) {
    for (int d = 0; d < D; ++d) e_out.add(h_out[qat(rb[i], rl[i], rh[i]) + d], ro[i * D + d]);
    e_lse.add(h_lse[lat(rb[i], rh[i], rl[i])], rlse[i]);
  }
  // Every element written: the rest of out and lse finite.
  auto finite_all = [](TensorError& e, const std::vector<float>& v) {
    for (float x : v)
      if (!std::isfinite(x)) ++e.nonfinite;
  };
  finite_all(e_out, h_out);
  finite_all(e_lse, h_lse);
  e_out.finish();
  e_lse.finish();
  rep.errors = {e_out, e_lse};
  if (!o.backward) return rep;
  const auto h_dq = host_floats(dq, qn);
  const auto h_dk = host_floats(dk, kn);
  const auto h_dv = host_floats(dv, kn);
  const auto rdq = host_floats(r_dq, static_cast<std::size_t>(o.sample_rows) * D);
  const auto kdk = host_floats(k_dk, static_cast<std::size_t>(o.sample_keys) * D);
  const auto kdv = host_floats(k_dv, static_cast<std::size_t>(o.sample_keys) * D);
  TensorError e_dq{"dq"}, e_dk{"dk"}, e_dv{"dv"};
  for (TensorError* e : {&e_dq, &e_dk, &e_dv}) {
    e->tol = o.tol;
    e->norm_tol = o.norm_tol;
  }
  for (int i = 0; i < o.sample_rows; ++i)
    for (int d = 0; d < D; ++d) e_dq.add(h_dq[qat(rb[i], rl[i], rh[i]) + d], rdq[i * D + d]);
  for (int i = 0; i < o.sample_keys; ++i)
    for (int d = 0; d < D; ++d) {
      e_dk.add(h_dk[kat(bg, kl[i], hk) + d], kdk[i * D + d]);
      e_dv.add(h_dv[kat(bg, kl[i], hk) + d], kdv[i * D + d]);
    }
  finite_all(e_dq, h_dq);
  finite_all(e_dk, h_dk);
  finite_all(e_dv, h_dv);
  for (TensorError* e : {&e_dq, &e_dk, &e_dv}) e->finish();
  rep.errors.insert(rep.errors.end(), {e_dq, e_dk, e_dv});
  return rep;
}

}  // namespace symmetra::attention_check
