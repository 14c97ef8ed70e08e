// The one reader of input files (reports, YAML configs/workloads/thresholds/catalogs, host lists): a regular
// file or `-` (stdin), never more than the limit of its kind.
//
// The checks look at the opened descriptor, never at the path twice: the path is opened with O_PATH (which
// opens neither a device nor a FIFO), fstat'ed and refused unless it is a regular file; only then is that
// descriptor's inode opened for reading (base/owned_fd.hpp's reopen), never the path a second time. A device
// such as /dev/zero, a FIFO or a socket is refused in one line instead of being read until memory runs out,
// and a file over its kind's limit is refused before any of it is read. Stdin is read up to the same limit.
#pragma once

#include <cstddef>
#include <filesystem>
#include <string>
#include <string_view>

namespace mlbench {

enum class InputKind { report, yaml, host_list, fio_job, prompts, certificates };

struct InputLimit {
  InputKind kind;
  std::string_view what;  // the file's kind in messages: "report", "YAML file", ...
  std::size_t max_bytes;
};

// The size limits, one row per kind. A report of 10,000 results with their raw samples is a few MB; a YAML
// file (a run config, workload, thresholds, catalog, DLIO config, prices) is a few KB, and yaml-cpp holds a
// few hundred bytes per value parsed, so 1 MiB (at most about 500,000 values) keeps a parse within a few
// hundred MB; a host list of 100,000 names is about 2 MB; a fio job file of a few dozen jobs is a few KB; a
// prompt file as large as ShareGPT's (about 650 MB) fits 1 GiB; a CA bundle of every public root is about
// 200 KB.
inline constexpr InputLimit kInputLimits[] = {
    {InputKind::report, "report", std::size_t{256} << 20},
    {InputKind::yaml, "YAML file", std::size_t{1} << 20},
    {InputKind::host_list, "host list", std::size_t{16} << 20},
    {InputKind::fio_job, "fio job file", std::size_t{1} << 20},
    {InputKind::prompts, "prompt file", std::size_t{1} << 30},
    {InputKind::certificates, "CA certificate file", std::size_t{16} << 20},
};

const InputLimit& input_limit(InputKind kind);

// The whole content of `path` (`-`: stdin). UsageError naming the path on a missing or unreadable file, a
// path that is not a regular file, or more bytes than the kind's limit.
std::string read_input_file(const std::filesystem::path& path, InputKind kind);
// The same into `buffer`, which only grows (a caller reading many files reuses it instead of zero-filling a
// fresh one per file); the view is the content, valid until the buffer's next use.
std::string_view read_input_file(const std::filesystem::path& path, InputKind kind, std::string& buffer);

}  // namespace mlbench
