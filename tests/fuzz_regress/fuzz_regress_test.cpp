// Every input a fuzzer ever crashed on (tests/data/fuzz/<target>/) and every seed goes through the same
// target function as in the fuzzer; the target returns when the parser accepts the input or refuses it with
// its documented error, so an escaping exception (or a crash) fails here. Under the asan preset this also
// replays them with the sanitizers.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "fuzz/targets.hpp"
#include "tests/common/files.hpp"

namespace mlbench::fuzz {
namespace {

namespace fs = std::filesystem;

const fs::path kSource = MLBENCH_SOURCE_DIR;

void add_files(const fs::path& path, std::vector<fs::path>& out) {
  if (fs::is_regular_file(path)) {
    out.push_back(path);
  } else if (fs::is_directory(path)) {
    for (const auto& e : fs::directory_iterator(path))
      if (e.is_regular_file()) out.push_back(e.path());
  }
}

// The seeds and saved findings of one target, as scripts/fuzz.sh collects them.
std::vector<fs::path> inputs_of(std::string_view target) {
  std::vector<fs::path> out;
  add_files(kSource / "tests/data/fuzz" / target, out);
  add_files(kSource / "fuzz/corpus" / target, out);
  std::ifstream manifest(kSource / "fuzz/seeds.txt");
  for (std::string line; std::getline(manifest, line);) {
    std::istringstream words(line);
    std::string name, path;
    if (line.empty() || line[0] == '#' || !(words >> name >> path) || name != target) continue;
    add_files(kSource / path, out);
  }
  std::sort(out.begin(), out.end());
  return out;
}

class FuzzRegression : public ::testing::TestWithParam<Target> {};

TEST_P(FuzzRegression, EverySavedInputParsesOrFailsWithTheDocumentedError) {
  auto inputs = inputs_of(GetParam().name);
  ASSERT_FALSE(inputs.empty()) << "no seeds for target " << GetParam().name;
  for (const auto& p : inputs) {
    SCOPED_TRACE(p.string());
    auto data = test::slurp(p);
    EXPECT_NO_THROW(GetParam().fn(data));
  }
}

INSTANTIATE_TEST_SUITE_P(Targets, FuzzRegression, ::testing::ValuesIn(kTargets),
                         [](const auto& p) { return std::string(p.param.name); });

}  // namespace
}  // namespace mlbench::fuzz
