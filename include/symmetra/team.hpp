// Teams: ordered subsets of the world's PEs (OpenSHMEM 1.5 §9.4).
//
// A Team is a small handle; the Runtime that made it owns its state. Every team operation takes
// team-relative PE numbers. Teams are arithmetic progressions of world PEs (start, stride, size),
// which covers every team split_strided and split_2d can make.
#pragma once

namespace symmetra {

class Runtime;

class Team {
 public:
  Team() = default;
  Team(Runtime* rt, int handle) : rt_(rt), handle_(handle) {}

  // False for the invalid team (what a split returns to PEs outside the new team).
  bool valid() const { return rt_ != nullptr && handle_ >= 0; }
  // Index of the team in Context::teams, for device code.
  int handle() const { return handle_; }
  // This PE's number in the team, -1 if not a member.
  int my_pe() const;
  // Number of PEs in the team.
  int n_pes() const;
  // World PE number of team member `pe`.
  int world_pe(int pe) const;
  // Number in `dest` of this team's member `pe`, or -1 if it is not in `dest`.
  int translate_pe(int pe, const Team& dest) const;

  friend bool operator==(const Team& a, const Team& b) {
    return a.rt_ == b.rt_ && a.handle_ == b.handle_;
  }

 private:
  Runtime* rt_ = nullptr;
  int handle_ = -1;
};

}  // namespace symmetra
