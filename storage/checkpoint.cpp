#include "storage/checkpoint.hpp"

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
constexpr std::uint64_t kBlock = 4096;
constexpr double kRateGuess = 500e6;  // B/s, for time estimates only

constexpr OptionSpec kOptions[] = {
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
     .min = kBlock,
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
     .min = kBlock,
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
     .choices =
         [] {
           return std::vector<std::string_view>{"uring", "psync"};
         },
     .help = "I/O engine (psync when io_uring is refused)"},
};

double since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

constexpr std::string_view kFolderPrefix = "mlbench-checkpoint-";

std::string checkpoint_file_name(unsigned rank) { return fmt::format("rank-{:04}.ckpt", rank); }

// Whether `name` is one a rank's file gets ("rank-0000.ckpt" to "rank-9999.ckpt").
bool is_checkpoint_file_name(std::string_view name) {
  constexpr std::string_view kHead = "rank-", kTail = ".ckpt";
  if (name.size() != kHead.size() + 4 + kTail.size() || !name.starts_with(kHead) || !name.ends_with(kTail))
    return false;
  const auto digits = name.substr(kHead.size(), 4);
  return std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; });
}

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

// Streams `size` bytes to or from fd with `depth` I/Os in flight; returns "" or the error.
std::string stream(Engine& e, int fd, std::span<AlignedBuffer> bufs, std::uint64_t size, std::uint64_t bs,
                   bool write, const std::atomic<bool>& stop, std::uint64_t& done, const std::string& path) {
  std::vector<std::uint32_t> free_slots;
  std::vector<std::uint32_t> lens(bufs.size());
  std::vector<std::uint64_t> offs(bufs.size());
  // psync runs one I/O at a time whatever the depth: never queue more than the engine keeps in flight.
  const std::uint32_t slots = std::min<std::uint32_t>(static_cast<std::uint32_t>(bufs.size()), e.depth());
  for (std::uint32_t i = 0; i < slots; ++i) free_slots.push_back(i);
  std::vector<Completion> comps(bufs.size());
  std::uint64_t off = 0;
  unsigned inflight = 0;
  while (done < size) {
    if (stop.load(std::memory_order_relaxed) && inflight == 0) return "stopped";
    while (!stop.load(std::memory_order_relaxed) && !free_slots.empty() && off < size) {
      std::uint32_t slot = free_slots.back();
      free_slots.pop_back();
      std::uint32_t len = static_cast<std::uint32_t>(std::min(bs, size - off));
      if (write) {
        // Every 4 KiB block carries its offset: no two blocks of a checkpoint are alike.
        for (std::uint64_t b = 0; b < len; b += kBlock) std::memcpy(bufs[slot].data() + b, &off, 8);
      }
      lens[slot] = len;
      offs[slot] = off;
      e.queue({slot, 0, len, write, off});
      off += len;
      ++inflight;
    }
    std::size_t n = e.submit_and_reap(1, comps);
    for (std::size_t i = 0; i < n; ++i) {
      --inflight;
      const auto& c = comps[i];
      if (c.res == -EINTR) return "interrupted";
      if (c.res < 0) {
        return fmt::format("{} {}: {}{}", write ? "writing" : "reading", path,
                           std::strerror(static_cast<int>(-c.res)),
                           c.res == -ENOSPC ? " (the filesystem is full)" : "");
      }
      std::uint64_t moved = static_cast<std::uint64_t>(c.res);
      if (write && moved < lens[c.slot]) {
        // A short write: writing the rest says why (ENOSPC, EIO), or completes it.
        ssize_t w = ::pwrite(fd, bufs[c.slot].data() + moved, lens[c.slot] - moved,
                             static_cast<off_t>(offs[c.slot] + moved));
        if (w < 0)
          return fmt::format("writing {}: {}{}", path, std::strerror(errno),
                             errno == ENOSPC ? " (the filesystem is full)" : "");
        moved += static_cast<std::uint64_t>(w);
      }
      if (moved != lens[c.slot])
        return fmt::format("{} {}: {} of {} bytes", write ? "short write to" : "short read of", path, moved,
                           lens[c.slot]);
      done += moved;
      free_slots.push_back(c.slot);
    }
  }
  return "";
}

void rank_main(const CheckpointConfig& cfg, unsigned r, RankOutcome& o, std::string& err,
               const std::atomic<bool>& stop, std::barrier<>& between) {
  const std::string name = checkpoint_file_name(r);
  const std::string path = (cfg.folder / name).string();
  std::vector<AlignedBuffer> bufs;
  std::vector<std::span<std::byte>> spans;
  const int dflag = cfg.direct ? O_DIRECT : 0;
  auto phase = [&](bool write) -> std::string {
    // Relative to the folder's descriptor, never through a link: the folder's path is not walked again.
    Fd fd(write ? ::openat(cfg.folder_fd, name.c_str(),
                           O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC | dflag, 0644)
                : ::openat(cfg.folder_fd, name.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC | dflag));
    if (!fd) return fmt::format("open {}: {}", path, std::strerror(errno));
    EngineConfig ec;
    ec.depth = cfg.depth;
    ec.fds = {fd.get()};
    ec.buffers = spans;
    std::unique_ptr<Engine> e = make_engine(cfg.engine, ec);
    const auto t0 = Clock::now();
    std::string why =
        stream(*e, fd.get(), bufs, cfg.shard, cfg.bs, write, stop, write ? o.written : o.read, path);
    if (why.empty() && write) {
      const auto t1 = Clock::now();
      if (::fsync(fd.get()) != 0) why = fmt::format("fsync {}: {}", path, std::strerror(errno));
      o.fsynced = why.empty();
      o.fsync_s = since(t1);
      o.write_s = since(t0);
      // mlbench's own file's pages only: the read-back must come from the storage.
      o.dropped = ::posix_fadvise(fd.get(), 0, 0, POSIX_FADV_DONTNEED) == 0;
    } else if (why.empty()) {
      o.read_s = since(t0);
    }
    return why;
  };
  // Whatever fails in this thread (the buffers' mmap, the engine's setup) is this rank's error: an exception
  // must neither escape the thread (std::terminate) nor skip the barrier the other ranks wait at.
  auto guarded = [&](auto&& step) {
    try {
      step();
    } catch (const std::exception& ex) {
      if (err.empty()) err = fmt::format("rank {}: {}", r, ex.what());
    }
  };
  guarded([&] {
    for (unsigned i = 0; i < cfg.depth; ++i) {
      bufs.emplace_back(cfg.bs);
      fill_pattern(bufs.back().span(), mix64(r * 7919u + i), 0);
      spans.push_back(bufs.back().span());
    }
  });
  if (err.empty()) guarded([&] { err = phase(true); });
  between.arrive_and_wait();
  if (err.empty() && cfg.read_back && !stop.load()) guarded([&] { err = phase(false); });
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
  s.cfg.shard = s.bytes / s.ranks / kBlock * kBlock;
  if (s.cfg.shard == 0)
    throw UsageError(fmt::format("{} {} split over {} ranks is less than 4 KiB per rank", v.name("size"),
                                 s.bytes, s.ranks));
  s.cfg.bs = v.get<std::uint64_t>("bs") / kBlock * kBlock;
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

// The slowest of the ranks' times and its Gumbel spread (base/stats.hpp).
struct Slowest {
  double value = 0, sigma = 0;
};
Slowest slowest(const std::vector<double>& t) {
  return {*std::max_element(t.begin(), t.end()), maximum_standard_deviation(t)};
}

// 100 × (max − min) / max of the ranks' times; each extreme has its Gumbel spread (the fastest that of the
// negated times), propagated to first order through 1 − min / max.
Metric spread_metric(const std::vector<double>& t, std::string name) {
  const Slowest hi = slowest(t);
  std::vector<double> negated;
  for (double x : t) negated.push_back(-x);
  const double lo = *std::min_element(t.begin(), t.end());
  const double lo_sigma = maximum_standard_deviation(negated);
  Metric m{
      std::move(name), hi.value > 0 ? 100 * (hi.value - lo) / hi.value : 0, "%", Better::lower, std::nullopt,
      std::nullopt};
  if (hi.value > 0)
    m.ci = sigma_ci(m.value, 100 * std::hypot(lo_sigma / hi.value, lo * hi.sigma / (hi.value * hi.value)));
  return m;
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

std::vector<Metric> checkpoint_metrics(const std::vector<RankOutcome>& ranks, std::uint64_t shard,
                                       bool read_back) {
  std::vector<double> w, rd, fs_t;
  for (const auto& k : ranks) {
    w.push_back(k.write_s);
    rd.push_back(k.read_s);
    fs_t.push_back(k.fsync_s);
  }
  const double total = static_cast<double>(shard) * static_cast<double>(ranks.size());
  const Slowest wmax = slowest(w), rmax = slowest(rd), fsmax = slowest(fs_t);
  // bytes / the slowest time: the slowest time's relative spread (first order).
  auto rate = [](std::string name, double bytes, const Slowest& t) {
    const double v = bytes / t.value;
    return Metric{
        std::move(name), v, "B/s", Better::higher, std::nullopt, sigma_ci(v, v * t.sigma / t.value)};
  };
  std::vector<Metric> m;
  m.push_back(rate("write_bandwidth", total, wmax));
  if (read_back) m.push_back(rate("read_bandwidth", total, rmax));
  m.push_back(
      Metric{"stall", wmax.value, "s", Better::lower, std::nullopt, sigma_ci(wmax.value, wmax.sigma)});
  m.push_back(
      Metric{"fsync_max", fsmax.value, "s", Better::lower, std::nullopt, sigma_ci(fsmax.value, fsmax.sigma)});
  m.push_back(rate("write_bandwidth_slowest_rank", static_cast<double>(shard), wmax));
  m.push_back(spread_metric(w, "write_spread"));
  if (read_back) m.push_back(spread_metric(rd, "read_spread"));
  return m;
}

CheckpointOutcome run_checkpoint(const CheckpointConfig& cfg, const std::atomic<bool>& stop) {
  CheckpointOutcome out;
  out.ranks.resize(cfg.ranks);
  std::vector<std::string> errors(cfg.ranks);
  for (unsigned r = 0; r < cfg.ranks; ++r)
    out.files.push_back((cfg.folder / checkpoint_file_name(r)).string());
  std::barrier<> between(static_cast<std::ptrdiff_t>(cfg.ranks));
  std::vector<std::thread> threads;
  for (unsigned r = 0; r < cfg.ranks; ++r) {
    try {
      threads.emplace_back([&cfg, &out, &errors, &stop, &between, r] {
        rank_main(cfg, r, out.ranks[r], errors[r], stop, between);
      });
    } catch (const std::system_error& e) {
      // No thread (the address space or the task limit is reached, e.g. by the started ranks' buffers): the
      // ranks that never start leave the barrier, so the started ones finish and are joined, and the run
      // ends with this error rather than std::terminate.
      errors[r] = fmt::format("rank {}: starting its thread: {}", r, e.what());
      for (unsigned k = r; k < cfg.ranks; ++k) between.arrive_and_drop();
      break;
    }
  }
  for (auto& t : threads) t.join();
  out.stopped = stop.load();
  for (const auto& e : errors) {
    if (!e.empty() && e != "stopped" && out.error.empty()) out.error = e;
  }
  return out;
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
