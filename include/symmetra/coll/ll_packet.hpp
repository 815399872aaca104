// LL ("low latency") packets: data and its arrival flag in one store, so a receiver needs no
// fence, no signal word and no second round trip (NCCL's LL protocol; NVRAR's packets).
//
// A line is 16 bytes: two 8-byte cells, each 4 bytes of payload and the 4-byte flag of the call
// (ll_flag). A GPU writes a line with one 16-byte volatile store and a reader polls it with one
// 16-byte volatile load; on the CPU each cell is one relaxed 64-bit atomic. A cell is valid when
// its flag is the call's: each cell is written whole, so the payload that comes with the
// expected flag is the payload sent with it. The element type rides in 8-byte units (Unit<T>).
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>
#if !SYMMETRA_DEVICE_PASS
#include <vector>
#endif

#include "symmetra/coll/reduce_op.hpp"
#include "symmetra/core/atomic.hpp"
#include "symmetra/device/impl/remote.hpp"
#include "symmetra/device/impl/wait_core.hpp"

namespace symmetra::coll::detail {

struct alignas(16) LLLine {
  std::uint32_t d0, f0, d1, f1;
};

// The flag of call (or chunk) number k: never 0, which is what a fresh workspace holds. Flags
// repeat after 2^32 - 1 calls; a line left that long unwritten is the only way to misread one.
SYMMETRA_INLINE std::uint32_t ll_flag(std::uint64_t k) {
  return static_cast<std::uint32_t>(k % 0xffffffffull) + 1u;
}

SYMMETRA_INLINE void ll_store(LLLine* line, std::uint64_t payload, std::uint32_t flag) {
  const auto lo = static_cast<std::uint32_t>(payload),
             hi = static_cast<std::uint32_t>(payload >> 32);
#if SYMMETRA_DEVICE_PASS
  asm volatile("st.volatile.global.v4.u32 [%0], {%1, %2, %3, %4};" ::"l"(line), "r"(lo), "r"(flag),
               "r"(hi), "r"(flag)
               : "memory");
#else
  auto* cell = reinterpret_cast<std::uint64_t*>(line);
  const std::uint64_t f = static_cast<std::uint64_t>(flag) << 32;
  device::detail::atomic_store(&cell[0], f | lo, device::detail::kRelaxed);
  device::detail::atomic_store(&cell[1], f | hi, device::detail::kRelaxed);
#endif
}

// True, with the payload, once both cells carry `flag`.
SYMMETRA_INLINE bool ll_try_load(const LLLine* line, std::uint32_t flag, std::uint64_t* payload) {
#if SYMMETRA_DEVICE_PASS
  std::uint32_t d0, f0, d1, f1;
  asm volatile("ld.volatile.global.v4.u32 {%0, %1, %2, %3}, [%4];"
               : "=r"(d0), "=r"(f0), "=r"(d1), "=r"(f1)
               : "l"(line)
               : "memory");
  *payload = (static_cast<std::uint64_t>(d1) << 32) | d0;
  return f0 == flag && f1 == flag;
#else
  const auto* cell = reinterpret_cast<const std::uint64_t*>(line);
  const std::uint64_t a = device::detail::atomic_load(&cell[0], device::detail::kRelaxed);
  const std::uint64_t b = device::detail::atomic_load(&cell[1], device::detail::kRelaxed);
  *payload = (b << 32) | (a & 0xffffffffull);
  return (a >> 32) == flag && (b >> 32) == flag;
#endif
}

#if SYMMETRA_DEVICE_PASS
__device__ __noinline__ inline void report_ll_timeout(const device::Context& ctx, const char* op,
                                                      const LLLine* line, std::uint32_t flag,
                                                      int from) {
  printf("[pe %d] %s: timed out after %llu ms waiting for PE %d's packet at %p (flag %u)\n",
         ctx.my_pe, op, static_cast<unsigned long long>(ctx.timeout_ns / 1000000), from,
         static_cast<const void*>(line), flag);
  device::detail::print_shared_gpu_hint(ctx);
  __trap();
}
#endif

// Waits for `line` (this PE's workspace) to carry `flag`; `from` names the sender in the
// timeout diagnostic. Bounded like every wait. Ordering: none needed (data and flag travel
// together).
SYMMETRA_INLINE std::uint64_t ll_wait(const device::Context& ctx, const char* op,
                                      const LLLine* line, std::uint32_t flag, int from) {
  std::uint64_t v = 0;
#if SYMMETRA_DEVICE_PASS
  std::uint64_t start = 0;
  for (int polls = 0;; ++polls) {
    if (ll_try_load(line, flag, &v)) return v;
    if (polls >= 4096) {
      if (start == 0) start = device::detail::global_ns();
      __nanosleep(64);
      if (device::detail::global_ns() - start > ctx.timeout_ns)
        report_ll_timeout(ctx, op, line, flag, from);
    }
  }
#else
  device::detail::wait_for(
      ctx, op, line, line + 1, [&] { return ll_try_load(line, flag, &v); },
      [&](char* buf, unsigned n) {
        snprintf(buf, n, "PE %d's packet at %p (flag %u)", from, static_cast<const void*>(line),
                 flag);
      });
  return v;
#endif
}

// The payload of a line already seen to carry its call's flag (ll_try_load, ll_wait_lines).
SYMMETRA_INLINE std::uint64_t ll_payload(const LLLine* line) {
  std::uint64_t v = 0;
  (void)ll_try_load(line, 0, &v);
  return v;
}

// Waits until lines [0, n) all carry `flag`: one pass of flag checks, waiting only at a line
// not yet there. The host's receive loops then read payloads with ll_payload and no further
// check, which took the CPU's LL reduction from about 25 ns a unit to a few (every cell is
// written whole, and a line is not rewritten before the reader's next chunk).
SYMMETRA_INLINE void ll_wait_lines(const device::Context& ctx, const char* op, const LLLine* lines,
                                   std::size_t n, std::uint32_t flag, int from) {
  std::uint64_t v;
  for (std::size_t i = 0; i < n; ++i)
    if (!ll_try_load(lines + i, flag, &v)) (void)ll_wait(ctx, op, lines + i, flag, from);
}

// Writes lines dst[0, units) of PE `pe`, which is not reachable, with payloads pick(u): built
// first, then sent as one transport put (each 8-byte cell arrives whole,
// device/impl/remote.hpp), one message per region and not per line: a transport's message costs
// a round of its progress (a 1 MiB all-reduce across hosts took 4x as long in 4 KiB puts,
// docs/perf_remote.md). Where the lines are built:
// - on the GPU, in `outbox`, this PE's own memory: a region of its workspace that no peer writes
//   in this call. The put is a request on the proxy ring that returns once the proxy has read
//   the outbox, so the group may reuse it at once.
// - on the host, in a buffer of the thread's own. The outbox would do there too, but a peer one
//   call ahead whose algorithm lays out the workspace differently may already write those bytes
//   in its next call, ordered after this put only through the relaxed LL flags: sound on the
//   hardware, a data race in C++'s model (and ThreadSanitizer's), since the transport reads its
//   source with plain loads.
// Threads: every thread of `g`; each builds its own units, and the group syncs before one
// thread puts.
#if !SYMMETRA_DEVICE_PASS
// The host's line buffer, one per thread for every instantiation of ll_put_remote: a
// thread_local inside the template would be one per element type, op and lambda (about 60 in
// the library), and the library's TLS block must fit the static TLS that a module loaded with
// dlopen draws from (glibc's surplus, about 1.6 KiB for all of them; docs/design.md#tls).
inline std::vector<LLLine>& ll_host_lines() {
  static thread_local std::vector<LLLine> buf;
  return buf;
}
#endif

template <class Group, class Pick>
SYMMETRA_INLINE void ll_put_remote(Group g, const device::Context& ctx, const char* op, LLLine* dst,
                                   LLLine* outbox, std::size_t units, Pick&& pick,
                                   std::uint32_t flag, int pe) {
#if SYMMETRA_DEVICE_PASS
  const std::size_t tr = static_cast<std::size_t>(g.thread_rank()),
                    gs = static_cast<std::size_t>(g.size());
  for (std::size_t u = tr; u < units; u += gs) ll_store(outbox + u, pick(u), flag);
  device::detail::remote_put(g, ctx, op, dst, outbox, units * sizeof(LLLine), pe);
#else
  (void)outbox;
  device::detail::on_thread0(g, [&] {
    constexpr std::size_t kBatch = 16384;  // 256 KiB of lines per put
    std::vector<LLLine>& buf = ll_host_lines();
    if (buf.size() < kBatch) buf.resize(kBatch);
    for (std::size_t u0 = 0; u0 < units; u0 += kBatch) {
      const std::size_t n = units - u0 < kBatch ? units - u0 : kBatch;
      for (std::size_t i = 0; i < n; ++i) ll_store(&buf[i], pick(u0 + i), flag);
      device::detail::remote_put_bytes(ctx, op, dst + u0, buf.data(), n * sizeof(LLLine), pe);
    }
  });
#endif
}

// Elements of T in one 8-byte payload.
template <class T>
struct Unit {
  static_assert(sizeof(T) <= 8 && 8 % sizeof(T) == 0,
                "LL packets carry elements of 1, 2, 4 or 8 bytes");
  static constexpr int kElems = 8 / sizeof(T);
};

// Up to Unit<T>::kElems elements from p (`valid` of them; the rest read as zero bytes).
template <class T>
SYMMETRA_INLINE std::uint64_t load_unit(const T* p, int valid) {
  std::uint64_t u = 0;
  if (valid == Unit<T>::kElems && (reinterpret_cast<std::uintptr_t>(p) & 7) == 0)
    return *reinterpret_cast<const std::uint64_t*>(p);
  if (valid > 0) std::memcpy(&u, p, static_cast<std::size_t>(valid) * sizeof(T));
  return u;
}

template <class T>
SYMMETRA_INLINE void store_unit(T* p, std::uint64_t u, int valid) {
  if (valid == Unit<T>::kElems && (reinterpret_cast<std::uintptr_t>(p) & 7) == 0) {
    *reinterpret_cast<std::uint64_t*>(p) = u;
  } else if (valid > 0) {
    std::memcpy(p, &u, static_cast<std::size_t>(valid) * sizeof(T));
  }
}

// Lane i of a unit as a T, and a T's bits placed in lane i. Shifts of the unit's register, not
// an array copied through memory: writing a T[] and reading it back as one 8-byte word missed
// store-to-load forwarding, a stall per unit that made the CPU's LL reduction of 1 MiB take
// 2 ms (docs/perf_remote.md#all-reduce).
template <class T>
struct LaneBits {
  using type = std::conditional_t<
      sizeof(T) == 1, std::uint8_t,
      std::conditional_t<sizeof(T) == 2, std::uint16_t,
                         std::conditional_t<sizeof(T) == 4, std::uint32_t, std::uint64_t>>>;
};
template <class T>
SYMMETRA_INLINE T unit_lane(std::uint64_t u, int i) {
  const auto b = static_cast<typename LaneBits<T>::type>(u >> (i * 8 * sizeof(T)));
  T t;
  std::memcpy(&t, &b, sizeof(T));
  return t;
}
template <class T>
SYMMETRA_INLINE std::uint64_t lane_bits(T t, int i) {
  typename LaneBits<T>::type b;
  std::memcpy(&b, &t, sizeof(T));
  return static_cast<std::uint64_t>(b) << (i * 8 * sizeof(T));
}

// Element-wise a <op> b of two units. The host builds the lanes with shifts (unit_lane); a GPU
// keeps the array, which lives in registers there, and 64-bit shifts cost it more.
template <class T>
SYMMETRA_INLINE std::uint64_t combine_unit(ReduceOp op, std::uint64_t a, std::uint64_t b) {
#if SYMMETRA_DEVICE_PASS
  T x[Unit<T>::kElems], y[Unit<T>::kElems];
  std::memcpy(x, &a, 8);
  std::memcpy(y, &b, 8);
  for (int i = 0; i < Unit<T>::kElems; ++i)
    x[i] = from_accum<T>(combine(op, to_accum(x[i]), to_accum(y[i])));
  std::uint64_t r;
  std::memcpy(&r, x, 8);
  return r;
#else
  std::uint64_t r = 0;
  for (int i = 0; i < Unit<T>::kElems; ++i)
    r |= lane_bits(
        from_accum<T>(combine(op, to_accum(unit_lane<T>(a, i)), to_accum(unit_lane<T>(b, i)))), i);
  return r;
#endif
}

// A unit's elements in the accumulator type, so that a sum of many units rounds once.
template <class T>
struct UnitAccum {
  typename Accum<T>::type v[Unit<T>::kElems];
#if SYMMETRA_DEVICE_PASS
  SYMMETRA_INLINE void set(std::uint64_t u) {
    T x[Unit<T>::kElems];
    std::memcpy(x, &u, 8);
    for (int i = 0; i < Unit<T>::kElems; ++i) v[i] = to_accum(x[i]);
  }
  SYMMETRA_INLINE void add(ReduceOp op, std::uint64_t u) {
    T x[Unit<T>::kElems];
    std::memcpy(x, &u, 8);
    for (int i = 0; i < Unit<T>::kElems; ++i) v[i] = combine(op, v[i], to_accum(x[i]));
  }
  SYMMETRA_INLINE std::uint64_t get() const {
    T x[Unit<T>::kElems];
    for (int i = 0; i < Unit<T>::kElems; ++i) x[i] = from_accum<T>(v[i]);
    std::uint64_t r;
    std::memcpy(&r, x, 8);
    return r;
  }
#else
  SYMMETRA_INLINE void set(std::uint64_t u) {
    for (int i = 0; i < Unit<T>::kElems; ++i) v[i] = to_accum(unit_lane<T>(u, i));
  }
  SYMMETRA_INLINE void add(ReduceOp op, std::uint64_t u) {
    for (int i = 0; i < Unit<T>::kElems; ++i)
      v[i] = combine(op, v[i], to_accum(unit_lane<T>(u, i)));
  }
  SYMMETRA_INLINE std::uint64_t get() const {
    std::uint64_t r = 0;
    for (int i = 0; i < Unit<T>::kElems; ++i) r |= lane_bits(from_accum<T>(v[i]), i);
    return r;
  }
#endif
};

// Host loops over `n` whole units of a region that ll_wait_lines saw arrive: plain functions
// of pointers, so that nothing but the data is loaded per unit, and the operator fixed
// (with_op). Through the allreduce_ll loop's lambdas each unit reloaded the loop's captured
// sizes (the stores to dest might alias them): 25 ns a unit on the CPU.
template <class T>
inline void combine_lines(ReduceOp op, T* dst, const LLLine* lines, std::size_t n) {
  with_op(op, [&](auto o) {
    for (std::size_t i = 0; i < n; ++i) {
      std::uint64_t a;
      std::memcpy(&a, dst + i * Unit<T>::kElems, 8);
      const std::uint64_t b = ll_payload(lines + i);
      std::uint64_t r = 0;
      for (int k = 0; k < Unit<T>::kElems; ++k)
        r |= lane_bits(from_accum<T>(combine(decltype(o)::value, to_accum(unit_lane<T>(a, k)),
                                             to_accum(unit_lane<T>(b, k)))),
                       k);
      std::memcpy(dst + i * Unit<T>::kElems, &r, 8);
    }
  });
}
template <class T>
inline void copy_lines(T* dst, const LLLine* lines, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) {
    const std::uint64_t v = ll_payload(lines + i);
    std::memcpy(dst + i * Unit<T>::kElems, &v, 8);
  }
}

}  // namespace symmetra::coll::detail
