#include "tests/storage/storage_test_util.hpp"

#include <unistd.h>

#include <array>
#include <cstdio>
#include <fstream>

#include "storage/io/probe.hpp"
#include "storage/pattern.hpp"

namespace mlbench::storage::test {
namespace fs = std::filesystem;

std::vector<std::string> TempDir::mlbench_files() const {
  std::vector<std::string> out;
  for (const auto& e : fs::directory_iterator(path())) {
    auto name = e.path().filename().string();
    if (name.rfind(".mlbench-io-", 0) == 0) out.push_back(name);
  }
  return out;
}

bool is_root() { return ::geteuid() == 0; }

int sh(const std::string& cmd, std::string* out) {
  FILE* p = ::popen((cmd + " 2>&1").c_str(), "r");
  if (p == nullptr) return -1;
  std::array<char, 512> buf{};
  std::string text;
  while (std::fgets(buf.data(), buf.size(), p) != nullptr) text += buf.data();
  int status = ::pclose(p);
  if (out != nullptr) *out = text;
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

std::optional<LoopDevice> LoopDevice::attach(const fs::path& backing) {
  std::string out;
  if (sh("losetup --find --show " + backing.string(), &out) != 0) return std::nullopt;
  while (!out.empty() && (out.back() == '\n' || out.back() == ' ')) out.pop_back();
  return LoopDevice(out);
}

LoopDevice::LoopDevice(LoopDevice&& o) noexcept : dev_(std::move(o.dev_)) { o.dev_.clear(); }

LoopDevice::~LoopDevice() {
  if (!dev_.empty()) sh("losetup -d " + dev_);
}

std::optional<TmpfsMount> TmpfsMount::mount(const fs::path& dir, const std::string& size, bool read_only) {
  fs::create_directories(dir);
  std::string options = "size=" + size + (read_only ? ",ro" : "");
  if (sh("mount -t tmpfs -o " + options + " mlbench-test " + dir.string()) != 0) return std::nullopt;
  return TmpfsMount(dir);
}

TmpfsMount::TmpfsMount(TmpfsMount&& o) noexcept : dir_(std::move(o.dir_)) { o.dir_.clear(); }

TmpfsMount::~TmpfsMount() {
  if (dir_.empty()) return;
  // A closed io_uring drops its registered files in a kernel worker a moment later; until then the mount is
  // busy. Retry for up to a second, then detach it lazily (it goes once the last reference does).
  for (int i = 0; i < 20; ++i) {
    if (sh("umount " + dir_.string()) == 0) return;
    ::usleep(50'000);
  }
  sh("umount --lazy " + dir_.string());
}

void write_file(const fs::path& p, const std::string& data) {
  std::ofstream out(p, std::ios::binary);
  out << data;
}

std::string random_bytes(std::size_t n, std::uint64_t seed) {
  std::string s(n, '\0');
  fill_pattern(std::as_writable_bytes(std::span(s.data(), s.size())), seed, 0);
  return s;
}

std::vector<Result> run_probe(Probe& probe, const nlohmann::json& options, Profile profile,
                              const std::function<void()>& between) {
  static const nlohmann::json host = nlohmann::json::object();
  PlanContext pctx{profile, host, options};
  auto cases = probe.plan(pctx);
  if (between) between();
  std::vector<Result> out;
  static std::atomic<bool> stop{false};
  for (const auto& c : cases) {
    RunContext ctx{host, std::chrono::steady_clock::now() + std::chrono::seconds(120), stop};
    for (auto& r : probe.run(c, ctx)) out.push_back(std::move(r));
  }
  return out;
}

std::vector<Result> run_probe(const nlohmann::json& options, Profile profile,
                              const std::function<void()>& between) {
  auto probe = make_storage_probe();
  return run_probe(*probe, options, profile, between);
}

}  // namespace mlbench::storage::test
