// The bodies of the host API's inline forms: the data path, its checks and the GPU backend's
// polling. Read symmetra/runtime.hpp for the contract; it includes this file.
#pragma once

#ifndef SYMMETRA_RUNTIME_CONTRACT
#error "include symmetra/runtime.hpp, not symmetra/impl/runtime_inline.hpp"
#endif

namespace symmetra {

template <class T>
inline T* Runtime::allocate_array(std::size_t n) {
  return static_cast<T*>(align(alignof(T) < 16 ? 16 : alignof(T), n * sizeof(T)));
}

inline coll::Buffers Runtime::allreduce_buffers(const void* dest, const void* source,
                                                std::size_t bytes) const {
  const auto* d = static_cast<const std::byte*>(dest);
  const auto* s = static_cast<const std::byte*>(source);
  if (!is_symmetric(dest) || !is_symmetric(source)) return coll::Buffers::kOther;
  if (d == s) return coll::Buffers::kInPlace;
  return d + bytes <= s || s + bytes <= d ? coll::Buffers::kSeparate : coll::Buffers::kOther;
}

inline bool Runtime::pe_accessible(int pe) const {
  return pe >= 0 && pe < n_pes() && (ctx_.pe_index[pe] >= 0 || ctx_.remote != nullptr);
}

template <class T>
inline T* Runtime::ptr(T* p, int pe) const {
  return device::ptr(data_view(), p, pe);
}

[[gnu::always_inline]] inline void Runtime::putmem(void* dest, const void* src, std::size_t bytes,
                                                   int pe) {
  if (ctx_.flags & device::Context::kHostDirect) [[likely]]
    return device::detail::put_to(device::ThreadGroup{}, ctx_, checked_peer("put", dest, bytes, pe),
                                  dest, src, bytes, pe);
  SYMMETRA_OBSERVE(&Runtime::putmem, "put", pe, bytes, Form::kHost, -1, dest, src, bytes, pe);
  if (gpu_) return gpu_put(dest, src, bytes, pe, "put");
  void* r = checked_peer("put", dest, bytes, pe);
  if (!ctx_.reachable(pe)) [[unlikely]]
    return device::detail::remote_put(device::ThreadGroup{}, ctx_, "put", dest, src, bytes, pe);
  device::detail::put_to(device::ThreadGroup{}, ctx_, r, dest, src, bytes, pe);
}

[[gnu::always_inline]] inline void Runtime::getmem(void* dest, const void* src, std::size_t bytes,
                                                   int pe) {
  if (ctx_.flags & device::Context::kHostDirect) [[likely]]
    return device::detail::get_from(device::ThreadGroup{}, dest,
                                    checked_peer("get", src, bytes, pe), bytes);
  getmem_general(dest, src, bytes, pe);
}

// The nbi forms take the same direct path as putmem and getmem: a local get_nbi is complete
// at once, and a local put_nbi is the put's stores without the put's fence.
[[gnu::always_inline]] inline void Runtime::putmem_nbi(void* dest, const void* src,
                                                       std::size_t bytes, int pe) {
  if (ctx_.flags & device::Context::kHostDirect) [[likely]]
    return device::detail::put_nbi_to(device::ThreadGroup{}, ctx_,
                                      checked_peer("put_nbi", dest, bytes, pe), dest, src, bytes,
                                      pe);
  SYMMETRA_OBSERVE(&Runtime::putmem_nbi, "put_nbi", pe, bytes, Form::kNbi, -1, dest, src, bytes,
                   pe);
  if (gpu_) return gpu_put(dest, src, bytes, pe, "put_nbi");
  void* r = checked_peer("put_nbi", dest, bytes, pe);
  if (!ctx_.reachable(pe)) [[unlikely]]
    return device::detail::remote_put(device::ThreadGroup{}, ctx_, "put_nbi", dest, src, bytes, pe);
  device::detail::put_nbi_to(device::ThreadGroup{}, ctx_, r, dest, src, bytes, pe);
}

[[gnu::always_inline]] inline void Runtime::getmem_nbi(void* dest, const void* src,
                                                       std::size_t bytes, int pe) {
  if (ctx_.flags & device::Context::kHostDirect) [[likely]]
    return device::detail::get_from(device::ThreadGroup{}, dest,
                                    checked_peer("get_nbi", src, bytes, pe), bytes);
  SYMMETRA_OBSERVE(&Runtime::getmem_nbi, "get_nbi", pe, bytes, Form::kNbi, -1, dest, src, bytes,
                   pe);
  if (gpu_) return gpu_get(dest, src, bytes, pe, "get_nbi");
  const void* r = checked_peer("get_nbi", src, bytes, pe);
  // Remote: complete by quiet (a transport keeps several in flight); local: at once.
  if (!ctx_.reachable(pe)) [[unlikely]]
    return device::detail::remote_get_nbi(device::ThreadGroup{}, ctx_, "get_nbi", dest, src, bytes,
                                          pe);
  device::detail::get_from(device::ThreadGroup{}, dest, r, bytes);
}

template <class T>
inline void Runtime::put(T* dest, const T* src, std::size_t n, int pe) {
  putmem(dest, src, n * sizeof(T), pe);
}

template <class T>
inline void Runtime::get(T* dest, const T* src, std::size_t n, int pe) {
  getmem(dest, src, n * sizeof(T), pe);
}

template <class T>
inline void Runtime::put_nbi(T* dest, const T* src, std::size_t n, int pe) {
  putmem_nbi(dest, src, n * sizeof(T), pe);
}

template <class T>
inline void Runtime::get_nbi(T* dest, const T* src, std::size_t n, int pe) {
  getmem_nbi(dest, src, n * sizeof(T), pe);
}

template <class T>
[[gnu::always_inline]] inline void Runtime::p(T* dest, T value, int pe) {
  if (ctx_.flags & device::Context::kHostDirect) [[likely]]
    return device::detail::p_to(ctx_, checked_peer("p", dest, sizeof(T), pe), dest, value, pe);
  SYMMETRA_OBSERVE(&Runtime::p<T>, "p", pe, sizeof(T), Form::kHost, -1, dest, value, pe);
  if (gpu_) return gpu_put(dest, &value, sizeof(T), pe, "p");
  T* r = checked_peer("p", dest, sizeof(T), pe);
  if (!ctx_.reachable(pe)) [[unlikely]]
    return device::detail::remote_p(ctx_, dest, value, pe);
  device::detail::p_to(ctx_, r, dest, value, pe);
}

template <class T>
[[gnu::always_inline]] inline T Runtime::g(const T* src, int pe) {
  if (ctx_.flags & device::Context::kHostDirect) [[likely]]
    return device::detail::g_from(checked_peer("g", src, sizeof(T), pe));
  SYMMETRA_OBSERVE(&Runtime::g<T>, "g", pe, sizeof(T), Form::kHost, -1, src, pe);
  if (gpu_) {
    T v;
    gpu_get(&v, src, sizeof(T), pe, "g");
    return v;
  }
  const T* r = checked_peer("g", src, sizeof(T), pe);
  if (!ctx_.reachable(pe)) [[unlikely]]
    return device::detail::remote_g(ctx_, src, pe);
  return device::detail::g_from(r);
}

template <class T>
[[gnu::always_inline]] inline void Runtime::iput(T* dest, const T* src, std::ptrdiff_t dst_stride,
                                                 std::ptrdiff_t src_stride, std::size_t n, int pe) {
  SYMMETRA_OBSERVE(&Runtime::iput<T>, "iput", pe, n * sizeof(T), Form::kHost, -1, dest, src,
                   dst_stride, src_stride, n, pe);
  if (gpu_) return gpu_strided(dest, src, sizeof(T), dst_stride, src_stride, n, pe, true);
  check_strided("iput", dest, dst_stride, n, pe);
  device::iput(device::ThreadGroup{}, ctx_, dest, src, dst_stride, src_stride, n, pe);
}

template <class T>
[[gnu::always_inline]] inline void Runtime::iget(T* dest, const T* src, std::ptrdiff_t dst_stride,
                                                 std::ptrdiff_t src_stride, std::size_t n, int pe) {
  SYMMETRA_OBSERVE(&Runtime::iget<T>, "iget", pe, n * sizeof(T), Form::kHost, -1, dest, src,
                   dst_stride, src_stride, n, pe);
  if (gpu_) return gpu_strided(dest, src, sizeof(T), dst_stride, src_stride, n, pe, false);
  check_strided("iget", src, src_stride, n, pe);
  device::iget(device::ThreadGroup{}, ctx_, dest, src, dst_stride, src_stride, n, pe);
}

template <class T>
inline T Runtime::atomic_fetch(const T* dest, int pe) {
  return host_amo<AmoOp::kFetch, true>("atomic_fetch", const_cast<T*>(dest), T{}, T{}, pe);
}

template <class T>
inline void Runtime::atomic_set(T* dest, T v, int pe) {
  (void)host_amo<AmoOp::kSet, false>("atomic_set", dest, v, T{}, pe);
}

template <class T>
inline T Runtime::atomic_swap(T* dest, T v, int pe) {
  return host_amo<AmoOp::kSwap, true>("atomic_swap", dest, v, T{}, pe);
}

template <class T>
inline T Runtime::atomic_compare_swap(T* dest, T cond, T v, int pe) {
  return host_amo<AmoOp::kCompareSwap, true>("atomic_compare_swap", dest, v, cond, pe);
}

template <class T>
inline T Runtime::atomic_fetch_inc(T* dest, int pe) {
  return host_amo<AmoOp::kFetchAdd, true>("atomic_fetch_inc", dest, T{1}, T{}, pe);
}

template <class T>
inline void Runtime::atomic_inc(T* dest, int pe) {
  (void)host_amo<AmoOp::kFetchAdd, false>("atomic_inc", dest, T{1}, T{}, pe);
}

template <class T>
inline T Runtime::atomic_fetch_add(T* dest, T v, int pe) {
  return host_amo<AmoOp::kFetchAdd, true>("atomic_fetch_add", dest, v, T{}, pe);
}

template <class T>
inline void Runtime::atomic_add(T* dest, T v, int pe) {
  (void)host_amo<AmoOp::kFetchAdd, false>("atomic_add", dest, v, T{}, pe);
}

template <class T>
inline T Runtime::atomic_fetch_and(T* dest, T v, int pe) {
  return host_amo<AmoOp::kFetchAnd, true>("atomic_fetch_and", dest, v, T{}, pe);
}

template <class T>
inline void Runtime::atomic_and(T* dest, T v, int pe) {
  (void)host_amo<AmoOp::kFetchAnd, false>("atomic_and", dest, v, T{}, pe);
}

template <class T>
inline T Runtime::atomic_fetch_or(T* dest, T v, int pe) {
  return host_amo<AmoOp::kFetchOr, true>("atomic_fetch_or", dest, v, T{}, pe);
}

template <class T>
inline void Runtime::atomic_or(T* dest, T v, int pe) {
  (void)host_amo<AmoOp::kFetchOr, false>("atomic_or", dest, v, T{}, pe);
}

template <class T>
inline T Runtime::atomic_fetch_xor(T* dest, T v, int pe) {
  return host_amo<AmoOp::kFetchXor, true>("atomic_fetch_xor", dest, v, T{}, pe);
}

template <class T>
inline void Runtime::atomic_xor(T* dest, T v, int pe) {
  (void)host_amo<AmoOp::kFetchXor, false>("atomic_xor", dest, v, T{}, pe);
}

[[gnu::always_inline]] inline void Runtime::putmem_signal(void* dest, const void* src,
                                                          std::size_t bytes, std::uint64_t* sig,
                                                          std::uint64_t value, SignalOp op,
                                                          int pe) {
  SYMMETRA_OBSERVE(&Runtime::putmem_signal, "put_signal", pe, bytes, Form::kHost, -1, dest, src,
                   bytes, sig, value, op, pe);
  if (gpu_) {
    gpu_put(dest, src, bytes, pe, "put_signal");
    (void)amo(op == SignalOp::kAdd ? AmoOp::kFetchAdd : AmoOp::kSet, sig, value, std::uint64_t{0},
              pe);
    return;
  }
  check("put_signal", dest, bytes, pe);
  check("put_signal", sig, sizeof(*sig), pe);
  device::putmem_signal(device::ThreadGroup{}, ctx_, dest, src, bytes, sig, value, op, pe);
}

inline void Runtime::putmem_signal_nbi(void* dest, const void* src, std::size_t bytes,
                                       std::uint64_t* sig, std::uint64_t value, SignalOp op,
                                       int pe) {
  putmem_signal(dest, src, bytes, sig, value, op, pe);
}

template <class T>
inline void Runtime::put_signal(T* dest, const T* src, std::size_t n, std::uint64_t* sig,
                                std::uint64_t value, SignalOp op, int pe) {
  putmem_signal(dest, src, n * sizeof(T), sig, value, op, pe);
}

template <class T>
inline void Runtime::put_signal_nbi(T* dest, const T* src, std::size_t n, std::uint64_t* sig,
                                    std::uint64_t value, SignalOp op, int pe) {
  putmem_signal(dest, src, n * sizeof(T), sig, value, op, pe);
}

inline std::uint64_t Runtime::signal_fetch(const std::uint64_t* sig) {
  return gpu_ ? g(sig, my_pe()) : device::signal_fetch(ctx_, sig);
}

inline std::uint64_t Runtime::signal_wait_until(const std::uint64_t* sig, Cmp cmp,
                                                std::uint64_t value) {
  SYMMETRA_OBSERVE(&Runtime::signal_wait_until, "signal_wait_until", my_pe(), sizeof(*sig),
                   Form::kHost, -1, sig, cmp, value);
  if (!gpu_) return device::signal_wait_until(ctx_, sig, cmp, value);
  std::uint64_t seen = 0;
  poll_gpu("signal_wait_until", sig, 1, [&](const std::uint64_t* w) {
    seen = *w;
    return device::test(ctx_, w, cmp, value);
  });
  return seen;
}

template <class T>
inline void Runtime::wait_until(const T* ivar, Cmp cmp, T value) {
  SYMMETRA_OBSERVE(&Runtime::wait_until<T>, "wait_until", my_pe(), sizeof(T), Form::kHost, -1, ivar,
                   cmp, value);
  if (!gpu_) return device::wait_until(ctx_, ivar, cmp, value);
  poll_gpu("wait_until", ivar, 1, [&](const T* w) { return device::test(ctx_, w, cmp, value); });
}

template <class T>
inline void Runtime::wait_until_all(const T* ivars, std::size_t n, const int* status, Cmp cmp,
                                    T value) {
  SYMMETRA_OBSERVE(&Runtime::wait_until_all<T>, "wait_until_all", my_pe(), n * sizeof(T),
                   Form::kHost, -1, ivars, n, status, cmp, value);
  if (!gpu_) return device::wait_until_all(ctx_, ivars, n, status, cmp, value);
  poll_gpu("wait_until_all", ivars, n,
           [&](const T* w) { return device::test_all(ctx_, w, n, status, cmp, value); });
}

template <class T>
inline std::size_t Runtime::wait_until_any(const T* ivars, std::size_t n, const int* status,
                                           Cmp cmp, T value) {
  SYMMETRA_OBSERVE(&Runtime::wait_until_any<T>, "wait_until_any", my_pe(), n * sizeof(T),
                   Form::kHost, -1, ivars, n, status, cmp, value);
  if (!gpu_) return device::wait_until_any(ctx_, ivars, n, status, cmp, value);
  if (device::detail::none_included(n, status)) return device::kNoIndex;
  std::size_t found = device::kNoIndex;
  poll_gpu("wait_until_any", ivars, n, [&](const T* w) {
    return (found = device::test_any(ctx_, w, n, status, cmp, value)) != device::kNoIndex;
  });
  return found;
}

template <class T>
inline std::size_t Runtime::wait_until_some(const T* ivars, std::size_t n, std::size_t* indices,
                                            const int* status, Cmp cmp, T value) {
  SYMMETRA_OBSERVE(&Runtime::wait_until_some<T>, "wait_until_some", my_pe(), n * sizeof(T),
                   Form::kHost, -1, ivars, n, indices, status, cmp, value);
  if (!gpu_) return device::wait_until_some(ctx_, ivars, n, indices, status, cmp, value);
  if (device::detail::none_included(n, status)) return 0;
  std::size_t count = 0;
  poll_gpu("wait_until_some", ivars, n, [&](const T* w) {
    return (count = device::test_some(ctx_, w, n, indices, status, cmp, value)) != 0;
  });
  return count;
}

template <class T>
inline void Runtime::wait_until_all_vector(const T* ivars, std::size_t n, const int* status,
                                           Cmp cmp, const T* values) {
  SYMMETRA_OBSERVE(&Runtime::wait_until_all_vector<T>, "wait_until_all_vector", my_pe(),
                   n * sizeof(T), Form::kHost, -1, ivars, n, status, cmp, values);
  if (!gpu_) return device::wait_until_all_vector(ctx_, ivars, n, status, cmp, values);
  poll_gpu("wait_until_all_vector", ivars, n,
           [&](const T* w) { return device::test_all_vector(ctx_, w, n, status, cmp, values); });
}

template <class T>
inline std::size_t Runtime::wait_until_any_vector(const T* ivars, std::size_t n, const int* status,
                                                  Cmp cmp, const T* values) {
  SYMMETRA_OBSERVE(&Runtime::wait_until_any_vector<T>, "wait_until_any_vector", my_pe(),
                   n * sizeof(T), Form::kHost, -1, ivars, n, status, cmp, values);
  if (!gpu_) return device::wait_until_any_vector(ctx_, ivars, n, status, cmp, values);
  if (device::detail::none_included(n, status)) return device::kNoIndex;
  std::size_t found = device::kNoIndex;
  poll_gpu("wait_until_any_vector", ivars, n, [&](const T* w) {
    return (found = device::test_any_vector(ctx_, w, n, status, cmp, values)) != device::kNoIndex;
  });
  return found;
}

template <class T>
inline std::size_t Runtime::wait_until_some_vector(const T* ivars, std::size_t n,
                                                   std::size_t* indices, const int* status, Cmp cmp,
                                                   const T* values) {
  SYMMETRA_OBSERVE(&Runtime::wait_until_some_vector<T>, "wait_until_some_vector", my_pe(),
                   n * sizeof(T), Form::kHost, -1, ivars, n, indices, status, cmp, values);
  if (!gpu_) return device::wait_until_some_vector(ctx_, ivars, n, indices, status, cmp, values);
  if (device::detail::none_included(n, status)) return 0;
  std::size_t count = 0;
  poll_gpu("wait_until_some_vector", ivars, n, [&](const T* w) {
    return (count = device::test_some_vector(ctx_, w, n, indices, status, cmp, values)) != 0;
  });
  return count;
}

template <class T>
inline bool Runtime::test(const T* ivar, Cmp cmp, T value) {
  return device::test(ctx_, local_words(ivar, 1).data(), cmp, value);
}

template <class T>
inline bool Runtime::test_all(const T* ivars, std::size_t n, const int* status, Cmp cmp, T value) {
  return device::test_all(ctx_, local_words(ivars, n).data(), n, status, cmp, value);
}

template <class T>
inline std::size_t Runtime::test_any(const T* ivars, std::size_t n, const int* status, Cmp cmp,
                                     T value) {
  return device::test_any(ctx_, local_words(ivars, n).data(), n, status, cmp, value);
}

template <class T>
inline std::size_t Runtime::test_some(const T* ivars, std::size_t n, std::size_t* indices,
                                      const int* status, Cmp cmp, T value) {
  return device::test_some(ctx_, local_words(ivars, n).data(), n, indices, status, cmp, value);
}

template <class T>
inline bool Runtime::test_all_vector(const T* ivars, std::size_t n, const int* status, Cmp cmp,
                                     const T* values) {
  return device::test_all_vector(ctx_, local_words(ivars, n).data(), n, status, cmp, values);
}

template <class T>
inline std::size_t Runtime::test_any_vector(const T* ivars, std::size_t n, const int* status,
                                            Cmp cmp, const T* values) {
  return device::test_any_vector(ctx_, local_words(ivars, n).data(), n, status, cmp, values);
}

template <class T>
inline std::size_t Runtime::test_some_vector(const T* ivars, std::size_t n, std::size_t* indices,
                                             const int* status, Cmp cmp, const T* values) {
  return device::test_some_vector(ctx_, local_words(ivars, n).data(), n, indices, status, cmp,
                                  values);
}

[[gnu::always_inline]] inline void Runtime::quiet() {
  SYMMETRA_OBSERVE(&Runtime::quiet, "quiet", -1, 0, Form::kHost, -1);
  if (gpu_) gpu_quiet();
  device::quiet(ctx_);
}

[[gnu::always_inline]] inline void Runtime::flush() {
  SYMMETRA_OBSERVE(&Runtime::flush, "flush", -1, 0, Form::kHost, -1);
  if (gpu_) return quiet();  // the host forms' staging completes with their quiet
  device::flush(ctx_);
}

[[gnu::always_inline]] inline void Runtime::fence() {
  SYMMETRA_OBSERVE(&Runtime::fence, "fence", -1, 0, Form::kHost, -1);
  quiet();
}

inline void Runtime::sync_all() {
  SYMMETRA_OBSERVE(&Runtime::sync_all, "sync_all", -1, 0, Form::kHost, device::kTeamWorld);
  device::sync_all(device::ThreadGroup{}, ctx_);
}

inline void Runtime::sync(const Team& team) {
  SYMMETRA_OBSERVE(&Runtime::sync, "sync", -1, 0, Form::kHost, team.handle(), team);
  device::sync(device::ThreadGroup{}, ctx_, checked(team, "sync"));
}

inline void Runtime::barrier_all() {
  SYMMETRA_OBSERVE(&Runtime::barrier_all, "barrier_all", -1, 0, Form::kHost, device::kTeamWorld);
  quiet();
  device::sync_all(device::ThreadGroup{}, ctx_);
}

inline void Runtime::barrier(const Team& team) {
  SYMMETRA_OBSERVE(&Runtime::barrier, "barrier", -1, 0, Form::kHost, team.handle(), team);
  quiet();
  device::sync(device::ThreadGroup{}, ctx_, checked(team, "barrier"));
}

template <AmoOp A, bool Fetch, class T>
[[gnu::always_inline]] inline T Runtime::host_amo(const char* op, T* dest, T v, T cond, int pe) {
  if ((ctx_.flags & (device::Context::kHostDirect | device::Context::kCheckArgs)) ==
      device::Context::kHostDirect) [[likely]]
    return device::detail::amo_at<A, Fetch>(ctx_, checked_peer(op, dest, sizeof(T), pe), dest, v,
                                            cond, pe);
  return host_amo_general<A, Fetch>(op, dest, v, cond, pe);
}

template <AmoOp A, bool Fetch, class T>
[[gnu::noinline]] T Runtime::host_amo_general(const char* op, T* dest, T v, T cond, int pe) {
  if (ctx_.flags & device::Context::kObserve) [[unlikely]]
    if (observe_outer())
      return observed<&Runtime::host_amo<A, Fetch, T>>(
          ObserveCall{op, pe, -1, sizeof(T), Form::kHost}, std::make_tuple(op, dest, v, cond, pe));
  if (gpu_) return amo(A, dest, v, cond, pe);
  T* w = checked_peer(op, dest, sizeof(T), pe);
  if (device::detail::checks_on(ctx_)) device::detail::check_aligned(ctx_, op, dest, sizeof(T));
  if (!ctx_.reachable(pe)) [[unlikely]]
    return device::detail::remote_amo(ctx_, op, A, dest, v, cond, pe);
  return device::detail::amo_at<A, Fetch>(ctx_, w, dest, v, cond, pe);
}

template <class T>
inline T Runtime::amo(AmoOp op, T* dest, T value, T cond, int pe) {
  static_assert(sizeof(T) == 4 || sizeof(T) == 8, "GPU atomics act on 32- or 64-bit words");
  std::uint64_t v = 0, c = 0;
  std::memcpy(&v, &value, sizeof(T));
  std::memcpy(&c, &cond, sizeof(T));
  const std::uint64_t old = gpu_amo(op, data_type_of<T>(), dest, v, c, pe);
  T r;
  std::memcpy(&r, &old, sizeof(T));
  return r;
}

template <class T, class Done>
inline void Runtime::poll_gpu(const char* op, const T* ivars, std::size_t n, Done&& done) {
  std::vector<T> copy(n);
  const std::uint64_t start = now_ns();
  for (std::uint64_t step = 0;; ++step) {
    gpu_poll_step(op, ivars, n * sizeof(T), copy.data(), start, step);
    if (done(static_cast<const T*>(copy.data()))) return;
  }
}

template <class T>
inline Runtime::Words<T> Runtime::local_words(const T* ivars, std::size_t n) {
  if (!gpu_) return {{}, ivars};
  Words<T> w{std::vector<T>(n), nullptr};
  gpu_get(w.copy.data(), ivars, n * sizeof(T), my_pe(), "test");
  w.words = w.copy.data();  // a moved vector keeps its buffer
  return w;
}

template <class T>
[[gnu::always_inline]] inline T* Runtime::checked_peer(const char* op, T* sym, std::size_t bytes,
                                                       int pe) const {
  const auto a = reinterpret_cast<std::uintptr_t>(sym);
  const bool pe_ok = static_cast<unsigned>(pe) < static_cast<unsigned>(ctx_.n_pes);
  const std::uint64_t soff = a - ctx_.static_lo, sb = ctx_.static_bytes;
  if (soff < sb) [[unlikely]] {  // static data: to its window in the heap slot
    if (pe_ok & (bytes <= sb - soff))
      return reinterpret_cast<T*>(reinterpret_cast<std::uintptr_t>(ctx_.static_window) + soff +
                                  ctx_.peer_delta(pe));
  } else {
    const std::uint64_t off = a - reinterpret_cast<std::uintptr_t>(ctx_.heap_base);
    const std::uint64_t size = ctx_.heap_extent();
    if (pe_ok & (off <= size) & (bytes <= size - off)) [[likely]]
      return reinterpret_cast<T*>(a + ctx_.peer_delta(pe));
  }
  return static_cast<T*>(
      checked_peer_rest(op, const_cast<std::remove_const_t<T>*>(sym), bytes, pe));
}

inline void Runtime::check(const char* op, const void* sym, std::size_t bytes, int pe) const {
  (void)checked_peer(op, sym, bytes, pe);
}

template <class T>
inline void Runtime::check_strided(const char* op, const T* sym, std::ptrdiff_t stride,
                                   std::size_t n, int pe) const {
  if (n == 0) return;
  check(op, sym, sizeof(T), pe);
  check(op, sym + static_cast<std::ptrdiff_t>(n - 1) * stride, sizeof(T), pe);
}

}  // namespace symmetra
