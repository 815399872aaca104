// Runtime::agree: with checks on (debug builds, SYMMETRA_CHECK=1), a host-form collective's
// members compare what each passed before any data moves (docs/python.md, "Errors"; the
// OpenSHMEM and C++ host forms alike). Two words per member through the team's scratch row
// (TeamTable::allgather): the element count, and the kind, element type, operator and root. A
// difference is a symmetra::Error on every member, naming the first field that differs with two
// members' values; nothing has moved, so the job may go on.
#include <string>
#include <vector>

#include "runtime/state.hpp"
#include "symmetra/runtime.hpp"

namespace symmetra {
namespace {

const char* type_name(std::uint64_t t) {
  static const char* const kNames[] = {"int8",    "uint8",    "int16",   "uint16",
                                       "int32",   "uint32",   "int64",   "uint64",
                                       "float16", "bfloat16", "float32", "float64"};
  return t < 12 ? kNames[t] : "?";
}

const char* op_name(std::uint64_t o) {
  static const char* const kNames[] = {"sum", "prod", "min", "max", "and", "or", "xor"};
  return o < 7 ? kNames[o] : "?";
}

// The fields a kind's members must agree on, packed: kind (8 bits), type (8), operator (8), root
// plus one (40); the count apart, since it can be large. A field a kind does not take is 0.
struct Packed {
  std::uint64_t count, rest;
};

Packed pack(const coll::Call& c) {
  const bool counts = c.kind != coll::Kind::kCollect;  // collect's blocks may differ
  const bool reduces = coll::is_reduction(c.kind);
  const std::uint64_t root = c.kind == coll::Kind::kBroadcast ? std::uint64_t(c.root) + 1 : 0;
  return {counts ? c.nelems : 0, static_cast<std::uint64_t>(c.kind) |
                                     static_cast<std::uint64_t>(c.type) << 8 |
                                     (reduces ? static_cast<std::uint64_t>(c.op) : 0) << 16 |
                                     (root & 0xffffffffffull) << 24};
}

std::string field_value(int field, std::uint64_t v) {
  switch (field) {
    case 0:
      return std::to_string(v) + " elements";
    case 1:
      return coll::kind_name(static_cast<coll::Kind>(v & 0xff));
    case 2:
      return type_name(v >> 8 & 0xff);
    case 3:
      return std::string("op '") + op_name(v >> 16 & 0xff) + "'";
    default:
      return "root " + std::to_string(static_cast<long long>(v >> 24) - 1);
  }
}

// The field of a packed pair: 0 count, then kind, type, operator, root.
std::uint64_t field_of(int field, const std::vector<std::uint64_t>& counts,
                       const std::vector<std::uint64_t>& rest, int r) {
  if (field == 0) return counts[r];
  const int shift[] = {0, 0, 8, 16, 24};
  const std::uint64_t mask = field == 4 ? 0xffffffffffull : 0xff;
  return rest[r] >> shift[field] & mask;
}

}  // namespace

void Runtime::agree(const coll::Call& c, const char* op) {
  const device::TeamDesc& t = s_->teams[checked(Team(this, c.team), op)];
  if (t.size <= 1) return;
  const Packed mine = pack(c);
  const std::vector<std::uint64_t> counts = s_->teams.allgather(c.team, mine.count);
  const std::vector<std::uint64_t> rest = s_->teams.allgather(c.team, mine.rest);
  static const char* const kWhat[] = {"element count", "collective", "element type", "operator",
                                      "root"};
  // Kind first: a different collective explains every other difference.
  for (int field : {1, 2, 0, 3, 4})
    for (int r = 1; r < t.size; ++r) {
      const std::uint64_t a = field_of(field, counts, rest, 0),
                          b = field_of(field, counts, rest, r);
      if (a == b) continue;
      const auto pe = [&](int rank) { return std::to_string(t.start + rank * t.stride); };
      fail(std::string(op) + ": the team's PEs passed different arguments (" + kWhat[field] +
           "): PE " + pe(0) + " passed " + field_value(field, field == 0 ? a : rest[0]) + ", PE " +
           pe(r) + " passed " + field_value(field, field == 0 ? b : rest[r]) +
           " (every member of a collective passes the same; checked with SYMMETRA_CHECK=1)");
    }
}

}  // namespace symmetra
