// symmetra::ep's data movement along a plan (kernels/moe/ep.cpp makes the plans): sending tokens
// to their staging rows, expanding them into rows grouped by expert, redispatch and combine.
#include <algorithm>
#include <cstring>
#include <functional>
#include <string>

#include "ep_plan.hpp"

namespace symmetra::ep {

using namespace detail;

void Dispatcher::send(const Plan& plan, const std::byte* x, const std::vector<std::int32_t>* meta) {
  const int n = n_;
  std::vector<std::byte> rows;
  std::vector<std::size_t> meta_first(n + 1, 0);  // meta: the headers of destination 0, 1, ...
  for (int dst = 0; dst < n; ++dst) meta_first[dst + 1] = meta_first[dst] + plan.sent[dst].size();
  for (int step = 0; step < n; ++step) {
    const int dst = (rank_ + step) % n;  // spread the writers over the destinations
    const auto& list = plan.sent[dst];
    if (list.empty()) continue;
    std::int64_t at = 0;  // this PE's first row in dst's staging: the ranks before it send first
    for (int src = 0; src < rank_; ++src) at += plan.matrix[src * n + dst];
    rows.resize(list.size() * row_bytes_);
    for (std::size_t i = 0; i < list.size(); ++i)
      std::memcpy(rows.data() + i * row_bytes_, x + static_cast<std::size_t>(list[i]) * row_bytes_,
                  row_bytes_);
    const int pe = team_.world_pe(dst);
    rt_.putmem(stage_x_ + at * row_bytes_, rows.data(), rows.size(), pe);
    if (meta)
      rt_.putmem(stage_meta_ + at * meta_words_, meta->data() + meta_first[dst] * meta_words_,
                 list.size() * meta_words_ * sizeof(std::int32_t), pe);
  }
  rt_.barrier(team_);
}

Received Dispatcher::expand(const std::shared_ptr<const Plan>& plan) {
  const int k = config_.top_k;
  for (std::int64_t i = 0; i < plan->staged; ++i)
    for (int s = 0; s < k; ++s)
      if (const std::int32_t row = plan->pair_row[i * k + s]; row >= 0)
        std::memcpy(recv_x_.data() + static_cast<std::size_t>(row) * row_bytes_,
                    stage_x_ + i * row_bytes_, row_bytes_);
  Received r;
  r.x = recv_x_.data();
  r.weights = plan->weights.data();
  r.src_rank = plan->src_rank.data();
  r.src_token = plan->src_token.data();
  r.expert_counts = plan->counts.data();
  r.expert_offsets = plan->offsets.data();
  r.rows = plan->offsets.back();
  r.tokens = plan->staged;
  r.handle = plan;
  return r;
}

void Dispatcher::check_retrace(const char* op, DataType type, const Handle& handle) {
  if (rank_ < 0) fail(std::string(op) + ": this PE is not a member of the dispatcher's team");
  const int n = n_;
  // The record's verdict words: verdict, the handle's dispatch number, -, the type.
  std::vector<std::int64_t> mine(record_words_, 0);
  std::int64_t* v = mine.data() + 2 * n;
  v[1] = handle && handle->owner == this ? static_cast<std::int64_t>(handle->epoch) : 0;
  v[3] = static_cast<std::int64_t>(type);
  if (type != config_.type)
    v[0] = kWrongType;
  else if (v[1] == 0)
    v[0] = kBadHandle;
  std::vector<std::int64_t> all;
  agree(mine, all);
  for (int r = 0; r < n; ++r) {
    const std::int64_t* w = all.data() + r * record_words_ + 2 * n;
    const std::string who = std::string(op) + ": team rank " + std::to_string(r) + " (pe " +
                            std::to_string(team_.world_pe(r)) + ")";
    if (w[0] == kWrongType)
      fail(who + " passed rows of type " + type_name(static_cast<DataType>(w[3])) +
           "; the dispatcher moves " + type_name(config_.type));
    if (w[0] == kBadHandle) fail(who + " passed no handle, or one of another dispatcher");
    if (w[1] != all[2 * n + 1])
      fail(who + " passed the handle of dispatch " + std::to_string(w[1]) +
           ", and team rank 0 that of dispatch " + std::to_string(all[2 * n + 1]) +
           ": every member passes the same dispatch's");
  }
}

Received Dispatcher::redispatch(const void* x, DataType type, const Handle& handle) {
  check_retrace("redispatch", type, handle);
  send(*handle, static_cast<const std::byte*>(x), nullptr);
  return expand(handle);
}

void Dispatcher::send_back(const Plan& plan, std::size_t bytes,
                           const std::function<void(std::int64_t, std::byte*)>& partial,
                           const std::function<void(std::int32_t, const std::byte*)>& take) {
  const int n = n_;
  // Each staged token's partial, back to its PE, where that PE's plan expects it: after the
  // partials from the ranks before this one.
  std::vector<std::byte> part;
  for (int step = 0; step < n; ++step) {
    const int src = (rank_ + step) % n;  // spread the writers over the destinations
    const std::int64_t first = plan.stage_base[src], count = plan.stage_base[src + 1] - first;
    if (count == 0) continue;
    part.assign(count * bytes, std::byte{0});
    for (std::int64_t j = 0; j < count; ++j) partial(first + j, part.data() + j * bytes);
    std::int64_t at = 0;
    for (int d = 0; d < rank_; ++d) at += plan.matrix[src * n + d];
    rt_.putmem(ret_ + at * bytes, part.data(), part.size(), team_.world_pe(src));
  }
  rt_.barrier(team_);
  // This PE's tokens' partials, in team-rank order.
  std::int64_t at = 0;
  for (int d = 0; d < n; ++d)
    for (const std::int32_t t : plan.sent[d]) take(t, ret_ + at++ * bytes);
}

void Dispatcher::combine(const void* y, DataType type, const Handle& handle, void* out,
                         Weighting weighting) {
  check_retrace("combine", type, handle);
  const Config& c = config_;
  const int k = c.top_k;
  const Plan& plan = *handle;
  const auto* yb = static_cast<const std::byte*>(y);
  std::vector<double> acc(c.hidden);
  std::vector<double> sum(static_cast<std::size_t>(plan.num_tokens) * c.hidden, 0.0);
  send_back(
      plan, row_bytes_,
      [&](std::int64_t i, std::byte* part) {  // a token's rows, in slot order
        std::fill(acc.begin(), acc.end(), 0.0);
        for (int s = 0; s < k; ++s) {
          const std::int32_t row = plan.pair_row[i * k + s];
          if (row < 0) continue;
          const double w = weighting == Weighting::kWeighted ? plan.weights[row] : 1.0;
          const std::byte* yr = yb + static_cast<std::size_t>(row) * row_bytes_;
          for (int h = 0; h < c.hidden; ++h) acc[h] += w * load(c.type, yr, h);
        }
        for (int h = 0; h < c.hidden; ++h) store(c.type, part, h, acc[h]);
      },
      [&](std::int32_t t, const std::byte* part) {
        double* st = sum.data() + static_cast<std::size_t>(t) * c.hidden;
        for (int h = 0; h < c.hidden; ++h) st[h] += load(c.type, part, h);
      });
  auto* ob = static_cast<std::byte*>(out);
  for (int t = 0; t < plan.num_tokens; ++t)
    for (int h = 0; h < c.hidden; ++h)
      store(c.type, ob + static_cast<std::size_t>(t) * row_bytes_, h,
            sum[static_cast<std::size_t>(t) * c.hidden + h]);
}

void Dispatcher::gather_slots(const float* per_row, const Handle& handle, float* out) {
  check_retrace("gather_slots", config_.type, handle);
  const int k = config_.top_k;
  const Plan& plan = *handle;
  std::fill(out, out + static_cast<std::size_t>(plan.num_tokens) * k, 0.0f);
  // A slot's expert lives on one PE: the others' partials hold 0 there, so the sum is its value.
  send_back(
      plan, k * sizeof(float),
      [&](std::int64_t i, std::byte* part) {
        auto* p = reinterpret_cast<float*>(part);
        for (int s = 0; s < k; ++s)
          if (const std::int32_t row = plan.pair_row[i * k + s]; row >= 0) p[s] = per_row[row];
      },
      [&](std::int32_t t, const std::byte* part) {
        const auto* p = reinterpret_cast<const float*>(part);
        for (int s = 0; s < k; ++s) out[static_cast<std::size_t>(t) * k + s] += p[s];
      });
}

}  // namespace symmetra::ep
