// What the Python extension's parts share (docs/python.md): the process's Runtime, and the
// checks that turn a Python argument into memory the public API may touch.
//
// The extension binds the public API only (symmetra/runtime.hpp), never src/ internals. A PE is
// a process: one Runtime per interpreter, made by init() and ended by finalize(). Every check
// here runs before the call it guards, so that a wrong argument raises ValueError naming it and
// never reaches the data path's own checks, which end the job.
//
// Threads: the calls hold the GIL, except where they say they release it (the waits, the
// collectives, setup); the CPU backend's data path is safe from several threads anyway.
#pragma once

#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <tuple>
#include <utility>

#include "symmetra/data_type.hpp"
#include "symmetra/ep.hpp"
#include "symmetra/kernels/ring_attention.hpp"
#include "symmetra/runtime.hpp"

namespace symmetra::python {

namespace nb = nanobind;

// The Runtime of this process, or SymmetraError "<op>: symmetra is not initialized".
Runtime& rt(const char* op);
// Null before init and after finalize.
Runtime* rt_or_null();

// DLPack device types (dlpack.h's DLDeviceType).
inline constexpr int kDlCpu = 1;
inline constexpr int kDlCuda = 2;

// Memory an operation reads or writes: a symmetra.Array, or anything with __dlpack__ (a NumPy
// array, a torch.Tensor, a CuPy array), C-contiguous.
struct Buffer {
  void* data = nullptr;
  std::size_t count = 0;     // elements
  std::size_t itemsize = 0;  // bytes per element
  int dtype = -1;            // a DataType, -1 for a type the collectives do not take
  int device_type = kDlCpu;
  int device_id = 0;
  std::size_t nbytes() const { return count * itemsize; }
};

// `arg` of operation `op` as memory; ValueError naming both where it is not contiguous memory
// (or freed), TypeError where it is not an array at all.
Buffer buffer(nb::handle h, const char* op, const char* arg);
// The same, and the whole of it in the symmetric heap (ValueError naming the argument).
Buffer symmetric(nb::handle h, const char* op, const char* arg);
// ValueError unless `pe` is a PE of this job.
void check_pe(const Runtime& r, int pe, const char* op);
// ValueError unless the two buffers hold the same element type.
void check_same_dtype(const Buffer& a, const Buffer& b, const char* op, const char* an,
                      const char* bn);
// ValueError unless the buffer is on the device the Runtime's heap is (CPU or its GPU).
void check_device(const Runtime& r, const Buffer& b, const char* op, const char* arg);

// A `stream` argument: None gives nullopt (the host form); otherwise the CUDA stream to enqueue
// on, from an int (a cudaStream_t's value), or an object that gives one: `__cuda_stream__()`
// (CUDA Python's stream protocol), `.cuda_stream` (torch.cuda.Stream) or `.ptr` (CuPy). Stream 0,
// the legacy default stream, becomes cudaStreamLegacy, since a null Stream means "host form" to
// Runtime::collective. ValueError where the heap is not on the GPU.
std::optional<Stream> stream_of(const Runtime& r, nb::handle s, const char* op);

// DataType of a DLPack dtype, -1 if none.
int data_type_of(nb::dlpack::dtype t);
nb::dlpack::dtype dlpack_dtype(DataType t);
// NumPy's name of a DataType ("float32", "bfloat16").
const char* dtype_name(int t);

// Ring attention's shape (ring.cpp): batch, this PE's tokens, q_heads, kv_heads, head_dim,
// causal (0 or 1).
using RingDims =
    std::tuple<std::int64_t, std::int64_t, std::int64_t, std::int64_t, std::int64_t, std::int64_t>;
// Collective at the first call with a shape: the ring of that shape and type over the world,
// kept until release_rings (collective, before finalize). symmetra::Error for a bad shape.
kernels::RingAttention& ring_of(Runtime& r, const RingDims& d, DataType type);
void release_rings();

// symmetra::ep (moe.cpp): the Dispatcher of a config, made collectively at the first call with
// it and kept until release_moe (collective, before finalize); a dispatch's handle kept under a
// number (alike on every PE) for the last kMoeKeep dispatches, and found again by it
// (symmetra::Error naming `op` where it is gone).
inline constexpr std::size_t kMoeKeep = 64;
ep::Dispatcher& moe_of(Runtime& r, const ep::Config& c);
std::int32_t moe_keep(ep::Dispatcher& d, ep::Handle h);
std::pair<ep::Dispatcher*, ep::Handle> moe_find(std::int32_t id, const char* op);
void release_moe();
// The parts of the module (array.cpp, ops.cpp, coll.cpp, bench.cpp, ring.cpp; jax_ffi.cpp where
// jaxlib's headers were found at build time).
void bind_array(nb::module_& m);
void bind_ops(nb::module_& m);
void bind_coll(nb::module_& m);
void bind_bench(nb::module_& m);
void bind_ring(nb::module_& m);
void bind_jax(nb::module_& m);
// Collective: what symmetra.jax keeps on the heap (its workspaces), freed before finalize.
void release_jax_state();

}  // namespace symmetra::python
