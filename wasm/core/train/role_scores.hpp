// What each head of each block does, measured on the held-out set: the mean attention from a
// query t to t - 1 (previous token), to position 0 (first token) and to t itself (self), each
// over the queries t >= 1 that the block computes, and, for a task with an "induction" probe,
// from a position of the second copy to the token after the earlier occurrence of its token, and
// for one with a "duplicate" probe, to that earlier occurrence itself (a duplicate-token head: with
// learned positions a 2-layer model can build its induction head from one, by Q-composition).
// Uniform causal attention over T = 64 positions scores about 0.06 on each of the first three.
#pragma once

#include <limits>

#include "tasks/task.hpp"

namespace headwise::train {

struct RoleScores {
  double previous_token = 0, first_token = 0, self = 0;
  // NaN: the task has no such probe.
  double induction = std::numeric_limits<double>::quiet_NaN();
  double duplicate = std::numeric_limits<double>::quiet_NaN();
};

// The probes of the task-free roles, in RoleScores order, null-terminated.
const tasks::Probe* role_probes();

// A head takes the role it scores highest on when that score is at least this (about five times
// what uniform attention over 64 positions gives); otherwise it is "mixed".
constexpr double kRoleScore = 0.3;

// The one naming rule: "previous token", "induction", "duplicate token", "first token", "self" or
// "mixed".
const char* role_name(const RoleScores& s);

}  // namespace headwise::train
