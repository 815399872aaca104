// The CPU backend (cpu_backend.hpp).
#include "backend/cpu/cpu_backend.hpp"

#include <cstring>
#include <string>

#include "symmetra/device.hpp"
#include "symmetra/device/impl/host_hooks.hpp"

namespace symmetra::detail {
namespace {

using device::ThreadGroup;

// A usage error, not a data-path failure: thrown, as the Runtime's setup errors are.
[[noreturn]] void needs_cuda(const device::Context& ctl, const char* op) {
  throw Error("[pe " + std::to_string(ctl.my_pe) + "] " + op +
              " needs the CUDA backend (SYMMETRA_BACKEND=cuda, or RuntimeOptions::backend); "
              "this PE runs on the CPU backend");
}

template <class T>
std::uint64_t amo_as(const device::Context& ctl, AmoOp op, void* dest, std::uint64_t value,
                     std::uint64_t cond, int pe) {
  T v, c;
  std::memcpy(&v, &value, sizeof(T));
  std::memcpy(&c, &cond, sizeof(T));
  const T old = device::detail::apply_amo(ctl, op, static_cast<T*>(dest), v, c, pe);
  std::uint64_t bits = 0;
  std::memcpy(&bits, &old, sizeof(T));
  return bits;
}

}  // namespace

Status CpuBackend::memset(void* p, int value, std::size_t bytes) {
  std::memset(p, value, bytes);
  return {};
}

Status CpuBackend::copy(void* dst, const void* src, std::size_t bytes) {
  std::memcpy(dst, src, bytes);
  return {};
}

// The data heap's header is the host heap's: the Runtime reads that one itself.
Result<std::uint64_t> CpuBackend::header_word(std::size_t offset) {
  std::uint64_t w;
  std::memcpy(&w, control_.heap_base + offset, sizeof(w));
  return w;
}

Status CpuBackend::set_header_word(std::size_t offset, std::uint64_t value) {
  std::memcpy(control_.heap_base + offset, &value, sizeof(value));
  return {};
}

void CpuBackend::put(const device::Context& ctl, const char*, void* dest, const void* src,
                     std::size_t bytes, int pe) {
  device::detail::put_to(ThreadGroup{}, ctl, ctl.peer(dest, pe), dest, src, bytes, pe);
}

void CpuBackend::get(const device::Context& ctl, const char*, void* dest, const void* src,
                     std::size_t bytes, int pe) {
  device::detail::get_from(ThreadGroup{}, dest, ctl.peer(src, pe), bytes);
}

void CpuBackend::strided(const device::Context& ctl, bool put, void* dest, const void* src,
                         std::size_t elem, std::ptrdiff_t dst_stride, std::ptrdiff_t src_stride,
                         std::size_t n, int pe) {
  auto* d = static_cast<std::byte*>(dest);
  const auto* s = static_cast<const std::byte*>(src);
  for (std::size_t i = 0; i < n; ++i) {
    void* di = d + static_cast<std::ptrdiff_t>(i) * dst_stride * static_cast<std::ptrdiff_t>(elem);
    const void* si =
        s + static_cast<std::ptrdiff_t>(i) * src_stride * static_cast<std::ptrdiff_t>(elem);
    if (put)
      std::memcpy(ctl.peer(di, pe), si, elem);
    else
      std::memcpy(di, ctl.peer(si, pe), elem);
  }
  if (put) device::quiet(ctl);  // complete on return, as the other forms here
}

std::uint64_t CpuBackend::amo(const device::Context& ctl, AmoOp op, DataType type, void* dest,
                              std::uint64_t value, std::uint64_t cond, int pe) {
  return visit_type(type, [&](auto tag) -> std::uint64_t {
    using T = typename decltype(tag)::type;
    if constexpr (sizeof(T) == 4 || sizeof(T) == 8)
      return amo_as<T>(ctl, op, dest, value, cond, pe);
    else
      device::detail::host_fatal(ctl, "atomic", "atomics act on 32- or 64-bit words");
  });
}

void CpuBackend::quiet(const device::Context& ctl) {
  device::quiet(ctl);
}

void CpuBackend::read_local(const device::Context&, const char*, void* dst, const void* src,
                            std::size_t bytes) {
  std::memcpy(dst, src, bytes);
}

void CpuBackend::put_on_stream(const device::Context& ctl, const char* op, void*, const void*,
                               std::size_t, int, Stream) {
  needs_cuda(ctl, op);
}
void CpuBackend::get_on_stream(const device::Context& ctl, const char* op, void*, const void*,
                               std::size_t, int, Stream) {
  needs_cuda(ctl, op);
}
void CpuBackend::signal_on_stream(const device::Context& ctl, std::uint64_t*, std::uint64_t,
                                  SignalOp, int, Stream) {
  needs_cuda(ctl, "signal_op_on_stream");
}
void CpuBackend::signal_wait_on_stream(const device::Context& ctl, std::uint64_t*, Cmp,
                                       std::uint64_t, bool, Stream) {
  needs_cuda(ctl, "signal_wait_until_on_stream");
}
void CpuBackend::wait_all_on_stream(const device::Context& ctl, DataType, const void*, std::size_t,
                                    const int*, Cmp, std::uint64_t, const void*, Stream) {
  needs_cuda(ctl, "wait_until_on_stream");
}
void CpuBackend::quiet_on_stream(const device::Context& ctl, Stream) {
  needs_cuda(ctl, "quiet_on_stream");
}
void CpuBackend::barrier_all_on_stream(const device::Context& ctl, Stream) {
  needs_cuda(ctl, "barrier_all_on_stream");
}
void CpuBackend::launch_graph(const device::Context& ctl, void*, Stream) {
  needs_cuda(ctl, "launch_graph");
}
// The host forms of the collectives run inline on the CPU: only a stream form comes here.
void CpuBackend::collective(const device::Context& ctl, const coll::Call& call, int, Stream) {
  const std::string op = std::string(coll::kind_name(call.kind)) + "_on_stream";
  needs_cuda(ctl, op.c_str());
}

}  // namespace symmetra::detail
