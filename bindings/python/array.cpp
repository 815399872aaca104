// Symmetric memory as arrays (docs/python.md "Arrays"): symmetra.Array, which NumPy, PyTorch,
// JAX and CuPy take zero-copy through DLPack, its collective allocation and free, views of a
// peer's copy, and the conversion of any argument into memory an operation may touch.
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <cstdio>
#include <cstring>
#include <optional>
#include <utility>
#include <vector>

#include "bindings/python/common.hpp"

namespace symmetra::python {
namespace {

// Symmetric memory with a shape and an element type. Owns nothing Python can free by accident:
// dropping the last reference frees no memory, because freeing is collective and a garbage
// collector runs at different moments on different PEs; symmetra.free() frees (every PE calls
// it). A view of a peer's copy (peer()) owns nothing at all.
struct Array {
  void* data = nullptr;
  std::vector<std::size_t> shape;
  int dtype = 0;
  int device_type = kDlCpu;
  int device_id = 0;
  bool owner = true;  // from empty(): free() takes it
  bool freed = false;
  int pe = -1;  // a peer view: whose copy

  std::size_t count() const {
    std::size_t n = 1;
    for (std::size_t s : shape) n *= s;
    return n;
  }
  std::size_t nbytes() const {
    return count() * static_cast<std::size_t>(data_type_size(static_cast<DataType>(dtype)));
  }
  void check_live(const char* op) const {
    if (freed)
      throw nb::value_error((std::string(op) + ": the array was freed (symmetra.free)").c_str());
  }
};

nb::dlpack::dtype dtype_for(const Array& a) {
  return dlpack_dtype(static_cast<DataType>(a.dtype));
}

// An nb::ndarray over the Array's memory that keeps `self` alive while it lives.
template <class... Framework>
nb::object as_ndarray(nb::handle self, const Array& a) {
  return nb::cast(nb::ndarray<Framework...>(a.data, a.shape.size(), a.shape.data(), self, nullptr,
                                            dtype_for(a), a.device_type, a.device_id),
                  nb::rv_policy::reference);
}

std::string device_name(int type, int id) {
  return type == kDlCuda ? "cuda:" + std::to_string(id) : std::string("cpu");
}

bool c_contiguous(const nb::ndarray<nb::ro>& a) {
  std::int64_t expect = 1;
  for (std::size_t i = a.ndim(); i-- > 0;) {
    if (a.shape(i) != 1 && a.stride(i) != expect) return false;
    expect *= static_cast<std::int64_t>(a.shape(i));
  }
  return true;
}

}  // namespace

int data_type_of(nb::dlpack::dtype t) {
  using C = nb::dlpack::dtype_code;
  if (t.lanes != 1) return -1;
  const auto code = static_cast<C>(t.code);
  const int i = t.bits == 8 ? 0 : t.bits == 16 ? 1 : t.bits == 32 ? 2 : t.bits == 64 ? 3 : -1;
  if (i < 0) return -1;
  static constexpr DataType kInts[] = {DataType::kInt8, DataType::kInt16, DataType::kInt32,
                                       DataType::kInt64};
  static constexpr DataType kUints[] = {DataType::kUint8, DataType::kUint16, DataType::kUint32,
                                        DataType::kUint64};
  if (code == C::Int) return static_cast<int>(kInts[i]);
  if (code == C::UInt) return static_cast<int>(kUints[i]);
  if (code == C::Float && i == 1) return static_cast<int>(DataType::kHalf);
  if (code == C::Float && i == 2) return static_cast<int>(DataType::kFloat);
  if (code == C::Float && i == 3) return static_cast<int>(DataType::kDouble);
  if (code == C::Bfloat && i == 1) return static_cast<int>(DataType::kBfloat16);
  return -1;
}

nb::dlpack::dtype dlpack_dtype(DataType t) {
  using C = nb::dlpack::dtype_code;
  C code = C::Float;
  switch (t) {
    case DataType::kInt8:
    case DataType::kInt16:
    case DataType::kInt32:
    case DataType::kInt64:
      code = C::Int;
      break;
    case DataType::kUint8:
    case DataType::kUint16:
    case DataType::kUint32:
    case DataType::kUint64:
      code = C::UInt;
      break;
    case DataType::kBfloat16:
      code = C::Bfloat;
      break;
    default:
      break;
  }
  return {static_cast<std::uint8_t>(code), static_cast<std::uint8_t>(8 * data_type_size(t)), 1};
}

const char* dtype_name(int t) {
  static constexpr const char* kNames[] = {"int8",    "uint8",    "int16",   "uint16",
                                           "int32",   "uint32",   "int64",   "uint64",
                                           "float16", "bfloat16", "float32", "float64"};
  return t >= 0 && t < 12 ? kNames[t] : "an element type the collectives do not take";
}

Buffer buffer(nb::handle h, const char* op, const char* arg) {
  Buffer b;
  if (nb::isinstance<Array>(h)) {  // the fast path: no DLPack exchange
    const Array& a = nb::cast<const Array&>(h);
    a.check_live(op);
    b.data = a.data;
    b.count = a.count();
    b.itemsize = static_cast<std::size_t>(data_type_size(static_cast<DataType>(a.dtype)));
    b.dtype = a.dtype;
    b.device_type = a.device_type;
    b.device_id = a.device_id;
    return b;
  }
  nb::ndarray<nb::ro> nd;
  if (!nb::try_cast(h, nd))
    throw nb::type_error((std::string(op) + ": " + arg +
                          " must be an array (symmetra.Array, or "
                          "anything with __dlpack__: a NumPy array, a torch.Tensor), not " +
                          nb::type_name(h.type()).c_str())
                             .c_str());
  if (!c_contiguous(nd))
    throw nb::value_error(
        (std::string(op) + ": " + arg + " is not contiguous: pass a C-contiguous array").c_str());
  b.data = const_cast<void*>(nd.data());
  b.count = nd.size();
  b.itemsize = nd.itemsize();
  b.dtype = data_type_of(nd.dtype());
  b.device_type = nd.device_type();
  b.device_id = nd.device_id();
  return b;
}

Buffer symmetric(nb::handle h, const char* op, const char* arg) {
  Buffer b = buffer(h, op, arg);
  const Runtime& r = rt(op);
  const auto* p = static_cast<const std::byte*>(b.data);
  if (b.nbytes() > 0 && (!r.is_symmetric(p) || !r.is_symmetric(p + b.nbytes() - 1))) {
    char where[32];
    std::snprintf(where, sizeof(where), "%p", static_cast<const void*>(p));
    throw nb::value_error((std::string(op) + ": " + arg + " (" + std::to_string(b.nbytes()) +
                           " bytes at " + where +
                           ") is not in the symmetric heap: make it with symmetra.empty or "
                           "symmetra.zeros")
                              .c_str());
  }
  return b;
}

void check_pe(const Runtime& r, int pe, const char* op) {
  if (pe < 0 || pe >= r.n_pes())
    throw nb::value_error((std::string(op) + ": pe " + std::to_string(pe) +
                           " is not a PE of this job of " + std::to_string(r.n_pes()))
                              .c_str());
}

void check_same_dtype(const Buffer& a, const Buffer& b, const char* op, const char* an,
                      const char* bn) {
  if (a.itemsize != b.itemsize || a.dtype != b.dtype)
    throw nb::value_error((std::string(op) + ": " + an + " holds " + dtype_name(a.dtype) + " but " +
                           bn + " holds " + dtype_name(b.dtype) + ": pass the same dtype")
                              .c_str());
}

void check_device(const Runtime& r, const Buffer& b, const char* op, const char* arg) {
  const int want = r.on_gpu() ? kDlCuda : kDlCpu;
  // CUDA host memory (pinned, managed) is reachable from both sides: the copies take it.
  if (b.device_type == want || b.device_type == 3 /*kDLCUDAHost*/ || b.device_type == 13) return;
  throw nb::value_error((std::string(op) + ": " + arg + " is on " +
                         device_name(b.device_type, b.device_id) + " but this PE's heap is on " +
                         device_name(want, r.device()) + ": pass memory of that device")
                            .c_str());
}

std::optional<Stream> stream_of(const Runtime& r, nb::handle s, const char* op) {
  if (s.is_none()) return std::nullopt;
  if (!r.on_gpu())
    throw nb::value_error((std::string(op) +
                           ": stream forms need the GPU backend (init(backend='cuda')); this "
                           "PE's heap is on the CPU: call it without stream")
                              .c_str());
  nb::object h = nb::borrow(s);
  if (PyLong_Check(h.ptr())) {
    // The cheap case first: a handle, read without attribute lookups.
  } else if (nb::hasattr(h, "__cuda_stream__")) {
    h = h.attr("__cuda_stream__")()[1];  // (version, handle)
  } else if (nb::hasattr(h, "cuda_stream")) {
    h = h.attr("cuda_stream");
  } else if (nb::hasattr(h, "ptr")) {
    h = h.attr("ptr");
  }
  std::uintptr_t v = 0;
  if (!nb::try_cast(h, v))
    throw nb::type_error((std::string(op) +
                          ": stream must be None, an int (a cudaStream_t), a torch.cuda.Stream, "
                          "a CuPy stream or an object with __cuda_stream__, not " +
                          nb::type_name(s.type()).c_str())
                             .c_str());
  return reinterpret_cast<Stream>(v == 0 ? 1 /* cudaStreamLegacy */ : v);
}

void bind_array(nb::module_& m) {
  nb::class_<Array>(m, "Array",
                    "Symmetric memory: the same shape on every PE, at the same offset of each "
                    "PE's heap. Made by symmetra.empty/zeros (collective), freed by symmetra.free "
                    "(collective); dropping it frees nothing. Zero-copy into NumPy, PyTorch, JAX "
                    "and CuPy through DLPack (numpy.from_dlpack, torch.from_dlpack, ...).")
      .def_prop_ro("shape",
                   [](const Array& a) {
                     nb::list l;
                     for (std::size_t s : a.shape) l.append(s);
                     return nb::tuple(l);
                   })
      .def_prop_ro("dtype", [](const Array& a) { return std::string(dtype_name(a.dtype)); })
      .def_prop_ro("size", &Array::count)
      .def_prop_ro("nbytes", &Array::nbytes)
      .def_prop_ro("device", [](const Array& a) { return device_name(a.device_type, a.device_id); })
      .def_prop_ro("data_ptr",
                   [](const Array& a) { return reinterpret_cast<std::uintptr_t>(a.data); })
      .def_prop_ro("freed", [](const Array& a) { return a.freed; })
      .def_prop_ro(
          "pe", [](const Array& a) { return a.pe; },
          "For a view of a peer's copy (peer()), that PE; else -1.")
      .def("__dlpack__",
           [](nb::handle self, nb::kwargs kwargs) {
             const Array& a = nb::cast<const Array&>(self);
             a.check_live("__dlpack__");
             return as_ndarray<nb::array_api>(self, a).attr("__dlpack__")(**kwargs);
           })
      .def("__dlpack_device__",
           [](const Array& a) { return nb::make_tuple(a.device_type, a.device_id); })
      .def(
          "numpy",
          [](nb::handle self) {
            const Array& a = nb::cast<const Array&>(self);
            a.check_live("numpy");
            if (a.device_type != kDlCpu)
              throw nb::value_error("numpy: the array is in GPU memory: use torch or CuPy");
            return as_ndarray<nb::numpy>(self, a);
          },
          "A NumPy view of this PE's copy (no copy; writes go to the heap).")
      .def("__repr__", [](const Array& a) {
        std::string s = "symmetra.Array(shape=(";
        for (std::size_t i = 0; i < a.shape.size(); ++i)
          s += std::to_string(a.shape[i]) +
               (a.shape.size() == 1 || i + 1 < a.shape.size() ? "," : "");
        s += "), dtype=" + std::string(dtype_name(a.dtype)) +
             ", device=" + device_name(a.device_type, a.device_id) +
             (a.pe >= 0 ? ", pe=" + std::to_string(a.pe) : "") + (a.freed ? ", freed" : "") + ")";
        return s;
      });

  m.def(
      "_empty",
      [](const std::vector<std::size_t>& shape, int dtype, bool zero) {
        Runtime& r = rt("empty");
        if (dtype < 0 || dtype >= 12) throw nb::value_error("empty: unknown dtype");
        Array a;
        a.shape = shape;
        a.dtype = dtype;
        // The shape's bytes, overflow-checked: a product that wraps would allocate too little.
        std::size_t bytes = data_type_size(static_cast<DataType>(dtype));
        for (std::size_t d : shape)
          if (__builtin_mul_overflow(bytes, d, &bytes))
            throw OutOfMemory("[pe " + std::to_string(r.my_pe()) +
                              "] empty: the shape's size in bytes overflows");
        {
          nb::gil_scoped_release release;  // collective: the others may take a while
          a.data = r.allocate(bytes);
          if (zero && bytes > 0) {
            if (r.on_gpu()) {
              // The heap is device memory: clear it through a put of zeros from the host.
              std::vector<std::byte> zeros(bytes);
              r.putmem(a.data, zeros.data(), bytes, r.my_pe());
            } else {
              std::memset(a.data, 0, bytes);
            }
          }
          if (zero) r.barrier_all();  // no PE writes into another's copy before it is zeroed
        }
        a.device_type = r.on_gpu() ? kDlCuda : kDlCpu;
        a.device_id = r.on_gpu() ? r.device() : 0;
        return a;
      },
      nb::arg("shape"), nb::arg("dtype"), nb::arg("zero"));

  m.def(
      "_view",
      [](std::uintptr_t data, std::size_t count, int dtype, int device_type, int device_id) {
        if (dtype < 0 || dtype >= 12) throw nb::value_error("_view: unknown dtype");
        Array v;
        v.data = reinterpret_cast<void*>(data);
        v.shape = {count};
        v.dtype = dtype;
        v.device_type = device_type;
        v.device_id = device_id;
        v.owner = false;
        return v;
      },
      nb::arg("data"), nb::arg("count"), nb::arg("dtype"), nb::arg("device_type"),
      nb::arg("device_id"),
      "A flat Array over memory a framework owns (symmetra.torch passes tensors so, without a "
      "DLPack exchange: torch's __dlpack__ synchronizes with the default stream, which breaks "
      "graph capture). Owns nothing; the operations check it as any argument.");

  m.def(
      "free",
      [](Array& a) {
        Runtime& r = rt("free");
        a.check_live("free");
        if (!a.owner)
          throw nb::value_error(
              "free: this array is a view (peer(), or of a framework's tensor): free the array "
              "it came from");
        {
          nb::gil_scoped_release release;
          r.free(a.data);
        }
        a.freed = true;
        a.data = nullptr;
      },
      nb::arg("array"),
      "Collective: every PE frees its copy, in the same order as the others. The array and every "
      "view of it (NumPy, torch, peer views) must not be used after.");

  m.def(
      "peer",
      [](nb::handle h, int pe) -> std::optional<Array> {
        const Buffer b = symmetric(h, "peer", "array");
        Runtime& r = rt("peer");
        check_pe(r, pe, "peer");
        void* p = r.ptr(b.data, pe);
        if (p == nullptr) return std::nullopt;
        Array v;
        v.data = p;
        v.dtype = b.dtype >= 0 ? b.dtype : static_cast<int>(DataType::kUint8);
        v.shape = {b.dtype >= 0 ? b.count : b.nbytes()};
        if (nb::isinstance<Array>(h)) v.shape = nb::cast<const Array&>(h).shape;
        v.device_type = b.device_type;
        v.device_id = b.device_id;
        v.owner = false;
        v.pe = pe;
        return v;
      },
      nb::arg("array"), nb::arg("pe"),
      "A view of PE `pe`'s copy of `array` for direct loads and stores, or None where that PE "
      "is not reachable by load and store (another host). Not collective.");
}

}  // namespace symmetra::python
