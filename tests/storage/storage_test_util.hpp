// Helpers for storage tests: temp folders, files with known contents, loop devices and small tmpfs mounts
// (root only; tests skip with a reason otherwise).
#pragma once

#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "bench/probe.hpp"
#include "tests/common/files.hpp"

namespace mlbench::storage::test {

// The tests' temp folder on a disk filesystem (O_DIRECT works there, unlike on some tmpfs).
class TempDir : public mlbench::test::TempDir {
 public:
  TempDir() : mlbench::test::TempDir("mlbench-storage-test", mlbench::test::kDiskTempParent) {}
  // Files whose names start with ".mlbench-io-" (what the probe creates).
  std::vector<std::string> mlbench_files() const;
};

bool is_root();
// Runs a shell command, returns its exit status; output goes to `out` when given.
int sh(const std::string& cmd, std::string* out = nullptr);

// A loop device over a backing file, detached by the destructor.
class LoopDevice {
 public:
  static std::optional<LoopDevice> attach(const std::filesystem::path& backing);
  LoopDevice(LoopDevice&& o) noexcept;
  LoopDevice& operator=(LoopDevice&&) = delete;
  ~LoopDevice();
  const std::string& path() const { return dev_; }

 private:
  explicit LoopDevice(std::string dev) : dev_(std::move(dev)) {}
  std::string dev_;
};

// A tmpfs of `size` mounted on `dir`, unmounted by the destructor.
class TmpfsMount {
 public:
  // Creates `dir` when missing; nullopt when the mount is refused (not root, no tmpfs).
  static std::optional<TmpfsMount> mount(const std::filesystem::path& dir, const std::string& size,
                                         bool read_only = false);
  TmpfsMount(TmpfsMount&& o) noexcept;
  TmpfsMount& operator=(TmpfsMount&&) = delete;
  ~TmpfsMount();

 private:
  explicit TmpfsMount(std::filesystem::path dir) : dir_(std::move(dir)) {}
  std::filesystem::path dir_;
};

using mlbench::test::slurp;
void write_file(const std::filesystem::path& p, const std::string& data);
// n bytes of the probe's own random pattern (storage/pattern.hpp) for `seed`.
std::string random_bytes(std::size_t n, std::uint64_t seed);

// Plans and runs `probe` like the runner does, with an unset stop flag; `between`, when given, runs after
// planning and before the first case (what could change while a run plans the rest of its cases).
std::vector<Result> run_probe(Probe& probe, const nlohmann::json& options,
                              Profile profile = Profile::standard, const std::function<void()>& between = {});
// The storage probe (storage.io) so.
std::vector<Result> run_probe(const nlohmann::json& options, Profile profile = Profile::standard,
                              const std::function<void()>& between = {});

}  // namespace mlbench::storage::test
