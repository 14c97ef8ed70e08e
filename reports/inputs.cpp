#include "reports/inputs.hpp"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <iostream>
#include <thread>

#include <fmt/format.h>

#include "base/error.hpp"
#include "bench/host_view.hpp"

namespace mlbench {

namespace {

// Both loaders: with `unreadable`, a file that fails to load is listed there and left out; without, the first
// bad file in argument order is thrown, as a sequential load would.
std::vector<NamedReport> load_all(const std::vector<std::string>& paths,
                                  std::vector<UnreadableReport>* unreadable) {
  namespace fs = std::filesystem;
  std::vector<std::string> files;
  for (const auto& p : paths) {
    std::error_code ec;
    if (!fs::is_directory(p, ec)) {
      files.push_back(p);
      continue;
    }
    std::vector<std::string> in_dir;
    for (const auto& entry : fs::directory_iterator(p, ec)) {
      if (entry.is_regular_file() && entry.path().extension() == ".json")
        in_dir.push_back(entry.path().string());
    }
    if (ec) throw UsageError(fmt::format("{}: cannot list the folder: {}", p, ec.message()));
    if (in_dir.empty()) throw UsageError(fmt::format("{}: folder holds no *.json reports", p));
    std::sort(in_dir.begin(), in_dir.end());
    files.insert(files.end(), in_dir.begin(), in_dir.end());
  }
  // Parsing dominates a fleet analysis: files are loaded on every core.
  std::vector<NamedReport> out(files.size());
  std::vector<std::exception_ptr> errors(files.size());
  std::atomic<std::size_t> next{0};
  auto worker = [&] {
    for (std::size_t i = next++; i < files.size(); i = next++) {
      try {
        out[i] = NamedReport{files[i], load_report(files[i], ReadOptions{.samples = false})};
      } catch (...) {
        errors[i] = std::current_exception();
      }
    }
  };
  std::size_t threads = std::clamp<std::size_t>(std::thread::hardware_concurrency(), 1, 16);
  threads = std::min(threads, files.size());
  {
    std::vector<std::jthread> pool;
    for (std::size_t t = 1; t < threads; ++t) pool.emplace_back(worker);
    worker();
  }
  if (unreadable == nullptr) {
    for (const auto& e : errors) {
      if (e) std::rethrow_exception(e);
    }
    return out;
  }
  std::vector<NamedReport> readable;
  for (std::size_t i = 0; i < files.size(); ++i) {
    if (!errors[i]) {
      readable.push_back(std::move(out[i]));
      continue;
    }
    try {
      std::rethrow_exception(errors[i]);
    } catch (const std::exception& e) {
      unreadable->push_back(UnreadableReport{files[i], e.what()});
    }
  }
  return readable;
}

}  // namespace

std::vector<NamedReport> load_reports(const std::vector<std::string>& paths) {
  return load_all(paths, nullptr);
}

std::vector<NamedReport> load_readable_reports(const std::vector<std::string>& paths,
                                               std::vector<UnreadableReport>& unreadable) {
  return load_all(paths, &unreadable);
}

std::string result_key(const Result& r) { return r.probe + '\x1f' + r.params.dump(); }

Json params_without_device(const Json& params) {
  Json out = params;
  if (out.is_object()) {
    for (auto key : kDeviceParams) out.erase(std::string(key));
  }
  return out;
}

std::string host_label(const NamedReport& r) {
  HostView host(r.report.host);
  if (!host.hostname.empty()) return std::move(host.hostname);
  return std::filesystem::path(r.file).stem().string();
}

std::string device_label(const Result& r) {
  const Json& p = r.params;
  if (!p.is_object()) return "";
  if (p.contains("device")) {
    const Json& d = p["device"];
    if (d.is_number_integer()) return fmt::format("gpu{}", d.get<long long>());
    if (d.is_string()) return d.get<std::string>();
  }
  if (p.contains("target")) {
    const Json& t = p["target"];
    if (t.is_string()) return t.get<std::string>();
    if (t.is_array()) {
      std::string out;
      for (const auto& item : t)
        out += (out.empty() ? "" : "+") + (item.is_string() ? item.get<std::string>() : item.dump());
      return out;
    }
  }
  return "";
}

std::string device_uuid(const Result& r, const Json& host) {
  if (!r.params.is_object() || !r.params.contains("device") || !r.params["device"].is_number_integer())
    return "";
  long long index = r.params["device"].get<long long>();
  for (const auto& g : HostView(host).gpus) {
    if (g.is_object() && g.value("index", -1LL) == index && g.contains("uuid") && g["uuid"].is_string()) {
      return g["uuid"].get<std::string>();
    }
  }
  return "";
}

void emit(const std::string& path, const std::string& text) {
  if (path.empty()) {
    std::cout << text << std::flush;
  } else {
    write_text_atomic(path, text);
  }
}

bool stdout_wants_colour() {
  const char* no_colour = std::getenv("NO_COLOR");
  if (no_colour != nullptr && *no_colour != '\0') return false;
  return ::isatty(STDOUT_FILENO) == 1;
}

}  // namespace mlbench
