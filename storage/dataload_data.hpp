// The data storage.dataload reads: a dataset mlbench generates (--generate) or a user's own (--data DIR).
//
// A generated dataset lives in a folder tree mlbench creates under --data-dir, "mlbench-dataload-<workload>",
// 1,000 files per subfolder, marked by a manifest (.mlbench-dataset.json: workload, count, every size, seed,
// complete). A later run reuses it only when the manifest matches exactly; one that differs, or was left
// incomplete by a killed run, is removed file by file (only the names the manifest lists) and made again.
// --data-dir is refused when it holds anything that is not an mlbench dataset, so mlbench never writes
// beside a user's files. Free space and free inodes (statvfs) are checked before the first byte is written.
// Files are random bytes (storage/pattern.hpp: incompressible, not deduplicable); sample sizes are normal
// around the workload's record length, clipped to [4 KiB, mean + 3 σ], from the seed. A user's dataset is
// every regular file under DIR, opened O_RDONLY and never modified.
#pragma once

#include <atomic>
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "storage/dataload_workload.hpp"

namespace mlbench::storage {

struct DataFile {
  std::string path;
  std::uint64_t size = 0;
};

inline constexpr std::string_view kDatasetPrefix = "mlbench-dataload-";
inline constexpr std::string_view kManifestName = ".mlbench-dataset.json";
inline constexpr std::uint64_t kFilesPerFolder = 1000;

// The file sizes of a generated dataset of `files` files (each samples_per_file records of one drawn size).
std::vector<std::uint64_t> dataset_sizes(const Workload& w, std::uint64_t files, std::uint64_t seed);

// What mlbench will find or make: the folder, and the manifest a matching dataset carries.
struct DatasetPlan {
  std::filesystem::path root;  // <data-dir>/mlbench-dataload-<workload>
  std::string workload;
  std::string ext;
  std::vector<std::uint64_t> sizes;
  std::uint64_t seed = 0;
  nlohmann::json manifest(bool complete) const;
  std::filesystem::path file(std::uint64_t i) const;  // root/0000/00000000.ext
  std::uint64_t bytes() const;
};

enum class DatasetState { absent, matches, differs };
// Checks --data-dir (`flag` names it) and says what is there for `plan`; throws UsageError when the folder is
// missing or holds anything that is not an mlbench dataset. Changes nothing.
DatasetState inspect_data_dir(const DatasetPlan& plan, const std::string& flag);
// Throws UsageError when the dataset's bytes or inodes do not fit in the free space of `dir` (`reclaim`:
// bytes an old dataset that will be removed first holds).
void check_free_space(const DatasetPlan& plan, const std::filesystem::path& dir, std::uint64_t reclaim,
                      const std::string& flag);

struct GenerateFigures {
  std::uint64_t files = 0, bytes = 0;
  double seconds = 0;
};

// A generated dataset: made (or reused) by open(), removed by the destructor unless kept.
class GeneratedDataset {
 public:
  // Reuses a matching dataset, else removes a differing one of ours and writes it anew (figures in
  // `made`; made.files == 0 when reused). ENOSPC, EIO or a stop end with Error/Interrupted and remove what
  // was written.
  static GeneratedDataset open(const DatasetPlan& plan, bool keep, const std::atomic<bool>& stop,
                               GenerateFigures& made);
  GeneratedDataset(GeneratedDataset&& o) noexcept;
  GeneratedDataset& operator=(GeneratedDataset&&) = delete;
  GeneratedDataset(const GeneratedDataset&) = delete;
  ~GeneratedDataset();
  std::vector<DataFile> files() const;
  const DatasetPlan& plan() const { return plan_; }

 private:
  GeneratedDataset(DatasetPlan plan, bool keep) : plan_(std::move(plan)), keep_(keep) {}
  DatasetPlan plan_;
  bool keep_ = false, owned_ = true;
};

// Removes the files a manifest of `count` files names, the subfolders, the manifest and the root (only when
// then empty). Never touches other names.
void remove_dataset(const DatasetPlan& plan, std::uint64_t count);

// Every regular file under `dir` (sorted by path); UsageError naming `flag` when there is none.
std::vector<DataFile> list_user_data(const std::filesystem::path& dir, const std::string& flag);

}  // namespace mlbench::storage
