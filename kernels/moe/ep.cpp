// symmetra::ep on the CPU backend (include/symmetra/ep.hpp; docs/moe.md says how it goes).
//
// A dispatch, on each member:
//  1. route: which PEs each token goes to, and how many tokens and (token, expert) rows each
//     gets; check the input;
//  2. agree: one fcollect of every member's counts and verdict, so that every member knows the
//     whole count matrix, where its tokens land on each PE, and whether any member's input is
//     wrong (then all throw, before any data moved);
//  3. send: each token once to each of its PEs, with a header (source index, its experts on that
//     PE, their weights), into that PE's staging rows at this PE's offset; a team barrier;
//  4. expand: the staged tokens into rows grouped by local expert.
// A combine retraces it: each expert PE sums each staged token's rows into one partial, puts it
// back to the token's PE at the place that PE's plan expects, a barrier, and the token's PE sums
// its partials in team-rank order.
#include "symmetra/ep.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>

#include "ep_plan.hpp"

namespace symmetra::ep {

using namespace detail;

Dispatcher::Dispatcher(Runtime& rt, const Team& team, const Config& config)
    : rt_(rt), team_(team), config_(config) {
  const bool member = team.valid() && team.my_pe() >= 0;
  n_ = member ? team.n_pes() : 1;
  rank_ = member ? team.my_pe() : -1;
  const Config& c = config_;
  std::string wrong;
  if (rt.on_gpu())
    wrong =
        "the GPU backend's dispatch and combine are not built yet; run the CPU backend "
        "(docs/moe.md)";
  else if (!supported(c.type))
    wrong = std::string("type ") + type_name(c.type) +
            " is not one the dispatcher moves (float32, float64, bfloat16, float16, int32, int64)";
  else if (c.max_tokens < 1 || c.hidden < 1)
    wrong = "max_tokens " + std::to_string(c.max_tokens) + " and hidden " +
            std::to_string(c.hidden) + " must be positive";
  else if (c.top_k < 1 || c.top_k > kMaxTopK)
    wrong = "top_k " + std::to_string(c.top_k) + " is not in [1, " + std::to_string(kMaxTopK) + "]";
  else if (member && (c.num_experts < n_ || c.num_experts % n_ != 0))
    wrong = "num_experts " + std::to_string(c.num_experts) +
            " is not a positive multiple of the team's size " + std::to_string(n_);
  else if (c.top_k > c.num_experts)
    wrong = "top_k " + std::to_string(c.top_k) + " is more than num_experts " +
            std::to_string(c.num_experts);
  else if (c.max_recv_tokens < 0 || c.max_recv_rows < 0)
    wrong = "max_recv_tokens and max_recv_rows must not be negative";
  // The sizes every PE allocates: the members', agreed below (a PE outside the team learns them).
  local_experts_ = wrong.empty() && member ? c.num_experts / n_ : 0;
  const std::int64_t recv_tokens =
      c.max_recv_tokens ? c.max_recv_tokens : static_cast<std::int64_t>(c.max_tokens) * n_;
  const std::int64_t recv_rows =
      c.max_recv_rows ? c.max_recv_rows : recv_tokens * std::min(c.top_k, local_experts_);
  row_bytes_ = static_cast<std::size_t>(c.hidden) * data_type_size(c.type);
  meta_words_ = 1 + 2 * static_cast<std::size_t>(c.top_k);  // source token, experts, weights
  record_words_ = 2 * static_cast<std::size_t>(n_) + kVerdictWords;
  // Partial sums a PE can get back: max_tokens x min(N, top_k) rows, each a payload row or top_k
  // floats (gather_slots).
  const std::int64_t ret_rows = static_cast<std::int64_t>(c.max_tokens) * std::min(n_, c.top_k);
  // Whether a member's config is wrong, and what a member allocates (a PE outside the team:
  // nothing of its own): the maximum over the world tells every PE both.
  std::int64_t agreed[6] = {};
  if (member)
    agreed[0] = wrong.empty() ? 0 : 1,
    agreed[1] = recv_tokens * static_cast<std::int64_t>(row_bytes_),
    agreed[2] = recv_tokens * static_cast<std::int64_t>(meta_words_),
    agreed[3] = ret_rows * static_cast<std::int64_t>(std::max(row_bytes_, c.top_k * sizeof(float))),
    agreed[4] = static_cast<std::int64_t>(record_words_), agreed[5] = n_;
  world_max(rt, agreed, 6);
  if (agreed[0] != 0) {
    const std::string pe = "[pe " + std::to_string(rt.my_pe()) + "] ep::Dispatcher: ";
    throw Error(pe +
                (wrong.empty() ? "a member of the dispatcher's team refused its config" : wrong));
  }
  config_.max_recv_tokens = recv_tokens;
  config_.max_recv_rows = recv_rows;
  record_ = rt.allocate_array<std::int64_t>(agreed[4]);
  records_ = rt.allocate_array<std::int64_t>(agreed[4] * agreed[5]);
  stage_x_ = static_cast<std::byte*>(rt.allocate(agreed[1]));
  stage_meta_ = rt.allocate_array<std::int32_t>(agreed[2]);
  ret_ = static_cast<std::byte*>(rt.allocate(agreed[3]));
  if (member) recv_x_.resize(recv_rows * row_bytes_);
  rt.barrier_all();
}

Dispatcher::~Dispatcher() {
  try {
    rt_.barrier_all();  // nothing in flight to a buffer about to go
    rt_.free(ret_);
    rt_.free(stage_meta_);
    rt_.free(stage_x_);
    rt_.free(records_);
    rt_.free(record_);
  } catch (const std::exception&) {
  }
}

void Dispatcher::fail(const std::string& what) const {
  throw Error("[pe " + std::to_string(rt_.my_pe()) + "] ep::" + what);
}

void Dispatcher::agree(const std::vector<std::int64_t>& mine, std::vector<std::int64_t>& all) {
  std::memcpy(record_, mine.data(), record_words_ * sizeof(std::int64_t));
  rt_.fcollect(team_, records_, record_, record_words_);
  all.assign(records_, records_ + record_words_ * n_);
}

Received Dispatcher::dispatch(const void* x, DataType type, const std::int64_t* topk_idx,
                              const float* topk_weights, int num_tokens) {
  if (rank_ < 0) fail("dispatch: this PE is not a member of the dispatcher's team");
  const Config& c = config_;
  const int k = c.top_k, n = n_, L = local_experts_;
  // 1. Route and check, this PE's part.
  std::vector<std::int64_t> mine(record_words_, 0);
  std::int64_t* verdict = mine.data() + 2 * n;
  auto reject = [&](Verdict v, std::int64_t t, std::int64_t slot, std::int64_t value) {
    if (verdict[0] == kOk) verdict[0] = v, verdict[1] = t, verdict[2] = slot, verdict[3] = value;
  };
  if (type != c.type) reject(kWrongType, 0, 0, static_cast<std::int64_t>(type));
  if (num_tokens < 0 || num_tokens > c.max_tokens) reject(kTooMany, num_tokens, 0, 0);
  std::vector<std::vector<std::int32_t>> sent(n);  // the plan's, once the checks pass
  const int tokens = verdict[0] == kOk ? num_tokens : 0;
  std::vector<int> seen(n, -1);  // the last token that went to each rank
  for (int t = 0; t < tokens && verdict[0] == kOk; ++t) {
    const std::int64_t* idx = topk_idx + static_cast<std::size_t>(t) * k;
    for (int s = 0; s < k; ++s) {
      const std::int64_t e = idx[s];
      if (e == -1) continue;
      if (e < 0 || e >= c.num_experts) {
        reject(kBadExpert, t, s, e);
        break;
      }
      for (int r = 0; r < s; ++r)
        if (idx[r] == e) reject(kRepeated, t, s, e);
      const int dst = static_cast<int>(e / L);
      ++mine[2 * dst + 1];  // a row there
      if (seen[dst] != t) {
        seen[dst] = t;
        ++mine[2 * dst];
        sent[dst].push_back(t);
      }
    }
  }
  // 2. Agree.
  std::vector<std::int64_t> all;
  agree(mine, all);
  for (int src = 0; src < n; ++src) {
    const std::int64_t* v = all.data() + src * record_words_ + 2 * n;
    const std::string who = "dispatch: team rank " + std::to_string(src) + " (pe " +
                            std::to_string(team_.world_pe(src)) + ")";
    switch (v[0]) {
      case kOk:
        break;
      case kWrongType:
        fail(who + " passed tokens of type " + type_name(static_cast<DataType>(v[3])) +
             "; the dispatcher moves " + type_name(c.type));
      case kTooMany:
        fail(who + " passed num_tokens " + std::to_string(v[1]) +
             "; the dispatcher was made for 0 to " + std::to_string(c.max_tokens));
      case kBadExpert:
        fail(who + ": topk_idx[" + std::to_string(v[1]) + "][" + std::to_string(v[2]) +
             "] = " + std::to_string(v[3]) + " is not an expert in [0, " +
             std::to_string(c.num_experts) + ") or -1");
      case kRepeated:
        fail(who + ": token " + std::to_string(v[1]) + " names expert " + std::to_string(v[3]) +
             " twice (slot " + std::to_string(v[2]) + ")");
      default:
        fail(who + ": unknown verdict " + std::to_string(v[0]));
    }
  }
  for (int dst = 0; dst < n; ++dst) {
    std::int64_t in_tokens = 0, in_rows = 0;
    for (int src = 0; src < n; ++src) {
      in_tokens += all[src * record_words_ + 2 * dst];
      in_rows += all[src * record_words_ + 2 * dst + 1];
    }
    if (in_tokens > c.max_recv_tokens || in_rows > c.max_recv_rows)
      fail("dispatch: team rank " + std::to_string(dst) + " would receive " +
           std::to_string(in_tokens) + " tokens in " + std::to_string(in_rows) +
           " (token, expert) rows; the dispatcher has room for " +
           std::to_string(c.max_recv_tokens) + " and " + std::to_string(c.max_recv_rows) +
           " (Config::max_recv_tokens, max_recv_rows)");
  }
  // The checks passed on every member: this call's routing becomes a plan.
  auto plan = std::make_shared<Plan>();
  plan->owner = this;
  plan->epoch = ++epoch_;
  plan->matrix.assign(static_cast<std::size_t>(n) * n, 0);
  for (int src = 0; src < n; ++src)
    for (int dst = 0; dst < n; ++dst)
      plan->matrix[src * n + dst] = all[src * record_words_ + 2 * dst];
  plan->sent = std::move(sent);
  plan->num_tokens = num_tokens;
  plan->stage_base.assign(n + 1, 0);
  for (int src = 0; src < n; ++src)
    plan->stage_base[src + 1] = plan->stage_base[src] + plan->matrix[src * n + rank_];
  plan->staged = plan->stage_base[n];
  // 3. Send, with each token's header: its index, its experts on that PE and their weights.
  std::vector<std::int32_t> meta;
  for (int dst = 0; dst < n; ++dst)
    for (const std::int32_t t : plan->sent[dst]) {
      const std::size_t at = meta.size();
      meta.resize(at + meta_words_, -1);
      meta[at] = t;
      for (int s = 0; s < k; ++s) {
        const std::int64_t e = topk_idx[static_cast<std::size_t>(t) * k + s];
        if (e >= 0 && e / L == dst) {
          meta[at + 1 + s] = static_cast<std::int32_t>(e % L);
          std::memcpy(&meta[at + 1 + k + s], &topk_weights[static_cast<std::size_t>(t) * k + s],
                      sizeof(float));
        }
      }
    }
  send(*plan, static_cast<const std::byte*>(x), &meta);
  // 4. The layout: rows grouped by local expert, in staging order.
  plan->counts.assign(L, 0);
  for (std::int64_t i = 0; i < plan->staged; ++i)
    for (int s = 0; s < k; ++s)
      if (const std::int32_t e = stage_meta_[i * meta_words_ + 1 + s]; e >= 0) ++plan->counts[e];
  plan->offsets.assign(L + 1, 0);
  for (int e = 0; e < L; ++e) plan->offsets[e + 1] = plan->offsets[e] + plan->counts[e];
  const std::int64_t rows = plan->offsets[L];
  std::vector<std::int32_t> fill(plan->offsets.begin(), plan->offsets.end() - 1);
  plan->pair_row.assign(plan->staged * k, -1);
  plan->weights.resize(rows);
  plan->src_rank.resize(rows);
  plan->src_token.resize(rows);
  int src = 0;
  for (std::int64_t i = 0; i < plan->staged; ++i) {
    while (i >= plan->stage_base[src + 1]) ++src;
    const std::int32_t* m = stage_meta_ + i * meta_words_;
    for (int s = 0; s < k; ++s) {
      const std::int32_t e = m[1 + s];
      if (e < 0) continue;
      const std::int32_t row = fill[e]++;
      plan->pair_row[i * k + s] = row;
      std::memcpy(&plan->weights[row], &m[1 + k + s], sizeof(float));
      plan->src_rank[row] = src;
      plan->src_token[row] = m[0];
    }
  }
  return expand(plan);
}

}  // namespace symmetra::ep
