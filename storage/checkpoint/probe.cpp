#include "storage/checkpoint/checkpoint.hpp"

#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <algorithm>
#include <barrier>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstring>
#include <mutex>
#include <optional>
#include <system_error>
#include <thread>

#include <fmt/format.h>

#include "base/stats.hpp"
#include "base/units.hpp"
#include "storage/buffer.hpp"
#include "storage/fd.hpp"
#include "storage/owner.hpp"
#include "storage/pattern.hpp"

namespace mlbench::storage {
namespace {

using nlohmann::json;
using Clock = std::chrono::steady_clock;
namespace fs = std::filesystem;

constexpr const char* kId = "storage.checkpoint";
constexpr std::string_view kParams[] = {"model", "size", "ranks"};
constexpr std::string_view kMetrics[] = {
    "write_bandwidth", "read_bandwidth", "stall", "fsync_max", "write_bandwidth_slowest_rank",
    "write_spread",    "read_spread"};
// The console's headline set under each result: the save's and the load's bandwidth, the training stall
// and the slowest fsync.
constexpr ConsoleField kConsole[] = {{"write_bandwidth", "write"},
                                     {"read_bandwidth", "read-back"},
                                     {"stall", "stall"},
                                     {"fsync_max", "fsync max"}};
constexpr double kRateGuess = 500e6;  // B/s, for time estimates only

// Not constexpr: --engine's help reads the engine table (engine_option_help()).
const OptionSpec kOptions[] = {
    {.name = "dir",
     .type = OptionType::text,
     .help = "Folder on the storage to test; mlbench creates its own folder in it and removes it"},
    {.name = "model",
     .type = OptionType::choice,
     .def = "8b",
     .choices =
         [] {
           std::vector<std::string_view> v;
           for (const auto& m : kCheckpointModels) v.push_back(m.name);
           return v;
         },
     .help = "Llama 3 checkpoint size and layout (MLPerf Storage v2.0)"},
    {.name = "size",
     .type = OptionType::size,
     .unit = "B",
     .min = kCheckpointBlock,
     .help = "Bytes this node writes, instead of the model's"},
    {.name = "gpus",
     .type = OptionType::integer,
     .def = "8",
     .min = 1,
     .max = 4096,
     .help = "GPUs of this node (the node-local subset: gpus / (TP*PP*DP) of the checkpoint)"},
    {.name = "ranks",
     .type = OptionType::integer,
     .def = "--gpus",
     .min = 1,
     .max = 1024,
     .help = "Writer threads, one shard each"},
    {.name = "bs",
     .type = OptionType::size,
     .def = "4M",
     .unit = "B",
     .min = kCheckpointBlock,
     .max = 1 << 30,
     .help = "Bytes per write and read"},
    {.name = "depth",
     .type = OptionType::integer,
     .def = "4",
     .min = 1,
     .max = 256,
     .help = "Writes (reads) in flight per rank"},
    {.name = "direct",
     .type = OptionType::flag,
     .def = "false",
     .help = "O_DIRECT instead of buffered writes + fsync + POSIX_FADV_DONTNEED"},
    {.name = "read",
     .type = OptionType::flag,
     .def = "true",
     .help = "Read the checkpoint back",
     .off_help = "Write only"},
    {.name = "keep", .type = OptionType::flag, .def = "false", .help = "Keep the checkpoint files"},
    {.name = "engine",
     .type = OptionType::choice,
     .def = "uring",
     .choices = [] { return engine_choices(&EngineTraits::touches_disk); },
     .help = engine_option_help()},
};

constexpr std::string_view kFolderPrefix = "mlbench-checkpoint-";

// Removes the ranks' files (regular files of their names only) from the folder of `fd`; returns their bytes.
std::uint64_t remove_checkpoint_files(int fd) {
  std::uint64_t bytes = 0;
  for (const auto& name : names_in(fd)) {
    if (!is_checkpoint_file_name(name)) continue;
    const off_t size = size_at(fd, name);
    if (remove_file_at(fd, name)) bytes += static_cast<std::uint64_t>(size);
  }
  return bytes;
}

// The folder a run creates in --dir, named for its owner (storage/owner.hpp:
// "mlbench-checkpoint-<pid>-XXXXXX", with --keep "mlbench-checkpoint-kept-<pid>-XXXXXX", never stale) and
// locked while it exists; the destructor removes the ranks' files and the folder through their descriptors
// unless kept.
class Folder {
 public:
  Folder(const std::string& dir, bool keep) : keep_(keep) {
    std::string tmpl =
        (fs::path(dir) / fmt::format("{}{}{}-XXXXXX", kFolderPrefix, keep ? "kept-" : "", ::getpid()))
            .string();
    if (::mkdtemp(tmpl.data()) == nullptr)
      throw Error(fmt::format("creating a folder in {}: {}", dir, std::strerror(errno)));
    path_ = tmpl;
    name_ = path_.filename().string();
    parent_ = Fd(::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
    if (parent_)
      fd_ = Fd(::openat(parent_.get(), name_.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
    // Not its owner checked: root's folder on an NFS export with root_squash belongs to nobody. A folder put
    // in its place is only written into (O_EXCL, never through a link), which harms no one else's file.
    if (!fd_) throw Error(fmt::format("opening {}, just created: {}", path_.string(), std::strerror(errno)));
    take_owner_lock(fd_.get());
  }
  Folder(const Folder&) = delete;
  Folder& operator=(const Folder&) = delete;
  ~Folder() {
    if (keep_ || !fd_) return;
    remove_checkpoint_files(fd_.get());
    ::unlinkat(parent_.get(), name_.c_str(), AT_REMOVEDIR);
  }
  const fs::path& path() const { return path_; }
  int fd() const { return fd_.get(); }

 private:
  bool keep_;
  fs::path path_;
  std::string name_;
  Fd parent_, fd_;
};

const CheckpointModel& model_of(std::string_view name) {
  for (const auto& m : kCheckpointModels)
    if (m.name == name) return m;
  return kCheckpointModels[0];
}

struct Setup {
  std::string dir;
  std::string model;
  std::uint64_t bytes = 0;  // for the node
  unsigned ranks = 8;
  CheckpointConfig cfg;
  bool keep = false;
};

Setup resolve(const json& options, const OptionSource& source) {
  auto v = parse_options(kOptions, options, source);
  Setup s;
  if (!v.has("dir"))
    throw UsageError(fmt::format("{}: give the folder on the storage to test", v.name("dir")));
  s.dir = v.get<std::string>("dir");
  const unsigned gpus = static_cast<unsigned>(v.get<std::int64_t>("gpus"));
  s.ranks = v.has("ranks") ? static_cast<unsigned>(v.get<std::int64_t>("ranks")) : gpus;
  if (v.has("size") && v.has("model"))
    throw UsageError(fmt::format("give {} or {}, not both", v.name("model"), v.name("size")));
  if (v.has("size")) {
    s.bytes = v.get<std::uint64_t>("size");
  } else {
    s.model = v.get<std::string>("model");
    s.bytes = node_checkpoint_bytes(model_of(s.model), gpus);
  }
  s.cfg.ranks = s.ranks;
  s.cfg.shard = s.bytes / s.ranks / kCheckpointBlock * kCheckpointBlock;
  if (s.cfg.shard == 0)
    throw UsageError(fmt::format("{} {} split over {} ranks is less than 4 KiB per rank", v.name("size"),
                                 s.bytes, s.ranks));
  s.cfg.bs = v.get<std::uint64_t>("bs") / kCheckpointBlock * kCheckpointBlock;
  s.cfg.depth = static_cast<unsigned>(v.get<std::int64_t>("depth"));
  s.cfg.direct = v.get<bool>("direct");
  s.cfg.read_back = v.get<bool>("read");
  s.cfg.engine = engine_from_string(v.get<std::string>("engine"));
  s.keep = v.get<bool>("keep");
  std::error_code ec;
  if (!fs::is_directory(s.dir, ec))
    throw UsageError(fmt::format("{} {}: not an existing folder", v.name("dir"), s.dir));
  // mlbench creates its folder there: refused now rather than failed after the plan (as storage's --target).
  if (::access(s.dir.c_str(), W_OK) != 0)
    throw UsageError(
        fmt::format("{} {}: not writable ({}); mlbench creates its checkpoint folder there: give a "
                    "writable folder",
                    v.name("dir"), s.dir, std::strerror(errno)));
  struct statvfs st {};
  if (::statvfs(s.dir.c_str(), &st) == 0) {
    const std::uint64_t avail = static_cast<std::uint64_t>(st.f_bavail) * st.f_frsize;
    const std::uint64_t need = s.cfg.shard * s.ranks;
    if (need > avail)
      throw UsageError(
          fmt::format("{} {}: the checkpoint needs {} and only {} is free; use {} or another folder",
                      v.name("dir"), s.dir, format_bytes(static_cast<double>(need)),
                      format_bytes(static_cast<double>(avail)), v.name("size")));
  }
  return s;
}

class CheckpointProbe final : public Probe {
 public:
  ProbeInfo info() const override {
    return {kId,
            "Checkpoint write/read bandwidth and the training stall (MLPerf Storage method)",
            "a folder on the storage to test; io_uring, else psync",
            kOptions,
            kParams,
            kMetrics,
            kConsole};
  }
  std::optional<std::string> unavailable(const Json&) const override { return std::nullopt; }
  std::vector<Case> plan(const PlanContext& ctx) const override {
    if (!ctx.options.is_object()) throw UsageError("options must be a mapping");
    if (ctx.options.empty()) return {};
    Setup s = resolve(ctx.options, ctx.source);
    // Every rank holds --depth buffers of --bs, all at once.
    const double buffers = static_cast<double>(s.ranks) * s.cfg.depth * static_cast<double>(s.cfg.bs);
    if (auto available = available_memory(ctx.host); available && buffers > kBufferMemoryShare * *available) {
      const OptionSource& o = ctx.source;
      throw UsageError(
          fmt::format("{} {} x {} {} x {} {} = {} of buffers does not fit in the {} of memory available; "
                      "lower {}, {} or {}",
                      o.name("ranks"), s.ranks, o.name("depth"), s.cfg.depth, o.name("bs"),
                      format_bytes(static_cast<double>(s.cfg.bs)), format_bytes(buffers),
                      format_bytes(*available), o.name("bs"), o.name("depth"), o.name("ranks")));
    }
    Case c;
    c.label = fmt::format("{} x{} ranks",
                          s.model.empty() ? format_bytes(static_cast<double>(s.bytes)) : s.model, s.ranks);
    c.params = json{{"ranks", s.ranks}};
    if (s.model.empty()) {
      c.params["size"] = s.bytes;
    } else {
      c.params["model"] = s.model;
    }
    c.config = json{{"options", ctx.options}, {"from_config", ctx.source.from_config()}};
    c.estimate_s = 2 * static_cast<double>(s.cfg.shard * s.ranks) / kRateGuess + 1;
    return {c};
  }

  std::vector<Result> run(const Case& c, RunContext& ctx) override {
    const OptionSource source =
        c.config.value("from_config", false) ? OptionSource::config(kId) : OptionSource{};
    Setup s = resolve(c.config.at("options"), source);
    std::vector<std::string> warnings;
    const ResolvedEngine engine = resolve_engine(s.cfg.engine);
    s.cfg.engine = engine.kind;
    if (!engine.warning.empty()) warnings.push_back(engine.warning);
    // Before this run's own folder exists: what a killed run left (storage/owner.hpp says how it tells).
    for (auto& w : remove_stale_checkpoints(s.dir, ctx.stop)) warnings.push_back(std::move(w));
    Folder folder(s.dir, s.keep);
    s.cfg.folder = folder.path();
    s.cfg.folder_fd = folder.fd();
    CheckpointOutcome o = run_checkpoint(s.cfg, ctx.stop);
    if (!o.error.empty()) throw Error(o.error);
    if (o.stopped) throw Interrupted();

    Result r = ctx.make_result(kId, c);
    r.metrics = checkpoint_metrics(o.ranks, s.cfg.shard, s.cfg.read_back);
    double wmax = 0;
    for (const auto& k : o.ranks) wmax = std::max(wmax, k.write_s);
    std::uint64_t written = 0, read = 0, fsyncs = 0, dropped = 0;
    json per = json::array();
    for (const auto& k : o.ranks) {
      written += k.written;
      read += k.read;
      fsyncs += k.fsynced;
      dropped += k.dropped;
      per.push_back({{"write_s", k.write_s}, {"fsync_s", k.fsync_s}, {"read_s", k.read_s}});
    }
    r.work = json{{"bytes_written", written}, {"bytes_read", read}, {"seconds", wmax}};
    r.info = json{{"shard_bytes", s.cfg.shard},
                  {"ranks", s.ranks},
                  {"fsync_calls", fsyncs},
                  {"pages_dropped",
                   s.cfg.direct ? "O_DIRECT" : fmt::format("POSIX_FADV_DONTNEED on {} files", dropped)},
                  {"engine", to_string(s.cfg.engine)},
                  {"direct", s.cfg.direct},
                  {"bs", s.cfg.bs},
                  {"depth", s.cfg.depth},
                  {"per_rank", per},
                  {"folder", folder.path().string()}};
    if (!s.model.empty()) {
      const auto& m = model_of(s.model);
      r.info["layout"] = fmt::format("TP{} x PP{} x DP{}", m.tp, m.pp, m.dp);
      r.info["checkpoint_bytes"] = kCheckpointBytesPerParam * m.params;
    }
    if (s.keep) r.info["kept_files"] = o.files;
    if (!engine.why.empty()) r.info["engine_fallback"] = engine.why;
    r.warnings = warnings;
    return {r};
  }
};

}  // namespace

std::uint64_t node_checkpoint_bytes(const CheckpointModel& m, unsigned gpus) {
  const double whole = kCheckpointBytesPerParam * m.params;
  const double share = std::min(1.0, static_cast<double>(gpus) / (m.tp * m.pp * m.dp));
  return static_cast<std::uint64_t>(whole * share);
}

std::vector<std::string> remove_stale_checkpoints(const std::string& dir, const std::atomic<bool>& stop) {
  std::vector<std::string> said;
  Fd parent(::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (!parent) return said;
  constexpr std::string_view kLeft = "a checkpoint folder left by an mlbench run that was killed";
  for (const auto& name : names_in(parent.get())) {
    if (!owner_gone(owner_pid(name, kFolderPrefix))) continue;
    std::uint64_t bytes = 0;
    {
      Fd fd = open_folder_at(parent.get(), name);  // a link under such a name is never followed
      if (!fd) {
        const int err = errno;
        const mode_t type = type_at(parent.get(), name);
        said.push_back(fmt::format("kept {} in {}: it has the name of {} but is {}", name, dir, kLeft,
                                   type == S_IFLNK   ? "a link"
                                   : type != S_IFDIR ? "not a folder"
                                                     : fmt::format("not readable ({})", std::strerror(err))));
        continue;
      }
      if (!take_reclaim_lock(fd.get(), stop)) continue;  // a live run's, in another PID namespace
      bytes = remove_checkpoint_files(fd.get());
    }
    if (::unlinkat(parent.get(), name.c_str(), AT_REMOVEDIR) == 0) {
      said.push_back(
          fmt::format("removed {} ({}), a checkpoint folder left in {} by an mlbench run that was "
                      "killed",
                      name, format_bytes(static_cast<double>(bytes)), dir));
      continue;
    }
    const std::string why =
        errno == ENOTEMPTY || errno == EEXIST ? "it holds files mlbench did not make" : std::strerror(errno);
    if (bytes > 0) {
      said.push_back(fmt::format("removed {} of checkpoint files from {} in {}, {}; the folder is kept: {}",
                                 format_bytes(static_cast<double>(bytes)), name, dir, kLeft, why));
    } else {
      said.push_back(fmt::format("kept {} in {}, {}: {}", name, dir, kLeft, why));
    }
  }
  return said;
}

std::span<const OptionSpec> checkpoint_options() { return kOptions; }
std::unique_ptr<Probe> make_checkpoint_probe() { return std::make_unique<CheckpointProbe>(); }

}  // namespace mlbench::storage
