// Replays every saved fuzz input (the seed corpus and each crash the fuzzer ever found) through
// one fuzz target's checks, in the ordinary test build (the folders are given by CMake).
#include <gtest/gtest.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size);

namespace {

std::vector<std::filesystem::path> saved_inputs() {
  std::vector<std::filesystem::path> files;
  for (const char* dir : {HEADWISE_FUZZ_CORPUS, HEADWISE_FUZZ_REGRESSIONS}) {
    const auto path = std::filesystem::path(HEADWISE_FUZZ_DIR) / dir;
    if (!std::filesystem::exists(path)) continue;
    for (const auto& entry : std::filesystem::directory_iterator(path))
      if (entry.is_regular_file() && entry.path().filename().string()[0] != '.')
        files.push_back(entry.path());
  }
  return files;
}

TEST(FuzzReplay, EverySavedInputPassesTheChecks) {
  const auto files = saved_inputs();
  ASSERT_GE(files.size(), 10u) << "the seed corpus is missing";
  for (const auto& file : files) {
    std::ifstream stream(file, std::ios::binary);
    const std::vector<std::uint8_t> bytes((std::istreambuf_iterator<char>(stream)),
                                          std::istreambuf_iterator<char>());
    SCOPED_TRACE(file.string());
    EXPECT_EQ(LLVMFuzzerTestOneInput(bytes.data(), bytes.size()), 0);
  }
}

}  // namespace
