// SysReader: every /sys, /proc and /etc read of the host inventory and of the probes that look at the machine
// (storage targets and CPUs, host.membw) goes through it. Its root is "/" on the machine itself and a fixture
// folder in tests (tests/data/sysfs), so that what a collector does with a file is tested without that
// machine, and without root.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace mlbench {

class SysReader {
 public:
  explicit SysReader(std::filesystem::path root = "/") : root_(std::move(root)) {}
  // Whole file under the root ("/proc/meminfo" → root/proc/meminfo), trailing newline stripped, bytes that
  // are not UTF-8 replaced by U+FFFD (the text goes into JSON).
  std::optional<std::string> read(const std::filesystem::path& abs) const;
  std::optional<long long> read_int(const std::filesystem::path& abs) const;
  // Entry names, sorted; names that are not UTF-8 are left out (they could be neither reported nor re-read).
  std::vector<std::string> list(const std::filesystem::path& abs_dir) const;
  // Whole file as bytes, nothing stripped (binary tables such as the SMBIOS one).
  std::optional<std::string> read_bytes(const std::filesystem::path& abs) const;
  bool exists(const std::filesystem::path& abs) const;
  std::filesystem::path resolve(const std::filesystem::path& abs) const;  // root-relative path
  // `abs` with every symbolic link followed ("/sys/dev/block/259:1" → "/sys/devices/pci…/nvme1n1"), as a
  // path under the root; nullopt when it does not exist or leads out of the root.
  std::optional<std::filesystem::path> canonical(const std::filesystem::path& abs) const;

 private:
  std::filesystem::path root_;
};

}  // namespace mlbench
