// Not a test: trains the shipped models with fixed seeds and writes web/checkpoints/<name>.json
// (scripts/make-checkpoints.sh runs it). Bit for bit reproducible on one build: the weights'
// FNV-1a hash is recorded at step kEarlyStep and at the end, and `verify` re-trains every model
// for kEarlyStep steps and prints those hashes (tests/js/checkpoints.test.js compares them).
// A checkpoint holds the options (JavaScript names), the weights (the value buffer, float32
// little-endian, base64), the final held-out evaluation and role scores, the first batch losses
// (the wasm trainer must reproduce them) and a curve every kCurveEvery steps.
// Usage: make_checkpoints write DIR | make_checkpoints verify
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "train/trainer.hpp"

using namespace headwise::train;

namespace {

constexpr long kEarlyStep = 100, kCurveEvery = 50, kFirstLosses = 20;

struct Model {
  const char* name;
  const char* about;
  TrainerOptions options;
  long steps;
};

std::vector<Model> models() {
  TrainerOptions induction;
  induction.task = "induction";
  induction.heads = 4, induction.d_model = 64, induction.mlp = 0, induction.eval_size = 512;
  induction.seed = 0;
  TrainerOptions one = induction, two = induction;
  one.layers = 1, two.layers = 2;
  TrainerOptions verb_noun;  // createTrainer's defaults, the Learn panel's seed
  verb_noun.seed = 2;
  TrainerOptions one_head = verb_noun, two_heads = verb_noun;
  one_head.heads = 1, two_heads.heads = 2;
  return {
      {"induction-1-layer", "one attention-only layer of 4 heads on the induction task", one, 2000},
      {"induction-2-layers", "two attention-only layers of 4 heads on the induction task", two,
       2000},
      {"verb-noun-1-head", "one head on the latest verb and latest noun", one_head, 2000},
      {"verb-noun-2-heads", "two heads on the latest verb and latest noun", two_heads, 2000},
  };
}

std::string fnv1a64(const float* p, std::size_t n) {
  std::uint64_t h = 0xcbf29ce484222325ull;
  const auto* bytes = reinterpret_cast<const unsigned char*>(p);
  for (std::size_t i = 0; i < n * sizeof(float); ++i) h = (h ^ bytes[i]) * 0x100000001b3ull;
  char text[17];
  std::snprintf(text, sizeof text, "%016llx", static_cast<unsigned long long>(h));
  return text;
}

std::string base64(const float* p, std::size_t n) {
  static const char kDigits[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::vector<unsigned char> b(n * 4);
  for (std::size_t i = 0; i < n; ++i) {
    std::uint32_t u;
    std::memcpy(&u, p + i, 4);
    for (int k = 0; k < 4; ++k) b[4 * i + k] = static_cast<unsigned char>(u >> (8 * k));
  }
  std::string out;
  for (std::size_t i = 0; i < b.size(); i += 3) {
    const std::uint32_t v = (std::uint32_t(b[i]) << 16) |
                            (i + 1 < b.size() ? std::uint32_t(b[i + 1]) << 8 : 0) |
                            (i + 2 < b.size() ? std::uint32_t(b[i + 2]) : 0);
    out += kDigits[(v >> 18) & 63];
    out += kDigits[(v >> 12) & 63];
    out += i + 1 < b.size() ? kDigits[(v >> 6) & 63] : '=';
    out += i + 2 < b.size() ? kDigits[v & 63] : '=';
  }
  return out;
}

std::string number(double v, const char* format = "%.17g") {
  if (!std::isfinite(v)) return "null";
  char text[40];
  std::snprintf(text, sizeof text, format, v);
  return text;
}

std::string options_json(const TrainerOptions& o) {
  std::string out = "{";
  const OptionRow* r = option_rows();
  for (std::size_t i = 0; i < option_row_count(); ++i) {
    out += std::string(i ? ", " : "") + "\"" + r[i].name + "\": ";
    if (r[i].number) out += number(o.*r[i].number);
    if (r[i].flag) out += o.*r[i].flag ? "true" : "false";
    if (r[i].text) out += "\"" + o.*r[i].text + "\"";
  }
  return out + "}";
}

std::string evaluation_json(const Evaluation& e, const Trainer& t, const char* format) {
  std::string out = "{\"loss\": " + number(e.loss, format) +
                    ", \"accuracy\": " + number(e.accuracy, format) + ", \"groups\": {";
  for (std::size_t g = 0; g < e.groups.size(); ++g) {
    out += std::string(g ? ", " : "") + "\"" + t.task().groups[g] +
           "\": {\"loss\": " + number(e.groups[g].loss, format) +
           ", \"accuracy\": " + number(e.groups[g].accuracy, format) + "}";
  }
  return out + "}}";
}

// [[{ previousToken, firstToken, self, the task's probes by name, role }] per block]
std::string roles_json(const HeadRoleScores& r, const headwise::tasks::Task& task,
                       const char* format, bool names) {
  std::string out = "[";
  for (std::size_t l = 0; l < r.scores.size(); ++l) {
    out += l ? ", [" : "[";
    for (std::size_t h = 0; h < r.scores[l].size(); ++h) {
      const RoleScores& s = r.scores[l][h];
      out += std::string(h ? ", " : "") +
             "{\"previousToken\": " + number(s.previous_token, format) +
             ", \"firstToken\": " + number(s.first_token, format) +
             ", \"self\": " + number(s.self, format);
      for (std::size_t k = 0; k < s.task.size(); ++k)
        out += std::string(", \"") + task.probes[k].name + "\": " + number(s.task[k], format);
      if (names) out += std::string(", \"role\": \"") + role_name(s, task) + "\"";
      out += "}";
    }
    out += "]";
  }
  return out + "]";
}

std::unique_ptr<Trainer> create(const Model& m) {
  std::unique_ptr<Trainer> t;
  const headwise::Status s =
      Trainer::create(m.options, std::numeric_limits<std::uint64_t>::max(), &t);
  if (!s.is_ok()) std::fprintf(stderr, "%s: %s\n", m.name, s.message().c_str()), std::exit(1);
  return t;
}

std::string weight_hash(Trainer& t) {
  return fnv1a64(t.model().buffer(headwise::layers::Slot::kValue), t.model().parameter_count());
}

void write(const Model& m, const std::string& dir) {
  std::unique_ptr<Trainer> t = create(m);
  std::string first_losses, curve, early;
  double loss_sum = 0;
  for (long i = 1; i <= m.steps; ++i) {
    const Evaluation e = t->step();
    if (e.diverged) std::fprintf(stderr, "%s: step %ld diverged\n", m.name, i), std::exit(1);
    loss_sum += e.loss;
    if (i <= kFirstLosses) first_losses += (i > 1 ? ", " : "") + number(e.loss);
    if (i == kEarlyStep) early = weight_hash(*t);
    if (i % kCurveEvery) continue;
    curve += std::string(curve.empty() ? "" : ",\n    ") + "{\"step\": " + std::to_string(i) +
             ", \"loss\": " + number(loss_sum / kCurveEvery, "%.5g") +
             ", \"heldOut\": " + evaluation_json(t->evaluate(), *t, "%.5g") +
             ", \"roles\": " + roles_json(t->role_scores(), t->task(), "%.4g", false) + "}";
    loss_sum = 0;
  }
  const Evaluation e = t->evaluate();
  const HeadRoleScores roles = t->role_scores();
  const std::size_t n = t->model().parameter_count();
  const float* w = t->model().buffer(headwise::layers::Slot::kValue);
  const std::string path = dir + "/" + m.name + ".json";
  std::FILE* f = std::fopen(path.c_str(), "w");
  if (!f) std::fprintf(stderr, "cannot write %s\n", path.c_str()), std::exit(1);
  std::fprintf(f,
               "{\n  \"format\": \"headwise-checkpoint/1\",\n  \"name\": \"%s\",\n"
               "  \"about\": \"%s\",\n  \"command\": \"bash scripts/make-checkpoints.sh\",\n"
               "  \"options\": %s,\n  \"steps\": %ld,\n"
               "  \"weightHashes\": [{\"step\": %ld, \"fnv1a64\": \"%s\"}, "
               "{\"step\": %ld, \"fnv1a64\": \"%s\"}],\n"
               "  \"evaluation\": %s,\n  \"roles\": %s,\n  \"firstLosses\": [%s],\n"
               "  \"curve\": [\n    %s\n  ],\n"
               "  \"parameterCount\": %zu,\n  \"weights\": \"%s\"\n}\n",
               m.name, m.about, options_json(m.options).c_str(), m.steps, kEarlyStep, early.c_str(),
               m.steps, weight_hash(*t).c_str(), evaluation_json(e, *t, "%.17g").c_str(),
               roles_json(roles, t->task(), "%.17g", true).c_str(), first_losses.c_str(),
               curve.c_str(), n, base64(w, n).c_str());
  std::fclose(f);
  std::printf("%s: %ld steps, held-out loss %.6f accuracy %.6f", m.name, m.steps, e.loss,
              e.accuracy);
  for (std::size_t g = 0; g < e.groups.size(); ++g)
    std::printf(", %s %.4f", t->task().groups[g], e.groups[g].loss);
  std::printf(" | roles");
  for (std::size_t l = 0; l < roles.scores.size(); ++l) {
    std::printf(" L%zu:", l + 1);
    for (const RoleScores& s : roles.scores[l]) std::printf(" %s;", role_name(s, t->task()));
  }
  std::printf(" -> %s\n", path.c_str());
  std::fflush(stdout);
}

}  // namespace

int main(int argc, char** argv) {
  const bool writing = argc == 3 && std::strcmp(argv[1], "write") == 0;
  if (!writing && !(argc == 2 && std::strcmp(argv[1], "verify") == 0)) {
    std::fprintf(stderr, "usage: %s write DIR | %s verify\n", argv[0], argv[0]);
    return 2;
  }
  if (writing) {
    for (const Model& m : models()) write(m, argv[2]);
    return 0;
  }
  // { name: hash after kEarlyStep steps }
  std::printf("{");
  bool first = true;
  for (const Model& m : models()) {
    std::unique_ptr<Trainer> t = create(m);
    for (long i = 0; i < kEarlyStep; ++i) t->step();
    std::printf("%s\"%s\": {\"step\": %ld, \"fnv1a64\": \"%s\"}", first ? "" : ", ", m.name,
                kEarlyStep, weight_hash(*t).c_str());
    first = false;
  }
  std::printf("}\n");
  return 0;
}
