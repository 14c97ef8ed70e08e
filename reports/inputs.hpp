// What the cross-report tools (compare, fleet, check, export) share: loading several reports, naming hosts
// and devices, a result's identity, and writing text output atomically.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "report/report.hpp"

namespace mlbench {

// A loaded report and the file it came from (every message about it names the file).
struct NamedReport {
  std::string file;
  Report report;
};

// Loads each path, without the raw samples (no cross-report tool reads them); a folder contributes its *.json
// files (sorted). UsageError names the offending file; a folder without reports is a UsageError too.
std::vector<NamedReport> load_reports(const std::vector<std::string>& paths);

// A file load_readable_reports left out, and the error line that names it ("FILE: not valid JSON ...").
struct UnreadableReport {
  std::string file;
  std::string error;
};
// As load_reports, but a file that cannot be loaded is left out and listed in `unreadable` (argument order):
// one bad file among a fleet's hundreds must not hide the rest. Folder errors still throw.
std::vector<NamedReport> load_readable_reports(const std::vector<std::string>& paths,
                                               std::vector<UnreadableReport>& unreadable);

// The identity compare joins on: probe and params, canonical (nlohmann objects keep keys sorted).
std::string result_key(const Result& r);
// The params that name the device a result ran on, not what was measured: the GPU index, a storage target, a
// GPU's UUID (burnin.gpu's params carry it).
inline constexpr std::string_view kDeviceParams[] = {"device", "target", "uuid"};
// A result's identity without the device it ran on (kDeviceParams): the population a fleet analysis compares
// across machines and GPUs.
Json params_without_device(const Json& params);

// host.hostname, else the report file's stem.
std::string host_label(const NamedReport& r);
// "gpu3" for params.device = 3, the target path(s) for storage, "" when the result names no device.
std::string device_label(const Result& r);
// The GPU's UUID from host.gpus for a result with a numeric params.device, else "".
std::string device_uuid(const Result& r, const Json& host);

// Where --format output goes: stdout when `path` is empty, else the file (atomically).
void emit(const std::string& path, const std::string& text);
// Colour for terminal tables: stdout is a terminal and NO_COLOR is unset (https://no-color.org).
bool stdout_wants_colour();

}  // namespace mlbench
