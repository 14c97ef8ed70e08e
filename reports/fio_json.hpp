// fio's JSON output (fio --output-format=json) of a report's storage jobs, so that what reads fio's JSON —
// fio-plot, dashboards, scripts on jobs[].read.iops — reads mlbench's results: `mlbench storage
// --output-format=fio-json` and `mlbench export REPORT --format fio`.
//
// The schema is fio's (stat.c: show_thread_status_json, add_ddir_status_json, json_add_job_opts,
// json_array_add_disk_util): top-level "fio version" ("mlbench-<version>": what wrote it), timestamp,
// timestamp_ms, time, "global options" (the options every job shares), jobs[] and disk_util[]. A job is one
// storage.io result (not a multi-target job's per-target rows): jobname, groupid, error, eta, elapsed, "job
// options" (fio's names, values as strings), read, write and trim (io_bytes, io_kbytes, bw_bytes, bw KiB/s,
// iops, runtime ms, total_ios, short_ios, drop_ios, slat_ns, clat_ns with fio's percentile list, lat_ns,
// bw_min ... bw_samples and iops_min ... iops_samples over mlbench's sampling intervals), sync, job_runtime,
// usr_cpu, sys_cpu, ctx, majf, minf and latency_ns/us/ms. A direction the job does not do is all zeros, as in
// fio; mlbench never trims. disk_util adds each disk's statistics over the jobs (bench/disk_stats.hpp).
// Left out, as mlbench does not measure them: iodepth_level, iodepth_submit, iodepth_complete.
#pragma once

#include "report/report.hpp"

namespace mlbench {

// Whether the report has a storage.io result with fio's figures (a job that ran; a report written since
// mlbench measures them).
bool has_fio_figures(const Report& report);
// UsageError naming `origin` when it has none.
Json to_fio_json(const Report& report, std::string_view origin);

}  // namespace mlbench
