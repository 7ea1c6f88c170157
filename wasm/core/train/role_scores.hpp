// What each head of each block does, measured on the held-out set: the mean attention from a
// query t to t - 1 (previous token), to position 0 (first token) and to t itself (self), each
// over the queries t >= 1 that the block computes, and on each of the task's probes (induction:
// from a position of the second copy to the token after the earlier occurrence of its token, and
// to that earlier occurrence itself; verb-noun: from "?" to the latest verb and the latest noun).
// Uniform causal attention over T = 64 positions scores about 0.06 on each of the first three.
#pragma once

#include <vector>

#include "tasks/task.hpp"

namespace headwise::train {

struct RoleScores {
  double previous_token = 0, first_token = 0, self = 0;
  std::vector<double> task;  // per probe of the task, in task.probes order (NaN: none counted)
};

// The probes of the task-free roles, in RoleScores order, null-terminated.
const tasks::Probe* role_probes();

// A head takes the role it scores highest on when that score is at least this (about five times
// what uniform attention over 64 positions gives); otherwise it is "mixed".
constexpr double kRoleScore = 0.3;

// The role a task's probe stands for: "induction", "duplicate token", "latest verb", "latest
// noun", "subject antecedent", "object antecedent", "possessive antecedent", "name copy", "two
// back" (another probe, "agreement" say: its own name).
const char* probe_role(const char* probe);

// The task-free roles' names, in RoleScores order ("previous token", "first token", "self"),
// null-terminated, and the name of no role.
const char* const* task_free_roles();
constexpr const char* kMixedRole = "mixed";

// The one naming rule: "previous token", "first token", "self", a probe's role or "mixed".
const char* role_name(const RoleScores& s, const tasks::Task& task);

}  // namespace headwise::train
