// storage.dataload and storage.checkpoint: the shipped workloads and DLIO fixtures, the shuffle, the read
// plans, the AU formula and the accelerators_supported search, the dataset manifest and its refusals, and the
// reader engine and checkpoint writers for real on temp folders under /var/tmp (io_uring, and the plain
// calls), with exact byte counts.
#include <fcntl.h>
#include <pthread.h>
#include <sys/file.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstring>
#include <fstream>
#include <functional>
#include <map>
#include <numbers>
#include <optional>
#include <set>
#include <thread>

#include <fmt/format.h>

#include "base/error.hpp"
#include "bench/paths.hpp"
#include "bench/yaml_json.hpp"
#include "storage/checkpoint/checkpoint.hpp"
#include "storage/dataload/data.hpp"
#include "storage/dataload/probe.hpp"
#include "storage/dataload/reader.hpp"
#include "storage/dataload/workload.hpp"
#include "storage/fd.hpp"
#include "tests/storage/storage_test_util.hpp"

namespace mlbench::storage {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

const fs::path kWorkloads = fs::path(MLBENCH_SOURCE_DIR) / "configs" / "dataload";

TEST(DataloadWorkload, ShippedWorkloadsCarryTheMlperfFacts) {
  auto u = load_workload("unet3d", kWorkloads);
  EXPECT_EQ(u.record_length, 146600628u);
  EXPECT_EQ(u.samples_per_file, 1u);
  EXPECT_EQ(u.batch_size, 7u);
  EXPECT_DOUBLE_EQ(u.step_time.at(Accelerator::h100), 0.323);
  EXPECT_DOUBLE_EQ(u.step_time.at(Accelerator::a100), 0.636);
  EXPECT_DOUBLE_EQ(u.au_floor, 0.90);
  auto r = load_workload("resnet50", kWorkloads);
  EXPECT_EQ(r.samples_per_file, 1251u);
  EXPECT_EQ(r.record_length, 114660u);
  EXPECT_EQ(r.batch_size, 400u);
  EXPECT_DOUBLE_EQ(r.step_time.at(Accelerator::h100), 0.224);
  auto c = load_workload("cosmoflow", kWorkloads);
  EXPECT_EQ(c.record_length, 2828486u);
  EXPECT_EQ(c.batch_size, 1u);
  EXPECT_DOUBLE_EQ(c.step_time.at(Accelerator::h100), 0.0035);
  EXPECT_DOUBLE_EQ(c.au_floor, 0.70);
  auto s = load_workload("small-files", kWorkloads);
  EXPECT_EQ(s.batch_size, 24u);
  EXPECT_DOUBLE_EQ(s.step_time.at(Accelerator::b200), 0.04755);
  EXPECT_DOUBLE_EQ(s.au_floor, 0.85);
  try {
    load_workload("bert", kWorkloads);
    FAIL() << "an unknown workload was accepted";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("cosmoflow"), std::string::npos) << e.what();
  }
}

// A DLIO workload file in DLIO's own shape (unet3d's keys), with keys mlbench does not use.
constexpr const char* kDlioUnet = R"(model: unet3d
framework: pytorch
workflow:
  generate_data: False
  train: True
dataset:
  data_folder: data/unet3d/
  format: npz
  num_files_train: 168
  num_samples_per_file: 1
  record_length: 146600628
  record_length_stdev: 68341808
  record_length_resize: 2097152
reader:
  data_loader: pytorch
  batch_size: 7
  read_threads: 4
  file_shuffle: seed
  sample_shuffle: seed
train:
  epochs: 5
  computation_time: 0.323
)";

TEST(DataloadWorkload, DlioFileGivesTheShapeAndListsIgnoredKeys) {
  auto w = dlio_from_json(parse_yaml(kDlioUnet, "unet3d.yaml"), "unet3d.yaml", kWorkloads);
  EXPECT_EQ(w.name, "unet3d");
  EXPECT_EQ(w.num_files, 168u);
  EXPECT_EQ(w.record_length, 146600628u);
  EXPECT_EQ(w.record_stdev, 68341808u);
  EXPECT_EQ(w.batch_size, 7u);
  EXPECT_EQ(w.read_threads, 4u);
  EXPECT_EQ(w.epochs, 5u);
  EXPECT_TRUE(w.file_shuffle);
  EXPECT_DOUBLE_EQ(w.step_time.at(Accelerator::h100), 0.323);
  EXPECT_DOUBLE_EQ(w.au_floor, 0.90);  // from the shipped unet3d
  std::set<std::string> ignored(w.ignored.begin(), w.ignored.end());
  EXPECT_TRUE(ignored.count("framework"));
  EXPECT_TRUE(ignored.count("workflow"));
  EXPECT_TRUE(ignored.count("dataset.record_length_resize"));
  EXPECT_TRUE(ignored.count("reader.data_loader"));
  EXPECT_FALSE(ignored.count("reader.batch_size"));
}

struct BadDlio {
  const char* from;
  const char* to;
  const char* mentions;
};
class DataloadDlioBad : public ::testing::TestWithParam<BadDlio> {};
TEST_P(DataloadDlioBad, IsOneLineNamingTheKey) {
  std::string text = kDlioUnet;
  auto at = text.find(GetParam().from);
  ASSERT_NE(at, std::string::npos);
  text.replace(at, std::strlen(GetParam().from), GetParam().to);
  try {
    dlio_from_json(parse_yaml(text, "bad.yaml"), "bad.yaml", kWorkloads);
    FAIL() << "accepted: " << GetParam().to;
  } catch (const UsageError& e) {
    std::string msg = e.what();
    EXPECT_NE(msg.find(GetParam().mentions), std::string::npos) << msg;
    EXPECT_EQ(msg.find('\n'), std::string::npos) << msg;
  }
}
INSTANTIATE_TEST_SUITE_P(
    All, DataloadDlioBad,
    ::testing::Values(BadDlio{"batch_size: 7", "batch_size: seven", "reader.batch_size"},
                      BadDlio{"record_length: 146600628", "record_length: -5", "negative"},
                      BadDlio{"num_files_train: 168", "num_files_train: 0", "num_files_train"},
                      BadDlio{"computation_time: 0.323", "computation_time: -1", "computation_time"},
                      BadDlio{"file_shuffle: seed", "file_shuffle: sometimes", "file_shuffle"},
                      // The format ends every generated file's name: only the known ones.
                      BadDlio{"format: npz", "format: x/../../victim.txt", "dataset.format"},
                      BadDlio{"format: npz", "format: 7", "dataset.format"},
                      BadDlio{"model: unet3d", "model: [1]", "model"},
                      BadDlio{"  num_files_train: 168\n", "", "num_files_train is missing"}));

TEST(DataloadShuffle, DiffersBetweenEpochsAndRepeatsWithTheSeed) {
  auto e0 = epoch_order(1000, 7, 0, true);
  auto e1 = epoch_order(1000, 7, 1, true);
  EXPECT_NE(e0, e1);
  EXPECT_EQ(e0, epoch_order(1000, 7, 0, true));
  EXPECT_NE(e0, epoch_order(1000, 8, 0, true));
  auto sorted = e1;
  std::sort(sorted.begin(), sorted.end());
  EXPECT_EQ(sorted, epoch_order(1000, 7, 1, false));  // a permutation of every file
  const auto unshuffled = epoch_order(50, 7, 3, false);
  EXPECT_TRUE(std::is_sorted(unshuffled.begin(), unshuffled.end()));
}

TEST(DataloadReads, WholeFileChunksAndAlignedRecords) {
  auto whole = plan_reads(10'000'000, 1, true, 4u << 20, true, 1);
  ASSERT_EQ(whole.size(), 3u);
  std::uint64_t logical = 0;
  for (const auto& op : whole) {
    EXPECT_EQ(op.offset % 4096, 0u);
    EXPECT_EQ(op.len % 4096, 0u);
    logical += op.logical;
  }
  EXPECT_EQ(logical, 10'000'000u);
  EXPECT_EQ(whole.back().samples, 1u);
  EXPECT_EQ(whole.front().samples, 0u);
  auto rec = plan_reads(8 * 5000, 8, true, 4u << 20, true, 3);
  ASSERT_EQ(rec.size(), 8u);
  std::set<std::uint64_t> starts;
  for (const auto& op : rec) {
    EXPECT_EQ(op.offset % 4096, 0u);
    EXPECT_EQ(op.samples, 1u);
    EXPECT_EQ(op.logical, 5000u);
    starts.insert(op.offset);
  }
  auto buffered = plan_reads(8 * 5000, 8, false, 4u << 20, false, 3);
  for (std::size_t i = 0; i < buffered.size(); ++i) {
    EXPECT_EQ(buffered[i].offset, i * 5000);
    EXPECT_EQ(buffered[i].len, 5000u);
  }
}

TEST(DataloadSearch, FindsAKnownLimitAndRecordsEveryTrial) {
  for (unsigned limit : {0u, 1u, 5u, 8u, 13u, 64u}) {
    std::vector<Trial> trials;
    unsigned found = find_supported(
        64,
        [limit](unsigned n) {
          return Trial{n, n <= limit, json::object()};
        },
        trials);
    EXPECT_EQ(found, limit);
    EXPECT_LE(trials.size(), 13u) << limit;
    std::set<unsigned> tried;
    for (const auto& t : trials) {
      EXPECT_EQ(t.passed, t.accelerators <= limit);
      tried.insert(t.accelerators);
    }
    EXPECT_EQ(tried.size(), trials.size()) << "a count was tried twice";
    if (limit < 64) {
      EXPECT_TRUE(tried.count(limit + 1)) << limit;
    }
  }
}

// The metric of that name; an Error when there is none.
const Metric& named(const std::vector<Metric>& metrics, std::string_view name) {
  auto it = std::find_if(metrics.begin(), metrics.end(), [&](const Metric& m) { return m.name == name; });
  if (it == metrics.end()) throw Error(fmt::format("no metric {}", name));
  return *it;
}

double ci_width(const Metric& m) { return m.ci ? m.ci->hi - m.ci->lo : 0.0; }

// A dataset made by mlbench in a fresh /var/tmp folder.
struct Made {
  test::TempDir dir;
  DatasetPlan plan;
  Made(std::uint64_t files, std::uint64_t record, std::uint64_t stdev, std::uint64_t spf = 1,
       std::uint64_t seed = 5) {
    Workload w;
    w.name = "t";
    w.format = "npz";
    w.record_length = record;
    w.record_stdev = stdev;
    w.samples_per_file = spf;
    plan.root = dir.path() / (std::string(kDatasetPrefix) + "t");
    plan.workload = "t";
    plan.ext = "npz";
    plan.seed = seed;
    plan.sizes = dataset_sizes(w, files, seed);
  }
};

LoadConfig config_for(const std::vector<DataFile>& files) {
  LoadConfig c;
  c.files = &files;
  c.batch_size = 4;
  c.read_threads = 2;
  c.accelerators = 2;
  c.epochs = 2;
  c.count_reads = true;
  return c;
}

// One accelerator fed one sample a step by the null engine (no I/O) for `runtime_s`.
LoadConfig null_config(const std::vector<DataFile>& files, double step_s, double runtime_s) {
  LoadConfig c;
  c.files = &files;
  c.engine = EngineKind::null;
  c.batch_size = 1;
  c.step_s = step_s;
  c.runtime_s = runtime_s;
  return c;
}

TEST(DataloadReader, EveryFileReadOncePerEpochWithExactBytes) {
  Made m(40, 20000, 8000);
  std::atomic<bool> stop{false};
  GenerateFigures made;
  auto ds = GeneratedDataset::open(m.plan, false, stop, made);
  EXPECT_EQ(made.files, 40u);
  auto files = ds.files();
  std::uint64_t total = 0;
  for (const auto& f : files) {
    EXPECT_EQ(fs::file_size(f.path), f.size);
    total += f.size;
  }
  EXPECT_EQ(made.bytes, total);
  for (EngineKind e : {EngineKind::uring, EngineKind::psync}) {
    LoadConfig c = config_for(files);
    c.engine = e;
    LoadOutcome o = run_dataload(c, stop);
    ASSERT_TRUE(o.error.empty()) << o.error;
    for (std::size_t i = 0; i < files.size(); ++i) EXPECT_EQ(o.file_reads[i], 2u) << files[i].path;
    EXPECT_EQ(o.files, 80u);
    EXPECT_EQ(o.samples, 80u);
    EXPECT_EQ(o.bytes, 2 * total);
    EXPECT_EQ(o.io_bytes, 2 * total);  // O_DIRECT reads past EOF return the file's bytes exactly
    EXPECT_EQ(o.epochs_done, 2u);
    EXPECT_EQ(o.open.count(), 80u);
    EXPECT_EQ(o.read.count(), 80u);
    EXPECT_EQ(o.close.count(), 80u);
    if (e == EngineKind::uring && o.fallback_reason.empty()) {
      EXPECT_NE(o.method.find("direct descriptors"), std::string::npos);
    } else {
      EXPECT_NE(o.method.find("plain"), std::string::npos) << o.method;
    }
  }
}

// A new engine is never named in a dataload result while another reader reads: every engine is read by
// its own reader, or the result says why not (fallback_reason), or it has no reader and --engine refuses it.
TEST(DataloadReader, EveryEngineIsReadByItsOwnReaderOrSaysWhyNot) {
  auto probe = make_dataload_probe();
  const ProbeInfo info = probe->info();
  const auto row = std::find_if(info.options.begin(), info.options.end(),
                                [](const OptionSpec& o) { return o.name == "engine"; });
  ASSERT_NE(row, info.options.end());
  const std::vector<std::string_view> choices = row->choices();
  for (const EngineTraits& t : engine_table()) {
    SCOPED_TRACE(t.label);
    const bool offered = std::find(choices.begin(), choices.end(), to_string(t.kind)) != choices.end();
    EXPECT_EQ(offered, t.dataload != FileReader::none);
    if (t.dataload == FileReader::none) {
      EXPECT_THROW(choose_reader(t), Error);
      continue;
    }
    const ReaderChoice c = choose_reader(t);
    EXPECT_TRUE(c.reader == t.dataload || !c.fallback_reason.empty()) << c.method;
    EXPECT_NE(c.reader, FileReader::none);
  }
  // An engine whose row gives no dataload reader: refused, not read with the plain calls under its name.
  EngineTraits readerless = traits(EngineKind::psync);
  readerless.dataload = FileReader::none;
  EXPECT_THROW(choose_reader(readerless), Error);
}

// storage.dataload resolves its reader through the engine's one fallback: io_uring refused, the plain calls
// read, and the result says so as storage.io's does (info.engine: the engine that ran, its fallback;
// info.engine_fallback: why; the same warning) beside its own keys: the method read with and why not the
// linked chain.
TEST(DataloadReader, FallsBackToPlainReadsWhenUringSetupFailsAndSaysSoAsStorageIo) {
  test::TempDir dir;
  auto probe = make_dataload_probe();
  ::setenv("MLBENCH_FORCE_URING_FAILURE", "1", 1);
  const ResolvedEngine io = resolve_engine(EngineKind::uring);
  auto results = test::run_probe(*probe, json{{"workload", "small-files"},
                                              {"data_dir", dir.path().string()},
                                              {"generate", true},
                                              {"files", 50},
                                              {"accelerators", 1},
                                              {"runtime", "0.3"}});
  ::unsetenv("MLBENCH_FORCE_URING_FAILURE");
  ASSERT_NE(io.why, "");
  ASSERT_EQ(results.size(), 2u);
  const Result& r = results[1];
  ASSERT_EQ(r.params["phase"], "train");
  ASSERT_EQ(r.status, Status::ok) << r.reason;
  EXPECT_EQ(r.info["engine"], to_string(io.kind));
  EXPECT_EQ(r.info["method"], "plain open/pread/close");
  EXPECT_EQ(r.info.value("fallback_reason", ""), io.why);
  EXPECT_EQ(r.info.value("engine_fallback", ""), io.why);
  EXPECT_EQ(std::count(r.warnings.begin(), r.warnings.end(), io.warning), 1)
      << r.warnings.size() << " warnings";
}

TEST(DataloadReader, MultiSampleFilesAreReadRecordByRecord) {
  Made m(6, 5000, 0, 70);  // 70 records a file: three chains of reads on one direct descriptor
  std::atomic<bool> stop{false};
  GenerateFigures made;
  auto ds = GeneratedDataset::open(m.plan, false, stop, made);
  auto files = ds.files();
  LoadConfig c = config_for(files);
  c.samples_per_file = 70;
  c.batch_size = 32;
  c.epochs = 1;
  LoadOutcome o = run_dataload(c, stop);
  ASSERT_TRUE(o.error.empty()) << o.error;
  EXPECT_EQ(o.samples, 6u * 70);
  EXPECT_EQ(o.bytes, 6u * 70 * 5000);
  EXPECT_EQ(o.files, 6u);
}

TEST(DataloadReader, UserDataIsReadOnlyAndUnchanged) {
  test::TempDir dir;
  fs::create_directories(dir.path() / "a" / "b");
  test::write_file(dir.path() / "a" / "one.jpg", test::random_bytes(10000, 1));
  test::write_file(dir.path() / "a" / "b" / "two.jpg", test::random_bytes(70000, 2));
  test::write_file(dir.path() / "three.jpg", test::random_bytes(4096, 3));
  ::chmod((dir.path() / "three.jpg").c_str(), 0444);
  auto before = test::slurp(dir.path() / "a" / "b" / "two.jpg");
  auto files = list_user_data(dir.path(), "--data");
  ASSERT_EQ(files.size(), 3u);
  std::atomic<bool> stop{false};
  LoadConfig c = config_for(files);
  c.accelerators = 1;
  c.batch_size = 1;
  LoadOutcome o = run_dataload(c, stop);
  ASSERT_TRUE(o.error.empty()) << o.error;
  EXPECT_EQ(o.bytes, 2u * (10000 + 70000 + 4096));
  EXPECT_EQ(test::slurp(dir.path() / "a" / "b" / "two.jpg"), before);
  EXPECT_EQ(list_user_data(dir.path(), "--data").size(), 3u);
  EXPECT_THROW(list_user_data(dir.path() / "a" / "missing", "--data"), UsageError);
}

TEST(DataloadReader, AuIsComputeOverWallAndFallsWhenStarved) {
  std::vector<DataFile> files(64, DataFile{"unused", 4096});
  std::atomic<bool> stop{false};
  LoadConfig c = null_config(files, 0.01, 0.6);
  LoadOutcome fed = run_dataload(c, stop);
  ASSERT_EQ(fed.accelerators.size(), 1u);
  const auto& a = fed.accelerators[0];
  EXPECT_DOUBLE_EQ(fed.au(), a.compute_s / a.wall_s);
  EXPECT_GT(fed.au(), 0.9);
  EXPECT_GE(a.steps, 20u);
  c.null_rate = 50;  // half of the 100 files/s one accelerator asks for
  LoadOutcome starved = run_dataload(c, stop);
  EXPECT_NEAR(starved.au(), 0.5, 0.15);
  EXPECT_GT(starved.accelerators[0].wait_s, 0.1);
}

// MLPerf Storage's AU counts the nominal compute, the steps × the step time, not the time the emulation took:
// a sleep that overshoots must not lift a starved accelerator's AU. A reader paced at half of what one
// accelerator asks gives AU 0.5 whatever the sleep does (counting the 14 ms the steps took: 0.7), and the
// overshoot is recorded as the emulation's error.
TEST(DataloadReader, AuCountsTheNominalStepWhenTheSleepOvershoots) {
  std::vector<DataFile> files(256, DataFile{"unused", 4096});
  std::atomic<bool> stop{false};
  constexpr auto kOvershoot = std::chrono::milliseconds(4);
  LoadConfig c = null_config(files, 0.01, 1.0);
  c.null_rate = 50;  // half of the 100 files/s one accelerator asks for
  c.sleep_until = [kOvershoot](std::chrono::steady_clock::time_point t) {
    std::this_thread::sleep_until(t + kOvershoot);
  };
  LoadOutcome o = run_dataload(c, stop);
  ASSERT_EQ(o.accelerators.size(), 1u);
  const auto& a = o.accelerators[0];
  ASSERT_GE(a.steps, 20u);
  EXPECT_NEAR(a.compute_s, static_cast<double>(a.steps) * 0.01, 1e-9);
  EXPECT_NEAR(o.au(), 0.5, 0.1);
  EXPECT_EQ(o.step_s, 0.01);
  EXPECT_EQ(o.step_overrun.count(), a.steps);
  EXPECT_GE(o.step_overrun.mean(), 3.8e6);  // ns
  EXPECT_LT(o.step_overrun.mean(), 50e6);
}

// Each emulated step ends at its deadline: it sleeps to kStepSpin before it and spins the rest, so the
// typical step ends within a few microseconds of it, where a plain sleep wakes a timer slack (50 µs by
// default) or more late. The bound on the median leaves room for a loaded host and the sanitizers; the tail
// is the host's (a preempted thread), recorded, not bounded here.
TEST(DataloadReader, EmulatedStepsEndAtTheirDeadline) {
  std::vector<DataFile> files(64, DataFile{"unused", 4096});
  std::atomic<bool> stop{false};
  LoadOutcome o = run_dataload(null_config(files, 0.0035, 0.5), stop);
  ASSERT_EQ(o.accelerators.size(), 1u);
  ASSERT_GE(o.accelerators[0].steps, 20u);
  EXPECT_EQ(o.step_overrun.count(), o.accelerators[0].steps);
  EXPECT_LT(o.step_overrun.percentile(0.5), 20e3);  // ns
}

// info.step_emulation carries the emulation's own error, and the windows whose steps ended late by more than
// 1 % of the step on average are named in a warning; a window that kept its steps is not.
TEST(DataloadReader, LateStepsAreRecordedAndWarnedAbout) {
  std::vector<DataFile> files(64, DataFile{"unused", 4096});
  std::atomic<bool> stop{false};
  LoadConfig c = null_config(files, 0.01, 0.3);
  c.sleep_until = [](std::chrono::steady_clock::time_point t) {
    std::this_thread::sleep_until(t + std::chrono::milliseconds(2));
  };
  std::map<unsigned, LoadOutcome> windows;
  windows[3] = run_dataload(c, stop);
  const json info = step_emulation_info(windows[3]);
  EXPECT_EQ(info["nominal_s"].get<double>(), 0.01);
  EXPECT_EQ(info["steps"].get<std::uint64_t>(), windows[3].accelerators.at(0).steps);
  const double late = info["overrun_mean_s"].get<double>();
  EXPECT_GE(late, 1.9e-3);
  EXPECT_NEAR(info["mean_s"].get<double>(), 0.01 + late, 1e-9);
  EXPECT_GE(info["max_s"].get<double>(), info["mean_s"].get<double>());
  EXPECT_GE(info["overrun_p99_s"].get<double>(), info["overrun_p50_s"].get<double>());
  LoadOutcome kept;
  kept.step_s = 0.01;
  for (int i = 0; i < 10; ++i) kept.step_overrun.record(50'000);  // 0.5 % of the step
  EXPECT_FALSE(step_overrun_warning({{1, kept}}).has_value());
  windows[1] = kept;
  auto warning = step_overrun_warning(windows);
  ASSERT_TRUE(warning.has_value());
  EXPECT_NE(warning->find("with 3 accelerators"), std::string::npos) << *warning;
}

// A step longer than the wait for Ctrl-C ends when the run is stopped, not when the step would.
TEST(DataloadReader, StopEndsALongStepAtOnce) {
  std::vector<DataFile> files(64, DataFile{"unused", 4096});
  std::atomic<bool> stop{false};
  std::thread stopper([&stop] {
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    stop = true;
  });
  const auto t0 = std::chrono::steady_clock::now();
  LoadOutcome o = run_dataload(null_config(files, 30, 60), stop);
  const double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  stopper.join();
  EXPECT_TRUE(o.stopped);
  EXPECT_LT(took, 10);
}

// The standard deviation of n values from their sum and sum of squares.
double sample_sd(double n, double sum, double sum_sq) {
  return std::sqrt((sum_sq - sum * sum / n) / (n - 1));
}

// Every figure of a real window carries the spread of the statistic it is, which compare judges against: the
// flow the mean step duration's relative error, AU the mean's over the accelerators, the mean wait s /
// sqrt(n) of the waits, a percentile its order-statistic interval.
TEST(DataloadReader, EveryTrainMetricOfARealWindowHasTheSpreadOfItsStatistic) {
  Made m(40, 20000, 8000);
  std::atomic<bool> stop{false};
  GenerateFigures made;
  auto ds = GeneratedDataset::open(m.plan, false, stop, made);
  auto files = ds.files();
  LoadConfig c = config_for(files);
  c.count_reads = false;
  c.epochs = 0;
  c.runtime_s = 0.5;
  c.step_s = 0.002;
  LoadOutcome o = run_dataload(c, stop);
  ASSERT_TRUE(o.error.empty()) << o.error;
  ASSERT_EQ(o.readers.size(), 4u);
  const auto metrics = train_metrics(o);
  ASSERT_EQ(metrics.size(), 17u);
  for (const auto& mt : metrics) {
    SCOPED_TRACE(mt.name);
    ASSERT_TRUE(mt.ci.has_value());
    // A spread, or an interval open with its reason: a 0.5 s window's p99.9 has too few reads beyond it.
    EXPECT_TRUE(relative_spread(mt) > 0 || (!mt.ci_open.empty() && std::isinf(mt.ci->hi))) << mt.ci_open;
    EXPECT_LE(mt.ci->lo, mt.value);
    EXPECT_GE(mt.ci->hi, mt.value);
  }
  double n = 0, sum = 0, sq = 0, wsum = 0, wsq = 0;
  for (const auto& a : o.accelerators) {
    ASSERT_GE(a.steps, 20u);
    n += static_cast<double>(a.steps - 1);
    sum += a.step_sum_s;
    sq += a.step_sq_s2;
    wsum += a.wait_s;
    wsq += a.wait_sq_s2;
  }
  const double step_error = sample_sd(n, sum, sq) / std::sqrt(n) / (sum / n);
  for (const char* name : {"samples_per_s", "bandwidth", "files_per_s"})
    EXPECT_NEAR(relative_spread(named(metrics, name)), step_error, 1e-6 * step_error) << name;
  const double wait_se = sample_sd(n, wsum, wsq) / std::sqrt(n);
  EXPECT_NEAR(ci_width(named(metrics, "batch_wait_mean")), 2 * kConfidenceZ * wait_se, 1e-6 * wait_se);
  const double au0 = o.accelerators[0].au() * 100, au1 = o.accelerators[1].au() * 100;
  const double au_se = std::fabs(au0 - au1) / std::sqrt(2.0) / std::sqrt(2.0);  // s of two values / sqrt(2)
  EXPECT_NEAR(ci_width(named(metrics, "au")), 2 * kConfidenceZ * au_se, 1e-6 * au_se);
  EXPECT_NEAR(ci_width(named(metrics, "au_min")),
              2 * kConfidenceZ * std::numbers::pi / std::sqrt(6.0) * std::fabs(au0 - au1),
              1e-5 * std::fabs(au0 - au1));
}

// The probe's train result is train_metrics': every metric has a spread (or, a tail with too few reads beyond
// it, an open interval with its reason); the generate phase, one write ended by one syncfs, has none by
// design (storage/dataload/probe.hpp).
TEST(DataloadReader, EveryTrainMetricOfTheProbesResultHasASpread) {
  test::TempDir dir;
  auto probe = make_dataload_probe();
  auto results = test::run_probe(*probe, json{{"workload", "small-files"},
                                              {"data_dir", dir.path().string()},
                                              {"generate", true},
                                              {"files", 200},
                                              {"accelerators", 2},
                                              {"runtime", "1"}});
  ASSERT_EQ(results.size(), 2u);
  for (const auto& r : results) {
    SCOPED_TRACE(r.params.dump());
    ASSERT_EQ(r.status, Status::ok) << r.reason;
    const bool train = r.params["phase"] == "train";
    for (const auto& m : r.metrics) {
      SCOPED_TRACE(m.name);
      EXPECT_EQ(m.ci.has_value(), train);
      EXPECT_EQ(relative_spread(m) > 0 || !m.ci_open.empty(), train);  // a spread, or an open interval
    }
  }
}

// One accelerator with one reader has nothing to spread AU or the CPU per file over: no ci, not a zero one.
TEST(DataloadReader, OneAcceleratorAndOneReaderGiveNoSpreadOfTheirOwn) {
  std::vector<DataFile> files(64, DataFile{"unused", 4096});
  std::atomic<bool> stop{false};
  const auto metrics = train_metrics(run_dataload(null_config(files, 0.002, 0.2), stop));
  for (const char* name : {"au", "au_min", "cpu_per_file"})
    EXPECT_FALSE(named(metrics, name).ci.has_value()) << name;
  EXPECT_TRUE(named(metrics, "samples_per_s").ci.has_value());
}

TEST(DataloadReader, SearchOnAFixedRateEngineFindsItsLimit) {
  // 400 files/s shared; each accelerator asks 100 files/s (batch 1, 10 ms steps): AU(n) ≈ min(1, 4 / n), so
  // with a floor of 90 % n = 4 passes (about 98 %) and n = 5 fails (80 %, the first batch's wait, excluded
  // from AU, and the prefetched batches lifting a 1 s window by a few percent): about 9 points either side of
  // the floor, so that a scheduling stall in a loaded test run moves neither across it.
  std::vector<DataFile> files(256, DataFile{"unused", 4096});
  std::atomic<bool> stop{false};
  LoadConfig c = null_config(files, 0.01, 1.0);
  c.null_rate = 400;
  c.prefetch = 1;
  c.read_threads = 1;
  std::vector<Trial> trials;
  unsigned found = find_supported(
      16,
      [&](unsigned n) {
        LoadConfig one = c;
        one.accelerators = n;
        auto o = run_dataload(one, stop);
        return Trial{n, o.au() >= 0.9, json{{"au", o.au()}}};
      },
      trials);
  std::string seen;
  for (const auto& t : trials)
    seen += fmt::format(" {}:{:.2f}", t.accelerators, t.detail["au"].get<double>());
  EXPECT_EQ(found, 4u) << seen;
}

TEST(DataloadData, ManifestReusedOnlyWhenItMatches) {
  Made m(12, 9000, 3000);
  std::atomic<bool> stop{false};
  EXPECT_EQ(inspect_data_dir(m.plan, "--data-dir"), DatasetState::absent);
  GenerateFigures made;
  {
    auto ds = GeneratedDataset::open(m.plan, true, stop, made);
    EXPECT_EQ(made.files, 12u);
  }
  ASSERT_TRUE(fs::exists(m.plan.root / kManifestName));  // kept
  EXPECT_EQ(inspect_data_dir(m.plan, "--data-dir"), DatasetState::matches);
  const auto written = fs::last_write_time(m.plan.file(3));
  {
    auto ds = GeneratedDataset::open(m.plan, false, stop, made);
    EXPECT_EQ(made.files, 0u) << "a matching dataset was written again";
    EXPECT_EQ(fs::last_write_time(m.plan.file(3)), written);
  }
  EXPECT_FALSE(fs::exists(m.plan.root)) << "not kept: removed";
  DatasetPlan other = m.plan;
  { auto ds = GeneratedDataset::open(m.plan, true, stop, made); }
  other.seed = 6;
  other.sizes.pop_back();
  EXPECT_EQ(inspect_data_dir(other, "--data-dir"), DatasetState::differs);
  {
    auto ds = GeneratedDataset::open(other, false, stop, made);
    EXPECT_EQ(made.files, 11u);
    EXPECT_FALSE(fs::exists(m.plan.file(11))) << "the old dataset's extra file stayed";
  }
  EXPECT_TRUE(fs::is_empty(m.dir.path()));
}

TEST(DataloadData, RefusesAFolderHoldingOtherFilesAndLeavesThemAlone) {
  Made m(4, 5000, 0);
  test::write_file(m.dir.path() / "notes.txt", "mine");
  try {
    inspect_data_dir(m.plan, "--data-dir");
    FAIL() << "a folder with a user's file was accepted";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("notes.txt"), std::string::npos) << e.what();
  }
  EXPECT_EQ(test::slurp(m.dir.path() / "notes.txt"), "mine");
  fs::remove(m.dir.path() / "notes.txt");
  // A folder with mlbench's name but no manifest is not mlbench's.
  fs::create_directory(m.plan.root);
  test::write_file(m.plan.root / "data.bin", "x");
  EXPECT_THROW(inspect_data_dir(m.plan, "--data-dir"), UsageError);
  EXPECT_EQ(test::slurp(m.plan.root / "data.bin"), "x");
}

TEST(DataloadData, FreeSpaceAndInodesAreCheckedFirst) {
  Made m(4, 5000, 0);
  m.plan.sizes = {std::uint64_t{1} << 60};
  try {
    check_free_space(m.plan, m.dir.path(), 0, "--data-dir");
    FAIL() << "an exabyte dataset fit";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("--files"), std::string::npos) << e.what();
  }
  EXPECT_TRUE(fs::is_empty(m.dir.path()));
}

TEST(Checkpoint, NodeLocalSubsetOfTheModels) {
  EXPECT_EQ(node_checkpoint_bytes(kCheckpointModels[0], 8), static_cast<std::uint64_t>(14 * 8e9));
  EXPECT_EQ(node_checkpoint_bytes(kCheckpointModels[1], 8), static_cast<std::uint64_t>(14 * 70e9 / 8));
  EXPECT_EQ(node_checkpoint_bytes(kCheckpointModels[2], 8), static_cast<std::uint64_t>(14 * 405e9 * 8 / 512));
  EXPECT_EQ(node_checkpoint_bytes(kCheckpointModels[0], 64), static_cast<std::uint64_t>(14 * 8e9));
}

// The folder the ranks write in, open as the probe opens its own.
Fd open_folder(const fs::path& folder) {
  return Fd(::open(folder.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
}

CheckpointConfig checkpoint_config(const Fd& folder_fd, const fs::path& folder, unsigned ranks,
                                   std::uint64_t shard, unsigned depth) {
  CheckpointConfig c;
  c.folder = folder;
  c.folder_fd = folder_fd.get();
  c.ranks = ranks;
  c.shard = shard;
  c.bs = 256 * 1024;
  c.depth = depth;
  return c;
}

TEST(Checkpoint, WritesExactShardsFsyncsAndReadsBack) {
  test::TempDir dir;
  std::atomic<bool> stop{false};
  // A shard not a multiple of bs: the last write is short of bs.
  const Fd fd = open_folder(dir.path());
  const CheckpointConfig c = checkpoint_config(fd, dir.path(), 3, (1u << 20) + 8192, 3);
  auto o = run_checkpoint(c, stop);
  ASSERT_TRUE(o.error.empty()) << o.error;
  ASSERT_EQ(o.files.size(), 3u);
  for (std::size_t r = 0; r < 3; ++r) {
    EXPECT_EQ(fs::file_size(o.files[r]), c.shard);
    EXPECT_EQ(o.ranks[r].written, c.shard);
    EXPECT_EQ(o.ranks[r].read, c.shard);
    EXPECT_TRUE(o.ranks[r].fsynced);
    EXPECT_TRUE(o.ranks[r].dropped);
    EXPECT_GT(o.ranks[r].write_s, o.ranks[r].fsync_s);
  }
}

// Every figure of a real run carries the spread of the statistic it is, from the ranks' times, which
// compare judges against: the slowest rank's time the Gumbel spread of the two slowest, a bandwidth its
// relative spread.
TEST(Checkpoint, EveryMetricOfARealRunHasTheSpreadOfItsStatistic) {
  test::TempDir dir;
  std::atomic<bool> stop{false};
  const Fd fd = open_folder(dir.path());
  const CheckpointConfig c = checkpoint_config(fd, dir.path(), 4, 2u << 20, 2);
  auto o = run_checkpoint(c, stop);
  ASSERT_TRUE(o.error.empty()) << o.error;
  const auto metrics = checkpoint_metrics(o.ranks, c.shard, true);
  ASSERT_EQ(metrics.size(), 7u);
  for (const auto& m : metrics) {
    SCOPED_TRACE(m.name);
    EXPECT_TRUE(m.ci.has_value());
    EXPECT_GT(relative_spread(m), 0);
  }
  std::vector<double> w;
  for (const auto& k : o.ranks) w.push_back(k.write_s);
  std::sort(w.begin(), w.end(), std::greater<>());
  const double gumbel = std::numbers::pi / std::sqrt(6.0) * (w[0] - w[1]);
  const Metric& stall = named(metrics, "stall");
  EXPECT_DOUBLE_EQ(stall.value, w[0]);
  EXPECT_NEAR(ci_width(stall), 2 * kConfidenceZ * gumbel, 1e-5 * gumbel);
  for (const char* name : {"write_bandwidth", "write_bandwidth_slowest_rank"})
    EXPECT_NEAR(relative_spread(named(metrics, name)), gumbel / w[0], 1e-5 * gumbel / w[0]) << name;
}

// The probe writes what checkpoint_metrics gives: every metric of its result has a spread.
TEST(Checkpoint, EveryMetricOfTheProbesResultHasASpread) {
  test::TempDir dir;
  auto probe = make_checkpoint_probe();
  auto results = test::run_probe(
      *probe, json{{"dir", dir.path().string()}, {"size", "16M"}, {"ranks", 4}, {"bs", "1M"}});
  ASSERT_EQ(results.size(), 1u);
  ASSERT_EQ(results[0].status, Status::ok) << results[0].reason;
  ASSERT_EQ(results[0].metrics.size(), 7u);
  for (const auto& m : results[0].metrics) {
    SCOPED_TRACE(m.name);
    EXPECT_TRUE(m.ci.has_value());
    EXPECT_GT(relative_spread(m), 0);
  }
}

// The spread of (max − min) / max: both extremes' Gumbel spreads through the ratio; one rank has no spread
// and gets no ci.
TEST(Checkpoint, RankSpreadCarriesBothExtremesAndOneRankHasNone) {
  std::vector<RankOutcome> ranks(4);
  for (std::size_t i = 0; i < ranks.size(); ++i) {
    ranks[i].write_s = 1.0 + static_cast<double>(i);
    ranks[i].fsync_s = 0.1 * (1.0 + static_cast<double>(i));
  }
  const auto metrics = checkpoint_metrics(ranks, 1u << 20, false);
  const Metric& spread = named(metrics, "write_spread");
  EXPECT_DOUBLE_EQ(spread.value, 75);
  const double g = std::numbers::pi / std::sqrt(6.0);  // × a spacing of 1 s between both pairs of extremes
  EXPECT_NEAR(ci_width(spread), 2 * kConfidenceZ * 100 * std::hypot(g / 4, 1 * g / 16), 1e-4);
  EXPECT_NEAR(ci_width(named(metrics, "fsync_max")), 2 * kConfidenceZ * g * 0.1, 1e-6);
  EXPECT_THROW(named(metrics, "read_bandwidth"), Error);

  const auto one = checkpoint_metrics({ranks[0]}, 1u << 20, true);
  for (const auto& m : one) EXPECT_FALSE(m.ci.has_value()) << m.name;
}

TEST(Checkpoint, FullFilesystemEndsWithAClearError) {
  test::TempDir dir;
  auto mount = test::TmpfsMount::mount(dir.path() / "small", "2m");
  if (!mount) GTEST_SKIP() << "needs root to mount a small tmpfs";
  std::atomic<bool> stop{false};
  const Fd fd = open_folder(dir.path() / "small");
  CheckpointConfig c;
  c.folder = dir.path() / "small";
  c.folder_fd = fd.get();
  c.ranks = 2;
  c.shard = 4u << 20;
  c.bs = 1u << 20;
  c.engine = EngineKind::psync;
  auto o = run_checkpoint(c, stop);
  EXPECT_NE(o.error.find("the filesystem is full"), std::string::npos) << o.error;
}

// ---- hostile datasets: a forged manifest, links, a huge count (whoever may write into --data-dir) ----

// A manifest as mlbench writes it for `workload`: `count` files of 5000 bytes, seed 5.
json manifest_json(const std::string& workload, const std::string& ext, std::uint64_t count, bool complete) {
  return json{{"format", "mlbench-dataload-dataset"},
              {"version", 1},
              {"workload", workload},
              {"ext", ext},
              {"count", count},
              {"seed", 5},
              {"sizes", std::vector<std::uint64_t>(count, 5000)},
              {"complete", complete}};
}

struct ForgedManifest {
  const char* key;
  json value;
  const char* mentions;
};
class DatasetManifestForged : public ::testing::TestWithParam<ForgedManifest> {};
TEST_P(DatasetManifestForged, IsRefusedSayingWhatIsWrongInOneLine) {
  json j = manifest_json("unet3d", "npz", 2, true);
  if (GetParam().value.is_discarded()) {
    j.erase(GetParam().key);
  } else {
    j[GetParam().key] = GetParam().value;
  }
  try {
    parse_manifest(j.dump(), kMaxDatasetFiles);
    FAIL() << "accepted: " << j.dump();
  } catch (const UsageError& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find(GetParam().mentions), std::string::npos) << msg;
    EXPECT_EQ(msg.find('\n'), std::string::npos) << msg;
  }
}
INSTANTIATE_TEST_SUITE_P(
    All, DatasetManifestForged,
    ::testing::Values(
        ForgedManifest{"ext", "x/../../../../victim.txt", "'ext'"}, ForgedManifest{"ext", "", "'ext'"},
        ForgedManifest{"ext", 3, "'ext'"}, ForgedManifest{"count", 1000000000000ull, "'count'"},
        ForgedManifest{"count", 0, "'count'"}, ForgedManifest{"count", -1, "'count'"},
        ForgedManifest{"count", 3, "'sizes'"}, ForgedManifest{"sizes", json::array({1, 0}), "'sizes'"},
        ForgedManifest{"sizes", json::array({1, -4}), "'sizes'"}, ForgedManifest{"sizes", "many", "'sizes'"},
        ForgedManifest{"workload", "../../etc", "'workload'"},
        ForgedManifest{"workload", ".hidden", "'workload'"}, ForgedManifest{"format", "other", "'format'"},
        ForgedManifest{"version", 2, "'version'"}, ForgedManifest{"seed", -5, "'seed'"},
        ForgedManifest{"complete", "yes", "'complete'"}, ForgedManifest{"extra", 1, "unknown key 'extra'"},
        ForgedManifest{"sizes", json(json::value_t::discarded), "'sizes' is missing"}));

TEST(DatasetManifest, ValidOneParsesAndTextThatIsNoManifestIsRefused) {
  const DatasetManifest m = parse_manifest(manifest_json("small-files", "jpeg", 3, false).dump(), 3);
  EXPECT_EQ(m.workload, "small-files");
  EXPECT_EQ(m.ext, "jpeg");
  EXPECT_EQ(m.sizes, (std::vector<std::uint64_t>{5000, 5000, 5000}));
  EXPECT_FALSE(m.complete);
  EXPECT_EQ(to_json(m), manifest_json("small-files", "jpeg", 3, false));
  // More files than the folder can hold (the caller's bound: its inodes).
  EXPECT_THROW(parse_manifest(manifest_json("small-files", "jpeg", 3, false).dump(), 2), UsageError);
  for (const char* text : {"", "[]", "{", "null", "{\"format\": \"mlbench-dataload-dataset\""})
    EXPECT_THROW(parse_manifest(text, kMaxDatasetFiles), UsageError) << text;
}

// The bound of a step that must end at once, for a loaded CI machine under a sanitizer: the faults it guards
// against (a walk of a trillion-file manifest, a removal deaf to a stop) take minutes.
constexpr double kAtOnceS = 20;

// <dir>/d is --data-dir, so that <dir>/victim.txt is a file beside it.
struct Forged {
  test::TempDir dir;
  DatasetPlan plan;
  fs::path data_dir, victim;
  explicit Forged(const std::string& workload = "t") {
    data_dir = dir.path() / "d";
    victim = dir.path() / "victim.txt";
    fs::create_directory(data_dir);
    test::write_file(victim, "precious");
    plan.root = data_dir / (std::string(kDatasetPrefix) + workload);
    plan.workload = workload;
    plan.ext = "npz";
    plan.seed = 5;
    plan.sizes = {5000, 5000};
  }
  void write_manifest(const json& j) const {
    fs::create_directories(plan.root);
    test::write_file(plan.root / kManifestName, j.dump());
  }
};

TEST(DataloadData, ForgedExtIsRefusedAndNothingOutsideTheFolderIsRemoved) {
  Forged f;
  f.write_manifest(manifest_json("t", "x/../../../../victim.txt", 1, true));
  fs::create_directories(f.plan.root / "0000" / "00000000.x");
  try {
    inspect_data_dir(f.plan, "--data-dir");
    FAIL() << "a forged manifest was taken for a dataset";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("'ext'"), std::string::npos) << e.what();
  }
  std::atomic<bool> stop{false};
  GenerateFigures made;
  EXPECT_THROW(GeneratedDataset::open(f.plan, false, stop, made), Error);
  EXPECT_EQ(test::slurp(f.victim), "precious");
  EXPECT_TRUE(fs::is_directory(f.plan.root / "0000" / "00000000.x")) << "the forged folder was changed";
}

TEST(DataloadData, HugeCountIsRefusedAtOnceAndNothingIsRemoved) {
  Forged f;
  json j = manifest_json("t", "npz", 1, true);
  j["count"] = 1000000000000ull;
  f.write_manifest(j);
  fs::create_directories(f.plan.root / "0000");
  test::write_file(f.plan.root / "0000" / "00000000.npz", "x");
  const auto t0 = std::chrono::steady_clock::now();
  EXPECT_THROW(inspect_data_dir(f.plan, "--data-dir"), UsageError);
  std::atomic<bool> stop{false};
  GenerateFigures made;
  EXPECT_THROW(GeneratedDataset::open(f.plan, false, stop, made), Error);
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), kAtOnceS);
  EXPECT_EQ(test::slurp(f.plan.root / "0000" / "00000000.npz"), "x");
}

TEST(DataloadData, ManifestThatIsNoRegularFileOrTooLongIsRefusedUnread) {
  Forged f;
  fs::create_directories(f.plan.root);
  // A FIFO would hang a blocking open: refused at once.
  ASSERT_EQ(::mkfifo((f.plan.root / kManifestName).c_str(), 0644), 0);
  EXPECT_THROW(inspect_data_dir(f.plan, "--data-dir"), UsageError);
  fs::remove(f.plan.root / kManifestName);
  // A link to a valid manifest elsewhere is not followed.
  test::write_file(f.dir.path() / "elsewhere.json", manifest_json("t", "npz", 2, true).dump());
  fs::create_symlink(f.dir.path() / "elsewhere.json", f.plan.root / kManifestName);
  EXPECT_THROW(inspect_data_dir(f.plan, "--data-dir"), UsageError);
  fs::remove(f.plan.root / kManifestName);
  // Longer than any manifest mlbench writes (sparse: nothing is read).
  { std::ofstream(f.plan.root / kManifestName) << "{"; }
  fs::resize_file(f.plan.root / kManifestName, kMaxManifestBytes + 1);
  try {
    inspect_data_dir(f.plan, "--data-dir");
    FAIL() << "an oversized manifest was read";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("largest"), std::string::npos) << e.what();
  }
}

TEST(DataloadData, LinkedSubfolderIsNeverFollowedOnRemovalOrGeneration) {
  Forged f;
  const fs::path outside = f.dir.path() / "outside";
  fs::create_directory(outside);
  test::write_file(outside / "00000000.npz", "keep 0");
  test::write_file(outside / "00000001.npz", "keep 1");
  f.write_manifest(manifest_json("t", "npz", 2, false));  // a killed run's: removed and made again
  fs::create_directory_symlink(outside, f.plan.root / "0000");
  try {
    inspect_data_dir(f.plan, "--data-dir");
    FAIL() << "a dataset with a linked subfolder was accepted";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("0000"), std::string::npos) << e.what();
  }
  std::atomic<bool> stop{false};
  GenerateFigures made;
  EXPECT_THROW(GeneratedDataset::open(f.plan, false, stop, made), Error);
  // Removal itself never follows the link either.
  const Fd parent = open_folder(f.data_dir), root = open_folder(f.plan.root);
  EXPECT_FALSE(remove_dataset(parent.get(), f.plan.root.filename().string(), root.get(),
                              parse_manifest(manifest_json("t", "npz", 2, true).dump(), 2), nullptr));
  EXPECT_TRUE(fs::is_symlink(f.plan.root / "0000"));
  EXPECT_EQ(test::slurp(outside / "00000000.npz"), "keep 0");
  EXPECT_EQ(test::slurp(outside / "00000001.npz"), "keep 1");
  EXPECT_EQ(std::distance(fs::directory_iterator(outside), fs::directory_iterator()), 2) << "written through";
}

TEST(DataloadData, LinkedFileIsRemovedAsALinkOnlyAndTheFolderStays) {
  Forged f;
  const fs::path outside = f.dir.path() / "outside.npz";
  test::write_file(outside, "keep");
  f.write_manifest(manifest_json("t", "npz", 2, false));
  fs::create_directories(f.plan.root / "0000");
  test::write_file(f.plan.root / "0000" / "00000000.npz", "old");
  fs::create_symlink(outside, f.plan.root / "0000" / "00000001.npz");
  EXPECT_EQ(inspect_data_dir(f.plan, "--data-dir"), DatasetState::differs);
  std::atomic<bool> stop{false};
  GenerateFigures made;
  try {
    GeneratedDataset::open(f.plan, false, stop, made);
    FAIL() << "a dataset was made over a link";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("did not make"), std::string::npos) << e.what();
  }
  EXPECT_EQ(test::slurp(outside), "keep");
  EXPECT_FALSE(fs::exists(f.plan.root / "0000" / "00000000.npz")) << "mlbench's own file stayed";
  EXPECT_TRUE(fs::is_symlink(f.plan.root / "0000" / "00000001.npz"));
}

TEST(DataloadData, LinkedDatasetFolderAndHardLinkedManifestAreNeverWrittenThrough) {
  Forged f;
  // The dataset folder itself a link to a folder elsewhere: refused, nothing there touched.
  const fs::path outside = f.dir.path() / "outside";
  fs::create_directories(outside / "0000");
  test::write_file(outside / kManifestName, manifest_json("t", "npz", 1, false).dump());
  test::write_file(outside / "0000" / "00000000.npz", "keep");
  fs::create_directory_symlink(outside, f.plan.root);
  try {
    inspect_data_dir(f.plan, "--data-dir");
    FAIL() << "a linked dataset folder was accepted";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("link"), std::string::npos) << e.what();
  }
  std::atomic<bool> stop{false};
  GenerateFigures made;
  EXPECT_THROW(GeneratedDataset::open(f.plan, false, stop, made), Error);
  EXPECT_EQ(test::slurp(outside / "0000" / "00000000.npz"), "keep");
  fs::remove(f.plan.root);
  // The manifest a hard link to a file elsewhere: replaced by name (rename), never written through.
  const std::string shared = manifest_json("t", "npz", 3, true).dump();
  test::write_file(f.dir.path() / "shared.json", shared);
  fs::create_directories(f.plan.root);
  fs::create_hard_link(f.dir.path() / "shared.json", f.plan.root / kManifestName);
  EXPECT_EQ(inspect_data_dir(f.plan, "--data-dir"), DatasetState::differs);  // sizes differ
  {
    auto ds = GeneratedDataset::open(f.plan, false, stop, made);
    EXPECT_EQ(made.files, 2u);
  }
  EXPECT_EQ(test::slurp(f.dir.path() / "shared.json"), shared);
  EXPECT_TRUE(fs::is_empty(f.data_dir));
}

// Two runs on one --data-dir: a dataset one run reads is neither removed nor replaced by the other.
TEST(DataloadData, DatasetInUseByAnotherRunIsNeitherRemovedNorReplaced) {
  Made m(5, 5000, 0);
  std::atomic<bool> stop{false};
  GenerateFigures made;
  std::optional<GeneratedDataset> first(GeneratedDataset::open(m.plan, false, stop, made));
  DatasetPlan other = m.plan;
  other.seed = 6;
  try {
    GeneratedDataset::open(other, false, stop, made);
    FAIL() << "a dataset in use was replaced";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("in use by another mlbench run"), std::string::npos) << e.what();
  }
  ASSERT_TRUE(fs::exists(m.plan.file(4)));
  {
    auto second = GeneratedDataset::open(m.plan, false, stop, made);  // the same dataset: shared
    EXPECT_EQ(made.files, 0u);
  }
  EXPECT_TRUE(fs::exists(m.plan.file(4))) << "removed while the first run reads it";
  first.reset();
  EXPECT_TRUE(fs::is_empty(m.dir.path()));
}

// Whoever may rename inside --data-dir moves the dataset folder a run holds away and puts another folder,
// holding files of mlbench's names, under its name before the run removes it: the run empties only the
// folder it made and locked (wherever it now is), never the one now under its name.
TEST(DataloadData, FolderSwappedUnderTheDatasetsNameIsNeverEmptied) {
  Made m(3, 5000, 0);
  std::atomic<bool> stop{false};
  GenerateFigures made;
  std::optional<GeneratedDataset> ds(GeneratedDataset::open(m.plan, false, stop, made));
  ASSERT_EQ(made.files, 3u);
  const fs::path moved = m.dir.path() / "moved";
  fs::rename(m.plan.root, moved);
  fs::create_directories(m.plan.root / "0000");
  test::write_file(m.plan.root / kManifestName, manifest_json("t", "npz", 3, true).dump());
  for (int i = 0; i < 3; ++i)
    test::write_file(m.plan.root / "0000" / fmt::format("0000000{}.npz", i), fmt::format("other's {}", i));
  ds.reset();
  for (int i = 0; i < 3; ++i)
    EXPECT_EQ(test::slurp(m.plan.root / "0000" / fmt::format("0000000{}.npz", i)),
              fmt::format("other's {}", i));
  EXPECT_EQ(test::slurp(m.plan.root / kManifestName), manifest_json("t", "npz", 3, true).dump());
  // The run's own files went, from the folder it held; that folder, no longer under its name, stays.
  EXPECT_TRUE(fs::is_directory(moved));
  EXPECT_FALSE(fs::exists(moved / "0000" / "00000000.npz"));
}

// remove_dataset through the descriptors of the folder validated and locked: the folder under the name at
// the end is removed only when it is that one.
TEST(DataloadData, RemovalGoesThroughTheHeldFolderNotTheName) {
  Made m(2, 5000, 0);
  std::atomic<bool> stop{false};
  GenerateFigures made;
  { auto ds = GeneratedDataset::open(m.plan, true, stop, made); }
  const Fd parent = open_folder(m.dir.path());
  const std::string name = m.plan.root.filename().string();
  const Fd held = open_folder(m.plan.root);
  const fs::path moved = m.dir.path() / "moved";
  fs::rename(m.plan.root, moved);
  fs::create_directories(m.plan.root / "0000");
  test::write_file(m.plan.root / "0000" / "00000000.npz", "other's");
  EXPECT_FALSE(remove_dataset(parent.get(), name, held.get(), m.plan.manifest(true), nullptr));
  EXPECT_EQ(test::slurp(m.plan.root / "0000" / "00000000.npz"), "other's");
  EXPECT_TRUE(fs::is_empty(moved)) << "the held folder was not emptied";
  // A link to the held folder under its name: the link is not that folder, and stays.
  fs::remove_all(m.plan.root);
  fs::create_directory_symlink(moved, m.plan.root);
  EXPECT_FALSE(remove_dataset(parent.get(), name, held.get(), m.plan.manifest(true), nullptr));
  EXPECT_TRUE(fs::is_symlink(m.plan.root));
  EXPECT_TRUE(fs::is_directory(moved));
  // Under its name again: emptied and removed.
  fs::remove(m.plan.root);
  fs::rename(moved, m.plan.root);
  EXPECT_TRUE(remove_dataset(parent.get(), name, held.get(), m.plan.manifest(true), nullptr));
  EXPECT_TRUE(fs::is_empty(m.dir.path()));
}

TEST(DataloadData, StopEndsTheRemovalOfAnOldDatasetWhichIsNeverReusedAfter) {
  Made m(30, 5000, 0);
  std::atomic<bool> stop{false};
  GenerateFigures made;
  { auto ds = GeneratedDataset::open(m.plan, true, stop, made); }
  ASSERT_EQ(inspect_data_dir(m.plan, "--data-dir"), DatasetState::matches);
  DatasetPlan other = m.plan;
  other.seed = 6;
  stop = true;
  const auto t0 = std::chrono::steady_clock::now();
  EXPECT_THROW(GeneratedDataset::open(other, false, stop, made), Interrupted);
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), kAtOnceS);
  // Marked incomplete before the first file went: whatever remains is removed by the next run, never read.
  EXPECT_EQ(inspect_data_dir(m.plan, "--data-dir"), DatasetState::differs);
  stop = false;
  {
    auto ds = GeneratedDataset::open(m.plan, false, stop, made);
    EXPECT_EQ(made.files, 30u);
  }
  EXPECT_TRUE(fs::is_empty(m.dir.path()));
}

TEST(DataloadData, WorkloadNameThatIsAPathIsRefusedAtPlan) {
  test::TempDir dir;
  test::write_file(dir.path() / "w.yaml", std::string(kDlioUnet).replace(0, 13, "model: ../../x"));
  auto probe = make_dataload_probe();
  const json host = json::object();
  const json options = {{"dlio", (dir.path() / "w.yaml").string()},
                        {"data_dir", dir.path().string()},
                        {"generate", true},
                        {"files", 2}};
  try {
    probe->plan(PlanContext{Profile::standard, host, options});
    FAIL() << "a workload name with '/' was taken for a folder name";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("../../x"), std::string::npos) << e.what();
  }
}

TEST(DataloadReader, LinkedDataFileIsNotFollowed) {
  test::TempDir dir;
  test::write_file(dir.path() / "real.npz", test::random_bytes(8192, 1));
  fs::create_symlink(dir.path() / "real.npz", dir.path() / "link.npz");
  const std::vector<DataFile> files = {{(dir.path() / "link.npz").string(), 8192}};
  for (EngineKind engine : {EngineKind::uring, EngineKind::psync}) {
    SCOPED_TRACE(std::string(to_string(engine)));
    std::atomic<bool> stop{false};
    LoadConfig c = config_for(files);
    c.accelerators = 1;
    c.read_threads = 1;
    c.batch_size = 1;
    c.epochs = 1;
    c.engine = engine;
    LoadOutcome o = run_dataload(c, stop);
    EXPECT_NE(o.error.find(std::strerror(ELOOP)), std::string::npos) << o.error;
  }
}

// ---- checkpoint: leftovers, refusals before the run, memory ----

// A PID that no longer exists: a child that exited and was reaped.
pid_t dead_pid() {
  const pid_t pid = ::fork();
  if (pid == 0) ::_exit(0);
  ::waitpid(pid, nullptr, 0);
  return pid;
}

TEST(Checkpoint, FoldersOfKilledRunsAreReclaimedAndNothingElse) {
  test::TempDir dir;
  const pid_t dead = dead_pid();
  auto folder = [&](const std::string& tail) {
    const fs::path p = dir.path() / ("mlbench-checkpoint-" + tail);
    fs::create_directory(p);
    return p;
  };
  const fs::path killed = folder(fmt::format("{}-aaaaaa", dead));
  test::write_file(killed / "rank-0000.ckpt", std::string(1u << 20, 'x'));
  test::write_file(killed / "rank-0001.ckpt", std::string(1u << 20, 'x'));
  const fs::path mixed = folder(fmt::format("{}-bbbbbb", dead));
  test::write_file(mixed / "rank-0000.ckpt", "x");
  test::write_file(mixed / "notes.txt", "mine");
  const fs::path foreign = folder(fmt::format("{}-gggggg", dead));
  test::write_file(foreign / "notes.txt", "mine");
  const fs::path file = dir.path() / fmt::format("mlbench-checkpoint-{}-hhhhhh", dead);
  test::write_file(file, "mine");
  const fs::path live = folder(fmt::format("{}-cccccc", ::getpid()));
  test::write_file(live / "rank-0000.ckpt", "x");
  const fs::path kept = folder(fmt::format("kept-{}-dddddd", dead));
  test::write_file(kept / "rank-0000.ckpt", "x");
  const fs::path locked = folder(fmt::format("{}-ffffff", dead));
  test::write_file(locked / "rank-0000.ckpt", "x");
  const Fd lock = open_folder(locked);
  ASSERT_EQ(::flock(lock.get(), LOCK_EX | LOCK_NB), 0);
  const fs::path outside = dir.path() / "outside";
  fs::create_directory(outside);
  test::write_file(outside / "rank-0000.ckpt", "keep");
  fs::create_directory_symlink(outside, dir.path() / fmt::format("mlbench-checkpoint-{}-eeeeee", dead));

  const std::atomic<bool> no_stop{false};
  auto said = remove_stale_checkpoints(dir.path().string(), no_stop);
  std::string all;
  for (const auto& w : said) all += w + "\n";
  // One warning for each leftover of a killed run, whether removed or kept, saying why it was kept; none
  // for a live run's (its PID, or its lock, held).
  ASSERT_EQ(said.size(), 5u) << all;
  auto warning = [&](const std::string& tail) {
    for (const auto& w : said)
      if (w.find(tail) != std::string::npos) return w;
    return std::string();
  };
  EXPECT_EQ(
      warning("-aaaaaa"),
      fmt::format("removed mlbench-checkpoint-{}-aaaaaa (2.00 MiB), a checkpoint folder left in {} by an "
                  "mlbench run that was killed",
                  dead, dir.path().string()));
  for (const char* part : {"removed 1 B", "kept", "holds files mlbench did not make"})
    EXPECT_NE(warning("-bbbbbb").find(part), std::string::npos) << part << " in " << all;
  EXPECT_EQ(warning("-gggggg"),
            fmt::format("kept mlbench-checkpoint-{}-gggggg in {}, a checkpoint folder left by an mlbench run "
                        "that was killed: it holds files mlbench did not make",
                        dead, dir.path().string()));
  EXPECT_NE(warning("-eeeeee").find("kept"), std::string::npos) << all;
  EXPECT_NE(warning("-eeeeee").find("a link"), std::string::npos) << all;
  EXPECT_NE(warning("-hhhhhh").find("kept"), std::string::npos) << all;
  EXPECT_NE(warning("-hhhhhh").find("not a folder"), std::string::npos) << all;
  EXPECT_EQ(test::slurp(file), "mine");
  EXPECT_EQ(test::slurp(foreign / "notes.txt"), "mine");
  EXPECT_FALSE(fs::exists(killed));
  EXPECT_EQ(test::slurp(mixed / "notes.txt"), "mine");
  EXPECT_FALSE(fs::exists(mixed / "rank-0000.ckpt"));
  for (const auto& p : {live, kept, locked}) EXPECT_TRUE(fs::exists(p / "rank-0000.ckpt")) << p;
  EXPECT_EQ(test::slurp(outside / "rank-0000.ckpt"), "keep");
}

// storage.checkpoint resolves its engine as storage.io does: io_uring refused, psync runs, and the result
// says so as storage.io's does: the reason in info.engine_fallback, the warning in the same words.
TEST(Checkpoint, FallsBackToPsyncWhenUringSetupFails) {
  test::TempDir dir;
  auto probe = make_checkpoint_probe();
  ::setenv("MLBENCH_FORCE_URING_FAILURE", "1", 1);
  auto results = test::run_probe(*probe, json{{"dir", dir.path().string()}, {"size", "4M"}, {"ranks", 2}});
  ::unsetenv("MLBENCH_FORCE_URING_FAILURE");
  ASSERT_EQ(results.size(), 1u);
  const Result& r = results[0];
  ASSERT_EQ(r.status, Status::ok) << r.reason;
  EXPECT_EQ(r.info["engine"], "psync");
  ::setenv("MLBENCH_FORCE_URING_FAILURE", "1", 1);
  const ResolvedEngine io = resolve_engine(EngineKind::uring);
  ::unsetenv("MLBENCH_FORCE_URING_FAILURE");
  EXPECT_EQ(r.info.value("engine_fallback", ""), io.why);
  EXPECT_EQ(std::count(r.warnings.begin(), r.warnings.end(), io.warning), 1)
      << r.warnings.size() << " warnings";
}

TEST(Checkpoint, ReadOnlyDirIsRefusedAtPlan) {
  test::TempDir dir;
  auto mount = test::TmpfsMount::mount(dir.path() / "ro", "1m", true);
  if (!mount) GTEST_SKIP() << "needs root to mount a read-only tmpfs";
  auto probe = make_checkpoint_probe();
  const json host = json::object();
  const json options = {{"dir", (dir.path() / "ro").string()}, {"size", "1M"}, {"ranks", 1}};
  try {
    probe->plan(PlanContext{Profile::standard, host, options});
    FAIL() << "a read-only folder was planned";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("not writable"), std::string::npos) << e.what();
  }
}

TEST(Checkpoint, BuffersBeyondTheAvailableMemoryAreRefusedAtPlan) {
  test::TempDir dir;
  auto probe = make_checkpoint_probe();
  const json host = {{"memory", {{"available_bytes", 1u << 30}}}};
  json options = {{"dir", dir.path().string()}, {"size", "16M"}, {"ranks", 2}, {"bs", "256M"}, {"depth", 4}};
  try {
    probe->plan(PlanContext{Profile::standard, host, options});
    FAIL() << "2 GiB of buffers were planned in 1 GiB";
  } catch (const UsageError& e) {
    const std::string msg = e.what();
    for (const char* part : {"--ranks 2", "--depth 4", "--bs 256.00 MiB", "2.00 GiB", "1.00 GiB", "lower"})
      EXPECT_NE(msg.find(part), std::string::npos) << part << " in " << msg;
  }
  options["depth"] = 1;  // 512 MiB: fits
  EXPECT_EQ(probe->plan(PlanContext{Profile::standard, host, options}).size(), 1u);
}

// A rank whose buffers cannot be mapped ends with the run's error; no exception escapes its thread. Run in a
// child with a small address-space limit, so that the mmap fails there and nowhere else.
TEST(Checkpoint, AllocationFailureInARankIsTheRunsErrorNotACrash) {
  test::TempDir dir;
  const pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    long pages = 0;
    std::ifstream("/proc/self/statm") >> pages;
    const rlim_t limit =
        static_cast<rlim_t>(pages) * static_cast<rlim_t>(::sysconf(_SC_PAGESIZE)) + (160u << 20);
    const struct rlimit rl { limit, limit };
    if (::setrlimit(RLIMIT_AS, &rl) != 0) ::_exit(3);
    const Fd fd = open_folder(dir.path());
    CheckpointConfig c = checkpoint_config(fd, dir.path(), 4, 1u << 20, 8);
    c.bs = 16u << 20;  // 4 ranks x 8 x 16 MiB = 512 MiB
    c.engine = EngineKind::psync;
    std::atomic<bool> stop{false};
    const auto o = run_checkpoint(c, stop);
    // Which allocation fails first races: a rank's buffers (mmap) or a later rank's thread stack.
    const bool said =
        o.error.find("mmap") != std::string::npos || o.error.find("starting its thread") != std::string::npos;
    ::_exit(said ? 0 : 1);
  }
  int status = 0;
  ASSERT_EQ(::waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFEXITED(status)) << "the child died of signal " << WTERMSIG(status);
  EXPECT_EQ(WEXITSTATUS(status), 0) << "1: no allocation error in the outcome; 3: setrlimit refused";
}

// In a forked child: an address-space limit with room for one more thread stack and its guard, not for two,
// and SIGALRM after 60 s so that a thread left waiting ends the child, not the suite by its timeout. Exits 3
// when no limit can be set. The new threads' stacks are made 64 MiB, larger than glibc reuses a cached stack
// for (the stacks of the suite's earlier, joined threads), so that each new thread maps a stack of its own.
void room_for_one_more_thread() {
  constexpr std::size_t stack = std::size_t{64} << 20;
  pthread_attr_t attr;
  if (::pthread_attr_init(&attr) != 0 || ::pthread_attr_setstacksize(&attr, stack) != 0 ||
      ::pthread_setattr_default_np(&attr) != 0)
    ::_exit(3);
  long pages = 0;
  std::ifstream("/proc/self/statm") >> pages;
  const rlim_t limit = static_cast<rlim_t>(pages) * static_cast<rlim_t>(::sysconf(_SC_PAGESIZE)) +
                       static_cast<rlim_t>(stack) * 3 / 2;
  const struct rlimit rl { limit, limit };
  if (::setrlimit(RLIMIT_AS, &rl) != 0) ::_exit(3);
  ::alarm(60);
}

// A thread that cannot start is the run's error, and the started rank is not left waiting at the barrier for
// ranks that never came.
TEST(Checkpoint, ThreadThatCannotStartIsTheRunsErrorNotAHang) {
  test::TempDir dir;
  const pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    room_for_one_more_thread();
    const Fd fd = open_folder(dir.path());
    CheckpointConfig c = checkpoint_config(fd, dir.path(), 4, 64u << 10, 1);
    c.bs = 64u << 10;
    c.engine = EngineKind::psync;
    std::atomic<bool> stop{false};
    const auto o = run_checkpoint(c, stop);
    ::_exit(o.error.find("starting its thread") != std::string::npos ? 0 : 1);
  }
  int status = 0;
  ASSERT_EQ(::waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFEXITED(status)) << "the child died of signal " << WTERMSIG(status);
  EXPECT_EQ(WEXITSTATUS(status), 0) << "1: no thread error in the outcome; 3: no limit set";
}

// The loader likewise: the started reader and the accelerators whose feeds never fill end, and the run says
// why.
TEST(DataloadReader, ThreadThatCannotStartIsTheRunsErrorNotAHang) {
  const pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    std::vector<DataFile> files(64, DataFile{"unused", 4096});
    LoadConfig c = null_config(files, 0.001, 30);
    c.accelerators = 4;
    c.read_threads = 2;
    room_for_one_more_thread();
    std::atomic<bool> stop{false};
    const auto o = run_dataload(c, stop);
    ::_exit(o.error.find("starting a thread") != std::string::npos ? 0 : 1);
  }
  int status = 0;
  ASSERT_EQ(::waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFEXITED(status)) << "the child died of signal " << WTERMSIG(status);
  EXPECT_EQ(WEXITSTATUS(status), 0) << "1: no thread error in the outcome; 3: no limit set";
}

}  // namespace
}  // namespace mlbench::storage
