// The teams of the API (include/symmetra/team.hpp, runtime.hpp): checks, then the team table
// (team_table.hpp), which makes and unmakes them.
#include <algorithm>
#include <string>

#include "backend/backend.hpp"
#include "runtime/planner.hpp"
#include "runtime/state.hpp"
#include "symmetra/runtime.hpp"

namespace symmetra {

int Runtime::checked(const Team& team, const char* op) const {
  const int h = team.handle();
  if (!team.valid() || !s_->teams.member(h))
    fail(std::string(op) + ": team handle " + std::to_string(h) +
         " is not a team this PE belongs to");
  return h;
}

int Runtime::create_team(int parent, int start, int stride, int size, const char* op) {
  return s_->teams.create(parent, start, stride, size, op,
                          [&](int slot) { s_->backend->team_created(slot); });
}

Team Runtime::split_strided(const Team& parent, int start, int stride, int size) {
  if (size == 1) stride = 1;  // OpenSHMEM allows any stride for a team of one
  const int h = create_team(checked(parent, "split_strided"), start, stride, size, "split_strided");
  return h < 0 ? Team() : Team(this, h);
}

void Runtime::split_2d(const Team& parent, int xrange, Team* xteam, Team* yteam) {
  const int par = checked(parent, "split_2d");
  const int n = s_->teams[par].size;
  if (xrange < 1) fail("split_2d: xrange " + std::to_string(xrange) + " must be positive");
  xrange = std::min(xrange, n);
  const int yrange = (n + xrange - 1) / xrange;
  *xteam = Team();
  *yteam = Team();
  // Rows first, then columns; disjoint teams of one pass may share a slot.
  for (int y = 0; y < yrange; ++y) {
    const int h = create_team(par, y * xrange, 1, std::min(xrange, n - y * xrange), "split_2d");
    if (h >= 0) *xteam = Team(this, h);
  }
  for (int x = 0; x < xrange; ++x) {
    const int h = create_team(par, x, xrange, (n - x + xrange - 1) / xrange, "split_2d");
    if (h >= 0) *yteam = Team(this, h);
  }
}

Team Runtime::team_from_id(std::uint64_t id, int size, int index) {
  const int h = s_->teams.create_by_id(id, size, index, "team_from_id",
                                       [&](int slot) { s_->backend->team_created(slot); });
  return Team(this, h);
}

void Runtime::destroy(Team& team) {
  const int h = checked(team, "destroy");
  if (h == device::kTeamWorld || h == device::kTeamShared)
    fail("destroy: the predefined teams cannot be destroyed");
  const int slot = s_->teams[h].slot;
  s_->teams.destroy(h);
  s_->planner->release(slot);
  team = Team();
}

int Team::my_pe() const {
  return valid() ? detail::RuntimeAccess::state(*rt_).teams[handle_].my_rank : -1;
}
int Team::n_pes() const {
  return valid() ? detail::RuntimeAccess::state(*rt_).teams[handle_].size : -1;
}

int Team::world_pe(int pe) const {
  if (!valid() || pe < 0 || pe >= n_pes()) return -1;
  const auto& t = detail::RuntimeAccess::state(*rt_).teams[handle_];
  return t.start + pe * t.stride;
}

int Team::translate_pe(int pe, const Team& dest) const {
  const int world = world_pe(pe);
  if (world < 0 || !dest.valid()) return -1;
  const auto& d = detail::RuntimeAccess::state(*rt_).teams[dest.handle_];
  const int rel = world - d.start;
  if (rel < 0 || rel % d.stride != 0 || rel / d.stride >= d.size) return -1;
  return rel / d.stride;
}

}  // namespace symmetra
