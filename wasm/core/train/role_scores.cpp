#include "role_scores.hpp"

#include <cmath>

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

}  // namespace

const tasks::Probe* role_probes() { return kRoleProbes; }

const char* role_name(const RoleScores& s) {
  const struct {
    double score;
    const char* name;
  } roles[] = {{s.previous_token, "previous token"},
               {s.induction, "induction"},
               {s.duplicate, "duplicate token"},
               {s.first_token, "first token"},
               {s.self, "self"}};
  const char* best = "mixed";
  double top = -1;
  for (const auto& r : roles) {
    if (std::isfinite(r.score) && r.score > top) {
      top = r.score;
      best = r.name;
    }
  }
  return top >= kRoleScore ? best : "mixed";
}

}  // namespace headwise::train
