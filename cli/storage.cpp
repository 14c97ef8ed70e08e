// `mlbench storage --target PATH... [job options] [-o FILE]`: one fio-style job of the storage.io probe.
// Flags become the probe's options JSON (only those given), validated by the probe's plan() so that
// `mlbench run --config` takes exactly the same options.
#include <memory>

#include "cli/commands.hpp"
#include "cli/common.hpp"

namespace mlbench::cli {
namespace {

struct StorageFlags {
  CommonRunFlags common;
  std::vector<std::string> targets;
  std::string rw, rwmix_read, bs, iodepth, jobs, size, offset, runtime, ramp, io_size, number_ios, engine,
      stripe, cpus, submission;
  bool direct = true, sqpoll = false, fixed_bufs = true, verify = false, keep = false,
       allow_destructive = false;
};

}  // namespace

void add_storage_command(CLI::App& app, Action& action) {
  auto* cmd = app.add_subcommand(
      "storage",
      "Storage IOPS, bandwidth and latency of one fio-style job through io_uring (probe storage.io)");
  auto f = std::make_shared<StorageFlags>();
  add_common_run_flags(*cmd, f->common);
  cmd->add_option("--target", f->targets,
                  "Folder (mlbench creates and removes a test file there), existing file or block device; "
                  "repeat for several targets")
      ->required();
  struct Opt {
    const char* flag;
    std::string* value;
    const char* key;
    const char* help;
  };
  const Opt opts[] = {
      {"--rw", &f->rw, "rw", "read | write | randread | randwrite | randrw (default randread)"},
      {"--rwmix-read", &f->rwmix_read, "rwmix_read", "Percent of reads in randrw (default 50)"},
      {"--bs", &f->bs, "bs", "Block size per I/O, fio suffixes: 4k, 128k, 1M (default 4k)"},
      {"--iodepth", &f->iodepth, "iodepth", "I/Os in flight per job thread, 1-4096 (default 1)"},
      {"--jobs", &f->jobs, "jobs",
       "Job threads (per target unless striped), each with its own ring (default 1)"},
      {"--size", &f->size, "size", "Region per target (default: the whole file/device; 1G for a new file)"},
      {"--offset", &f->offset, "offset", "Where the region starts in each target (default 0)"},
      {"--runtime", &f->runtime, "runtime",
       "Measured time: 30, 30s, 2m (default 10s unless --io-size/--number-ios)"},
      {"--ramp", &f->ramp, "ramp", "Warm-up time excluded from the results (default 0)"},
      {"--io-size", &f->io_size, "io_size", "Stop each job thread after this many bytes"},
      {"--number-ios", &f->number_ios, "number_ios", "Stop each job thread after this many I/Os"},
      {"--engine", &f->engine, "engine",
       "uring | psync | null (default uring; psync when io_uring is refused)"},
      {"--stripe", &f->stripe, "stripe", "Stripe several targets like RAID-0 with this chunk (e.g. 128k)"},
      {"--cpus", &f->cpus, "cpus",
       "Pin job thread i to the i-th CPU (round robin): auto (default: the drive's interrupt CPUs first, "
       "then "
       "its NUMA node), none, or a list such as 0,2,4-7"},
      {"--submission", &f->submission, "submission",
       "How io_uring gets the I/Os: auto (default: sequential per I/O; random tries both in the second half "
       "of --ramp and keeps the faster; batched at --iodepth 1 or with a ramp under 0.2 s), batched or "
       "per_io"},
  };
  auto given = std::make_shared<std::vector<std::pair<std::string, std::string*>>>();
  for (const auto& o : opts) {
    cmd->add_option(o.flag, *o.value, o.help);
    given->emplace_back(o.flag, o.value);
  }
  add_on_off_flag(*cmd, "direct", f->direct, "O_DIRECT, bypassing the page cache (the default)",
                  "Buffered I/O through the page cache (default: --direct)");
  cmd->add_flag("--sqpoll", f->sqpoll, "Use a kernel submission-polling thread (io_uring SQPOLL)");
  add_on_off_flag(*cmd, "fixed-bufs", f->fixed_bufs, "Register the I/O buffers with io_uring (the default)",
                  "Do not register the I/O buffers (default: --fixed-bufs)");
  cmd->add_flag("--verify", f->verify,
                "Write a checkable pattern and read it back (reads: check the test file)");
  cmd->add_flag("--keep", f->keep, "Keep the test files mlbench created");
  cmd->add_flag("--allow-destructive", f->allow_destructive,
                "Allow writing to an existing file or block device (still refused when mounted, holding a "
                "filesystem/partition table or a RAID member)");
  cmd->callback([&action, f, cmd, given] {
    action = [f, cmd, given] {
      nlohmann::json o{{"target", f->targets}};
      for (const auto& [flag, value] : *given) {
        if (cmd->count(flag) > 0) {
          std::string key = flag.substr(2);
          for (auto& ch : key) ch = ch == '-' ? '_' : ch;
          o[key] = *value;
        }
      }
      if (cmd->count("--direct") + cmd->count("--no-direct") > 0) o["direct"] = f->direct;
      if (cmd->count("--fixed-bufs") + cmd->count("--no-fixed-bufs") > 0) o["fixed_bufs"] = f->fixed_bufs;
      if (f->sqpoll) o["sqpoll"] = true;
      if (f->verify) o["verify"] = true;
      if (f->keep) o["keep"] = true;
      if (f->allow_destructive) o["allow_destructive"] = true;
      return execute_family("storage.io", std::move(o), f->common);
    };
  });
}

}  // namespace mlbench::cli
