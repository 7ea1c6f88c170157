#include "shape_trace.hpp"

#include <gtest/gtest.h>

namespace headwise {
namespace {

std::string trace_text(const Config& c) {
  std::string text;
  for (const auto& e : shape_trace(c)) text += e.step + " " + format_shape(e.shape) + "\n";
  return text;
}

TEST(ShapeTrace, TheLectureExampleReadsAsOnTheBoard) {
  Config c;
  c.batch = 2, c.tokens = 6, c.d_model = 6, c.heads = 2;
  EXPECT_EQ(trace_text(c),
            "input (2,6,6)\n"
            "project (2,6,6)\n"
            "split (2,6,2,3)\n"
            "split (2,2,6,3)\n"
            "attend (2,2,6,6)\n"
            "attend (2,2,6,6)\n"
            "attend (2,2,6,3)\n"
            "merge (2,6,2,3)\n"
            "merge (2,6,6)\n"
            "out-project (2,6,6)\n");
}

TEST(ShapeTrace, FollowsAnyConfiguration) {
  Config gpt2;
  gpt2.batch = 1, gpt2.tokens = 1024, gpt2.d_model = 768, gpt2.heads = 12;
  const auto t = shape_trace(gpt2);
  EXPECT_EQ(format_shape(t[3].shape), "(1,12,1024,64)");
  EXPECT_EQ(format_shape(t[4].shape), "(1,12,1024,1024)");
  EXPECT_EQ(format_shape(t.back().shape), "(1,1024,768)");

  Config sweep;  // explicit head_dim: the concatenation is wider than the input
  sweep.batch = 2, sweep.tokens = 6, sweep.d_model = 6, sweep.heads = 4000, sweep.head_dim = 3;
  const auto s = shape_trace(sweep);
  EXPECT_EQ(format_shape(s[1].shape), "(2,6,12000)");
  EXPECT_EQ(format_shape(s[3].shape), "(2,4000,6,3)");
  EXPECT_EQ(format_shape(s[8].shape), "(2,6,12000)");
  EXPECT_EQ(format_shape(s[9].shape), "(2,6,6)");
  EXPECT_EQ(s[4].name, "scores = q @ k.transpose(-2, -1) / sqrt(hd)");
}

}  // namespace
}  // namespace headwise
