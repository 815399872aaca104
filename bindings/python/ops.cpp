// One-sided operations from Python (docs/python.md "Operations"): put and get of whole arrays,
// p and g of one element, the atomics, put with signal, the waits, fence and quiet. Host forms:
// each completes as its C++ form does (runtime.hpp); none is collective.
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/string_view.h>

#include <optional>
#include <string_view>
#include <type_traits>

#include "bindings/python/common.hpp"

namespace symmetra::python {
namespace {

// Copies this large release the GIL, so other Python threads run meanwhile; smaller ones keep
// it (releasing and taking it back costs about as much as an 8-byte put).
constexpr std::size_t kReleaseGilBytes = 64 * 1024;

Cmp cmp_of(std::string_view s, const char* op) {
  static constexpr std::string_view kNames[] = {"eq", "ne", "gt", "ge", "lt", "le"};
  for (int i = 0; i < 6; ++i)
    if (s == kNames[i]) return static_cast<Cmp>(i);  // Cmp's order
  throw nb::value_error((std::string(op) +
                         ": cmp must be one of 'eq', 'ne', 'gt', 'ge', 'lt', "
                         "'le', not '" +
                         std::string(s) + "'")
                            .c_str());
}

SignalOp signal_op_of(std::string_view s, const char* op) {
  if (s == "set") return SignalOp::kSet;
  if (s == "add") return SignalOp::kAdd;
  throw nb::value_error(
      (std::string(op) + ": signal_op must be 'set' or 'add', not '" + std::string(s) + "'")
          .c_str());
}

// The element `index` of a symmetric array, for the one-element operations.
Buffer element(nb::handle h, std::size_t index, const char* op, const char* arg) {
  Buffer b = symmetric(h, op, arg);
  if (index >= b.count)
    throw nb::value_error((std::string(op) + ": index " + std::to_string(index) + " is outside " +
                           arg + " (" + std::to_string(b.count) + " elements)")
                              .c_str());
  b.data = static_cast<std::byte*>(b.data) + index * b.itemsize;
  b.count = 1;
  return b;
}

// The uint64 word signal[index] of a signal operation (ValueError for another element type).
std::uint64_t* signal_word(nb::handle signal, std::size_t index, const char* op) {
  const Buffer sig = element(signal, index, op, "signal");
  if (sig.dtype != static_cast<int>(DataType::kUint64))
    throw nb::value_error(
        (std::string(op) + ": signal must hold uint64, not " + dtype_name(sig.dtype)).c_str());
  return static_cast<std::uint64_t*>(sig.data);
}

// Calls f(std::type_identity<T>{}) for the element type of `b`; ValueError for types the
// operation does not take. Atomics: 32- and 64-bit integers, and for fetch, set and swap also
// float32 and float64 (OpenSHMEM's standard and extended AMO types).
template <bool Floats, class F>
decltype(auto) visit_amo(const Buffer& b, const char* op, const char* arg, F&& f) {
  switch (static_cast<DataType>(b.dtype)) {
    case DataType::kInt32:
      return f(std::type_identity<std::int32_t>{});
    case DataType::kUint32:
      return f(std::type_identity<std::uint32_t>{});
    case DataType::kInt64:
      return f(std::type_identity<std::int64_t>{});
    case DataType::kUint64:
      return f(std::type_identity<std::uint64_t>{});
    case DataType::kFloat:
      if constexpr (Floats) return f(std::type_identity<float>{});
      break;
    case DataType::kDouble:
      if constexpr (Floats) return f(std::type_identity<double>{});
      break;
    default:
      break;
  }
  throw nb::value_error((std::string(op) + ": " + arg + " holds " + dtype_name(b.dtype) +
                         "; this operation takes int32, uint32, int64, uint64" +
                         (Floats ? ", float32, float64" : ""))
                            .c_str());
}

// A Python number as T (ValueError where it does not fit).
template <class T>
T value_as(nb::handle v, const char* op) {
  T out{};
  if (!nb::try_cast(v, out, true))
    throw nb::value_error((std::string(op) + ": value " + nb::repr(v).c_str() +
                           " does not fit the array's element type")
                              .c_str());
  return out;
}

template <class T>
nb::object to_python(T v) {
  if constexpr (std::is_same_v<T, half> || std::is_same_v<T, bfloat16>)
    return nb::float_(static_cast<float>(v));
  else
    return nb::cast(v);
}

// One element's operations for every DataType (p, g take half and bfloat16 too).
template <class F>
decltype(auto) visit_any(const Buffer& b, const char* op, F&& f) {
  if (b.dtype < 0)
    throw nb::value_error((std::string(op) +
                           ": the array's element type is not one Symmetra "
                           "takes (int8-64, uint8-64, float16, bfloat16, float32, float64)")
                              .c_str());
  return visit_type(static_cast<DataType>(b.dtype), std::forward<F>(f));
}

template <class T>
T scalar_as(nb::handle v, const char* op) {
  if constexpr (std::is_same_v<T, half> || std::is_same_v<T, bfloat16>)
    return T(value_as<float>(v, op));
  else
    return value_as<T>(v, op);
}

// Both arrays of a put or get: the symmetric one, the other (any memory of this PE's device),
// the same dtype and size.
std::pair<Buffer, Buffer> rma_pair(nb::handle sym, nb::handle local, const char* op,
                                   const char* sym_name, const char* local_name) {
  Runtime& r = rt(op);
  Buffer s = symmetric(sym, op, sym_name);
  Buffer l = buffer(local, op, local_name);
  check_device(r, l, op, local_name);
  check_same_dtype(s, l, op, sym_name, local_name);
  if (s.count != l.count)
    throw nb::value_error((std::string(op) + ": " + sym_name + " has " + std::to_string(s.count) +
                           " elements but " + local_name + " has " + std::to_string(l.count) +
                           ": pass arrays of one size (slice the larger one)")
                              .c_str());
  return {s, l};
}

// put (the symmetric array is dest) or get (it is src): blocking, non-blocking, or on a stream.
void rma(nb::handle dest, nb::handle src, int pe, bool nbi, bool put, nb::handle stream) {
  const char* op = put ? (nbi ? "put_nbi" : "put") : (nbi ? "get_nbi" : "get");
  Runtime& r = rt(op);
  const auto [sym, local] =
      put ? rma_pair(dest, src, op, "dest", "src") : rma_pair(src, dest, op, "src", "dest");
  check_pe(r, pe, op);
  if (const std::optional<Stream> s = stream_of(r, stream, op)) {
    if (put)
      r.putmem_on_stream(sym.data, local.data, sym.nbytes(), pe, *s);
    else
      r.getmem_on_stream(local.data, sym.data, sym.nbytes(), pe, *s);
    return;
  }
  std::optional<nb::gil_scoped_release> release;
  if (sym.nbytes() >= kReleaseGilBytes) release.emplace();
  if (put && nbi)
    r.putmem_nbi(sym.data, local.data, sym.nbytes(), pe);
  else if (put)
    r.putmem(sym.data, local.data, sym.nbytes(), pe);
  else if (nbi)
    r.getmem_nbi(local.data, sym.data, sym.nbytes(), pe);
  else
    r.getmem(local.data, sym.data, sym.nbytes(), pe);
}

}  // namespace

void bind_ops(nb::module_& m) {
  const auto kStream = nb::arg("stream") = nb::none();
  m.def(
      "put",
      [](nb::handle dest, nb::handle src, int pe, bool nbi, nb::handle stream) {
        rma(dest, src, pe, nbi, true, stream);
      },
      nb::arg("dest"), nb::arg("src"), nb::arg("pe"), nb::arg("nbi") = false, kStream,
      "Copies src (this PE's memory) into PE pe's copy of the symmetric dest. Returns once src "
      "may be reused (nbi=True: at once; quiet() completes it); quiet() makes it visible. With "
      "stream: enqueued there (copy engine), complete when the stream gets there.");
  m.def(
      "get",
      [](nb::handle dest, nb::handle src, int pe, bool nbi, nb::handle stream) {
        rma(dest, src, pe, nbi, false, stream);
      },
      nb::arg("dest"), nb::arg("src"), nb::arg("pe"), nb::arg("nbi") = false, kStream,
      "Copies PE pe's copy of the symmetric src into dest (this PE's memory); complete on return "
      "(nbi=True: after quiet(); stream: when the stream gets there).");
  m.def(
      "p",
      [](nb::handle dest, nb::handle value, int pe, std::size_t index) {
        Runtime& r = rt("p");
        const Buffer d = element(dest, index, "p", "dest");
        check_pe(r, pe, "p");
        visit_any(d, "p", [&]<class T>(std::type_identity<T>) {
          r.p(static_cast<T*>(d.data), scalar_as<T>(value, "p"), pe);
        });
      },
      nb::arg("dest"), nb::arg("value"), nb::arg("pe"), nb::arg("index") = 0,
      "Stores one element into PE pe's copy of dest[index].");
  m.def(
      "g",
      [](nb::handle src, int pe, std::size_t index) {
        Runtime& r = rt("g");
        const Buffer s = element(src, index, "g", "src");
        check_pe(r, pe, "g");
        return visit_any(s, "g", [&]<class T>(std::type_identity<T>) {
          return to_python(r.g(static_cast<const T*>(s.data), pe));
        });
      },
      nb::arg("src"), nb::arg("pe"), nb::arg("index") = 0, "Loads PE pe's copy of src[index].");

  // The atomics on one element of dest: (name, whether it takes floats, the call on word w with
  // value v). The fetching ones return the old value, the others None.
#define SYMMETRA_PY_AMO(name, floats, call)                                          \
  m.def(                                                                             \
      #name,                                                                         \
      [](nb::handle dest, nb::handle value, int pe, std::size_t index) {             \
        Runtime& r = rt(#name);                                                      \
        const Buffer d = element(dest, index, #name, "dest");                        \
        check_pe(r, pe, #name);                                                      \
        return visit_amo<floats>(d, #name, "dest",                                   \
                                 [&]<class T>(std::type_identity<T>) -> nb::object { \
                                   T* w = static_cast<T*>(d.data);                   \
                                   const T v = value_as<T>(value, #name);            \
                                   if constexpr (std::is_void_v<decltype(call)>) {   \
                                     call;                                           \
                                     return nb::none();                              \
                                   } else {                                          \
                                     return to_python(call);                         \
                                   }                                                 \
                                 });                                                 \
      },                                                                             \
      nb::arg("dest"), nb::arg("value"), nb::arg("pe"), nb::arg("index") = 0)
  SYMMETRA_PY_AMO(atomic_swap, true, r.atomic_swap(w, v, pe));
  SYMMETRA_PY_AMO(atomic_fetch_add, false, r.atomic_fetch_add(w, v, pe));
  SYMMETRA_PY_AMO(atomic_fetch_and, false, r.atomic_fetch_and(w, v, pe));
  SYMMETRA_PY_AMO(atomic_fetch_or, false, r.atomic_fetch_or(w, v, pe));
  SYMMETRA_PY_AMO(atomic_fetch_xor, false, r.atomic_fetch_xor(w, v, pe));
  SYMMETRA_PY_AMO(atomic_set, true, r.atomic_set(w, v, pe));
  SYMMETRA_PY_AMO(atomic_add, false, r.atomic_add(w, v, pe));
  SYMMETRA_PY_AMO(atomic_and, false, r.atomic_and(w, v, pe));
  SYMMETRA_PY_AMO(atomic_or, false, r.atomic_or(w, v, pe));
  SYMMETRA_PY_AMO(atomic_xor, false, r.atomic_xor(w, v, pe));
#undef SYMMETRA_PY_AMO
  m.def(
      "atomic_fetch",
      [](nb::handle dest, int pe, std::size_t index) {
        Runtime& r = rt("atomic_fetch");
        const Buffer d = element(dest, index, "atomic_fetch", "dest");
        check_pe(r, pe, "atomic_fetch");
        return visit_amo<true>(d, "atomic_fetch", "dest", [&]<class T>(std::type_identity<T>) {
          return to_python(r.atomic_fetch(static_cast<const T*>(d.data), pe));
        });
      },
      nb::arg("dest"), nb::arg("pe"), nb::arg("index") = 0);
  m.def(
      "atomic_compare_swap",
      [](nb::handle dest, nb::handle cond, nb::handle value, int pe, std::size_t index) {
        const char* op = "atomic_compare_swap";
        Runtime& r = rt(op);
        const Buffer d = element(dest, index, op, "dest");
        check_pe(r, pe, op);
        return visit_amo<false>(d, op, "dest", [&]<class T>(std::type_identity<T>) {
          return to_python(r.atomic_compare_swap(static_cast<T*>(d.data), value_as<T>(cond, op),
                                                 value_as<T>(value, op), pe));
        });
      },
      nb::arg("dest"), nb::arg("cond"), nb::arg("value"), nb::arg("pe"), nb::arg("index") = 0,
      "Stores value into PE pe's dest[index] where it equals cond; returns the old value.");

  m.def(
      "put_signal",
      [](nb::handle dest, nb::handle src, nb::handle signal, std::uint64_t value, int pe,
         std::string_view signal_op, bool nbi, std::size_t signal_index, nb::handle stream) {
        const char* op = nbi ? "put_signal_nbi" : "put_signal";
        Runtime& r = rt(op);
        auto [d, s] = rma_pair(dest, src, op, "dest", "src");
        std::uint64_t* word = signal_word(signal, signal_index, op);
        check_pe(r, pe, op);
        const SignalOp sop = signal_op_of(signal_op, op);
        if (const std::optional<Stream> st = stream_of(r, stream, op)) {
          r.putmem_signal_on_stream(d.data, s.data, d.nbytes(), word, value, sop, pe, *st);
          return;
        }
        std::optional<nb::gil_scoped_release> release;
        if (d.nbytes() >= kReleaseGilBytes) release.emplace();
        if (nbi)
          r.putmem_signal_nbi(d.data, s.data, d.nbytes(), word, value, sop, pe);
        else
          r.putmem_signal(d.data, s.data, d.nbytes(), word, value, sop, pe);
      },
      nb::arg("dest"), nb::arg("src"), nb::arg("signal"), nb::arg("value"), nb::arg("pe"),
      nb::arg("signal_op") = "set", nb::arg("nbi") = false, nb::arg("signal_index") = 0, kStream,
      "put, then updates PE pe's signal[signal_index] ('set' or 'add' value) after the data: a "
      "PE that sees the signal sees the data. With stream: both in stream order.");
  m.def(
      "signal_op",
      [](nb::handle signal, std::uint64_t value, int pe, std::string_view signal_op,
         std::size_t index, nb::handle stream) {
        const char* op = "signal_op";
        Runtime& r = rt(op);
        std::uint64_t* word = signal_word(signal, index, op);
        check_pe(r, pe, op);
        const SignalOp sop = signal_op_of(signal_op, op);
        if (const std::optional<Stream> st = stream_of(r, stream, op))
          r.signal_op_on_stream(word, value, sop, pe, *st);
        else if (sop == SignalOp::kSet)
          r.atomic_set(word, value, pe);
        else
          r.atomic_add(word, value, pe);
      },
      nb::arg("signal"), nb::arg("value"), nb::arg("pe"), nb::arg("signal_op") = "set",
      nb::arg("index") = 0, kStream,
      "Updates PE pe's signal[index] ('set' or 'add' value), ordered after this PE's earlier "
      "puts to it by fence/quiet as an atomic; with stream: in stream order after earlier work.");
  m.def(
      "signal_fetch",
      [](nb::handle signal, std::size_t index) {
        return rt("signal_fetch").signal_fetch(signal_word(signal, index, "signal_fetch"));
      },
      nb::arg("signal"), nb::arg("index") = 0);
  m.def(
      "signal_wait_until",
      [](nb::handle signal, std::string_view cmp, std::uint64_t value, std::size_t index,
         nb::handle stream) -> std::optional<std::uint64_t> {
        const char* op = "signal_wait_until";
        Runtime& r = rt(op);
        std::uint64_t* word = signal_word(signal, index, op);
        const Cmp c = cmp_of(cmp, op);
        if (const std::optional<Stream> st = stream_of(r, stream, op)) {
          r.signal_wait_until_on_stream(word, c, value, *st);
          return std::nullopt;
        }
        nb::gil_scoped_release release;
        return r.signal_wait_until(word, c, value);
      },
      nb::arg("signal"), nb::arg("cmp"), nb::arg("value"), nb::arg("index") = 0, kStream,
      "Waits until this PE's signal[index] <cmp> value; returns the value seen. Bounded by "
      "SYMMETRA_TIMEOUT_S; releases the GIL. With stream: holds the stream instead (bounded "
      "too) and returns None at once.");
  m.def(
      "wait_until",
      [](nb::handle ivar, std::string_view cmp, nb::handle value, std::size_t index) {
        const char* op = "wait_until";
        Runtime& r = rt(op);
        const Buffer w = element(ivar, index, op, "ivar");
        const Cmp c = cmp_of(cmp, op);
        visit_amo<false>(w, op, "ivar", [&]<class T>(std::type_identity<T>) {
          const T v = value_as<T>(value, op);
          nb::gil_scoped_release release;
          r.wait_until(static_cast<const T*>(w.data), c, v);
        });
      },
      nb::arg("ivar"), nb::arg("cmp"), nb::arg("value"), nb::arg("index") = 0,
      "Waits until this PE's ivar[index] <cmp> value. Bounded; releases the GIL.");
  m.def(
      "test",
      [](nb::handle ivar, std::string_view cmp, nb::handle value, std::size_t index) {
        const char* op = "test";
        Runtime& r = rt(op);
        const Buffer w = element(ivar, index, op, "ivar");
        const Cmp c = cmp_of(cmp, op);
        return visit_amo<false>(w, op, "ivar", [&]<class T>(std::type_identity<T>) {
          return r.test(static_cast<const T*>(w.data), c, value_as<T>(value, op));
        });
      },
      nb::arg("ivar"), nb::arg("cmp"), nb::arg("value"), nb::arg("index") = 0);
  m.def(
      "fence", [] { rt("fence").fence(); },
      "Orders this PE's puts and atomics to each PE: earlier ones land before later ones.");
  m.def(
      "quiet",
      [](nb::handle stream) {
        Runtime& r = rt("quiet");
        if (const std::optional<Stream> st = stream_of(r, stream, "quiet")) {
          r.quiet_on_stream(*st);
          return;
        }
        nb::gil_scoped_release release;
        r.quiet();
      },
      kStream,
      "Completes this PE's puts, atomics and non-blocking operations: visible at their targets. "
      "With stream: completes that stream's earlier stream-ordered operations, in stream order.");
}

}  // namespace symmetra::python
