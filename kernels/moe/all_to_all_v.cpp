// symmetra::ep::AllToAllV (include/symmetra/ep.hpp) on the CPU backend: one fcollect of every
// member's splits, its room and its verdict; every member then knows where its rows land in each
// destination's `out` (after those of the ranks before it) and writes them there; a team barrier.
#include <cstring>
#include <string>
#include <vector>

#include "ep_plan.hpp"

namespace symmetra::ep {

namespace {
enum Verdict : std::int64_t { kOk = 0, kNegative, kPastInput, kNotSymmetric };
}

AllToAllV::AllToAllV(Runtime& rt, const Team& team) : rt_(rt), team_(team) {
  const bool member = team.valid() && team.my_pe() >= 0;
  rank_ = member ? team.my_pe() : -1;
  n_ = member ? team.n_pes() : 0;
  // Symmetric allocation is collective over the world: every PE allocates for the largest team.
  std::int64_t most = n_;
  detail::world_max(rt, &most, 1);
  words_ = static_cast<std::size_t>(most) + 3;
  record_ = rt.allocate_array<std::int64_t>(words_);
  records_ = rt.allocate_array<std::int64_t>(words_ * most);
  if (rt.on_gpu()) {
    rt.free(records_);
    rt.free(record_);
    throw Error("[pe " + std::to_string(rt.my_pe()) +
                "] ep::AllToAllV: the GPU backend's all_to_all_v is not built yet; run the CPU "
                "backend (docs/moe.md)");
  }
}

AllToAllV::~AllToAllV() {
  try {
    rt_.barrier_all();
    rt_.free(records_);
    rt_.free(record_);
  } catch (const std::exception&) {
  }
}

void AllToAllV::operator()(const void* in, std::int64_t in_rows, const std::int64_t* in_splits,
                           void* out, std::int64_t out_rows, std::int64_t* out_splits_offsets,
                           std::size_t row_bytes) {
  const std::string pe = "[pe " + std::to_string(rt_.my_pe()) + "] ep::all_to_all_v: ";
  if (rank_ < 0) throw Error(pe + "this PE is not a member of the team");
  const int n = n_;
  // Words of a record: splits [0, n), out_rows, verdict, its value.
  std::vector<std::int64_t> mine(words_, 0);
  std::int64_t sum = 0;
  for (int d = 0; d < n; ++d) {
    mine[d] = in_splits[d];
    if (in_splits[d] < 0 && mine[n + 1] == kOk) mine[n + 1] = kNegative, mine[n + 2] = d;
    sum += in_splits[d];
  }
  if (mine[n + 1] == kOk && sum > in_rows) mine[n + 1] = kPastInput, mine[n + 2] = sum;
  if (mine[n + 1] == kOk && out_rows > 0 && !rt_.is_symmetric(out)) mine[n + 1] = kNotSymmetric;
  mine[n] = out_rows;
  std::memcpy(record_, mine.data(), words_ * sizeof(std::int64_t));
  rt_.fcollect(team_, records_, record_, words_);
  const std::int64_t* all = records_;
  for (int s = 0; s < n; ++s) {
    const std::int64_t* r = all + s * words_;
    const std::string who =
        "team rank " + std::to_string(s) + " (pe " + std::to_string(team_.world_pe(s)) + ")";
    if (r[n + 1] == kNegative)
      throw Error(pe + who + " passed in_splits[" + std::to_string(r[n + 2]) +
                  "] = " + std::to_string(r[r[n + 2]]) + ", which is negative");
    if (r[n + 1] == kPastInput)
      throw Error(pe + who + "'s in_splits sum to " + std::to_string(r[n + 2]) +
                  " rows, more than its input's");
    if (r[n + 1] == kNotSymmetric)
      throw Error(pe + who + " passed an `out` that is not in the symmetric heap");
  }
  for (int d = 0; d < n; ++d) {
    std::int64_t incoming = 0;
    for (int s = 0; s < n; ++s) incoming += all[s * words_ + d];
    if (incoming > all[d * words_ + n])
      throw Error(pe + "team rank " + std::to_string(d) + " would receive " +
                  std::to_string(incoming) + " rows into an out of " +
                  std::to_string(all[d * words_ + n]));
  }
  // This PE's rows for each destination, at their place there.
  const auto* src = static_cast<const std::byte*>(in);
  std::vector<std::int64_t> first(n, 0);  // this PE's first row for each destination
  for (int d = 1; d < n; ++d) first[d] = first[d - 1] + in_splits[d - 1];
  for (int step = 0; step < n; ++step) {
    const int d = (rank_ + step) % n;  // spread the writers over the destinations
    if (in_splits[d] == 0) continue;
    std::int64_t at = 0;
    for (int s = 0; s < rank_; ++s) at += all[s * words_ + d];
    rt_.putmem(static_cast<std::byte*>(out) + at * row_bytes, src + first[d] * row_bytes,
               in_splits[d] * row_bytes, team_.world_pe(d));
  }
  std::int64_t at = 0;
  for (int s = 0; s < n; ++s) {
    out_splits_offsets[s] = all[s * words_ + rank_];
    out_splits_offsets[n + s] = at;
    at += out_splits_offsets[s];
  }
  rt_.barrier(team_);
}

}  // namespace symmetra::ep
