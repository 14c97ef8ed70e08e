// fio's spellings of storage.io's options, and fio job files.
//
// One table (kFioOptions) says how mlbench takes each option name of fio's that is not already a name or
// alias of the probe's own table (storage/io/job_spec.hpp): renamed to mlbench's option, its value
// translated, accepted as what mlbench does anyway, or refused naming the closest thing mlbench can do.
// `mlbench storage` has a flag per row (fio's exact spelling: --rwmixread, --time_based, --output-format),
// the job file reader reads the same rows, and `mlbench storage --help` and docs/storage.md show them. Values
// in fio's spelling of mlbench's own options are translated too: --rw readwrite (rw), --size 50% (size_pct),
// --bs 4k,64k (read and write block sizes, one of them used: mlbench has one block size per job), --ioengine
// io_uring (uring).
//
// A job file (`mlbench storage --job FILE.fio`) is fio's INI: `[global]` sections whose options apply to the
// jobs after them, one section per job, `key=value` or a bare `key` (true), `;` and `#` comment lines. Each
// job runs as one storage.io case (param job = its section name), one after another (fio runs a file's jobs
// at the same time unless `stonewall`; a warning says so). Options mlbench neither uses nor refuses are
// listed as ignored, as `mlbench dataload --dlio` does; `${VAR}` and `include` are refused (mlbench runs the
// file as written). Errors name the file and line.
#pragma once

#include <cstdint>
#include <filesystem>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace mlbench::storage {

enum class FioTake {
  rename,      // the value as it is, to mlbench's option `option`
  complement,  // 100 − the value, to `option` (rwmixwrite → rwmix_read)
  negate,      // the boolean's opposite, to `option` (buffered → direct)
  engine,      // fio's engine name translated (kFioEngines), to `option`
  rate,      // bytes per second, to `option` as I/Os per second of the job's block size (rate → rate_iops)
  accepted,  // what mlbench does anyway; no effect
  refused,   // mlbench cannot do it: refused, naming `note`, the closest thing it can
  output,    // the command line's --output-format: json is --json (not a job option)
};

struct FioOption {
  std::string_view fio;  // fio's name: "rwmixwrite"
  FioTake take;
  std::string_view option;  // mlbench's row it sets (rename, complement, negate, engine)
  bool flag = false;        // takes no value on the command line (--time_based); =0/=1 also work
  std::string_view note;    // the help: what mlbench does with it; for a refused one, what to do instead
};
std::span<const FioOption> fio_options();

// fio's I/O engines as mlbench runs them: the engine that does the same I/O, or none (refused).
struct FioEngine {
  std::string_view fio;
  std::string_view engine;  // mlbench's --engine value; empty: refused
};
std::span<const FioEngine> fio_engines();

// The options in fio's spelling (keys and values, in the order given: a later one wins, as in a job file)
// as storage.io's options JSON. `cli`: given as flags (messages say --rwmixwrite, the same option twice is
// refused); else from a job file (messages say rwmixwrite). Throws UsageError on a refused option or value.
// Keys that are neither mlbench's nor in the table are returned in `ignored` (a job file's; the command line
// has no such keys).
struct FioOptions {
  nlohmann::json options = nlohmann::json::object();
  std::vector<std::string> ignored;
  bool json = false;      // --output-format=json: the command line's --json
  bool fio_json = false;  // --output-format=fio-json: fio's JSON schema on stdout (reports/fio_json.hpp)
};
FioOptions from_fio(const std::vector<std::pair<std::string, nlohmann::json>>& given, bool cli);

// fio's default clat percentiles (its percentile_list), as its JSON names them ("99.990000").
inline constexpr double kFioPercentiles[] = {1,  5,  10, 20, 30,   40,   50,    60,   70,
                                             80, 90, 95, 99, 99.5, 99.9, 99.95, 99.99};
// fio's latency distribution: the share of I/Os (%) in each range, by the range's upper bound, per unit
// (latency_ns, latency_us, latency_ms); an I/O of 30 us counts under latency_us "50" (20 to 50 us). The
// last ms range, ">=2000", has no upper bound.
struct FioLatencyRanges {
  std::string_view key;  // latency_ns, latency_us, latency_ms
  std::uint64_t unit_ns;
  std::span<const std::uint64_t> bounds;  // upper bounds in the unit, ascending
  bool open_last;                         // a last range ">=" the last bound
};
std::span<const FioLatencyRanges> fio_latency_ranges();

// One job of a job file: its section name, its options (the [global] sections before it, then its own) as
// storage.io's options JSON, and the options ignored.
struct FioJob {
  std::string name;
  nlohmann::json options;
  std::vector<std::string> ignored;
  bool stonewall = false;  // the job waits for the ones before it (stonewall, wait_for_previous)
};
// Reads and parses the job file (base/input_file.hpp: a regular file, at most the limit of its kind);
// UsageError naming the file and line on a malformed line, a refused option or a bad value, and naming the
// job on options that do not go together.
std::vector<FioJob> read_job_file(const std::filesystem::path& file);
std::vector<FioJob> parse_job_file(std::string_view text, const std::string& where);

}  // namespace mlbench::storage
