// Output formats end to end: every command that takes --format reads its choices, its help and its refusal
// from the one list of formats (reports/formats.hpp), which `mlbench list --formats` prints.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include "tests/cli/cli_util.hpp"

namespace mlbench::test {
namespace {

std::string report(const std::string& name) {
  return std::string(MLBENCH_TEST_DATA_DIR) + "/reports/" + name;
}
std::string workload(const std::string& name) {
  return std::string(MLBENCH_SOURCE_DIR) + "/configs/workloads/" + name;
}

// A format the command's output does not carry is one line naming the formats it does, exit 2, nothing on
// stdout and no file.
TEST(FormatsCli, AFormatTheOutputDoesNotCarryIsOneLineListingTheOnesItDoes) {
  TempDir dir;
  const std::string out = (dir.path() / "out").string();
  struct Case {
    std::vector<std::string> args;
    std::string says;
  };
  const Case cases[] = {
      {{"compare", report("run_a.json"), report("run_b.json"), "--format", "xlsx"},
       "--format xlsx: compare writes table, md, csv, json or html, not xlsx"},
      {{"compare", "--fleet", report("fleet"), "--format", "prometheus"},
       "--format prometheus: compare --fleet writes table, md, csv, json or html, not prometheus"},
      {{"check", report("run_a.json"), "--format", "fio"},
       "--format fio: check writes table, md, csv, json or html, not fio"},
      {{"export", report("run_a.json"), "--format", "md"},
       "--format md: export writes html, prometheus or fio, not md"},
      {{"export", report("run_a.json"), "--format", "pdf"},
       "unknown --format 'pdf' (export writes html, prometheus or fio)"},
      {{"size", "--workload", workload("default.yaml"), "--compare-cooling", "--format", "xlsx"},
       "--format xlsx: size --compare-cooling writes table, md, csv, json or html, not xlsx"},
      {{"size", "--workload", workload("default.yaml"), "--format", "prometheus"},
       "--format prometheus: size writes table, md, csv, json, html or xlsx, not prometheus"},
  };
  for (const auto& c : cases) {
    std::vector<std::string> args = c.args;
    args.insert(args.end(), {"-o", out});
    const auto r = run_cli(args);
    const std::string shown = fmt::format("{}", fmt::join(args, " "));
    EXPECT_EQ(r.rc, 2) << shown;
    EXPECT_EQ(r.out, "") << shown;
    EXPECT_EQ(r.err, "mlbench: error: " + c.says + "\n") << shown;
    EXPECT_FALSE(std::filesystem::exists(out)) << shown;
  }
}

// `list --formats --json` names, per format, the commands that write it; each command's --format help lists
// exactly those formats, in the list's order.
TEST(FormatsCli, ListAndEveryFormatHelpReadTheOneList) {
  const auto r = run_cli({"list", "--formats", "--json"});
  ASSERT_EQ(r.rc, 0) << r.err;
  const auto formats = nlohmann::json::parse(r.out);
  std::map<std::string, std::vector<std::string>> by_command;
  for (const auto& f : formats) {
    EXPECT_FALSE(f["description"].get<std::string>().empty());
    for (const auto& c : f["commands"])
      by_command[c.get<std::string>()].push_back(f["name"].get<std::string>());
  }
  for (const char* command : {"export", "compare", "check", "size"}) {
    ASSERT_TRUE(by_command.count(command)) << command;
    const auto help = run_cli({command, "--help"});
    ASSERT_EQ(help.rc, 0) << command;
    const std::string choices = fmt::format("{}", fmt::join(by_command[command], " | "));
    EXPECT_NE(help.out.find(choices), std::string::npos) << command << " should list " << choices << ":\n"
                                                         << help.out;
  }
  EXPECT_EQ(by_command["export"], (std::vector<std::string>{"html", "prometheus", "fio"}));
  // export's description names its formats from the same list.
  const auto& exported = by_command["export"];
  std::string sentence;
  for (std::size_t i = 0; i < exported.size(); ++i)
    sentence += (i == 0 ? "" : i + 1 == exported.size() ? " or " : ", ") + exported[i];
  const auto export_help = run_cli({"export", "--help"});
  EXPECT_NE(export_help.out.find("Export a report in a format other tools read: " + sentence),
            std::string::npos)
      << export_help.out;
  // The table for people: a line per format with what it is, then the commands that write it.
  const auto table = run_cli({"list", "--formats"});
  ASSERT_EQ(table.rc, 0) << table.err;
  for (const auto& f : formats) {
    EXPECT_NE(table.out.find(f["name"].get<std::string>() + " "), std::string::npos) << table.out;
    EXPECT_NE(table.out.find(f["description"].get<std::string>()), std::string::npos) << table.out;
  }
}

// --formats and --commands each replace the probe list: asked together, one would be dropped unsaid.
TEST(FormatsCli, ListFormatsAndCommandsTogetherIsOneUsageError) {
  const auto r = run_cli({"list", "--formats", "--commands"});
  EXPECT_EQ(r.rc, 2);
  EXPECT_TRUE(r.out.empty()) << r.out;
  EXPECT_NE(r.err.find("mlbench: error:"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("--commands"), std::string::npos) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
}

}  // namespace
}  // namespace mlbench::test
