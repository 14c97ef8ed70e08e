// The workloads of storage.dataload: what one MLPerf Storage-style training job reads — how many files, how
// many samples per file, the sample size distribution, the batch, the reader threads and the step time of
// each simulated accelerator — from mlbench's own YAML (configs/dataload/NAME.yaml, the MLPerf Storage v2.0
// facts) or from a DLIO workload YAML (--dlio FILE: the keys that shape the I/O; the rest are listed as
// ignored). Bad input is one UsageError line naming the file and the key.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/names.hpp"

namespace mlbench::storage {

enum class Accelerator { h100, a100, b200 };
inline constexpr EnumName<Accelerator> kAcceleratorNames[] = {
    {Accelerator::h100, "h100"}, {Accelerator::a100, "a100"}, {Accelerator::b200, "b200"}};
static_assert(names_cover(kAcceleratorNames));
inline std::string_view to_string(Accelerator a) { return name_of(kAcceleratorNames, a); }

// The file formats a workload may name (DLIO's dataset.format values, and "file" when none is given): a
// generated dataset's file names end in ".<format>", so only these names are ever made or removed.
inline constexpr std::string_view kDatasetFormats[] = {"file",
                                                       "npz",
                                                       "npy",
                                                       "hdf5",
                                                       "hdf5_opt",
                                                       "tfrecord",
                                                       "csv",
                                                       "jpeg",
                                                       "png",
                                                       "indexed_binary",
                                                       "mmap_indexed_binary",
                                                       "synthetic"};
bool is_dataset_format(std::string_view format);
// A workload name that can name a dataset folder ("mlbench-dataload-<name>"): 1 to 64 letters, digits, '.',
// '_' or '-', not starting with '.', so never a path of its own.
bool is_dataset_name(std::string_view name);

struct Workload {
  std::string name;
  std::string format;                  // one of kDatasetFormats: what the files stand for (not parsed)
  std::uint64_t num_files = 0;         // files in the training set
  std::uint64_t samples_per_file = 1;  // 1: whole-file reads; more: record-sized reads within the file
  std::uint64_t record_length = 0;     // bytes per sample (mean)
  std::uint64_t record_stdev = 0;      // bytes; sample sizes are normal, clipped to [4 KiB, mean + 3 σ]
  std::uint64_t batch_size = 1;
  unsigned read_threads = 1;                // reader threads per simulated accelerator
  bool file_shuffle = true;                 // a new seeded file order each epoch
  bool sample_shuffle = true;               // records of a multi-sample file read in a seeded order
  std::map<Accelerator, double> step_time;  // seconds of compute per batch per accelerator type
  double au_floor = 0.9;                    // AU a result needs to count (0–1)
  std::uint64_t epochs = 0;                 // 0: bound by the measurement window
  std::vector<std::string> ignored;         // DLIO keys read but not used
};

// configs/dataload/NAME.yaml under `dir` (config_dir()/dataload by default); an unknown name lists the known.
Workload load_workload(std::string_view name, const std::filesystem::path& dir);
std::vector<std::string> workload_names(const std::filesystem::path& dir);
// mlbench's own workload YAML as JSON; `where` names the file in messages.
Workload workload_from_json(const nlohmann::json& y, const std::string& where);
// A DLIO workload YAML (dataset/reader/train keys). The step time is train.computation_time, for every
// accelerator type; the AU floor is the workload's when model: names a shipped one, else 90 %.
Workload load_dlio(const std::filesystem::path& file, const std::filesystem::path& dir);
Workload dlio_from_json(const nlohmann::json& y, const std::string& where, const std::filesystem::path& dir);

nlohmann::json to_json(const Workload& w);

}  // namespace mlbench::storage
