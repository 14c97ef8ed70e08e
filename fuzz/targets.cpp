#include "fuzz/targets.hpp"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "base/error.hpp"
#include "bench/gpu_catalog.hpp"
#include "bench/sysinfo.hpp"
#include "bench/yaml_json.hpp"
#include "cli/run_config.hpp"
#include "network/bootstrap.hpp"
#include "network/cluster.hpp"
#include "network/text.hpp"
#include "reports/check.hpp"
#include "reports/inputs.hpp"
#include "reports/prometheus.hpp"
#include "reports/report.hpp"
#include "reports/summary.hpp"
#include "serve/wire.hpp"
#include "sizing/catalog.hpp"
#include "sizing/workload.hpp"
#include "storage/dataload/data.hpp"
#include "storage/io/fio.hpp"
#include "storage/io/job_spec.hpp"

namespace mlbench::fuzz {
namespace {

namespace fs = std::filesystem;

// Sections of a multi-file input are capped so that one input cannot build an arbitrarily large tree.
constexpr std::size_t kMaxSections = 32;
constexpr std::size_t kMaxDepth = 12;

struct Section {
  fs::path path;  // relative, no "." or ".." components
  std::string_view bytes;
};

// A relative path that stays inside the tree, or nullopt.
std::optional<fs::path> safe_relative(std::string_view text) {
  fs::path p;
  std::size_t depth = 0;
  while (!text.empty()) {
    auto slash = text.find('/');
    auto part = text.substr(0, slash);
    text = slash == std::string_view::npos ? std::string_view{} : text.substr(slash + 1);
    if (part.empty()) continue;
    if (part == "." || part == ".." || part.size() > 255 || part.find('\0') != std::string_view::npos ||
        ++depth > kMaxDepth) {
      return std::nullopt;
    }
    p /= std::string(part);
  }
  if (p.empty()) return std::nullopt;
  return p;
}

std::vector<Section> split_sections(std::string_view data) {
  constexpr std::string_view kMark = "@@ ";
  std::vector<Section> out;
  std::size_t pos = data.substr(0, kMark.size()) == kMark ? 0 : data.find("\n@@ ");
  if (pos != 0 && pos != std::string_view::npos) ++pos;
  while (pos != std::string_view::npos && out.size() < kMaxSections) {
    auto eol = data.find('\n', pos);
    if (eol == std::string_view::npos) break;
    auto name = data.substr(pos + kMark.size(), eol - pos - kMark.size());
    auto next = data.find("\n@@ ", eol);
    auto bytes =
        data.substr(eol + 1, next == std::string_view::npos ? std::string_view::npos : next - eol - 1);
    if (auto p = safe_relative(name)) out.push_back({std::move(*p), bytes});
    pos = next == std::string_view::npos ? next : next + 1;
  }
  return out;
}

bool write_file(const fs::path& path, std::string_view bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  return static_cast<bool>(out);
}

// A private copy of a template tree under $TMPDIR; sections are written over it for one input and undone
// afterwards, so that every input sees the same tree.
class ScratchTree {
 public:
  explicit ScratchTree(const fs::path& source) {
    std::string tmpl = (fs::temp_directory_path() / "mlbench-fuzz-XXXXXX").string();
    if (::mkdtemp(tmpl.data()) == nullptr)
      throw Error(fmt::format("mkdtemp({}) failed: {}", tmpl, std::strerror(errno)));
    root_ = tmpl;
    if (!source.empty()) fs::copy(source, root_, fs::copy_options::recursive);
  }
  ~ScratchTree() {
    std::error_code ec;
    fs::remove_all(root_, ec);
  }
  ScratchTree(const ScratchTree&) = delete;
  ScratchTree& operator=(const ScratchTree&) = delete;

  template <typename Fn>
  void with_sections(const std::vector<Section>& sections, Fn fn) {
    struct Undo {
      fs::path path;
      std::optional<std::string> original;  // nullopt: the path did not exist (a file or a new folder)
    };
    std::vector<Undo> undo;
    for (const auto& s : sections) {
      auto full = root_ / s.path;
      std::error_code ec;
      // The first folder of the path that does not exist yet is removed afterwards with everything below it.
      fs::path created;
      for (auto p = full.parent_path(); p != root_ && !fs::exists(p, ec); p = p.parent_path()) created = p;
      fs::create_directories(full.parent_path(), ec);
      if (ec || fs::is_directory(full, ec)) continue;
      if (!created.empty()) {
        undo.push_back({created, std::nullopt});
      } else if (fs::exists(full, ec)) {
        std::ifstream in(full, std::ios::binary);
        undo.push_back({full, std::string(std::istreambuf_iterator<char>(in), {})});
      } else {
        undo.push_back({full, std::nullopt});
      }
      write_file(full, s.bytes);
    }
    struct Restore {
      std::vector<Undo>& undo;
      ~Restore() {
        for (auto it = undo.rbegin(); it != undo.rend(); ++it) {
          std::error_code ec;
          if (it->original) {
            write_file(it->path, *it->original);
          } else {
            fs::remove_all(it->path, ec);
          }
        }
      }
    } restore{undo};
    fn(root_);
  }

 private:
  fs::path root_;
};

ScratchTree& single_files() {
  static ScratchTree tree{fs::path()};
  return tree;
}

// `data` as the file `name` in a private folder, for the loaders that only take a path.
template <typename Fn>
void with_file(std::string_view name, std::string_view data, Fn fn) {
  single_files().with_sections({{fs::path(name), data}}, [&](const fs::path& root) { fn(root / name); });
}

const Report& sample_report() {
  static const Report r = load_report(fs::path(MLBENCH_SOURCE_DIR) / "tests/data/reports/run_a.json");
  return r;
}

// What `mlbench export` and `mlbench check` without --expect do with a report they have read.
void consume(const Report& r) {
  to_prometheus(NamedReport{"fuzz.json", r});
  std::ostringstream summary;
  print_summary(summary, r);
  check_table(check_report(r, catalog_expectations(r, mlbench::gpu_catalog())));
}

}  // namespace

void report(std::string_view data) {
  for (bool samples : {true, false}) {
    try {
      Report r = parse_report(data, "fuzz.json", ReadOptions{samples});
      to_json(r).dump();
      if (!samples) consume(r);
    } catch (const Error&) {
    }
  }
}

void workload(std::string_view data) {
  try {
    with_file("workload.yaml", data, [](const fs::path& p) { sizing::load_workload(p); });
  } catch (const Error&) {
  }
}

void hw_catalog(std::string_view data) {
  static ScratchTree tree{fs::path(MLBENCH_SOURCE_DIR) / "configs/hardware"};
  try {
    tree.with_sections(split_sections(data),
                       [](const fs::path& root) { sizing::load_hardware_catalog(root); });
  } catch (const Error&) {
  }
}

void gpu_catalog(std::string_view data) {
  try {
    with_file("gpus.yaml", data, [](const fs::path& p) {
      auto catalog = load_gpu_catalog(p);
      match_gpu(catalog, "NVIDIA H100 80GB HBM3", "9.0");
      match_gpu(catalog, "NVIDIA A100-SXM4-80GB", "");
      if (!catalog.empty()) find_gpu(catalog, catalog.front().name);
    });
  } catch (const Error&) {
  }
}

void run_config(std::string_view data) {
  try {
    with_file("run.yaml", data, [](const fs::path& p) { cli::load_run_config(p); });
  } catch (const Error&) {
  }
}

void thresholds(std::string_view data) {
  try {
    auto set = expectations_from_json(parse_yaml(std::string(data), "thresholds.yaml"), "thresholds.yaml");
    auto result = check_report(sample_report(), set);
    check_table(result);
    check_to_json(result);
  } catch (const Error&) {
  }
}

void sysinfo(std::string_view data) {
  static ScratchTree tree{fs::path(MLBENCH_SOURCE_DIR) / "tests/data/sysfs/two_socket"};
  parse_cpu_list(data);
  parse_cache_size(data);
  parse_pcie_speed(data);
  parse_smbios_memory_devices(data);
  parse_interrupt_counts(data);
  parse_smaps_anon_huge(data, 0x7f0000200000);
  parse_mdstat(data);
  parse_mountinfo(data);
  try {
    // Serialised as `mlbench sysinfo --json` and every report do: what /sys holds must survive that too.
    tree.with_sections(split_sections(data),
                       [](const fs::path& root) { collect_host_info(SysReader(root)).dump(); });
  } catch (const Error&) {
  }
}

void bootstrap(std::string_view data) {
  const std::size_t read_size = data.empty() ? 1 : static_cast<unsigned char>(data.front()) % 64 + 1;
  if (!data.empty()) data.remove_prefix(1);
  const net::JobId job{"job-a", "MLBENCH_JOB_ID"};
  constexpr std::string_view kToken = "fuzz-token-0123456789abcdef";
  constexpr std::string_view kRootNonce = "00112233445566778899aabbccddeeff";
  const std::vector<bool> joined{true, true, false, false};
  // What a message's check says goes to stderr: one printable line, never the peer's bytes raw.
  using net::printable_line;
  const auto check_refusal = [&](const Error& e) {
    if (*e.what() == '\0' || !printable_line(e.what()))
      throw std::logic_error("a message's refusal is empty or not one printable line");
  };
  int sender = 0;
  while (!data.empty()) {
    const auto frame_start = data;
    net::FrameDecoder frame(net::kMaxIntroduction);
    try {
      while (!frame.done() && !data.empty()) data.remove_prefix(frame.feed(data.substr(0, read_size)));
    } catch (const Error&) {
      return;  // an oversized frame: the connection is dropped
    }
    if (!frame.done()) return;  // the connection ended mid-frame
    const auto taken = frame_start.substr(0, frame_start.size() - data.size());
    if (net::encode_frame(frame.body()) != taken)
      throw std::logic_error("a frame does not encode to its bytes");
    const std::string& body = frame.body();
    if (auto nonce = net::parse_challenge(body)) {
      if (net::format_challenge(*nonce) != body)
        throw std::logic_error("a challenge does not format to its bytes");
    }
    std::string why;
    if (auto intro = net::parse_introduction(body, why)) {
      if (net::format_introduction(*intro) != body) {
        throw std::logic_error("an introduction does not format to its bytes");
      }
      const auto verdict = net::judge_introduction(*intro, job, kToken, kRootNonce, joined);
      if (!printable_line(verdict)) throw std::logic_error("a refusal is not one printable line");
      // A peer without the token learns nothing of rank 0's job.
      if (!net::same_proof(intro->proof, net::rank_proof(kToken, kRootNonce, *intro)) &&
          (verdict.find(job.value) != std::string::npos || verdict.find(job.source) != std::string::npos))
        throw std::logic_error("a refusal of a wrong proof names rank 0's job");
    } else if (why.empty()) {
      throw std::logic_error("an introduction refused without a reason");
    }
    if (auto answer = net::parse_answer(body)) {
      if (net::format_answer(*answer) != body)
        throw std::logic_error("an answer does not format to its bytes");
    }
    // The cluster's JSON messages, as rank 0 reads a rank's (the sender cycles through the ranks) and as a
    // rank reads rank 0's.
    // What they accept reaches the summary and the report: printable text only, whatever the peer sent.
    const auto check_printable = [&](const Json& accepted) {
      if (!printable_line(accepted.dump(-1, ' ', false, Json::error_handler_t::strict)))
        throw std::logic_error("an accepted message keeps a byte that is not printable ASCII");
    };
    try {
      check_printable(net::parse_hello(body, sender));
    } catch (const Error& e) {
      check_refusal(e);
    }
    try {
      for (const auto& r : net::parse_rank_results(body, sender)) check_printable(to_json(r));
    } catch (const Error& e) {
      check_refusal(e);
    }
    try {
      net::parse_decision(body);
    } catch (const Error& e) {
      check_refusal(e);
    }
    try {
      if (auto error = net::parse_final_status(body); error && !printable_line(*error))
        throw std::logic_error("a final status error is not escaped");
    } catch (const Error& e) {
      check_refusal(e);
    }
    sender = (sender + 1) % 4;
  }
}

void dataset_manifest(std::string_view data) {
  std::optional<storage::DatasetManifest> m;
  try {
    m = storage::parse_manifest(data, storage::kMaxDatasetFiles);
  } catch (const Error&) {
  }
  if (m) {
    const auto again = storage::parse_manifest(storage::to_json(*m).dump(), storage::kMaxDatasetFiles);
    if (again.workload != m->workload || again.ext != m->ext || again.seed != m->seed ||
        again.sizes != m->sizes || again.complete != m->complete)
      throw std::logic_error("a manifest does not write back to itself");
  }
  // The same bytes in a dataset folder of --data-dir, read as a run reads them (through descriptors).
  static ScratchTree tree{fs::path()};
  try {
    const std::string folder = std::string(storage::kDatasetPrefix) + "unet3d";
    tree.with_sections({{fs::path(folder) / storage::kManifestName, data}}, [&](const fs::path& root) {
      storage::DatasetPlan plan;
      plan.root = root / folder;
      plan.workload = "unet3d";
      plan.ext = "npz";
      plan.sizes = {4096};
      storage::inspect_data_dir(plan, "--data-dir");
    });
  } catch (const Error&) {
  }
}

void serve_stream(std::string_view data) {
  if (data.empty()) return;
  const std::size_t step = 1 + static_cast<unsigned char>(data[0]) % 64;
  data.remove_prefix(1);
  serve::WireLimits limits;
  limits.header_bytes = 512;
  limits.line_bytes = 256;
  limits.chunk_bytes = 1024;
  limits.event_bytes = 512;
  limits.body_bytes = 4096;
  serve::HttpResponseParser http(limits);
  serve::SseParser sse(limits);
  std::string body;
  std::vector<std::string> events;
  bool failed = false;
  for (std::size_t i = 0; i < data.size() && !failed && !http.done(); i += step) {
    std::size_t used = 0;
    body.clear();
    failed = static_cast<bool>(http.feed(data.substr(i, step), body, used));
    if (failed || !http.headers_done()) continue;
    if (http.body_bytes() > limits.body_bytes) throw std::logic_error("a body past its bound");
    events.clear();
    failed = static_cast<bool>(sse.feed(body, events));
    for (const auto& e : events) {
      if (e.size() > limits.event_bytes) throw std::logic_error("an event past its bound");
      serve::StreamEvent ev;
      (void)serve::parse_stream_event(e, limits, ev);
    }
  }
  if (!failed) (void)http.eof();
}

void fio_job(std::string_view data) {
  try {
    for (const auto& job : storage::parse_job_file(data, "fuzz.fio"))
      storage::to_json(storage::parse_job_spec(job.options, OptionSource::job_file()));
  } catch (const Error&) {
  }
}

}  // namespace mlbench::fuzz
