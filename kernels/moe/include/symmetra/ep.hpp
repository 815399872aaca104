// Mixture-of-experts token exchange on Symmetra (docs/moe.md): dispatch sends each token to the
// PEs that hold its top-k experts, combine brings the experts' outputs back and sums them with
// the routing weights.
//
// Experts: `num_experts` over a team of N PEs, num_experts / N each; team rank r holds experts
// [r * L, (r + 1) * L), its local experts 0 .. L - 1.
//
// dispatch(x, topk_idx, topk_weights, num_tokens): token t (row t of x, `hidden` elements) goes to
// every PE holding one of its experts topk_idx[t][0 .. top_k), once per PE however many of its
// experts that PE holds (-1 in topk_idx: no expert in that slot). On the receiving PE it lands
// once per (token, local expert) pair, grouped by local expert: expert e's rows are
// [offsets[e], offsets[e + 1]), ordered by source team rank, then by token index at the source.
// Each row carries the routing weight of its (token, expert) and where the token came from.
// combine(y, handle, out): y holds one output row per received row (what the experts made of
// them, same order); out[t] = sum over t's experts of weight * y-row, for every token this PE
// dispatched (zero where it had no expert). The sum runs in a fixed order: each expert PE sums its
// rows of a token in top-k slot order, and the token's PE sums those partial sums in team-rank
// order, so that a run repeats bit for bit.
//
// Errors: every call checks its input on every PE before any data moves, and the members agree:
// an expert index out of range, a repeated expert, more tokens than the dispatcher was made for,
// a type other than its own, or more received tokens or rows than it has room for throws
// symmetra::Error on every member, naming the PE and the value; the dispatcher stays usable.
//
// Paths, by the runtime's backend:
// - CPU backend: host memory, blocking; 16-bit and float payloads sum in double and are rounded
//   once per partial sum and once at the end.
// - GPU backend: not yet (docs/moe.md): construction throws saying so.
//
// Threads: one Dispatcher belongs to one PE; dispatch and combine are collective over the team,
// made by every member in the same order, one thread at a time. Construction and destruction are
// collective over the world, as symmetric allocation is: PEs outside the team construct it too
// and call nothing else.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "symmetra/data_type.hpp"
#include "symmetra/runtime.hpp"
#include "symmetra/team.hpp"

namespace symmetra::ep {

inline constexpr int kMaxTopK = 32;

struct Config {
  int max_tokens = 0;                   // tokens one PE dispatches in a call, at most
  int hidden = 0;                       // elements per token
  DataType type = DataType::kBfloat16;  // of x and y: float, double, bfloat16, half, int32, int64
  int num_experts = 0;                  // over the team: a multiple of its size
  int top_k = 1;                        // experts per token, 1 .. kMaxTopK
  // Room on each PE for one call: tokens received (0: max_tokens x team size, the most there can
  // be) and (token, local expert) rows (0: that x min(top_k, local experts), the most there can
  // be). Smaller values save memory; a call that needs more is an error on every PE.
  std::int64_t max_recv_tokens = 0;
  std::int64_t max_recv_rows = 0;
};

struct Plan;  // the routing of one dispatch (kernels/moe/ep_plan.hpp)
// Names a dispatch's routing for redispatch and combine; it keeps the routing alive while held.
using Handle = std::shared_ptr<const Plan>;

// What dispatch left on this PE. x views the dispatcher's memory and is valid until its next
// dispatch or redispatch; the other arrays are the handle's and live as long as it does.
struct Received {
  const void* x = nullptr;                       // [rows, hidden], grouped by local expert
  const float* weights = nullptr;                // [rows]: the row's (token, expert) weight
  const std::int32_t* src_rank = nullptr;        // [rows]: team rank of the token's PE
  const std::int32_t* src_token = nullptr;       // [rows]: the token's index there
  const std::int32_t* expert_counts = nullptr;   // [local experts]
  const std::int32_t* expert_offsets = nullptr;  // [local experts + 1]; the last is `rows`
  std::int64_t rows = 0;
  std::int64_t tokens = 0;  // distinct tokens received
  Handle handle;            // for redispatch and combine
};

// combine's sum: with the routing weights (the layer's output), or without (the backward of
// dispatch: a token's gradient is the sum of its rows' gradients).
enum class Weighting { kWeighted, kUnweighted };

class Dispatcher {
 public:
  // Collective over the world: checks the config (agreed by all PEs: an Error on every PE naming
  // what is wrong) and allocates the symmetric buffers.
  Dispatcher(Runtime& rt, const Team& team, const Config& config);
  ~Dispatcher();  // collective over the world
  Dispatcher(const Dispatcher&) = delete;
  Dispatcher& operator=(const Dispatcher&) = delete;

  const Config& config() const { return config_; }
  int local_experts() const { return local_experts_; }

  // Collective over the team. x: [num_tokens, hidden] of `type`; topk_idx: [num_tokens, top_k]
  // global expert indices or -1; topk_weights: [num_tokens, top_k].
  Received dispatch(const void* x, DataType type, const std::int64_t* topk_idx,
                    const float* topk_weights, int num_tokens);
  // Collective over the team: other tokens (x: [num_tokens of the handle's dispatch, hidden])
  // along the handle's routing, into the same rows (the backward of combine: the gradients of its
  // outputs go where the tokens went). Every member passes the handle of the same dispatch.
  Received redispatch(const void* x, DataType type, const Handle& handle);
  // Collective over the team. y: [rows of the handle's dispatch, hidden] of `type`, in its row
  // order; out: [num_tokens of that dispatch, hidden]. Every member passes the handle of the same
  // dispatch.
  void combine(const void* y, DataType type, const Handle& handle, void* out,
               Weighting weighting = Weighting::kWeighted);
  // Collective over the team: one float per received row (per_row: [rows of the handle's
  // dispatch]) back to its token's slot: out [num_tokens, top_k], 0 in slots without an expert.
  // The backward of the routing weights: each row's gradient returns to the weight it came from.
  void gather_slots(const float* per_row, const Handle& handle, float* out);

 private:
  void agree(const std::vector<std::int64_t>& mine, std::vector<std::int64_t>& all);
  // redispatch's and combine's checks: the handle, the type; agreed by the members.
  void check_retrace(const char* op, DataType type, const Handle& handle);
  // Puts each of this PE's tokens in plan.sent (rows of x; with their headers where `meta`)
  // into its destinations' staging, then a team barrier.
  void send(const Plan& plan, const std::byte* x, const std::vector<std::int32_t>* meta);
  // The staged tokens into rows grouped by local expert (the plan's layout).
  Received expand(const std::shared_ptr<const Plan>& plan);
  // combine's and gather_slots's movement: partial(i, part) fills `bytes` for staged token i,
  // which goes back to its PE; take(t, part) then sees each partial of this PE's token t, in
  // team-rank order. Ends with the partials taken.
  void send_back(const Plan& plan, std::size_t bytes,
                 const std::function<void(std::int64_t, std::byte*)>& partial,
                 const std::function<void(std::int32_t, const std::byte*)>& take);
  [[noreturn]] void fail(const std::string& what) const;

  Runtime& rt_;
  Team team_;
  Config config_;
  int rank_ = -1, n_ = 1, local_experts_ = 0;
  std::size_t row_bytes_ = 0;     // hidden x element size
  std::size_t meta_words_ = 0;    // int32 words of a staged token's header
  std::size_t record_words_ = 0;  // int64 words each PE contributes to a call's agreement
  // Symmetric: the agreement's words, staged tokens and their headers, returned partial sums.
  std::int64_t* record_ = nullptr;
  std::int64_t* records_ = nullptr;
  std::byte* stage_x_ = nullptr;
  std::int32_t* stage_meta_ = nullptr;
  std::byte* ret_ = nullptr;
  std::vector<std::byte> recv_x_;  // local: the received rows
  std::uint64_t epoch_ = 0;        // dispatches made
};

// All-to-all with per-destination row counts (the semantics of torch's all_to_all_vdev): each
// member sends in_splits[d] rows to team rank d, taken from `in` in rank order; `out` receives
// every member's rows for this PE in rank order, and out_splits_offsets[s] and
// out_splits_offsets[N + s] say how many came from rank s and where they start. Rows are
// `row_bytes` bytes. `out` is symmetric (this PE's rows go straight into it), `out_rows` rows
// long; `in`, in_splits and out_splits_offsets are local. Wrong input (a negative split, splits
// summing past in_rows, or a PE that would receive more than its out_rows) is an Error on every
// member before any data moves. CPU backend, blocking.
//
// Threads and collectivity as Dispatcher's: construction and destruction collective over the
// world, calls collective over the team.
class AllToAllV {
 public:
  AllToAllV(Runtime& rt, const Team& team);
  ~AllToAllV();
  AllToAllV(const AllToAllV&) = delete;
  AllToAllV& operator=(const AllToAllV&) = delete;

  void operator()(const void* in, std::int64_t in_rows, const std::int64_t* in_splits, void* out,
                  std::int64_t out_rows, std::int64_t* out_splits_offsets, std::size_t row_bytes);

 private:
  Runtime& rt_;
  Team team_;
  int rank_ = -1, n_ = 1;
  std::size_t words_ = 0;  // a member's record: its splits, out_rows, verdict
  std::int64_t* record_ = nullptr;
  std::int64_t* records_ = nullptr;
};

}  // namespace symmetra::ep
