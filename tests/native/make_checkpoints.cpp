// Not a test: trains the shipped models with fixed seeds and writes web/checkpoints/<name>.json
// (scripts/make-checkpoints.sh runs it). Bit for bit reproducible on one build: the weights'
// FNV-1a hash is recorded at step kEarlyStep and at the end, and `verify` re-trains every model
// for kEarlyStep steps and prints those hashes (tests/js/checkpoints.test.js compares them).
// A checkpoint holds the options (JavaScript names), the weights (the value buffer, float32
// little-endian, base64; or, where the model says so, rounded to float16, "weightsEncoding":
// "float16", and then evaluated as rounded), the final held-out evaluation and role scores, the
// first batch losses (the wasm trainer must reproduce them) and a curve every curve_every steps.
// The last weight hash is of the weights as shipped (float32 values, rounded ones where float16).
// Usage: make_checkpoints write DIR [NAME...] (only those models) | make_checkpoints verify
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
  long curve_every = kCurveEvery;
  bool float16 = false;   // weights shipped as IEEE half precision (half the size)
  bool ablation = false;  // records the evaluation with each head zeroed alone
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
  // The lecture's sentence (docs/story.md): one attention-only layer of 4 heads of 16, seed 1,
  // the run that reaches >= 0.99 on every probe by step 3000 (evalSize: the task's own).
  TrainerOptions story;
  story.task = "story";
  story.layers = 1, story.heads = 4, story.d_model = 64, story.mlp = 0, story.seed = 1;
  TrainerOptions story_two = story;  // the same width split in 2 heads of 32 (the heads panel's)
  story_two.heads = 2;
  TrainerOptions story_one = story;  // one head of 64 (the Learn panel's and the heads panel's)
  story_one.heads = 1;
  TrainerOptions story_layers = story;  // the 2 layers of 4 heads (docs/story.md)
  story_layers.layers = 2;
  // Every model ships its weights as float16 (half the size of float32; evaluated as rounded).
  return {
      {"induction-1-layer", "one attention-only layer of 4 heads on the induction task", one, 2000,
       kCurveEvery, true},
      {"induction-2-layers", "two attention-only layers of 4 heads on the induction task", two,
       2000, kCurveEvery, true},
      {"verb-noun-1-head", "one head on the latest verb and latest noun", one_head, 2000,
       kCurveEvery, true},
      {"verb-noun-2-heads", "two heads on the latest verb and latest noun", two_heads, 2000,
       kCurveEvery, true},
      {"story-4-heads",
       "one attention-only layer of 4 heads on the story task (pronouns, agreement, names)", story,
       3000, 250, true, true},
      {"story-2-heads",
       "one attention-only layer of 2 heads on the story task (pronouns, agreement, names)",
       story_two, 3000, 250, true, true},
      {"story-1-head",
       "one attention-only layer of 1 head on the story task (pronouns, agreement, names)",
       story_one, 3000, 250, true, true},
      {"story-2-layers",
       "two attention-only layers of 4 heads on the story task (pronouns, agreement, names)",
       story_layers, 3000, 250, true, true},
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

// IEEE binary16 nearest to v (ties to even); finite weights of the trainable range only.
std::uint16_t to_half(float v) {
  std::uint32_t u;
  std::memcpy(&u, &v, 4);
  const std::uint32_t sign = (u >> 16) & 0x8000u;
  const float a = std::fabs(v);
  if (a < 6.103515625e-05f) {  // subnormal half: a multiple of 2^-24
    return static_cast<std::uint16_t>(sign | std::uint32_t(std::nearbyint(a * 16777216.0f)));
  }
  std::uint32_t m = u & 0x7fffffffu;
  const std::uint32_t lower = m & 0x1fffu, keep = (m >> 13) & 1u;
  m >>= 13;
  if (lower > 0x1000u || (lower == 0x1000u && keep)) ++m;  // carries into the exponent if due
  return static_cast<std::uint16_t>(sign | (m - ((127 - 15) << 10)));
}

float from_half(std::uint16_t h) {
  const std::uint32_t sign = std::uint32_t(h & 0x8000u) << 16, e = (h >> 10) & 31u, m = h & 1023u;
  if (e == 0) return (sign ? -1.0f : 1.0f) * float(m) / 16777216.0f;
  const std::uint32_t u = sign | ((e + 127 - 15) << 23) | (m << 13);
  float v;
  std::memcpy(&v, &u, 4);
  return v;
}

std::string base64_bytes(const std::vector<unsigned char>& b) {
  static const char kDigits[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
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

// The weights rounded to float16 in place; their half bits, little-endian, as base64.
std::string round_to_half(float* p, std::size_t n) {
  std::vector<unsigned char> b(n * 2);
  for (std::size_t i = 0; i < n; ++i) {
    const std::uint16_t h = to_half(p[i]);
    p[i] = from_half(h);
    b[2 * i] = static_cast<unsigned char>(h & 255u);
    b[2 * i + 1] = static_cast<unsigned char>(h >> 8);
  }
  return base64_bytes(b);
}

std::string number(double v, const char* format = "%.17g") {
  if (!std::isfinite(v)) return "null";
  char text[40];
  std::snprintf(text, sizeof text, format, v);
  return text;
}

std::string base64(const float* p, std::size_t n) {
  std::vector<unsigned char> b(n * 4);
  for (std::size_t i = 0; i < n; ++i) {
    std::uint32_t u;
    std::memcpy(&u, p + i, 4);
    for (int k = 0; k < 4; ++k) b[4 * i + k] = static_cast<unsigned char>(u >> (8 * k));
  }
  return base64_bytes(b);
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
           ", \"accuracy\": " + number(e.groups[g].accuracy, format) +
           (e.groups[g].candidate_rows
                ? ", \"candidateAccuracy\": " + number(e.groups[g].candidate_accuracy, format)
                : std::string()) +
           "}";
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
    if (i % m.curve_every) continue;
    curve += std::string(curve.empty() ? "" : ",\n    ") + "{\"step\": " + std::to_string(i) +
             ", \"loss\": " + number(loss_sum / m.curve_every, "%.5g") +
             ", \"heldOut\": " + evaluation_json(t->evaluate(), *t, "%.5g") +
             ", \"roles\": " + roles_json(t->role_scores(), t->task(), "%.4g", false) + "}";
    loss_sum = 0;
  }
  const std::size_t n = t->model().parameter_count();
  float* w = t->model().buffer(headwise::layers::Slot::kValue);
  const std::string weights = m.float16 ? round_to_half(w, n) : base64(w, n);
  const Evaluation e = t->evaluate();  // of the weights as shipped
  const HeadRoleScores roles = t->role_scores();
  // [{ "layer", "head", "evaluation" }]: each head zeroed alone (Trainer::evaluate_ablated).
  std::string ablation;
  for (std::size_t l = 0; m.ablation && l < roles.scores.size(); ++l) {
    for (std::size_t h = 0; h < roles.scores[l].size(); ++h) {
      Evaluation a;
      const headwise::Status s = t->evaluate_ablated({{l, h}}, &a);
      if (!s.is_ok()) std::fprintf(stderr, "%s: %s\n", m.name, s.message().c_str()), std::exit(1);
      ablation += std::string(ablation.empty() ? "" : ",\n    ") +
                  "{\"layer\": " + std::to_string(l) + ", \"head\": " + std::to_string(h) +
                  ", \"evaluation\": " + evaluation_json(a, *t, "%.17g") + "}";
    }
  }
  if (!ablation.empty()) ablation = "\n  \"ablation\": [\n    " + ablation + "\n  ],";
  const std::string tail = std::string(m.float16 ? "  \"weightsEncoding\": \"float16\",\n" : "") +
                           "  \"weights\": \"" + weights + "\"";
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
               "  \"parameterCount\": %zu,%s\n%s\n}\n",
               m.name, m.about, options_json(t->options()).c_str(), m.steps, kEarlyStep,
               early.c_str(), m.steps, weight_hash(*t).c_str(),
               evaluation_json(e, *t, "%.17g").c_str(),
               roles_json(roles, t->task(), "%.17g", true).c_str(), first_losses.c_str(),
               curve.c_str(), n, ablation.c_str(), tail.c_str());
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
  const bool writing = argc >= 3 && std::strcmp(argv[1], "write") == 0;
  if (!writing && !(argc == 2 && std::strcmp(argv[1], "verify") == 0)) {
    std::fprintf(stderr, "usage: %s write DIR [NAME...] | %s verify\n", argv[0], argv[0]);
    return 2;
  }
  if (writing) {
    for (const Model& m : models()) {
      bool asked = argc == 3;
      for (int i = 3; i < argc; ++i) asked = asked || std::strcmp(argv[i], m.name) == 0;
      if (asked) write(m, argv[2]);
    }
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
