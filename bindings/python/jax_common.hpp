// What symmetra.jax's XLA FFI handlers share (jax_ffi.cpp, jax_moe.cpp): XLA's element types as
// DataTypes, and the guard that turns an exception into an FFI error JAX raises with its message.
#pragma once

#include <xla/ffi/api/ffi.h>

#include <exception>
#include <string>

namespace symmetra::python {

// XLA's element type as a DataType, -1 where Symmetra takes none.
int jax_data_type_of(xla::ffi::DataType t);

// Runs f; an exception becomes an Internal error "symmetra.jax.<op>: <what>".
template <class F>
xla::ffi::Error guarded(const char* op, F&& f) {
  try {
    f();
  } catch (const std::exception& e) {
    return xla::ffi::Error::Internal(std::string("symmetra.jax.") + op + ": " + e.what());
  }
  return xla::ffi::Error::Success();
}

}  // namespace symmetra::python
