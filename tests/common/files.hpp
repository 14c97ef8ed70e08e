// File helpers of every test: the temp-folder fixture and reading a whole file.
#pragma once

#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <stdexcept>
#include <string>
#include <string_view>
#include <system_error>

namespace mlbench::test {

// A disk filesystem (the system temp folder may be a tmpfs), for tests that need O_DIRECT.
inline const std::filesystem::path kDiskTempParent = "/var/tmp";

// A fresh folder made by mkdtemp (so tests running in parallel never share a path), removed with everything
// in it by the destructor (so a failed test leaves nothing behind).
class TempDir {
 public:
  // <parent>/<prefix>-XXXXXX; the parent defaults to the system temp folder ($TMPDIR, else /tmp).
  explicit TempDir(std::string_view prefix = "mlbench-test",
                   const std::filesystem::path& parent = std::filesystem::temp_directory_path()) {
    std::string tmpl = (parent / (std::string(prefix) + "-XXXXXX")).string();
    if (::mkdtemp(tmpl.data()) == nullptr) throw std::runtime_error("mkdtemp(" + tmpl + ") failed");
    path_ = tmpl;
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  const std::filesystem::path& path() const { return path_; }
  std::filesystem::path operator/(const std::filesystem::path& name) const { return path_ / name; }

 private:
  std::filesystem::path path_;
};

// The whole file, byte for byte; empty when it cannot be opened (the test's checks on the text then fail).
inline std::string slurp(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), {}};
}

}  // namespace mlbench::test
