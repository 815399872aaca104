// Internals of symmetra::ep shared by its sources (kernels/moe): a dispatch's plan, the payload
// conversions and the agreement's verdicts. Not installed.
#pragma once

#include <cmath>
#include <cstdint>
#include <vector>

#include "symmetra/core/float16.hpp"
#include "symmetra/ep.hpp"

namespace symmetra::ep {

// The routing of one dispatch, which redispatch and combine retrace.
struct Plan {
  const Dispatcher* owner = nullptr;
  std::uint64_t epoch = 0;  // the dispatch's number, alike on every member
  int num_tokens = 0;
  std::vector<std::int64_t> matrix;             // [src][dst] tokens (n x n), from the agreement
  std::vector<std::vector<std::int32_t>> sent;  // per destination rank: the tokens sent, in order
  std::vector<std::int64_t> stage_base;         // per source rank: its first staged row here
  std::int64_t staged = 0;                      // tokens staged here
  std::vector<std::int32_t> pair_row;           // [staged x top_k]: each slot's row, -1 for none
  // What Received shows of it: per row, and per local expert.
  std::vector<float> weights;
  std::vector<std::int32_t> src_rank, src_token, counts, offsets;
};

namespace detail {

inline bool supported(DataType t) {
  switch (t) {
    case DataType::kFloat:
    case DataType::kDouble:
    case DataType::kBfloat16:
    case DataType::kHalf:
    case DataType::kInt32:
    case DataType::kInt64:
      return true;
    default:
      return false;
  }
}

inline const char* type_name(DataType t) {
  switch (t) {
    case DataType::kFloat:
      return "float32";
    case DataType::kDouble:
      return "float64";
    case DataType::kBfloat16:
      return "bfloat16";
    case DataType::kHalf:
      return "float16";
    case DataType::kInt32:
      return "int32";
    case DataType::kInt64:
      return "int64";
    case DataType::kInt8:
      return "int8";
    case DataType::kUint8:
      return "uint8";
    case DataType::kInt16:
      return "int16";
    case DataType::kUint16:
      return "uint16";
    case DataType::kUint32:
      return "uint32";
    case DataType::kUint64:
      return "uint64";
  }
  return "?";
}

// Element i of a row of `type`, as a double, and back (rounded to nearest where the type is
// narrower; integers round half away from zero).
inline double load(DataType t, const std::byte* row, std::size_t i) {
  switch (t) {
    case DataType::kFloat:
      return reinterpret_cast<const float*>(row)[i];
    case DataType::kDouble:
      return reinterpret_cast<const double*>(row)[i];
    case DataType::kBfloat16:
      return static_cast<float>(reinterpret_cast<const bfloat16*>(row)[i]);
    case DataType::kHalf:
      return static_cast<float>(reinterpret_cast<const half*>(row)[i]);
    case DataType::kInt32:
      return reinterpret_cast<const std::int32_t*>(row)[i];
    case DataType::kInt64:
      return static_cast<double>(reinterpret_cast<const std::int64_t*>(row)[i]);
    default:
      return 0;
  }
}

inline void store(DataType t, std::byte* row, std::size_t i, double v) {
  switch (t) {
    case DataType::kFloat:
      reinterpret_cast<float*>(row)[i] = static_cast<float>(v);
      break;
    case DataType::kDouble:
      reinterpret_cast<double*>(row)[i] = v;
      break;
    case DataType::kBfloat16:
      reinterpret_cast<bfloat16*>(row)[i] = bfloat16(static_cast<float>(v));
      break;
    case DataType::kHalf:
      reinterpret_cast<half*>(row)[i] = half(static_cast<float>(v));
      break;
    case DataType::kInt32:
      reinterpret_cast<std::int32_t*>(row)[i] = static_cast<std::int32_t>(std::llround(v));
      break;
    case DataType::kInt64:
      reinterpret_cast<std::int64_t*>(row)[i] = static_cast<std::int64_t>(std::llround(v));
      break;
    default:
      break;
  }
}

// A member's record in the agreement: its tokens and rows for each member, then its verdict.
enum Verdict : std::int64_t { kOk = 0, kTooMany, kBadExpert, kRepeated, kWrongType, kBadHandle };
constexpr std::size_t kVerdictWords = 4;  // verdict, token, slot, value

// The maximum over the world of each of `count` words, in place: through a symmetric box, which
// may be device memory (put and get move the words). Collective over the world.
inline void world_max(Runtime& rt, std::int64_t* words, std::size_t count) {
  auto* box = rt.allocate_array<std::int64_t>(2 * count);
  rt.putmem(box, words, count * sizeof(std::int64_t), rt.my_pe());
  rt.allreduce(rt.team_world(), box + count, box, count, coll::ReduceOp::kMax);
  rt.getmem(words, box + count, count * sizeof(std::int64_t), rt.my_pe());
  rt.free(box);
}

}  // namespace detail

}  // namespace symmetra::ep
