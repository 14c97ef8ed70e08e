// The fuzz targets: one function per input parser of mlbench, shared by the libFuzzer executables
// (fuzz/<target>_fuzz.cpp) and the regression test that replays every saved input in the normal build
// (tests/fuzz_regress).
//
// Each function feeds `data` to the real parser and returns normally when the parser accepts it or refuses it
// with its documented error (mlbench::Error and its UsageError; CLI::ParseError for the command line). Any
// other exception escapes, and a crash, a sanitizer report, a leak or a hang is the fuzzer's to report: all
// of these are findings.
//
// Inputs that are more than one file (a /sys tree, the hardware catalog folder) and command lines are text:
//   sysinfo, hw_catalog: sections "@@ <relative path>\n<file bytes>", each ending where the next "\n@@ "
//                        starts; the sections replace or add files of a template tree (tests/data/sysfs/
//                        two_socket, configs/hardware), which is restored after every input.
//   cli:                 one argument per line (argv[0] "mlbench" is added).
//   bootstrap:           the first byte sets how many bytes each read delivers (1 to 64, as a socket may
//                        split them); the rest is what reaches rank 0 or a joining rank: frames, each
//                        decoded with a stranger's cap and parsed as every message of the rendezvous: a
//                        challenge, an introduction (judged, proof included), an answer, and the cluster's
//                        JSON hello, decision, results and final status (network/cluster.hpp). A parsed
//                        text message that does not format back to its own bytes, or a refusal that is not
//                        one printable line, is a finding.
//   dataset_manifest:    the bytes of a dataset folder's .mlbench-dataset.json; a manifest that validates but
//                        does not write back to the same manifest is a finding.
//   serve_stream:        the first byte sets how many bytes each read delivers (1 to 64); the rest is what an
//                        inference server sends serve.llm: an HTTP/1.1 response (small bounds, so that the
//                        fuzzer reaches them), its body through the SSE parser, each event through
//                        parse_stream_event. An exception of any kind, or a body or event past its bound, is
//                        a finding: the parsers report errors as values.
#pragma once

#include <string_view>

namespace mlbench::fuzz {

using TargetFn = void (*)(std::string_view data);

void report(std::string_view data);  // parse_report with and without samples; export, summary, catalog check
void workload(std::string_view data);     // sizing::load_workload
void hw_catalog(std::string_view data);   // sizing::load_hardware_catalog of a catalog folder
void gpu_catalog(std::string_view data);  // load_gpu_catalog, then matching a device against it
void run_config(std::string_view data);   // `mlbench run --config FILE` (cli/run_config.hpp)
void thresholds(std::string_view data);   // `mlbench check --expect FILE`, then checking a report with it
void cli(std::string_view data);          // the mlbench command line, parsed (never executed)
void sysinfo(std::string_view data);      // collect_host_info over a /sys + /proc tree, and the pure parsers
void bootstrap(std::string_view data);    // the TCP rendezvous' framing and every message it parses
void dataset_manifest(std::string_view data);  // storage.dataload's manifest: parsed, and read from a folder
void fio_job(
    std::string_view data);  // a fio job file (`mlbench storage --job`), each job then parsed as a spec
void serve_stream(std::string_view data);  // an inference server's HTTP response, its SSE and stream events

struct Target {
  std::string_view name;
  TargetFn fn;
};
inline constexpr Target kTargets[] = {
    {"report", report},
    {"workload", workload},
    {"hw_catalog", hw_catalog},
    {"gpu_catalog", gpu_catalog},
    {"run_config", run_config},
    {"thresholds", thresholds},
    {"cli", cli},
    {"sysinfo", sysinfo},
    {"bootstrap", bootstrap},
    {"dataset_manifest", dataset_manifest},
    {"fio_job", fio_job},
    {"serve_stream", serve_stream},
};

}  // namespace mlbench::fuzz
