#include "trainer.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <new>
#include <string>

#include "config.hpp"

namespace headwise::train {

namespace {

constexpr std::size_t kEvalChunk = 256;

std::size_t capacity_of(const TrainerOptions& o) {
  return std::max<std::size_t>(std::size_t(o.batch),
                               std::min<std::size_t>(kEvalChunk, std::size_t(o.eval_size)));
}

// Bytes of the batch and held-out arrays: ids (T ints) and per read position a target, a mask
// byte and a group byte, per sequence.
std::uint64_t data_bytes(const TrainerOptions& o, const tasks::Task& t) {
  const std::uint64_t per = t.tokens * sizeof(int) + tasks::read_tokens(t) * (sizeof(int) + 2);
  return (std::uint64_t(o.batch) + std::uint64_t(o.eval_size)) * per;
}

// What the allocator adds to each block and the objects around the buffers (the Trainer, the
// Stack, the tables' names and index vectors): counted so that the budget is what is used.
constexpr std::uint64_t kOverheadBytes = 64 * 1024;

// given, checked, with its task's defaults filled in (*o), its task, model and bytes.
Status resolve(const TrainerOptions& given, TrainerOptions* resolved, const tasks::Task** task,
               layers::ModelSpec* spec, layers::StackTable* table, std::uint64_t* bytes) {
  Status s = check_options(given);
  if (!s.is_ok()) return s;
  *task = tasks::find_task(given.task.c_str());
  *resolved = with_task_defaults(given, **task);
  const TrainerOptions& o = *resolved;
  *spec = model_spec(o, **task);
  s = layers::Stack::plan(*spec, capacity_of(o), table);
  if (!s.is_ok()) return s;
  const CheckedU64 total = table->bytes() + data_bytes(o, **task) + kOverheadBytes;
  if (!total.ok())
    return Status::error("these options are too large: their size does not fit in 64 bits");
  *bytes = total.value();
  return Status::ok();
}

bool finite(const float* p, std::size_t n) {
  float acc = 0.0f;
  for (std::size_t i = 0; i < n; ++i) acc += p[i] * 0.0f;  // NaN or infinity makes acc NaN
  return acc == 0.0f;
}

}  // namespace

bool Trainer::Data::allocate(std::size_t sequences, std::size_t tokens, std::size_t reads) {
  return ids.allocate(sequences * tokens) && targets.allocate(sequences * reads) &&
         mask.allocate(sequences * reads) && groups.allocate(sequences * reads);
}

Status Trainer::plan(const TrainerOptions& given, std::uint64_t* bytes) {
  TrainerOptions o;
  const tasks::Task* task = nullptr;
  layers::ModelSpec spec;
  layers::StackTable table;
  return resolve(given, &o, &task, &spec, &table, bytes);
}

Status Trainer::create(const TrainerOptions& given, std::uint64_t address_space,
                       std::unique_ptr<Trainer>* out) {
  TrainerOptions o;
  const tasks::Task* task = nullptr;
  layers::ModelSpec spec;
  layers::StackTable table;
  std::uint64_t bytes = 0;
  Status s = resolve(given, &o, &task, &spec, &table, &bytes);
  if (!s.is_ok()) return s;
  const std::uint64_t budget = std::min(std::uint64_t(o.memory_budget), address_space);
  if (bytes > budget) {
    const bool capped = budget < std::uint64_t(o.memory_budget);
    return Status::error("these options need " + format_bytes(double(bytes)) + ", more than " +
                         (capped ? "the module can ever hold (" : "the memory budget of ") +
                         format_bytes(double(budget)) + (capped ? ")" : " (memoryBudget)"));
  }
  // A trainer whose single step could not be called within one call's limit is refused here.
  const double step_work =
      kStepPassesPerForward * double(o.batch) * layers::forward_multiply_adds(spec);
  if (step_work > kMaxMultiplyAddsPerCall) {
    return Status::error(
        "one training step of " + format_number(o.batch) + " sequences takes " +
        format_number(std::round(step_work)) + " multiply-adds, more than one call's limit of " +
        format_number(kMaxMultiplyAddsPerCall) + ": choose a smaller batch or model");
  }
  const double eval_work = double(o.eval_size) * layers::forward_multiply_adds(spec);
  if (eval_work > kMaxMultiplyAddsPerCall) {
    return Status::error("evaluating " + format_number(o.eval_size) + " held-out sequences takes " +
                         format_number(std::round(eval_work)) +
                         " multiply-adds, more than one call's limit of " +
                         format_number(kMaxMultiplyAddsPerCall) + ": choose a smaller evalSize");
  }
  std::unique_ptr<Trainer> t(new (std::nothrow) Trainer());
  if (!t) return Status::error("out of memory allocating the trainer");
  t->options_ = o;
  t->task_ = task;
  t->adam_.learning_rate = static_cast<float>(o.learning_rate);
  t->adam_.warmup = static_cast<long>(o.warmup);
  s = layers::Stack::create(spec, capacity_of(o), std::uint64_t(o.seed), &t->model_);
  if (!s.is_ok()) return s;
  t->batches_.reset(new (std::nothrow) tasks::Mulberry32(std::uint32_t(o.seed)));
  const std::size_t T = task->tokens, reads = tasks::read_tokens(*task);
  if (!t->batches_ || !t->batch_.allocate(std::size_t(o.batch), T, reads) ||
      !t->held_.allocate(std::size_t(o.eval_size), T, reads)) {
    return Status::error("out of memory allocating the trainer's data");
  }
  tasks::Mulberry32 held(tasks::held_out_seed(std::uint32_t(o.seed)));
  const tasks::Batch h = t->held_.batch();
  for (std::size_t i = 0; i < std::size_t(o.eval_size); ++i) task->fill(held, i, h);
  *out = std::move(t);
  return Status::ok();
}

double Trainer::step_multiply_adds() const {
  return kStepPassesPerForward * options_.batch * layers::forward_multiply_adds(spec());
}

double Trainer::evaluation_multiply_adds() const {
  return options_.eval_size * layers::forward_multiply_adds(spec());
}

namespace {

Evaluation evaluation_of(const layers::LossSums& s, const tasks::Task& task) {
  Evaluation e;
  e.loss = s.loss;
  e.accuracy = s.counted ? double(s.correct) / double(s.counted) : 0.0;
  for (std::size_t g = 0; task.groups[g] && g < layers::kMaxGroups; ++g) {
    GroupEvaluation ge;
    ge.rows = s.group_counted[g];
    if (ge.rows) {
      ge.loss = s.group_loss[g] / double(ge.rows);
      ge.accuracy = double(s.group_correct[g]) / double(ge.rows);
    }
    e.groups.push_back(ge);
  }
  return e;
}

}  // namespace

void Trainer::draw_batch() {
  const tasks::Batch b = batch_.batch();
  for (std::size_t i = 0; i < std::size_t(options_.batch); ++i) task_->fill(*batches_, i, b);
}

layers::LossSums Trainer::batch_gradient(std::size_t from, std::size_t to) {
  const std::size_t B = std::size_t(options_.batch), reads = tasks::read_tokens(*task_);
  const tasks::Batch b = batch_.batch();
  std::size_t counted = 0;
  for (std::size_t r = 0; r < B * reads; ++r) counted += b.mask[r] != 0;
  const std::size_t at = from * reads;
  layers::Targets targets{b.targets + at, b.mask + at, b.groups + at};
  targets.divisor = counted;
  return model_->run(b.ids + from * task_->tokens, to - from, targets, true);
}

bool Trainer::apply_gradient(double loss) {
  layers::Stack& m = *model_;
  const std::size_t n = m.parameter_count();
  if (!std::isfinite(loss) || !finite(m.buffer(layers::Slot::kGradient), n)) {
    ++diverged_;
    return false;
  }
  ++steps_;
  adam_step(adam_, steps_, n, m.buffer(layers::Slot::kValue), m.buffer(layers::Slot::kGradient),
            m.buffer(layers::Slot::kAdamM), m.buffer(layers::Slot::kAdamV));
  return true;
}

Evaluation Trainer::step() {
  draw_batch();
  const layers::LossSums r = batch_gradient(0, std::size_t(options_.batch));
  Evaluation e = evaluation_of(r, *task_);
  e.diverged = !apply_gradient(r.loss);
  return e;
}

Evaluation Trainer::evaluate_chunks(const std::vector<tasks::Probe>& probes, ProbeMeans* means) {
  const std::size_t N = std::size_t(options_.eval_size), T = task_->tokens;
  const std::size_t reads = tasks::read_tokens(*task_), H = spec().heads, L = spec().layers;
  layers::LossSums total;
  std::size_t parts = 0;
  while (task_->parts[parts].name) ++parts;
  std::vector<double> part_right(parts, 0.0);
  const std::size_t K = task_->classes, P = probes.size();
  std::vector<std::size_t> scored(layers::kMaxGroups, 0), scored_right(layers::kMaxGroups, 0);
  std::vector<std::vector<std::size_t>> counted(L, std::vector<std::size_t>(P, 0));
  if (means) means->assign(L, std::vector<std::vector<double>>(P, std::vector<double>(H, 0.0)));
  tasks::Batch h = held_.batch();
  for (std::size_t start = 0; start < N; start += kEvalChunk) {
    const std::size_t n = std::min(kEvalChunk, N - start);
    const int* ids = h.ids + start * T;
    const std::size_t at = start * reads;
    const layers::LossSums r =
        model_->run(ids, n, layers::Targets{h.targets + at, h.mask + at, h.groups + at}, false);
    total.loss += r.loss * double(r.counted);
    total.correct += r.correct;
    total.counted += r.counted;
    const float* logits = model_->logits();
    if (task_->candidates) score_candidates(start, n, &scored, &scored_right);
    for (std::size_t row = 0; row < n * reads && parts; ++row) {
      if (!h.mask[at + row]) continue;
      const float* l = logits + row * K;
      const int best = static_cast<int>(std::max_element(l, l + K) - l);
      for (std::size_t k = 0; k < parts; ++k)
        part_right[k] += task_->parts[k].of(best) == task_->parts[k].of(h.targets[at + row]);
    }
    for (std::size_t g = 0; g < layers::kMaxGroups; ++g) {
      total.group_loss[g] += r.group_loss[g];
      total.group_correct[g] += r.group_correct[g];
      total.group_counted[g] += r.group_counted[g];
    }
    if (!means) continue;
    // Block l's attention (n, H, Tq_l, T); its queries are the last Tq_l positions.
    for (std::size_t layer = 0; layer < L; ++layer) {
      const float* p = model_->attention(layer);
      const std::size_t Tq = spec().out_tokens(layer);
      for (std::size_t i = 0; i < n; ++i) {
        const int* seq = ids + i * T;
        const std::uint8_t* groups = h.groups + at + i * reads;
        for (std::size_t k = 0; k < P; ++k) {
          for (std::size_t q = 0; q < Tq; ++q) {
            const int key = probes[k].position(seq, groups, int(T - Tq + q));
            if (key < 0 || std::size_t(key) >= T) continue;
            ++counted[layer][k];
            for (std::size_t hh = 0; hh < H; ++hh)
              (*means)[layer][k][hh] += p[((i * H + hh) * Tq + q) * T + std::size_t(key)];
          }
        }
      }
    }
  }
  if (total.counted) total.loss /= double(total.counted);
  Evaluation e = evaluation_of(total, *task_);
  for (std::size_t g = 0; g < e.groups.size(); ++g) {
    e.groups[g].candidate_rows = scored[g];
    if (scored[g]) e.groups[g].candidate_accuracy = double(scored_right[g]) / double(scored[g]);
  }
  for (double right : part_right)
    e.parts.push_back(total.counted ? right / double(total.counted) : 0.0);
  if (means) {
    for (std::size_t layer = 0; layer < L; ++layer)
      for (std::size_t k = 0; k < P; ++k)
        for (double& v : (*means)[layer][k])
          v = counted[layer][k] ? v / double(counted[layer][k])
                                : std::numeric_limits<double>::quiet_NaN();
  }
  return e;
}

Evaluation Trainer::evaluate() { return evaluate_chunks({}, nullptr); }

void Trainer::score_candidates(std::size_t start, std::size_t n, std::vector<std::size_t>* scored,
                               std::vector<std::size_t>* right) const {
  const std::size_t T = task_->tokens, reads = tasks::read_tokens(*task_), K = task_->classes;
  const float* logits = model_->logits();
  int candidates[tasks::kMaxCandidates];
  for (std::size_t i = 0; i < n; ++i) {
    const std::size_t seq = start + i;
    const int* ids = held_.ids.data() + seq * T;
    const std::uint8_t* groups = held_.groups.data() + seq * reads;
    for (std::size_t r = 0; r < reads; ++r) {
      if (!held_.mask.data()[seq * reads + r]) continue;
      const int query = int(T - reads + r);
      const int count = task_->candidates(ids, groups, query, candidates);
      if (count <= 0) continue;
      const float* l = logits + (i * reads + r) * K;
      int best = candidates[0];
      for (int c = 1; c < count; ++c)
        if (l[candidates[c]] > l[best]) best = candidates[c];
      const std::size_t g = std::min<std::size_t>(groups[r], layers::kMaxGroups - 1);
      ++(*scored)[g];
      (*right)[g] += best == held_.targets.data()[seq * reads + r];
    }
  }
}

Status Trainer::evaluate_ablated(const std::vector<HeadIndex>& zeroed, Evaluation* out) {
  const std::size_t L = spec().layers, H = spec().heads;
  std::vector<unsigned char> mask(L * H, 0);
  for (const HeadIndex& z : zeroed) {
    if (z.layer >= L || z.head >= H) {
      return Status::error("no head " + std::to_string(z.head) + " in block " +
                           std::to_string(z.layer) + ": the model has " + std::to_string(L) +
                           " block(s) of " + std::to_string(H) + " head(s)");
    }
    mask[z.layer * H + z.head] = 1;
  }
  model_->set_zero_heads(std::move(mask));
  *out = evaluate();
  model_->set_zero_heads({});
  return Status::ok();
}

ProbeShares Trainer::probe_shares() {
  ProbeShares s;
  if (task_->readout != layers::Readout::kLast) return s;
  std::vector<tasks::Probe> probes;
  for (const tasks::Probe* p = task_->probes; p->name; ++p) probes.push_back(*p);
  ProbeMeans means;
  evaluate_chunks(probes, &means);
  s.shares = means.back();
  return s;
}

HeadRoleScores Trainer::role_scores() {
  std::vector<tasks::Probe> probes;
  for (const tasks::Probe* p = role_probes(); p->name; ++p) probes.push_back(*p);
  const std::size_t fixed = probes.size();
  for (const tasks::Probe* p = task_->probes; p->name; ++p) probes.push_back(*p);
  ProbeMeans means;
  evaluate_chunks(probes, &means);
  HeadRoleScores out;
  for (const auto& layer : means) {
    std::vector<RoleScores> heads(spec().heads);
    for (std::size_t hh = 0; hh < heads.size(); ++hh) {
      heads[hh].previous_token = layer[0][hh];
      heads[hh].first_token = layer[1][hh];
      heads[hh].self = layer[2][hh];
      for (std::size_t k = fixed; k < probes.size(); ++k) heads[hh].task.push_back(layer[k][hh]);
    }
    out.scores.push_back(heads);
  }
  return out;
}

void Trainer::run_one(const int* ids) { model_->run(ids, 1, layers::Targets{}, false); }

void Trainer::held_out(std::size_t i, int* ids, int* groups) const {
  const std::size_t T = task_->tokens, reads = tasks::read_tokens(*task_);
  for (std::size_t t = 0; t < T; ++t) ids[t] = held_.ids.data()[i * T + t];
  for (std::size_t r = 0; r < reads; ++r) {
    const std::size_t row = i * reads + r;
    groups[r] = held_.mask.data()[row] ? int(held_.groups.data()[row]) : -1;
  }
}

}  // namespace headwise::train
