#include "attention_head.hpp"

namespace headwise {

void attend_head_f32(std::size_t tokens, std::size_t head_dim, bool causal, const float* q,
                     const float* k, const float* v, HeadScratch scratch, HeadOutputs out) {
  if (out.scores || out.attention)
    attend_head_rows_f32(tokens, head_dim, causal, q, k, v, scratch, out);
  else if (is_short_head(tokens, head_dim))
    attend_head_short_f32(tokens, head_dim, causal, q, k, v, out.context, out.context_stride);
  else
    attend_head_tiled_f32(tokens, head_dim, causal, q, k, v, scratch, out.context,
                          out.context_stride);
}

}  // namespace headwise
