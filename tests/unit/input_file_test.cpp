// The bounded reader of input files (base/input_file.hpp) and the YAML expansion bound (bench/yaml_json.hpp).
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <chrono>
#include <fstream>
#include <string>
#include <thread>

#include <fmt/format.h>

#include "base/error.hpp"
#include "base/input_file.hpp"
#include "bench/yaml_json.hpp"
#include "report/report.hpp"
#include "tests/common/files.hpp"

namespace mlbench {
namespace {

namespace fs = std::filesystem;

// The UsageError `read` throws; "" when it throws none.
template <typename F>
std::string usage_error(F read) {
  try {
    read();
  } catch (const UsageError& e) {
    return e.what();
  }
  return "";
}

// Stdin replaced by the read end of a pipe that a thread fills with `text`, restored by the destructor.
class PipedStdin {
 public:
  explicit PipedStdin(std::string text) {
    int p[2];
    if (::pipe(p) != 0) throw std::runtime_error("pipe failed");
    saved_ = ::dup(STDIN_FILENO);
    ::dup2(p[0], STDIN_FILENO);
    ::close(p[0]);
    writer_ = std::thread([fd = p[1], text = std::move(text)] {
      for (std::size_t off = 0; off < text.size();) {
        ssize_t n = ::write(fd, text.data() + off, text.size() - off);
        if (n <= 0) break;  // the reader stopped at its limit
        off += static_cast<std::size_t>(n);
      }
      ::close(fd);
    });
  }
  ~PipedStdin() {
    ::dup2(saved_, STDIN_FILENO);  // closes the read end: a writer blocked on a full pipe gets EPIPE
    ::close(saved_);
    writer_.join();
  }

 private:
  int saved_ = -1;
  std::thread writer_;
};

TEST(InputFile, DevZeroIsRefusedInOneLineForEveryKind) {
  const auto t0 = std::chrono::steady_clock::now();
  for (const auto& limit : kInputLimits) {
    const std::string e = usage_error([&] { read_input_file("/dev/zero", limit.kind); });
    EXPECT_NE(e.find("/dev/zero: is a character device, not a " + std::string(limit.what)), std::string::npos)
        << e;
    EXPECT_EQ(e.find('\n'), std::string::npos) << e;
  }
  EXPECT_NE(usage_error([] { load_report("/dev/zero"); }).find("character device"), std::string::npos);
  EXPECT_NE(usage_error([] { load_yaml_file("/dev/zero"); }).find("character device"), std::string::npos);
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(2));
}

// Opening a FIFO for reading waits for a writer; the reader refuses it without opening it.
TEST(InputFile, AFifoAFolderAndAMissingFileAreRefusedWithoutWaiting) {
  test::TempDir dir;
  const fs::path fifo = dir / "fifo.yaml";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  EXPECT_NE(usage_error([&] { load_yaml_file(fifo); }).find("is a FIFO, not a YAML file"), std::string::npos);
  EXPECT_NE(usage_error([&] { load_report(dir.path()); }).find("is a folder, not a report"),
            std::string::npos);
  EXPECT_NE(usage_error([&] { load_report(dir / "missing.json"); }).find("cannot open report"),
            std::string::npos);
}

TEST(InputFile, AFileOverItsKindsLimitIsRefusedBeforeItIsRead) {
  test::TempDir dir;
  const fs::path big = dir / "big.yaml";
  { std::ofstream(big) << "a: 1\n"; }
  // Sparse: one byte over the limit costs no disk.
  fs::resize_file(big, input_limit(InputKind::yaml).max_bytes + 1);
  const std::string e = usage_error([&] { load_yaml_file(big); });
  EXPECT_NE(e.find("big.yaml: larger than the 1.00 MiB a YAML file may be"), std::string::npos) << e;
  fs::resize_file(big, input_limit(InputKind::yaml).max_bytes);
  EXPECT_EQ(read_input_file(big, InputKind::yaml).size(), input_limit(InputKind::yaml).max_bytes);
}

TEST(InputFile, StdinIsReadUpToTheSameLimit) {
  {
    PipedStdin in("a: 1\n");
    EXPECT_EQ(load_yaml_file("-")["a"], 1);
  }
  PipedStdin in(std::string(input_limit(InputKind::yaml).max_bytes + 1, '#'));
  const std::string e = usage_error([] { read_input_file("-", InputKind::yaml); });
  EXPECT_NE(e.find("-: larger than the 1.00 MiB a YAML file may be"), std::string::npos) << e;
}

// Nine anchors, each nine aliases of the one before: 464 bytes that stand for 9^9 values.
std::string billion_laughs() {
  std::string y = "a: &a [\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\"]\n";
  for (char c = 'b'; c <= 'i'; ++c) {
    const char prev = static_cast<char>(c - 1);
    y += fmt::format("{0}: &{0} [*{1},*{1},*{1},*{1},*{1},*{1},*{1},*{1},*{1}]\n", c, prev);
  }
  return y;
}

TEST(YamlBound, NestedAliasesAreRefusedAtTheValueLimit) {
  const auto t0 = std::chrono::steady_clock::now();
  const std::string e = usage_error([] { parse_yaml(billion_laughs(), "laughs.yaml"); });
  EXPECT_NE(e.find("laughs.yaml:"), std::string::npos) << e;
  EXPECT_NE(e.find("more than 1000000 values once its aliases are expanded"), std::string::npos) << e;
  // Unbounded, an alias bomb grew to gigabytes and aborted. Bounded, it stops at the value limit; the bound
  // leaves room for a sanitizer build, which expands the aliases up to the limit two orders of magnitude
  // slower.
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(60));
}

TEST(YamlBound, AnAliasInsideItsOwnAnchorAndDeepNestingAreRefused) {
  std::string e = usage_error([] { parse_yaml("a: &a [1, *a]\n", "self.yaml"); });
  EXPECT_NE(e.find("self.yaml:"), std::string::npos) << e;
  std::string deep(kYamlLimits.depth + 1, '[');
  deep += std::string(kYamlLimits.depth + 1, ']');
  e = usage_error([&] { parse_yaml(deep, "deep.yaml"); });
  EXPECT_NE(e.find("nested more than 64 levels deep"), std::string::npos) << e;
}

TEST(YamlBound, AnchorsWithinTheLimitStillExpand) {
  auto j = parse_yaml("base: &b {size: 4k, depth: 8}\nx: *b\ny: [*b, *b]\n", "ok.yaml");
  EXPECT_EQ(j["y"][1]["depth"], 8);
  EXPECT_EQ(j["x"]["size"], "4k");
  std::string deep(kYamlLimits.depth, '[');
  deep += std::string(kYamlLimits.depth, ']');
  EXPECT_NO_THROW(parse_yaml(deep, "deep.yaml"));
}

}  // namespace
}  // namespace mlbench
