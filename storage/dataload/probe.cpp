#include "storage/dataload/probe.hpp"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <string_view>
#include <tuple>

#include <fmt/format.h>

#include "base/stats.hpp"
#include "base/units.hpp"
#include "bench/host_view.hpp"
#include "bench/paths.hpp"
#include "storage/dataload/data.hpp"
#include "storage/dataload/reader.hpp"
#include "storage/dataload/workload.hpp"

namespace mlbench::storage {
namespace {

using nlohmann::json;
namespace fs = std::filesystem;

constexpr const char* kId = "storage.dataload";
constexpr std::string_view kParams[] = {"workload", "accelerator", "accelerators", "phase"};
// The generate phase's (files_per_s, bandwidth, seconds) and the training window's (train_metrics).
constexpr std::string_view kMetrics[] = {
    "files_per_s",    "bandwidth",  "seconds",     "accelerators_supported",
    "samples_per_s",  "au",         "au_min",      "batch_wait_mean",
    "batch_wait_p99", "open_p50",   "open_p99",    "open_p999",
    "read_p50",       "read_p99",   "read_p999",   "close_p50",
    "close_p99",      "close_p999", "cpu_per_file"};
// The console's headline set under each result: the training window's AU beside its floor (info.au_floor),
// the flow that fed it, and how long the accelerators waited for their batches.
constexpr ConsoleField kConsole[] = {{"au", "AU", "au_floor", "floor"}, {"bandwidth", "bw"},
                                     {"files_per_s", "files"},          {"samples_per_s", "samples"},
                                     {"batch_wait_mean", "batch wait"}, {"batch_wait_p99", "p99"}};
constexpr double kGenerateRate = 300e6;   // B/s, for time estimates only
constexpr double kMlperfRamFactor = 5.0;  // MLPerf: a dataset ≥ 5 × RAM, or the page cache answers
constexpr std::uint64_t kMlperfSteps = 500;
// A mean lateness of the emulated steps above this share of the step is warned about: a late step counts as
// time without compute, so a fed accelerator's AU reads low by about that share.
constexpr double kOverrunWarnShare = 0.01;

constexpr OptionSpec kOptions[] = {
    {.name = "workload",
     .type = OptionType::text,
     .def = "unet3d",
     .help = "A workload of configs/dataload/: unet3d, resnet50, cosmoflow, small-files"},
    {.name = "dlio",
     .type = OptionType::text,
     .help = "A DLIO workload YAML to emulate instead of --workload"},
    {.name = "data_dir",
     .type = OptionType::text,
     .help = "Folder where mlbench creates (--generate) or finds its dataset; must hold nothing else"},
    {.name = "data",
     .type = OptionType::text,
     .help = "Read your own dataset: every regular file under DIR, read-only"},
    {.name = "generate",
     .type = OptionType::flag,
     .def = "false",
     .help = "Generate the dataset in --data-dir (reused when one with the same manifest is there)"},
    {.name = "keep_data", .type = OptionType::flag, .def = "false", .help = "Keep the generated dataset"},
    {.name = "files",
     .type = OptionType::integer,
     .def = "the workload's",
     .min = 1,
     .max = static_cast<double>(kMaxDatasetFiles),
     .help = "Files in the dataset"},
    {.name = "accelerator",
     .type = OptionType::choice,
     .def = "the workload's first",
     .choices = [] { return choices_of(kAcceleratorNames); },
     .help = "Accelerator type whose step time is simulated"},
    {.name = "step_time",
     .type = OptionType::duration,
     .def = "the workload's",
     .unit = "s",
     .min = 0,
     .help = "Compute time per batch (0: read as fast as possible)"},
    {.name = "accelerators",
     .type = OptionType::integer,
     .min = 1,
     .max = 4096,
     .help = "Simulate this many accelerators (one window) instead of searching accelerators_supported"},
    {.name = "max_accelerators",
     .type = OptionType::integer,
     .def = "64",
     .min = 1,
     .max = 4096,
     .help = "Upper end of the accelerators_supported search"},
    {.name = "read_threads",
     .type = OptionType::integer,
     .def = "the workload's",
     .min = 1,
     .max = 256,
     .help = "Reader threads per accelerator, each with its own io_uring"},
    {.name = "batch_size",
     .type = OptionType::integer,
     .def = "the workload's",
     .min = 1,
     .max = 1e9,
     .help = "Samples per batch"},
    {.name = "depth",
     .type = OptionType::integer,
     .def = "2",
     .min = 1,
     .max = 256,
     .help = "Files in flight per reader thread"},
    {.name = "prefetch",
     .type = OptionType::integer,
     .def = "2",
     .min = 1,
     .max = 1024,
     .help = "Batches each reader thread may load ahead (PyTorch's prefetch_factor)"},
    {.name = "max_read",
     .type = OptionType::size,
     .def = "4M",
     .unit = "B",
     .min = 4096,
     .max = 1 << 30,
     .help = "Largest single read of a whole-file read"},
    {.name = "runtime",
     .type = OptionType::duration,
     .def = "10s",
     .unit = "s",
     .min = 0,
     .min_exclusive = true,
     .help = "Measurement window of each trial"},
    {.name = "epochs",
     .type = OptionType::integer,
     .def = "the workload's (0: the window)",
     .min = 0,
     .max = 1e9,
     .help = "End a trial after this many epochs (before the window when sooner)"},
    {.name = "seed",
     .type = OptionType::integer,
     .def = "1",
     .min = 0,
     .max = 9e15,
     .help = "Seed of the sizes, the data and every epoch's shuffle"},
    {.name = "buffered",
     .type = OptionType::flag,
     .def = "false",
     .help = "Read through the page cache (warns when the dataset is smaller than 5 x RAM)"},
    {.name = "engine",
     .type = OptionType::choice,
     .def = "uring",
     .choices = dataload_engine_names,
     .help = "uring (linked open/read/close), psync (plain calls) or null (no I/O: mlbench's own loop)"},
};

// Everything a case needs, resolved from the options (in plan() and again in run()).
struct Setup {
  Workload w;
  Accelerator acc = Accelerator::h100;
  double step_s = 0;
  std::optional<unsigned> fixed;
  unsigned max_acc = 64;
  unsigned depth = 2, prefetch = 2;
  std::uint64_t max_read = 4u << 20, seed = 1;
  double runtime_s = 10;
  bool direct = true, generate = false, keep = false;
  EngineKind engine = EngineKind::uring;
  std::optional<DatasetPlan> generated;  // --data-dir
  std::vector<DataFile> user;            // --data
  std::string data_flag;
};

Setup resolve(const json& options, const OptionSource& source) {
  auto v = parse_options(kOptions, options, source);
  Setup s;
  const fs::path dir = config_dir() / "dataload";
  if (v.has("dlio") && v.has("workload"))
    throw UsageError(fmt::format("give {} or {}, not both", v.name("workload"), v.name("dlio")));
  s.w = v.has("dlio") ? load_dlio(v.get<std::string>("dlio"), dir)
                      : load_workload(v.get<std::string>("workload"), dir);
  if (auto f = v.given<std::int64_t>("files")) s.w.num_files = static_cast<std::uint64_t>(*f);
  if (auto b = v.given<std::int64_t>("batch_size")) s.w.batch_size = static_cast<std::uint64_t>(*b);
  if (auto t = v.given<std::int64_t>("read_threads")) s.w.read_threads = static_cast<unsigned>(*t);
  if (auto e = v.given<std::int64_t>("epochs")) s.w.epochs = static_cast<std::uint64_t>(*e);
  if (auto a = v.given<std::string>("accelerator")) {
    s.acc = *value_of(kAcceleratorNames, *a);
  } else {
    s.acc = s.w.step_time.begin()->first;
  }
  if (auto st = v.given<double>("step_time")) {
    s.step_s = *st;
  } else if (auto it = s.w.step_time.find(s.acc); it != s.w.step_time.end()) {
    s.step_s = it->second;
  } else {
    throw UsageError(fmt::format("workload {} has no step time for {}; give {} or another {}", s.w.name,
                                 to_string(s.acc), v.name("step_time"), v.name("accelerator")));
  }
  if (auto n = v.given<std::int64_t>("accelerators")) s.fixed = static_cast<unsigned>(*n);
  s.max_acc = static_cast<unsigned>(v.get<std::int64_t>("max_accelerators"));
  s.depth = static_cast<unsigned>(v.get<std::int64_t>("depth"));
  s.prefetch = static_cast<unsigned>(v.get<std::int64_t>("prefetch"));
  s.max_read = v.get<std::uint64_t>("max_read");
  s.seed = static_cast<std::uint64_t>(v.get<std::int64_t>("seed"));
  s.runtime_s = v.get<double>("runtime");
  s.direct = !v.get<bool>("buffered");
  s.generate = v.get<bool>("generate");
  s.keep = v.get<bool>("keep_data");
  s.engine = engine_from_string(v.get<std::string>("engine"));
  if (v.has("data") == v.has("data_dir")) {
    throw UsageError(
        fmt::format("give {} DIR (a folder for mlbench's dataset, with {}) or {} DIR (your own "
                    "dataset, read-only)",
                    v.name("data_dir"), v.name("generate"), v.name("data")));
  }
  if (v.has("data")) {
    if (s.generate || s.keep)
      throw UsageError(fmt::format("{} reads your own dataset; {} and {} only go with {}", v.name("data"),
                                   v.name("generate"), v.name("keep_data"), v.name("data_dir")));
    s.data_flag = v.name("data");
    s.user = list_user_data(v.get<std::string>("data"), s.data_flag);
    s.w.num_files = s.user.size();
  } else {
    s.data_flag = v.name("data_dir");
    if (!is_dataset_name(s.w.name))
      throw UsageError(
          fmt::format("workload name '{}' cannot name the dataset's folder; give a name of letters, "
                      "digits, '.', '_' and '-' (DLIO: model)",
                      s.w.name));
    DatasetPlan p;
    p.root = fs::path(v.get<std::string>("data_dir")) / (std::string(kDatasetPrefix) + s.w.name);
    p.workload = s.w.name;
    p.ext = s.w.format;
    p.seed = s.seed;
    p.sizes = dataset_sizes(s.w, s.w.num_files, s.seed);
    s.generated = std::move(p);
  }
  if (s.fixed && *s.fixed > s.w.num_files)
    throw UsageError(
        fmt::format("{} {} is more than the {} files of the dataset; every accelerator needs files",
                    v.name("accelerators"), *s.fixed, s.w.num_files));
  s.max_acc = static_cast<unsigned>(std::min<std::uint64_t>(s.max_acc, s.w.num_files));
  return s;
}

// The dataset state at plan time: refusals and the free-space check, before anything is written.
void check_dataset(const Setup& s) {
  if (!s.generated) return;
  auto state = inspect_data_dir(*s.generated, s.data_flag);
  if (state == DatasetState::matches) return;
  if (!s.generate) {
    throw UsageError(fmt::format(
        "{} {} holds no {} dataset of these {} files (seed {}); add --generate to make it", s.data_flag,
        s.generated->root.parent_path().string(), s.w.name, s.generated->sizes.size(), s.seed));
  }
  check_free_space(*s.generated, s.generated->root.parent_path(), 0, s.data_flag);
}

std::uint64_t host_ram(const json& host) {
  if (auto total = HostView(host).memory_total_bytes) return static_cast<std::uint64_t>(*total);
  return static_cast<std::uint64_t>(::sysconf(_SC_PHYS_PAGES)) *
         static_cast<std::uint64_t>(::sysconf(_SC_PAGESIZE));
}

json trial_json(const LoadOutcome& o, unsigned n, double floor) {
  json per = json::array();
  for (const auto& a : o.accelerators) per.push_back(std::round(a.au() * 1e4) / 1e2);
  return json{{"accelerators", n},
              {"au", o.au() * 100},
              {"au_min", o.au_min() * 100},
              {"au_floor", floor * 100},
              {"samples_per_s", o.seconds > 0 ? static_cast<double>(o.samples) / o.seconds : 0},
              {"bandwidth", o.seconds > 0 ? static_cast<double>(o.bytes) / o.seconds : 0},
              {"au_per_accelerator", per},
              {"step_overrun_mean_s", o.step_overrun.mean() * 1e-9},
              {"seconds", o.seconds},
              {"error", o.error}};
}

class DataloadProbe final : public Probe {
 public:
  ProbeInfo info() const override {
    return {kId,
            "MLPerf Storage-style training data loading: accelerators a storage can feed (AU ≥ floor)",
            "a folder for a generated dataset, or your dataset; io_uring (plain calls otherwise)",
            kOptions,
            kParams,
            kMetrics,
            kConsole};
  }
  std::optional<std::string> unavailable(const Json&) const override { return std::nullopt; }

  std::vector<Case> plan(const PlanContext& ctx) const override {
    if (!ctx.options.is_object()) throw UsageError("options must be a mapping");
    // `mlbench run` without options for this probe: nothing to read, nothing planned.
    if (ctx.options.empty()) return {};
    Setup s = resolve(ctx.options, ctx.source);
    check_dataset(s);
    Case c;
    c.label = fmt::format("{} {} {}", s.w.name, to_string(s.acc),
                          s.fixed ? fmt::format("x{}", *s.fixed) : std::string("accelerators_supported"));
    c.params = json{{"workload", s.w.name}, {"accelerator", std::string(to_string(s.acc))}};
    if (s.fixed) c.params["accelerators"] = *s.fixed;
    c.config = json{{"options", ctx.options}, {"from_config", ctx.source.from_config()}};
    double trials = s.fixed ? 1 : 2 * std::ceil(std::log2(std::max(2u, s.max_acc))) + 1;
    c.estimate_s = trials * (s.runtime_s + 0.5) +
                   (s.generated ? static_cast<double>(s.generated->bytes()) / kGenerateRate : 0.0);
    return {c};
  }

  std::vector<Result> run(const Case& c, RunContext& ctx) override {
    const OptionSource source =
        c.config.value("from_config", false) ? OptionSource::config(kId) : OptionSource{};
    Setup s = resolve(c.config.at("options"), source);
    std::vector<Result> results;
    std::vector<std::string> warnings;
    json info = json::object();
    info["workload"] = to_json(s.w);
    std::optional<GeneratedDataset> dataset;
    std::vector<DataFile> files;
    if (s.generated) {
      check_dataset(s);
      GenerateFigures made;
      dataset.emplace(GeneratedDataset::open(*s.generated, s.keep, ctx.stop, made));
      files = dataset->files();
      info["dataset"] = {
          {"root", s.generated->root.string()}, {"generated", made.files > 0}, {"kept", s.keep}};
      if (made.files > 0) {
        Result g = ctx.make_result(kId, c);
        g.params["phase"] = "generate";
        g.add_metric("files_per_s", static_cast<double>(made.files) / made.seconds, "1/s");
        g.add_metric("bandwidth", static_cast<double>(made.bytes) / made.seconds, "B/s");
        g.add_metric("seconds", made.seconds, "s", Better::lower);
        g.work = json{{"files", made.files}, {"bytes", made.bytes}, {"seconds", made.seconds}};
        g.info["dataset"] = info["dataset"];
        results.push_back(std::move(g));
      }
    } else {
      files = s.user;
      info["dataset"] = {
          {"root", c.config["options"].value("data", "")}, {"user", true}, {"read_only", true}};
    }
    std::uint64_t bytes = 0;
    for (const auto& f : files) bytes += f.size;
    info["dataset"]["files"] = files.size();
    info["dataset"]["bytes"] = bytes;
    const std::uint64_t ram = host_ram(ctx.host);
    if (!s.direct && static_cast<double>(bytes) < kMlperfRamFactor * static_cast<double>(ram)) {
      warnings.push_back(
          fmt::format("--buffered with a dataset of {} < 5 x RAM ({}): the page cache may serve "
                      "reads, so the figures are not the storage's (drop --buffered for O_DIRECT)",
                      format_bytes(static_cast<double>(bytes)),
                      format_bytes(kMlperfRamFactor * static_cast<double>(ram))));
    }

    LoadConfig cfg;
    cfg.files = &files;
    cfg.samples_per_file = s.w.samples_per_file;
    cfg.batch_size = s.w.batch_size;
    cfg.read_threads = s.w.read_threads;
    cfg.step_s = s.step_s;
    cfg.prefetch = s.prefetch;
    cfg.depth = s.depth;
    cfg.direct = s.direct;
    cfg.max_read = s.max_read;
    cfg.engine = s.engine;
    cfg.file_shuffle = s.w.file_shuffle;
    cfg.sample_shuffle = s.w.sample_shuffle;
    cfg.seed = s.seed;
    cfg.epochs = s.w.epochs;
    cfg.runtime_s = s.runtime_s;

    std::map<unsigned, LoadOutcome> outcomes;
    auto measure = [&](unsigned n) {
      LoadConfig one = cfg;
      one.accelerators = n;
      LoadOutcome o = run_dataload(one, ctx.stop);
      if (!o.error.empty()) throw Error(fmt::format("{}: {}", s.w.name, o.error));
      Trial t;
      t.passed = !o.stopped && o.au() >= s.w.au_floor;
      t.detail = trial_json(o, n, s.w.au_floor);
      outcomes[n] = std::move(o);
      return t;
    };
    std::vector<Trial> trials;
    unsigned supported = 0;
    unsigned shown = 0;
    if (s.fixed) {
      trials.push_back(measure(*s.fixed));
      trials.back().accelerators = *s.fixed;
      shown = *s.fixed;
    } else {
      supported = find_supported(
          s.max_acc,
          [&](unsigned n) {
            if (ctx.stopping()) return Trial{n, false, json{{"accelerators", n}, {"stopped", true}}};
            return measure(n);
          },
          trials);
      shown = supported > 0 ? supported : 1;
    }
    // As storage.io: a stopped case leaves no result; the runner marks the report interrupted.
    if (ctx.stopping() || !outcomes.count(shown)) throw Interrupted();
    const LoadOutcome& o = outcomes.at(shown);

    Result r = ctx.make_result(kId, c);
    r.params["phase"] = "train";
    if (!s.fixed) r.add_metric("accelerators_supported", supported, "");
    for (auto& m : train_metrics(o)) r.metrics.push_back(std::move(m));
    r.work = json{{"files", o.files},       {"samples", o.samples}, {"bytes", o.bytes},
                  {"io_bytes", o.io_bytes}, {"seconds", o.seconds}, {"epochs", o.epochs_done}};
    info["accelerators"] = shown;
    info["au_floor"] = s.w.au_floor * 100;
    info["step_time"] = s.step_s;
    info["method"] = o.method;
    if (!o.fallback_reason.empty()) info["fallback_reason"] = o.fallback_reason;
    if (!o.engine.why.empty()) {
      info["engine_fallback"] = o.engine.why;
      warnings.push_back(o.engine.warning);
    }
    info["engine"] = to_string(o.engine.kind);  // the engine that ran, as storage.io's info.engine
    info["direct"] = s.direct;
    info["runtime_s"] = s.runtime_s;
    info["read_threads"] = s.w.read_threads;
    info["depth"] = s.depth;
    info["prefetch"] = s.prefetch;
    json per = json::array();
    for (const auto& a : o.accelerators)
      per.push_back(
          {{"au", a.au() * 100}, {"steps", a.steps}, {"wait_s", a.wait_s}, {"compute_s", a.compute_s}});
    info["per_accelerator"] = per;
    if (o.step_s > 0) info["step_emulation"] = step_emulation_info(o);
    if (auto late = step_overrun_warning(outcomes)) warnings.push_back(*late);
    json tj = json::array();
    for (const auto& t : trials) {
      json d = t.detail;
      d["passed"] = t.passed;
      tj.push_back(d);
    }
    info["trials"] = tj;
    std::uint64_t min_steps = UINT64_MAX;
    for (const auto& a : o.accelerators) min_steps = std::min(min_steps, a.steps);
    if (!o.accelerators.empty() && min_steps < kMlperfSteps)
      warnings.push_back(
          fmt::format("{} steps per accelerator; MLPerf Storage asks for ≥ {} (a longer --runtime)",
                      min_steps, kMlperfSteps));
    if (!s.fixed && supported == 0)
      warnings.push_back(fmt::format(
          "even 1 accelerator stays below the AU floor of {:.0f} %: figures are for 1", s.w.au_floor * 100));
    if (!s.w.ignored.empty()) {
      info["dlio_ignored"] = s.w.ignored;
      std::string keys;
      for (const auto& k : s.w.ignored) keys += (keys.empty() ? "" : ", ") + k;
      warnings.push_back("DLIO keys ignored (they do not shape the I/O): " + keys);
    }
    r.info = info;
    r.warnings = warnings;
    results.push_back(std::move(r));
    return results;
  }
};

}  // namespace

json step_emulation_info(const LoadOutcome& o) {
  const LatencyHistogram& h = o.step_overrun;
  return json{
      {"method", fmt::format("clock_nanosleep to {} µs before each step's deadline, then a spin to it",
                             kStepSpin.count())},
      {"nominal_s", o.step_s},
      {"steps", h.count()},
      {"mean_s", o.step_s + h.mean() * 1e-9},
      {"max_s", o.step_s + static_cast<double>(h.max()) * 1e-9},
      {"overrun_mean_s", h.mean() * 1e-9},
      {"overrun_p50_s", h.percentile(0.5) * 1e-9},
      {"overrun_p99_s", h.percentile(0.99) * 1e-9},
      {"overrun_max_s", static_cast<double>(h.max()) * 1e-9}};
}

std::optional<std::string> step_overrun_warning(const std::map<unsigned, LoadOutcome>& trials) {
  std::string counts;
  double worst = 0, worst_late = 0, step = 0;
  for (const auto& [n, o] : trials) {
    const double late = o.step_overrun.mean() * 1e-9;
    if (o.step_s <= 0 || late <= kOverrunWarnShare * o.step_s) continue;
    counts += fmt::format("{}{}", counts.empty() ? "" : ", ", n);
    if (late / o.step_s > worst) {
      worst = late / o.step_s;
      worst_late = late;
      step = o.step_s;
    }
  }
  if (counts.empty()) return std::nullopt;
  return fmt::format(
      "the host ended the emulated steps late, on average by up to {:.0f} µs ({:.1f} % of the {:.4g} ms "
      "step), with {} accelerators: a late step counts as time without compute, so AU may read up to that "
      "much low, and a busy host, not the storage, may have set the result (info.step_emulation, "
      "info.trials)",
      worst_late * 1e6, worst * 100, step * 1e3, counts);
}

std::span<const OptionSpec> dataload_options() { return kOptions; }
std::unique_ptr<Probe> make_dataload_probe() { return std::make_unique<DataloadProbe>(); }

}  // namespace mlbench::storage
