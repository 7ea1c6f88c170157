#include "shape_trace.hpp"

#include "layers/positions/position_kind.hpp"

namespace headwise {

std::vector<TraceEntry> shape_trace(const Config& config) {
  const layers::AttentionShape d = layers::resolved(config);
  const std::int64_t b = d.batch, t = d.tokens, w = d.d_model, h = d.heads, hd = d.head_dim;
  const std::int64_t c = d.concat();
  const layers::PositionKind* p = d.position;
  std::vector<TraceEntry> trace{{"input", "x", {b, t, w}}};
  if (p && (p->learned_table || p->add_to_input))
    trace.push_back({"input", std::string("x = x + positions[:T] (") + p->name + ")", {b, t, w}});
  trace.insert(trace.end(), {
                                {"project", "q = x @ Wq (k, v alike)", {b, t, c}},
                                {"split", "q.view(B, T, H, hd)", {b, t, h, hd}},
                                {"split", "q.transpose(1, 2)", {b, h, t, hd}},
                            });
  if (d.kv() != d.heads) {
    const std::int64_t kv = std::int64_t(d.kv());
    trace.push_back({"split",
                     "k, v: " + std::to_string(kv) + " K/V heads, each read by " +
                         std::to_string(d.group()) + " query heads (h / " +
                         std::to_string(d.group()) + ")",
                     {b, kv, t, hd}});
  }
  if (p && p->rotate)
    trace.push_back({"split", "q, k = rotate(q, k) by position (rope)", {b, h, t, hd}});
  trace.push_back({"attend", "scores = q @ k.transpose(-2, -1) / sqrt(hd)", {b, h, t, t}});
  if (p && p->score_bias)
    trace.push_back({"attend", "scores = scores + bias[h, i, j] (alibi)", {b, h, t, t}});
  trace.insert(trace.end(), {
                                {"attend", "attention = softmax(masked scores)", {b, h, t, t}},
                                {"attend", "context = attention @ v", {b, h, t, hd}},
                                {"merge", "context.transpose(1, 2)", {b, t, h, hd}},
                                {"merge", "concat = .view(B, T, H * hd)", {b, t, c}},
                                {"out-project", "output = concat @ W_out", {b, t, w}},
                            });
  return trace;
}

std::string format_shape(const std::vector<std::int64_t>& shape) {
  std::string text = "(";
  for (std::size_t i = 0; i < shape.size(); ++i) {
    if (i) text += ",";
    text += std::to_string(shape[i]);
  }
  return text + ")";
}

}  // namespace headwise
