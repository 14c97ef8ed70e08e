// The data storage.dataload reads: a dataset mlbench generates (--generate) or a user's own (--data DIR).
//
// A generated dataset lives in a folder tree mlbench creates under --data-dir, "mlbench-dataload-<workload>",
// 1,000 files per subfolder ("0000/00000000.<format>"), marked by a manifest (.mlbench-dataset.json:
// workload, count, every size, seed, complete). A later run reuses it only when the manifest matches exactly;
// one that differs, or was left incomplete by a killed run, is removed and made again. --data-dir is refused
// when it holds anything that is not an mlbench dataset, so mlbench never writes beside a user's files. Free
// space and free inodes (statvfs) are checked before the first byte is written. Files are random bytes
// (storage/pattern.hpp: incompressible, not deduplicable); sample sizes are normal around the workload's
// record length, clipped to [4 KiB, mean + 3 σ], from the seed. A user's dataset is every regular file under
// DIR, opened O_RDONLY|O_NOFOLLOW and never modified.
//
// Whoever may write into --data-dir may forge a dataset folder, so nothing in it is trusted: the manifest is
// read through a descriptor (O_NOFOLLOW, a regular file, bounded in size) and validated (parse_manifest)
// before anything is read or removed, and a dataset folder holding a name mlbench does not make (a link, a
// user's file) is refused. Every creation and removal goes through descriptors of the folders mlbench walks
// (openat with O_NOFOLLOW and O_EXCL, unlinkat), never a path twice: a link is never followed, only regular
// files of mlbench's own names are removed, and nothing outside the dataset folder is touched. --data-dir and
// the dataset folder are each opened once: the folder validated is the folder locked and the folder emptied,
// and its name is removed only while it still names that folder, whatever is renamed meanwhile.
#pragma once

#include <atomic>
#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "storage/dataload/workload.hpp"
#include "storage/fd.hpp"

namespace mlbench::storage {

struct DataFile {
  std::string path;
  std::uint64_t size = 0;
};

inline constexpr std::string_view kDatasetPrefix = "mlbench-dataload-";
inline constexpr std::string_view kManifestName = ".mlbench-dataset.json";
inline constexpr std::uint64_t kFilesPerFolder = 1000;
// The most files mlbench's names hold: 10,000 four-digit subfolders of 1,000 eight-digit files.
inline constexpr std::uint64_t kMaxDatasetFiles = kFilesPerFolder * 10000;
// The largest manifest mlbench writes: one size of at most 20 digits and a comma per file, and 4 KiB for the
// rest. A longer file is not a manifest and is not read.
inline constexpr std::uint64_t kMaxManifestBytes = kMaxDatasetFiles * 21 + 4096;

// What a dataset's manifest says, validated.
struct DatasetManifest {
  std::string workload;  // is_dataset_name, the folder's "mlbench-dataload-<workload>"
  std::string ext;       // one of kDatasetFormats
  std::uint64_t seed = 0;
  std::vector<std::uint64_t> sizes;  // one per file, each ≥ 1; the manifest's count is their number
  bool complete = false;
};
// Parses and validates a manifest's text: a JSON object of exactly the keys mlbench writes, its format and
// version, a workload name that names a folder, an ext of kDatasetFormats, 1 to `max_files` files and as many
// sizes. Throws UsageError saying what is wrong (one line, no path: the caller names the file).
DatasetManifest parse_manifest(std::string_view text, std::uint64_t max_files);
nlohmann::json to_json(const DatasetManifest& m);

// The file sizes of a generated dataset of `files` files (each samples_per_file records of one drawn size).
std::vector<std::uint64_t> dataset_sizes(const Workload& w, std::uint64_t files, std::uint64_t seed);

// What mlbench will find or make: the folder, and the manifest a matching dataset carries.
struct DatasetPlan {
  std::filesystem::path root;  // <data-dir>/mlbench-dataload-<workload>
  std::string workload;
  std::string ext;
  std::vector<std::uint64_t> sizes;
  std::uint64_t seed = 0;
  DatasetManifest manifest(bool complete) const;
  bool matches(const DatasetManifest& m) const;       // the same files: workload, ext, seed and sizes
  std::filesystem::path file(std::uint64_t i) const;  // root/0000/00000000.ext
  std::uint64_t bytes() const;
};

enum class DatasetState { absent, matches, differs };
// Checks --data-dir (`flag` names it) and says what is there for `plan`; throws UsageError when the folder is
// missing or holds anything that is not an mlbench dataset: a name without mlbench's prefix, a link, a
// dataset folder whose manifest is missing or invalid or names another workload, or which holds a name
// mlbench does not make there. Changes nothing.
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
  // `made`; made.files == 0 when reused). ENOSPC, EIO or a stop (checked between files and between 1 MiB
  // writes, also while the old dataset is removed) end with Error/Interrupted and remove what was written.
  // A dataset folder that is not mlbench's (inspect_data_dir's refusals, found here when it changed since),
  // or one another run is making, removing or (to remove a differing one) reading, ends with Error, nothing
  // removed.
  static GeneratedDataset open(const DatasetPlan& plan, bool keep, const std::atomic<bool>& stop,
                               GenerateFigures& made);
  GeneratedDataset(GeneratedDataset&& o) noexcept;
  GeneratedDataset& operator=(GeneratedDataset&&) = delete;
  GeneratedDataset(const GeneratedDataset&) = delete;
  ~GeneratedDataset();
  std::vector<DataFile> files() const;
  const DatasetPlan& plan() const { return plan_; }

 private:
  GeneratedDataset(DatasetPlan plan, bool keep, bool complete)
      : plan_(std::move(plan)), keep_(keep), complete_(complete) {}
  DatasetPlan plan_;
  bool keep_ = false, complete_ = false, owned_ = true;
  // --data-dir and the dataset folder in it, each opened once: the folder is validated, locked and removed
  // through lock_, never by its path again. Locked (flock) while this run uses it: exclusive while it is
  // made, shared once complete. A run never removes or replaces a dataset another run holds.
  Fd parent_, lock_;
};

// Removes the dataset folder of `root_fd` that `m` describes, all through that descriptor: first marks its
// manifest incomplete (so that a removal cut short never leaves a dataset taken for whole), then every
// regular file of mlbench's names with m.ext in its four-digit subfolders, the subfolders and the manifest,
// each folder only when then empty; last the folder itself from the folder of `parent_fd`, only when `name`
// there is still that folder (its device and inode: a folder renamed into its place meanwhile is not) and it
// is empty. True when the folder is gone. Never follows a link and never touches another name. With `stop`,
// throws Interrupted when it is set (checked between files); without, runs to the end and never throws.
bool remove_dataset(int parent_fd, const std::string& name, int root_fd, const DatasetManifest& m,
                    const std::atomic<bool>* stop);

// Every regular file under `dir` (sorted by path); UsageError naming `flag` when there is none.
std::vector<DataFile> list_user_data(const std::filesystem::path& dir, const std::string& flag);

}  // namespace mlbench::storage
