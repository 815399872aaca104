// Builds without CUDA: the GPU backend is absent, and asking for it says so.
#include <cstdio>
#include <cstdlib>

#include "gpu_state.hpp"

namespace symmetra {
namespace detail {

struct GpuState::Impl {};

Result<std::unique_ptr<GpuState>> GpuState::create(Bootstrap& bs, int, std::uint64_t, std::uint64_t,
                                                   std::uint64_t, std::uint64_t, std::uint64_t) {
  return Status::fail("[pe " + std::to_string(bs.rank()) +
                      "] the CUDA backend was asked for, but this build of Symmetra has no CUDA "
                      "support (configure with nvcc on PATH)");
}
GpuState::~GpuState() = default;
std::uint64_t GpuState::heap_size() const {
  return 0;
}
std::uint64_t GpuState::heap_stride() const {
  return 0;
}
int GpuState::device() const {
  return -1;
}
int GpuState::max_pes_per_device() const {
  return 1;
}
Status GpuState::refresh(const device::Context&) {
  return {};
}
Status GpuState::grow(std::uint64_t) {
  return Status::fail("no CUDA support");
}
Status GpuState::memset(void*, int, std::size_t) {
  return Status::fail("no CUDA support");
}
Status GpuState::launch_collective(int, const std::function<int()>&, const char*) {
  return Status::fail("no CUDA support");
}
void GpuState::reset_launch_seq(int) {}
Status GpuState::copy(void*, const void*, std::size_t) {
  return Status::fail("no CUDA support");
}
Result<std::uint64_t> GpuState::header_word(std::size_t) {
  return Status::fail("no CUDA support");
}
Status GpuState::set_header_word(std::size_t, std::uint64_t) {
  return Status::fail("no CUDA support");
}

}  // namespace detail

// Unreachable without a GPU backend (gpu_ is always null); kept so the header links.
namespace {
[[noreturn]] void no_cuda(const char* what) {
  std::fprintf(stderr, "symmetra: %s needs the CUDA backend, which this build does not have\n",
               what);
  std::abort();
}
}  // namespace

void Runtime::gpu_put(void*, const void*, std::size_t, int, const char*) {
  no_cuda("put");
}
void Runtime::gpu_get(void*, const void*, std::size_t, int, const char*) {
  no_cuda("get");
}
void Runtime::gpu_strided(void*, const void*, std::size_t, std::ptrdiff_t, std::ptrdiff_t,
                          std::size_t, int, bool) {
  no_cuda("iput/iget");
}
void Runtime::gpu_quiet() {
  no_cuda("quiet");
}
// Reachable: the _on_stream collectives call it on any backend.
void Runtime::gpu_collective(const CollCall&, Stream, const char* op) {
  fail(std::string(op) +
       ": the stream forms of the collectives need the CUDA backend, which this "
       "build does not have");
}
void Runtime::gpu_poll_step(const char*, const void*, std::size_t, void*, std::uint64_t,
                            std::uint64_t) {
  no_cuda("wait");
}
template <class T>
T Runtime::gpu_amo(AmoOp, T*, T, T, int) {
  no_cuda("atomics");
}
#define SYMMETRA_NO_GPU_AMO(T) template T Runtime::gpu_amo<T>(AmoOp, T*, T, T, int);
SYMMETRA_NO_GPU_AMO(int)
SYMMETRA_NO_GPU_AMO(unsigned)
SYMMETRA_NO_GPU_AMO(long)
SYMMETRA_NO_GPU_AMO(unsigned long)
SYMMETRA_NO_GPU_AMO(long long)
SYMMETRA_NO_GPU_AMO(unsigned long long)
SYMMETRA_NO_GPU_AMO(float)
SYMMETRA_NO_GPU_AMO(double)

void Runtime::putmem_on_stream(void*, const void*, std::size_t, int, Stream) {
  no_cuda("putmem_on_stream");
}
void Runtime::getmem_on_stream(void*, const void*, std::size_t, int, Stream) {
  no_cuda("getmem_on_stream");
}
void Runtime::signal_op_on_stream(std::uint64_t*, std::uint64_t, SignalOp, int, Stream) {
  no_cuda("signal_op_on_stream");
}
void Runtime::putmem_signal_on_stream(void*, const void*, std::size_t, std::uint64_t*,
                                      std::uint64_t, SignalOp, int, Stream) {
  no_cuda("putmem_signal_on_stream");
}
void Runtime::signal_wait_until_on_stream(std::uint64_t*, Cmp, std::uint64_t, Stream) {
  no_cuda("signal_wait_until_on_stream");
}
void Runtime::quiet_on_stream(Stream) {
  no_cuda("quiet_on_stream");
}
void Runtime::barrier_all_on_stream(Stream) {
  no_cuda("barrier_all_on_stream");
}
void Runtime::launch_graph(void*, Stream) {
  no_cuda("launch_graph");
}

}  // namespace symmetra
