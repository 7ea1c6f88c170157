#include "attention_head.hpp"

namespace headwise {

void attend_head_f32(const HeadInputs& in, HeadScratch scratch, HeadOutputs out) {
  const bool split_plain =
      in.query_from == 0 && in.ld == in.head_dim && in.kv_stride() == in.head_dim && !in.bias.fn;
  if (out.scores || out.attention || !split_plain)
    attend_head_rows_f32(in, scratch, out);
  else if (is_short_head(in.tokens, in.head_dim))
    attend_head_short_f32(in.tokens, in.head_dim, in.causal, in.q, in.k, in.v, out.context,
                          out.context_stride);
  else
    attend_head_tiled_f32(in.tokens, in.head_dim, in.causal, in.q, in.k, in.v, scratch, out.context,
                          out.context_stride);
}

}  // namespace headwise
