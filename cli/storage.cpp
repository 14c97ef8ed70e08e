// `mlbench storage --target PATH... [job options] [-o FILE]`: one fio-style job of the storage.io probe, or
// `--job FILE.fio`: the jobs of a fio job file. Its flags are the probe's option table
// (storage/io/job_spec.hpp), so that `mlbench run --config` takes exactly the same options, and fio's
// spellings of them (storage/io/fio.hpp: --filename, --rwmixwrite, --ioengine, ...), translated before the
// probe's plan() checks them.
#include <deque>
#include <memory>
#include <optional>

#include <fmt/format.h>

#include "base/error.hpp"
#include "cli/commands.hpp"
#include "cli/common.hpp"
#include "storage/io/fio.hpp"
#include "storage/io/job_spec.hpp"

namespace mlbench::cli {
namespace {

// fio's spellings as flags (fio's exact names: --time_based, --rwmixread), kept apart until the action
// translates them with the rest.
struct FioFlags {
  std::deque<std::string> texts;
  std::deque<bool> bools;
  std::vector<std::function<void(std::vector<std::pair<std::string, Json>>&)>> readers;
};

std::shared_ptr<FioFlags> add_fio_flags(CLI::App& cmd) {
  auto flags = std::make_shared<FioFlags>();
  for (const auto& f : storage::fio_options()) {
    const std::string flag = "--" + std::string(f.fio), key(f.fio);
    std::string help =
        fmt::format("fio: {}{}", f.take == storage::FioTake::refused ? "refused: " : "", f.note);
    if (f.flag) {
      bool& value = flags->bools.emplace_back(false);
      cmd.add_flag(flag, value, help);
      flags->readers.push_back([&cmd, &value, key, flag](auto& out) {
        if (cmd.count(flag) > 0) out.emplace_back(key, value);
      });
    } else {
      std::string& value = flags->texts.emplace_back();
      cmd.add_option(flag, value, help);
      flags->readers.push_back([&cmd, &value, key, flag](auto& out) {
        if (cmd.count(flag) > 0) out.emplace_back(key, value);
      });
    }
  }
  return flags;
}

}  // namespace

void add_storage_command(CLI::App& app, Action& action) {
  auto* cmd = app.add_subcommand("storage",
                                 "Storage IOPS, bandwidth and latency of one fio-style job through io_uring, "
                                 "or of the jobs of a fio job "
                                 "file (probe storage.io)");
  auto common = std::make_shared<CommonRunFlags>();
  add_common_run_flags(*cmd, *common);
  auto options = add_option_flags(*cmd, storage::job_options());
  auto fio = add_fio_flags(*cmd);
  cmd->callback([&action, common, options, fio] {
    action = [common, options, fio] {
      std::vector<std::pair<std::string, Json>> given;
      const Json own = options();
      for (const auto& item : own.items()) given.emplace_back(item.key(), item.value());
      for (const auto& read : fio->readers) read(given);
      auto translated = storage::from_fio(given, true);
      // A job needs a target; without one `mlbench run` plans the profile suite instead.
      if (!translated.options.contains("target") && !translated.options.contains("job"))
        throw UsageError("give --target PATH (fio: --filename, --directory) or --job FILE.fio");
      CommonRunFlags flags = *common;
      flags.json = flags.json || translated.json;
      flags.fio_json = translated.fio_json;
      return execute_family("storage.io", translated.options, flags);
    };
  });
}

}  // namespace mlbench::cli
