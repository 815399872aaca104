// Errors of setup calls (docs/design.md §4, docs/style.md "Errors").
//
// Setup calls throw symmetra::Error whose message names the PE and what to do. Internal control
// paths return Status / Result<T> and propagate them with SYMMETRA_TRY; the first code that sees
// an error words it. Data-path calls never throw for their own arguments: a failed check ends
// the job (see device/impl/check.hpp); their waits throw JobStopped (another PE stopped the job)
// and Timeout (nothing came within SYMMETRA_TIMEOUT_S).
#pragma once

#include <stdexcept>
#include <string>
#include <utility>
#include <variant>

namespace symmetra {

// Thrown by setup calls (init, allocate, team split, launch). Thread-safe to throw anywhere.
class Error : public std::runtime_error {
 public:
  explicit Error(const std::string& what) : std::runtime_error(what) {}
};

// Thrown by a wait when another PE's failure or departure stops the job (its message names that
// PE): this PE did nothing wrong. The OpenSHMEM C API ends the process with status 1 on it.
class JobStopped : public Error {
 public:
  using Error::Error;
};

// Thrown by a host-side wait that saw nothing it waits for arrive within SYMMETRA_TIMEOUT_S: a
// collective whose other members never came, a message that never arrived. The message names
// the wait and the PEs it was waiting for. This PE marked the job failed before throwing, so
// the other PEs' waits end with JobStopped naming it; catch it to report and end the program
// (the job does not go on). The OpenSHMEM C API ends the job with the message.
class Timeout : public Error {
 public:
  using Error::Error;
};

// Thrown by the symmetric allocation calls when the heap cannot hold the request, on every PE
// alike (the decision is collective), leaving the heap as it was: the job may go on. The
// OpenSHMEM C API turns it into a null pointer.
class OutOfMemory : public Error {
 public:
  using Error::Error;
};

// Throws E ("[pe N] what"): every setup error names the PE that raised it, since a job's
// messages reach one terminal interleaved.
template <class E = Error>
[[noreturn]] void throw_on_pe(int pe, const std::string& what) {
  throw E("[pe " + std::to_string(pe) + "] " + what);
}

// Success, or a message for the user. Cheap to return on the success path.
class [[nodiscard]] Status {
 public:
  Status() = default;
  static Status fail(std::string msg) { return Status(std::move(msg)); }
  bool ok() const { return msg_.empty(); }
  const std::string& message() const { return msg_; }
  // Throws symmetra::Error when not ok; used at the public boundary.
  void or_throw() const {
    if (!ok()) throw Error(msg_);
  }

 private:
  explicit Status(std::string msg) : msg_(msg.empty() ? "unknown error" : std::move(msg)) {}
  std::string msg_;
};

// A value or a failed Status (GCC 12 has no std::expected).
template <class T>
class [[nodiscard]] Result {
 public:
  Result(T value) : v_(std::move(value)) {}         // NOLINT: implicit by design
  Result(Status status) : v_(std::move(status)) {}  // NOLINT: implicit by design
  bool ok() const { return v_.index() == 0; }
  T& value() { return std::get<0>(v_); }
  const T& value() const { return std::get<0>(v_); }
  Status status() const { return ok() ? Status() : std::get<1>(v_); }
  T value_or_throw() && {
    if (!ok()) throw Error(std::get<1>(v_).message());
    return std::move(std::get<0>(v_));
  }

 private:
  std::variant<T, Status> v_;
};

inline const Status& to_status(const Status& s) {
  return s;
}
template <class T>
Status to_status(const Result<T>& r) {
  return r.status();
}

}  // namespace symmetra

// Propagates a failed Status (or Result) to the caller, which returns Status or Result<T>.
#define SYMMETRA_TRY(expr)                                                            \
  do {                                                                                \
    const auto& symmetra_try_value_ = (expr);                                         \
    if (!symmetra_try_value_.ok()) return ::symmetra::to_status(symmetra_try_value_); \
  } while (0)
