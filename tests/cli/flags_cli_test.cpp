// The boolean options of every probe's table on the command line (cli/common.hpp add_option_flags): each
// takes an explicit value the same way (--NAME=0, =1, =false, =true), whatever its default, so that
// `--direct=0` turns O_DIRECT off instead of being read as --direct. The tables come from the built-in
// registry, so a new probe's booleans are covered without a change here.
#include <gtest/gtest.h>

#include <string>
#include <utility>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "bench/registry.hpp"
#include "cli/common.hpp"
#include "tests/cli/cli_util.hpp"

namespace mlbench::test {
namespace {

using nlohmann::json;

// The options JSON the command line `args` gives through `table`'s flags.
json parsed(std::span<const OptionSpec> table, const std::string& args) {
  CLI::App app;
  auto options = cli::add_option_flags(app, table);
  app.parse(args, false);
  return options();
}

TEST(BoolFlags, EveryBooleanOfEveryTableTakesZeroOneTrueFalse) {
  const auto registry = builtin_registry();
  int checked = 0;
  for (const auto& probe : registry.all()) {
    const auto info = probe->info();
    for (const auto& row : info.options) {
      if (row.type != OptionType::flag || !row.cli) continue;
      const std::string key(row.name), flag = flag_name(row.name);
      SCOPED_TRACE(info.id + " " + flag);
      for (const auto& [text, want] :
           {std::pair{"0", false}, {"1", true}, {"false", false}, {"true", true}}) {
        json o = parsed(info.options, flag + "=" + text);
        ASSERT_TRUE(o.contains(key)) << text << ": " << o.dump();
        EXPECT_EQ(o[key], want) << text;
      }
      EXPECT_EQ(parsed(info.options, flag)[key], true);
      EXPECT_FALSE(parsed(info.options, "").contains(key));  // not given: the probe applies the default
      if (row.def == "true") {
        EXPECT_EQ(parsed(info.options, "--no-" + flag.substr(2))[key], false);
      }
      EXPECT_THROW(parsed(info.options, flag + "=maybe"), CLI::ParseError);
      ++checked;
    }
  }
  EXPECT_GE(checked, 10);  // storage, dataload, checkpoint and membw have booleans
}

// What the issue saw: the option's effective value in the plan, through the binary.
TEST(BoolFlags, DirectZeroTurnsODirectOffInThePlan) {
  TempDir dir;
  for (const auto& [flag, want] : {std::pair{"--direct=0", false},
                                   {"--direct=false", false},
                                   {"--direct=1", true},
                                   {"--no-direct", false},
                                   {"--sqpoll=0", false}}) {
    auto r = run_cli({"storage", "--target", dir.path().string(), flag, "--dry-run"});
    ASSERT_EQ(r.rc, 0) << flag << ": " << r.err;
    auto plan = json::parse(r.out);
    const std::string key = std::string(flag).find("sqpoll") != std::string::npos ? "sqpoll" : "direct";
    EXPECT_EQ(plan["effective_options"]["storage.io"][key], want) << flag;
    EXPECT_EQ(plan["cases"][0]["config"]["spec"][key], want) << flag;
  }
}

}  // namespace
}  // namespace mlbench::test
