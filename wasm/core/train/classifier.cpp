#include "classifier.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "attention_backward.hpp"
#include "linalg.hpp"
#include "rng.hpp"
#include "task.hpp"

namespace headwise::train {

namespace {

constexpr std::size_t kT = kTokens, kLast = kTokens - 1;
void resize(std::vector<float>& v, std::size_t n) {
  if (v.size() != n) v.assign(n, 0.0f);
}

}  // namespace

Status validate_shape(const ClassifierShape& s) {
  auto within = [](std::size_t v, std::size_t hi) { return v >= 1 && v <= hi; };
  if (!within(s.heads, 64)) return Status::error("heads must be between 1 and 64");
  if (!within(s.d_model, 1024)) return Status::error("dModel must be between 1 and 1024");
  if (s.d_model % s.heads != 0) {
    return Status::error("dModel (" + std::to_string(s.d_model) +
                         ") must be a multiple of heads (" + std::to_string(s.heads) + ")");
  }
  if (!within(s.mlp, 4096)) return Status::error("mlpWidth must be between 1 and 4096");
  if (!within(s.classes, 4096)) return Status::error("classes must be between 1 and 4096");
  return Status::ok();
}

Classifier::Classifier(const ClassifierShape& shape, std::uint64_t seed) : shape_(shape) {
  dims_[int(Dim::kV)] = kVocab;
  dims_[int(Dim::kT)] = kT;
  dims_[int(Dim::kD)] = shape.d_model;
  dims_[int(Dim::kH)] = shape.heads;
  dims_[int(Dim::kHd)] = shape.head_dim();
  dims_[int(Dim::kC)] = shape.d_model;
  dims_[int(Dim::kM)] = shape.mlp;
  dims_[int(Dim::kK)] = shape.classes;
  // validate_shape bounds every dimension, so no row's size can overflow here.
  for (int p = 0; p < kParamCount; ++p) {
    offsets_[p + 1] =
        offsets_[p] + row_floats(classifier_row(static_cast<Param>(p)), dims_).value();
  }
  for (std::vector<float>& b : buffers_) b.assign(offsets_[kParamCount], 0.0f);
  for (int p = 0; p < kParamCount; ++p) {
    const TensorRow& row = classifier_row(static_cast<Param>(p));
    const float bound = row.role == Role::kEmbedding
                            ? std::sqrt(3.0f)
                            : fan_in_bound(dims_[static_cast<int>(row.fan_in)]);
    fill_uniform(buffers_[0].data() + offsets_[p], size(static_cast<Param>(p)), seed, row.stream,
                 bound);
  }
}

BatchResult Classifier::run(const int* words, const int* targets, std::size_t batch,
                            bool backward_too) {
  forward(words, batch);
  BatchResult result;
  if (!targets) return result;
  const std::size_t K = shape_.classes;
  resize(dlogits_, batch * K);
  const float inv_batch = 1.0f / static_cast<float>(batch);
  for (std::size_t b = 0; b < batch; ++b) {
    const float* row = logits_.data() + b * K;
    const std::size_t best = static_cast<std::size_t>(std::max_element(row, row + K) - row);
    const float max = row[best];
    float sum = 0.0f;
    for (std::size_t j = 0; j < K; ++j) sum += std::exp(row[j] - max);
    const std::size_t t = static_cast<std::size_t>(targets[b]);
    result.loss += static_cast<double>(std::log(sum) - (row[t] - max));
    result.correct += best == t;
    float* d = dlogits_.data() + b * K;
    const float inv_sum = 1.0f / sum;
    for (std::size_t j = 0; j < K; ++j) d[j] = std::exp(row[j] - max) * inv_sum * inv_batch;
    d[t] -= inv_batch;
  }
  result.loss /= static_cast<double>(batch);
  if (backward_too) backward(words, batch);
  return result;
}

void Classifier::forward(const int* words, std::size_t B) {
  const std::size_t D = shape_.d_model, C = D, H = shape_.heads, hd = shape_.head_dim();
  const std::size_t M = shape_.mlp, K = shape_.classes, rows = B * kT;
  resize(x0_, rows * D), resize(k_, rows * C), resize(v_, rows * C);
  resize(xq_, B * D), resize(q_, B * C), resize(p_, B * H * kT), resize(ctx_, B * C);
  resize(h1_, B * D), resize(z_, B * M), resize(r_, B * M), resize(h2_, B * D);
  resize(logits_, B * K);
  const float* tok = tensor(kTokenEmbedding);
  const float* pos = tensor(kPositionEmbedding);
  for (std::size_t r = 0; r < rows; ++r) {
    const float* e = tok + static_cast<std::size_t>(words[r]) * D;
    const float* p = pos + (r % kT) * D;
    float* x = x0_.data() + r * D;
    for (std::size_t d = 0; d < D; ++d) x[d] = e[d] + p[d];
  }
  matmul(rows, C, D, x0_.data(), tensor(kWk), tensor(kBk), k_.data());
  matmul(rows, C, D, x0_.data(), tensor(kWv), tensor(kBv), v_.data());
  for (std::size_t b = 0; b < B; ++b) {
    std::copy_n(x0_.data() + (b * kT + kLast) * D, D, xq_.data() + b * D);
  }
  matmul(B, C, D, xq_.data(), tensor(kWq), tensor(kBq), q_.data());
  const float scale = 1.0f / std::sqrt(static_cast<float>(hd));
  for (std::size_t b = 0; b < B; ++b) {
    for (std::size_t h = 0; h < H; ++h) {
      float* p = p_.data() + (b * H + h) * kT;
      const float* k = k_.data() + b * kT * C + h * hd;
      const float* v = v_.data() + b * kT * C + h * hd;
      attention_row_softmax(q_.data() + b * C + h * hd, k, C, hd, kLast, scale, p);
      float* ctx = ctx_.data() + b * C + h * hd;
      for (std::size_t d = 0; d < hd; ++d) ctx[d] = 0.0f;
      for (std::size_t j = 0; j < kT; ++j) {
        for (std::size_t d = 0; d < hd; ++d) ctx[d] += p[j] * v[j * C + d];
      }
    }
  }
  matmul(B, D, C, ctx_.data(), tensor(kWout), tensor(kBout), h1_.data());
  for (std::size_t i = 0; i < B * D; ++i) h1_[i] += xq_[i];
  matmul(B, M, D, h1_.data(), tensor(kW1), tensor(kB1), z_.data());
  for (std::size_t i = 0; i < B * M; ++i) r_[i] = std::max(z_[i], 0.0f);
  matmul(B, D, M, r_.data(), tensor(kW2), tensor(kB2), h2_.data());
  for (std::size_t i = 0; i < B * D; ++i) h2_[i] += h1_[i];
  matmul(B, K, D, h2_.data(), tensor(kWReadout), tensor(kBReadout), logits_.data());
}

void Classifier::backward(const int* words, std::size_t B) {
  const std::size_t D = shape_.d_model, C = D, H = shape_.heads, hd = shape_.head_dim();
  const std::size_t M = shape_.mlp, K = shape_.classes, rows = B * kT;
  const Slot g = Slot::kGradient;
  resize(dh2_, B * D), resize(dr_, B * M), resize(dh1_, B * D), resize(dctx_, B * C);
  resize(dq_, B * C), resize(dk_, rows * C), resize(dv_, rows * C), resize(dx0_, rows * D);
  resize(scratch_, kT);
  // Readout and MLP, at "?" only.
  matmul_at_b(D, K, B, h2_.data(), dlogits_.data(), tensor(kWReadout, g));
  column_sums(B, K, dlogits_.data(), tensor(kBReadout, g));
  matmul_a_bt(B, D, K, dlogits_.data(), tensor(kWReadout), dh2_.data());
  matmul_at_b(M, D, B, r_.data(), dh2_.data(), tensor(kW2, g));
  column_sums(B, D, dh2_.data(), tensor(kB2, g));
  matmul_a_bt(B, M, D, dh2_.data(), tensor(kW2), dr_.data());
  for (std::size_t i = 0; i < B * M; ++i) dr_[i] = z_[i] > 0.0f ? dr_[i] : 0.0f;
  matmul_at_b(D, M, B, h1_.data(), dr_.data(), tensor(kW1, g));
  column_sums(B, M, dr_.data(), tensor(kB1, g));
  std::copy(dh2_.begin(), dh2_.end(), dh1_.begin());  // the MLP's residual
  matmul_a_bt(B, D, M, dr_.data(), tensor(kW1), dh1_.data(), true);
  // Attention: out-projection, then the one query row per head, then the projections.
  matmul_at_b(C, D, B, ctx_.data(), dh1_.data(), tensor(kWout, g));
  column_sums(B, D, dh1_.data(), tensor(kBout, g));
  matmul_a_bt(B, C, D, dh1_.data(), tensor(kWout), dctx_.data());
  std::fill(dq_.begin(), dq_.end(), 0.0f);
  std::fill(dk_.begin(), dk_.end(), 0.0f);
  std::fill(dv_.begin(), dv_.end(), 0.0f);
  const float scale = 1.0f / std::sqrt(static_cast<float>(hd));
  for (std::size_t b = 0; b < B; ++b) {
    for (std::size_t h = 0; h < H; ++h) {
      const std::size_t keys = b * kT * C + h * hd, row = b * C + h * hd;
      attention_row_backward(q_.data() + row, k_.data() + keys, v_.data() + keys, C, hd, kLast,
                             scale, p_.data() + (b * H + h) * kT, dctx_.data() + row,
                             dq_.data() + row, dk_.data() + keys, dv_.data() + keys,
                             scratch_.data());
    }
  }
  matmul_at_b(D, C, B, xq_.data(), dq_.data(), tensor(kWq, g));
  column_sums(B, C, dq_.data(), tensor(kBq, g));
  matmul_at_b(D, C, rows, x0_.data(), dk_.data(), tensor(kWk, g));
  column_sums(rows, C, dk_.data(), tensor(kBk, g));
  matmul_at_b(D, C, rows, x0_.data(), dv_.data(), tensor(kWv, g));
  column_sums(rows, C, dv_.data(), tensor(kBv, g));
  // d x0: keys and values everywhere; at "?" also the query and the attention's residual.
  matmul_a_bt(rows, D, C, dk_.data(), tensor(kWk), dx0_.data());
  matmul_a_bt(rows, D, C, dv_.data(), tensor(kWv), dx0_.data(), true);
  resize(dxq_, B * D);
  std::copy(dh1_.begin(), dh1_.end(), dxq_.begin());
  matmul_a_bt(B, D, C, dq_.data(), tensor(kWq), dxq_.data(), true);
  for (std::size_t b = 0; b < B; ++b) {
    float* x = dx0_.data() + (b * kT + kLast) * D;
    for (std::size_t d = 0; d < D; ++d) x[d] += dxq_[b * D + d];
  }
  // Embeddings: scatter-add the rows of d x0.
  float* dtok = tensor(kTokenEmbedding, g);
  float* dpos = tensor(kPositionEmbedding, g);
  std::fill(dtok, dtok + kVocab * D, 0.0f);
  std::fill(dpos, dpos + kT * D, 0.0f);
  for (std::size_t r = 0; r < rows; ++r) {
    const float* dx = dx0_.data() + r * D;
    float* e = dtok + static_cast<std::size_t>(words[r]) * D;
    float* p = dpos + (r % kT) * D;
    for (std::size_t d = 0; d < D; ++d) e[d] += dx[d], p[d] += dx[d];
  }
}

}  // namespace headwise::train
