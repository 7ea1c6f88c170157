// The core built for this CPU (-march=native: AVX2/AVX-512 through the same xsimd source), timed
// by the rules of bench/timing.mjs. Usage: headwise_bench <fused|loop> B T D H hd <in> <out>
// reads x, wq, wk, wv, wOut as raw float32 (bench/data.mjs), writes the output, prints JSON.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "model.hpp"

namespace {

double now_ms() {
  return std::chrono::duration<double, std::milli>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

}  // namespace

int main(int argc, char** argv) {
  using namespace headwise;
  if (argc != 9) {
    std::fprintf(stderr, "usage: %s <fused|loop> B T D H hd <input file> <output file>\n", argv[0]);
    return 2;
  }
  const bool loop = std::strcmp(argv[1], "loop") == 0;
  Config c;
  c.batch = std::atoll(argv[2]), c.tokens = std::atoll(argv[3]), c.d_model = std::atoll(argv[4]);
  c.heads = std::atoll(argv[5]), c.head_dim = std::atoll(argv[6]);
  Limits limits;
  limits.memory_budget_bytes = 8ULL << 30;
  std::unique_ptr<Model> model;
  Status s = Model::create(c, limits, 0, &model);
  if (!s.is_ok()) {
    std::fprintf(stderr, "%s\n", s.message().c_str());
    return 1;
  }
  std::ifstream in(argv[7], std::ios::binary);
  for (TensorId id :
       {TensorId::kInput, TensorId::kWq, TensorId::kWk, TensorId::kWv, TensorId::kWout})
    in.read(reinterpret_cast<char*>(model->tensor(id)),
            std::streamsize(model->tensor_size(id) * sizeof(float)));
  if (!in) {
    std::fprintf(stderr, "could not read %s\n", argv[7]);
    return 1;
  }
  const Step step = loop ? Step::kForwardLoop : Step::kForwardFused;

  std::size_t calls = 0;
  double fastest = 1e300;
  const double warm_start = now_ms();
  for (;; ++calls) {
    const double elapsed = now_ms() - warm_start;
    if ((calls >= 3 && elapsed >= 1000) || (calls >= 1 && elapsed >= 4000)) break;
    const double t0 = now_ms();
    model->run(step);
    fastest = std::min(fastest, now_ms() - t0);
  }
  const std::size_t batch = std::max<std::size_t>(1, std::size_t(1.0 / fastest) + 1);
  std::vector<double> per_call;
  const double start = now_ms();
  for (;;) {
    const double elapsed = now_ms() - start;
    const std::size_t n = per_call.size();
    if ((n >= 7 && elapsed >= 1500) || (n >= 3 && elapsed >= 8000) || n >= 300) break;
    const double t0 = now_ms();
    for (std::size_t i = 0; i < batch; ++i) model->run(step);
    per_call.push_back((now_ms() - t0) / double(batch));
  }
  std::sort(per_call.begin(), per_call.end());
  std::ofstream out(argv[8], std::ios::binary);
  out.write(reinterpret_cast<const char*>(model->tensor(TensorId::kOutput)),
            std::streamsize(model->tensor_size(TensorId::kOutput) * sizeof(float)));
  // VmHWM, not getrusage's maxrss: Linux carries the parent's peak into maxrss across exec.
  long peak_kb = 0;
  std::ifstream status("/proc/self/status");
  for (std::string line; std::getline(status, line);)
    if (line.rfind("VmHWM:", 0) == 0) peak_kb = std::atol(line.c_str() + 6);
  std::printf(
      "{\"medianMs\":%.9g,\"minMs\":%.9g,\"maxMs\":%.9g,\"samples\":%zu,"
      "\"callsPerSample\":%zu,\"peakRssBytes\":%ld}\n",
      per_call[per_call.size() / 2], per_call.front(), per_call.back(), per_call.size(), batch,
      peak_kb * 1024L);
  return 0;
}
