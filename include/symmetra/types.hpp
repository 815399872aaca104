// Small tag types that travel as options (docs/style.md "Names").
#pragma once

namespace symmetra {

// Comparison of wait_until / test / signal_wait_until: `*ivar <cmp> value`.
enum class Cmp : int {
  kEq = 0,  // equal
  kNe = 1,  // not equal
  kGt = 2,  // greater than
  kGe = 3,  // greater or equal
  kLt = 4,  // less than
  kLe = 5,  // less or equal
};

// How put_signal updates the signal word. Both are atomic and ordered after the data
// (release): a PE that sees the new signal value with acquire also sees the data.
enum class SignalOp : int {
  kSet = 0,  // signal = value
  kAdd = 1,  // signal += value
};

// An atomic memory operation, as a value: how the host forms hand one to a backend that runs it
// where the memory is (a one-thread kernel on the GPU). Each returns the old value; kFetch and
// kSet ignore `value` or return nothing of use; kCompareSwap stores `value` where `cond` matched.
enum class AmoOp : int {
  kFetch,
  kSet,
  kSwap,
  kCompareSwap,
  kFetchAdd,
  kFetchAnd,
  kFetchOr,
  kFetchXor,
};

}  // namespace symmetra
