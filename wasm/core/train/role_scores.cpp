#include "role_scores.hpp"

#include <cmath>
#include <cstring>

namespace headwise::train {

namespace {

int previous_token(const int*, const std::uint8_t*, int query) {
  return query >= 1 ? query - 1 : -1;
}
int first_token(const int*, const std::uint8_t*, int query) { return query >= 1 ? 0 : -1; }
int self(const int*, const std::uint8_t*, int query) { return query >= 1 ? query : -1; }

const tasks::Probe kRoleProbes[] = {{"previousToken", previous_token},
                                    {"firstToken", first_token},
                                    {"self", self},
                                    {nullptr, nullptr}};

const char* const kProbeRoles[][2] = {{"induction", "induction"},
                                      {"duplicate", "duplicate token"},
                                      {"verb", "latest verb"},
                                      {"noun", "latest noun"},
                                      {"subjectAntecedent", "subject antecedent"},
                                      {"objectAntecedent", "object antecedent"},
                                      {"possessiveAntecedent", "possessive antecedent"},
                                      {"nameCopy", "name copy"},
                                      {"twoBack", "two back"}};

const char* const kTaskFreeRoles[] = {"previous token", "first token", "self", nullptr};

}  // namespace

const tasks::Probe* role_probes() { return kRoleProbes; }
const char* const* task_free_roles() { return kTaskFreeRoles; }

const char* probe_role(const char* probe) {
  for (const auto& row : kProbeRoles)
    if (std::strcmp(row[0], probe) == 0) return row[1];
  return probe;
}

const char* role_name(const RoleScores& s, const tasks::Task& task) {
  const char* best = kMixedRole;
  double top = -1;
  const auto consider = [&](double score, const char* name) {
    if (std::isfinite(score) && score > top) top = score, best = name;
  };
  consider(s.previous_token, kTaskFreeRoles[0]);
  for (std::size_t k = 0; k < s.task.size() && task.probes[k].name; ++k)
    consider(s.task[k], probe_role(task.probes[k].name));
  consider(s.first_token, kTaskFreeRoles[1]);
  consider(s.self, kTaskFreeRoles[2]);
  return top >= kRoleScore ? best : kMixedRole;
}

}  // namespace headwise::train
