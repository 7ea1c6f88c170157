// The KV cache per token of the published configurations (docs/kv.md cites each), computed from
// the operator's cache shape without allocating; and the refusals.
#include <gtest/gtest.h>

#include <string>

#include "cache_sizes.hpp"

namespace headwise {
namespace {

CacheSizes sizes_of(const char* preset) {
  const CachePreset* p = find_cache_preset(preset);
  EXPECT_NE(p, nullptr) << preset;
  CacheSizes s{};
  EXPECT_TRUE(cache_sizes(p->shape, &s).is_ok()) << preset;
  return s;
}

TEST(KvCacheSizes, ThePresetsAsPublished) {
  // LLaMA-2 70B: 2 x 80 x 8 x 128 x 2 B = 320 KiB per token; 2.5 MiB if all 64 heads kept theirs.
  CacheSizes s = sizes_of("llama2-70b");
  EXPECT_EQ(s.numbers_per_token_per_layer, 2u * 8 * 128);
  EXPECT_EQ(s.bytes_per_token, 320.0 * 1024);
  EXPECT_EQ(s.mha_bytes_per_token, 2.5 * 1024 * 1024);
  // DeepSeek-V2: 512 + 64 = 576 numbers per token per layer, against 2 x 128 x 128 = 32,768.
  s = sizes_of("deepseek-v2");
  EXPECT_EQ(s.numbers_per_token_per_layer, 576u);
  EXPECT_EQ(s.mha_numbers_per_token_per_layer, 32768u);
  EXPECT_EQ(s.bytes_per_token, 576.0 * 60 * 2);
  // Mistral 7B: 32 layers, 8 K/V heads of 128: 128 KiB; LLaMA-2 7B (MHA) 512 KiB; GPT-2 small
  // 2 x 12 x 12 x 64 x 2 B = 36 KiB, 36 MiB for its 1024-token context.
  EXPECT_EQ(sizes_of("mistral-7b").bytes_per_token, 128.0 * 1024);
  s = sizes_of("llama2-7b");
  EXPECT_EQ(s.bytes_per_token, 512.0 * 1024);
  EXPECT_EQ(s.bytes_per_token, s.mha_bytes_per_token);
  s = sizes_of("gpt2-small");
  EXPECT_EQ(s.bytes_per_token, 36.0 * 1024);
  EXPECT_EQ(s.bytes_per_sequence, 36.0 * 1024 * 1024);
  EXPECT_EQ(find_cache_preset("gpt-5"), nullptr);
}

TEST(KvCacheSizes, RefusalsInWords) {
  struct Bad {
    CacheShape shape;
    const char* message;
  };
  CacheShape three;
  three.heads = 4, three.kv_heads = 3;
  CacheShape rope_alone;
  rope_alone.rope_dim = 64;
  CacheShape half;
  half.layers = 1.5;
  CacheShape zero_dim;
  zero_dim.head_dim = 0;
  for (const Bad& bad : {Bad{three, "kvHeads 3 must divide heads (4)"},
                         Bad{rope_alone, "ropeDim is latent attention's: give kvLatent too"},
                         Bad{half, "layers must be a whole number between 1 and 4096, got 1.5"},
                         Bad{zero_dim, "headDim must be a whole number between 1 and"}}) {
    CacheSizes s{};
    const Status status = cache_sizes(bad.shape, &s);
    ASSERT_FALSE(status.is_ok());
    EXPECT_NE(status.message().find(bad.message), std::string::npos) << status.message();
  }
}

}  // namespace
}  // namespace headwise
