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

#include "symmetra/core/float16.hpp"

namespace symmetra::ep {

namespace {

bool supported(DataType t) {
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

const char* type_name(DataType t) {
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
double load(DataType t, const std::byte* row, std::size_t i) {
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

void store(DataType t, std::byte* row, std::size_t i, double v) {
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

}  // namespace

// The routing of the last dispatch, which combine retraces.
struct Dispatcher::Plan {
  int num_tokens = 0;
  std::vector<std::int64_t> matrix;             // [src][dst] tokens (n x n), from the agreement
  std::vector<std::vector<std::int32_t>> sent;  // per destination rank: the tokens sent, in order
  std::vector<std::int64_t> stage_base;         // per source rank: its first staged row here
  std::int64_t staged = 0;                      // tokens staged here
  std::vector<std::int32_t> pair_row;           // [staged x top_k]: each slot's row, -1 for none
};

Dispatcher::Dispatcher(Runtime& rt, const Team& team, const Config& config)
    : rt_(rt), team_(team), config_(config), plan_(std::make_unique<Plan>()) {
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
  ret_rows_ = static_cast<std::int64_t>(c.max_tokens) * std::min(n_, c.top_k);
  // What a member allocates (a PE outside the team: nothing of its own), and -1 where a member's
  // config is wrong: the minimum over the world finds that, the maximum gives the sizes to all.
  constexpr std::int64_t kWrong = -1;
  std::int64_t words[5] = {};
  if (member)
    words[0] = wrong.empty() ? recv_tokens * static_cast<std::int64_t>(row_bytes_) : kWrong,
    words[1] = recv_tokens * static_cast<std::int64_t>(meta_words_),
    words[2] = ret_rows_ * static_cast<std::int64_t>(row_bytes_),
    words[3] = static_cast<std::int64_t>(record_words_), words[4] = n_;
  auto* box = static_cast<std::int64_t*>(rt.allocate(10 * sizeof(std::int64_t)));
  std::int64_t agreed[5] = {};
  rt.putmem(box, words, sizeof words, rt.my_pe());
  rt.allreduce(rt.team_world(), box + 5, box, 1, coll::ReduceOp::kMin);
  rt.getmem(agreed, box + 5, sizeof(std::int64_t), rt.my_pe());
  const bool refused = agreed[0] == kWrong;
  if (!refused) {
    rt.allreduce(rt.team_world(), box + 5, box, 5, coll::ReduceOp::kMax);
    rt.getmem(agreed, box + 5, sizeof agreed, rt.my_pe());
  }
  rt.free(box);
  if (refused) {
    const std::string pe = "[pe " + std::to_string(rt.my_pe()) + "] ep::Dispatcher: ";
    throw Error(pe +
                (wrong.empty() ? "a member of the dispatcher's team refused its config" : wrong));
  }
  config_.max_recv_tokens = recv_tokens;
  config_.max_recv_rows = recv_rows;
  record_ = rt.allocate_array<std::int64_t>(agreed[3]);
  records_ = rt.allocate_array<std::int64_t>(agreed[3] * agreed[4]);
  stage_x_ = static_cast<std::byte*>(rt.allocate(agreed[0]));
  stage_meta_ = rt.allocate_array<std::int32_t>(agreed[1]);
  ret_ = static_cast<std::byte*>(rt.allocate(agreed[2]));
  if (member) {
    recv_x_.resize(recv_rows * row_bytes_);
    recv_w_.resize(recv_rows);
    recv_rank_.resize(recv_rows);
    recv_token_.resize(recv_rows);
    counts_.resize(local_experts_);
    offsets_.resize(local_experts_ + 1);
  }
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
  // The checks passed on every member: this call's routing becomes the plan.
  Plan& plan = *plan_;
  plan.matrix.assign(static_cast<std::size_t>(n) * n, 0);
  for (int src = 0; src < n; ++src)
    for (int dst = 0; dst < n; ++dst)
      plan.matrix[src * n + dst] = all[src * record_words_ + 2 * dst];
  plan.sent = std::move(sent);
  plan.num_tokens = num_tokens;
  // 3. Send: each destination's tokens as one block of rows and one of headers.
  const auto* xb = static_cast<const std::byte*>(x);
  std::vector<std::byte> rows;
  std::vector<std::int32_t> meta;
  for (int step = 0; step < n; ++step) {
    const int dst = (rank_ + step) % n;  // spread the writers over the destinations
    const auto& list = plan.sent[dst];
    if (list.empty()) continue;
    std::int64_t at = 0;  // this PE's first row in dst's staging: the ranks before it send first
    for (int src = 0; src < rank_; ++src) at += plan.matrix[src * n + dst];
    rows.resize(list.size() * row_bytes_);
    meta.assign(list.size() * meta_words_, -1);
    for (std::size_t i = 0; i < list.size(); ++i) {
      const int t = list[i];
      std::memcpy(rows.data() + i * row_bytes_, xb + static_cast<std::size_t>(t) * row_bytes_,
                  row_bytes_);
      std::int32_t* m = meta.data() + i * meta_words_;
      m[0] = t;
      for (int s = 0; s < k; ++s) {
        const std::int64_t e = topk_idx[static_cast<std::size_t>(t) * k + s];
        if (e >= 0 && e / L == dst) {
          m[1 + s] = static_cast<std::int32_t>(e % L);
          std::memcpy(&m[1 + k + s], &topk_weights[static_cast<std::size_t>(t) * k + s],
                      sizeof(float));
        }
      }
    }
    const int pe = team_.world_pe(dst);
    rt_.putmem(stage_x_ + at * row_bytes_, rows.data(), rows.size(), pe);
    rt_.putmem(stage_meta_ + at * meta_words_, meta.data(), meta.size() * sizeof(std::int32_t), pe);
  }
  rt_.barrier(team_);
  // 4. Expand into rows grouped by local expert, in staging order.
  plan.stage_base.assign(n + 1, 0);
  for (int src = 0; src < n; ++src)
    plan.stage_base[src + 1] = plan.stage_base[src] + plan.matrix[src * n + rank_];
  plan.staged = plan.stage_base[n];
  std::fill(counts_.begin(), counts_.end(), 0);
  for (std::int64_t i = 0; i < plan.staged; ++i)
    for (int s = 0; s < k; ++s)
      if (const std::int32_t e = stage_meta_[i * meta_words_ + 1 + s]; e >= 0) ++counts_[e];
  offsets_[0] = 0;
  for (int e = 0; e < L; ++e) offsets_[e + 1] = offsets_[e] + counts_[e];
  std::vector<std::int32_t> fill(offsets_.begin(), offsets_.end() - 1);
  plan.pair_row.assign(plan.staged * k, -1);
  int src = 0;
  for (std::int64_t i = 0; i < plan.staged; ++i) {
    while (i >= plan.stage_base[src + 1]) ++src;
    const std::int32_t* m = stage_meta_ + i * meta_words_;
    for (int s = 0; s < k; ++s) {
      const std::int32_t e = m[1 + s];
      if (e < 0) continue;
      const std::int32_t row = fill[e]++;
      plan.pair_row[i * k + s] = row;
      std::memcpy(recv_x_.data() + static_cast<std::size_t>(row) * row_bytes_,
                  stage_x_ + i * row_bytes_, row_bytes_);
      std::memcpy(&recv_w_[row], &m[1 + k + s], sizeof(float));
      recv_rank_[row] = src;
      recv_token_[row] = m[0];
    }
  }
  Received r;
  r.x = recv_x_.data();
  r.weights = recv_w_.data();
  r.src_rank = recv_rank_.data();
  r.src_token = recv_token_.data();
  r.expert_counts = counts_.data();
  r.expert_offsets = offsets_.data();
  r.rows = offsets_[L];
  r.tokens = plan.staged;
  r.handle = ++epoch_;
  return r;
}

void Dispatcher::combine(const void* y, DataType type, std::uint64_t handle, void* out) {
  if (rank_ < 0) fail("combine: this PE is not a member of the dispatcher's team");
  const Config& c = config_;
  const int k = c.top_k, n = n_;
  const Plan& plan = *plan_;
  // The checks, agreed like dispatch's: the handle must be the last dispatch's, the type its own.
  std::vector<std::int64_t> mine(record_words_, 0);
  if (type != c.type)
    mine[2 * n] = kWrongType, mine[2 * n + 3] = static_cast<std::int64_t>(type);
  else if (handle == 0 || handle != epoch_)
    mine[2 * n] = kBadHandle, mine[2 * n + 3] = static_cast<std::int64_t>(handle);
  std::vector<std::int64_t> all;
  agree(mine, all);
  for (int r = 0; r < n; ++r) {
    const std::int64_t* v = all.data() + r * record_words_ + 2 * n;
    const std::string who = "combine: team rank " + std::to_string(r) + " (pe " +
                            std::to_string(team_.world_pe(r)) + ")";
    if (v[0] == kWrongType)
      fail(who + " passed outputs of type " + type_name(static_cast<DataType>(v[3])) +
           "; the dispatcher moves " + type_name(c.type));
    if (v[0] != kOk)
      fail(who + " passed handle " + std::to_string(v[3]) + ", which is not its last dispatch's (" +
           std::to_string(epoch_) + ")");
  }
  // Each staged token's partial sum, back to its PE, where that PE's plan put it: after the
  // partials of the ranks before this one.
  const auto* yb = static_cast<const std::byte*>(y);
  std::vector<double> acc(c.hidden);
  std::vector<std::byte> part;
  for (int step = 0; step < n; ++step) {
    const int src = (rank_ + step) % n;
    const std::int64_t first = plan.stage_base[src], count = plan.stage_base[src + 1] - first;
    if (count == 0) continue;
    part.resize(count * row_bytes_);
    for (std::int64_t j = 0; j < count; ++j) {
      std::fill(acc.begin(), acc.end(), 0.0);
      const std::int64_t i = first + j;
      for (int s = 0; s < k; ++s) {
        const std::int32_t row = plan.pair_row[i * k + s];
        if (row < 0) continue;
        const double w = recv_w_[row];
        const std::byte* yr = yb + static_cast<std::size_t>(row) * row_bytes_;
        for (int h = 0; h < c.hidden; ++h) acc[h] += w * load(c.type, yr, h);
      }
      for (int h = 0; h < c.hidden; ++h) store(c.type, part.data() + j * row_bytes_, h, acc[h]);
    }
    std::int64_t at = 0;  // src's partials from the ranks before this one come first
    for (int d = 0; d < rank_; ++d) at += plan.matrix[src * n + d];
    rt_.putmem(ret_ + at * row_bytes_, part.data(), part.size(), team_.world_pe(src));
  }
  rt_.barrier(team_);
  // This PE's tokens: the sum of their partials in team-rank order.
  std::vector<double> sum(static_cast<std::size_t>(plan.num_tokens) * c.hidden, 0.0);
  std::int64_t at = 0;
  for (int d = 0; d < n; ++d)
    for (const std::int32_t t : plan.sent[d]) {
      const std::byte* pr = ret_ + at++ * row_bytes_;
      double* st = sum.data() + static_cast<std::size_t>(t) * c.hidden;
      for (int h = 0; h < c.hidden; ++h) st[h] += load(c.type, pr, h);
    }
  auto* ob = static_cast<std::byte*>(out);
  for (int t = 0; t < plan.num_tokens; ++t)
    for (int h = 0; h < c.hidden; ++h)
      store(c.type, ob + static_cast<std::size_t>(t) * row_bytes_, h,
            sum[static_cast<std::size_t>(t) * c.hidden + h]);
}

}  // namespace symmetra::ep
