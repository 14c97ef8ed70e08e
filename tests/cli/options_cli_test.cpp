// The option tables through the binary: every family subcommand's flags are its probe's table, list --json
// documents the tables, --dry-run shows the effective options, and an error names the option as the user gave
// it (--bs on the command line, options.storage.io.bs in a --config file).
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <vector>

#include <nlohmann/json.hpp>

#include "storage/io/fio.hpp"
#include "tests/cli/cli_util.hpp"

namespace mlbench::test {
namespace {

using nlohmann::json;

json probes_listed() {
  auto r = run_cli({"list", "--json"});
  EXPECT_EQ(r.rc, 0) << r.err;
  return json::parse(r.out);
}

// The flags a subcommand's --help lists, apart from those every run-like subcommand has.
std::set<std::string> help_flags(const std::string& command) {
  auto r = run_cli({command, "--help"});
  EXPECT_EQ(r.rc, 0) << r.err;
  static const std::set<std::string> kCommon = {"--help", "--output",  "--profile", "--dry-run",
                                                "--json", "--verbose", "--require"};
  static const std::regex kOption(R"(^\s+(?:-\w,)?(--[a-z0-9_-]+)(?:,(--[a-z0-9_-]+))?)");
  std::set<std::string> out;
  std::istringstream lines(r.out);
  std::string line;
  std::smatch m;
  while (std::getline(lines, line)) {
    if (std::regex_search(line, m, kOption) && !kCommon.contains(m[1].str())) {
      out.insert(m[1].str());
      if (m[2].matched) out.insert(m[2].str());  // an alias: --jobs,--numjobs
    }
  }
  return out;
}

TEST(OptionsCli, EachFamilySubcommandsFlagsAreExactlyItsProbesTable) {
  const std::map<std::string, std::string> kCommands = {{"storage.io", "storage"},
                                                        {"storage.dataload", "dataload"},
                                                        {"storage.checkpoint", "checkpoint"},
                                                        {"host.membw", "hostmem"},
                                                        {"net.nccl", "nccl"},
                                                        {"serve.llm", "serve"},
                                                        {"gpu.gemm", "gemm"},
                                                        {"gpu.hbm", "hbm"},
                                                        {"gpu.copy", "copy"},
                                                        {"gpu.conv", "conv"}};
  auto probes = probes_listed();
  ASSERT_EQ(probes.size(), kCommands.size());
  for (const auto& p : probes) {
    const std::string id = p["id"];
    ASSERT_TRUE(kCommands.contains(id)) << id;
    std::set<std::string> expected;
    for (const auto& o : p["options"]) {
      if (!o.contains("flag")) continue;
      const std::string flag = o["flag"];
      expected.insert(flag);
      if (o.contains("alias"))
        expected.insert("--" + std::regex_replace(o["alias"].get<std::string>(), std::regex("_"), "-"));
      if (o["type"] == "bool" && o["default"] == "true") expected.insert("--no-" + flag.substr(2));
    }
    // `mlbench storage` also takes fio's spellings, one flag per row of their table.
    if (id == "storage.io")
      for (const auto& f : storage::fio_options()) expected.insert("--" + std::string(f.fio));
    EXPECT_FALSE(expected.empty()) << id;
    EXPECT_EQ(help_flags(kCommands.at(id)), expected) << id;
  }
}

TEST(OptionsCli, ListJsonCarriesEachProbesTable) {
  json bs;
  for (const auto& p : probes_listed()) {
    ASSERT_TRUE(p["options"].is_array()) << p.dump();
    EXPECT_FALSE(p["options"].empty()) << p["id"];
    for (const auto& o : p["options"]) {
      EXPECT_TRUE(o.contains("name") && o.contains("type") && o.contains("help")) << o.dump();
      if (p["id"] == "storage.io" && o["name"] == "bs") bs = o;
    }
  }
  EXPECT_EQ(bs["type"], "size");
  EXPECT_EQ(bs["default"], "4k");
  EXPECT_EQ(bs["unit"], "B");
  EXPECT_EQ(bs["range"], "1 to 1G");
  EXPECT_EQ(bs["flag"], "--bs");
}

// Every long flag a command's --help lists, and the subcommands the top-level --help lists.
std::set<std::string> all_help_flags(const std::vector<std::string>& args) {
  auto r = run_cli(args);
  EXPECT_EQ(r.rc, 0) << r.err;
  static const std::regex kOption(R"(^\s+(?:-\w,)?(--[a-z0-9_-]+)(?:,(--[a-z0-9_-]+))?)");
  std::set<std::string> out;
  std::istringstream lines(r.out);
  std::string line;
  std::smatch m;
  while (std::getline(lines, line)) {
    if (std::regex_search(line, m, kOption)) {
      out.insert(m[1].str());
      if (m[2].matched) out.insert(m[2].str());
    }
  }
  return out;
}

// `list --commands --json` reads the CLI11 app itself: every subcommand, and each one's flags exactly as its
// --help lists them (less --help), with the defaults, required marks and validators the options carry.
TEST(OptionsCli, ListCommandsJsonDescribesEveryCommandsFlagsFromTheApp) {
  auto r = run_cli({"list", "--commands", "--json"});
  ASSERT_EQ(r.rc, 0) << r.err;
  const auto commands = json::parse(r.out);
  ASSERT_TRUE(commands.is_array());
  std::set<std::string> listed;
  std::map<std::string, json> by_flag;  // "compare --threshold" -> its row
  for (const auto& c : commands) {
    const std::string name = c["command"];
    listed.insert(name);
    EXPECT_FALSE(c["description"].get<std::string>().empty()) << name;
    std::set<std::string> flags;
    for (const auto& o : c["options"]) {
      EXPECT_TRUE(o.contains("description") && o.contains("takes") && o.contains("required")) << o.dump();
      for (const auto& f : o.value("flags", json::array())) {
        const std::string flag = f;
        if (flag.starts_with("--")) flags.insert(flag);
        by_flag[name + " " + flag] = o;
      }
    }
    flags.insert("--help");
    EXPECT_EQ(flags, all_help_flags({name, "--help"})) << name;
  }
  // The subcommands of the top-level help, one line each under "Subcommands:".
  auto help = run_cli({"--help"});
  std::set<std::string> subcommands;
  std::istringstream lines(help.out.substr(help.out.find("Subcommands:")));
  std::string line;
  std::smatch m;
  while (std::getline(lines, line))
    if (std::regex_search(line, m, std::regex(R"(^  ([a-z]+) )"))) subcommands.insert(m[1].str());
  EXPECT_EQ(listed, subcommands);

  const auto& threshold = by_flag["compare --threshold"];
  EXPECT_EQ(threshold["default"], "5") << threshold.dump();
  EXPECT_EQ(threshold["takes"], "a value");
  ASSERT_TRUE(threshold.contains("checks")) << threshold.dump();
  EXPECT_NE(threshold["checks"][0].get<std::string>().find("[0 - 100]"), std::string::npos)
      << threshold.dump();
  EXPECT_TRUE(by_flag["size --workload"]["required"].get<bool>());
  EXPECT_FALSE(by_flag["size --nodes"]["required"].get<bool>());
  EXPECT_EQ(by_flag["compare --fleet"]["takes"], "nothing");
  // A family command's flags that are rows of its probe's table say so; its own do not.
  EXPECT_EQ(by_flag["storage --bs"]["probe_option"], "storage.io");
  EXPECT_FALSE(by_flag["storage --output"].contains("probe_option"));
  for (const auto& c : commands) {
    if (c["command"] == "storage") {
      EXPECT_EQ(c["probe"], "storage.io");
    }
    if (c["command"] == "run") {
      EXPECT_FALSE(c.contains("probe"));
    }
  }
}

TEST(OptionsCli, ARangeErrorOnTheCommandLineNamesTheFlag) {
  TempDir dir;
  auto r = run_cli({"storage", "--target", dir.path().string(), "--bs", "2G", "--dry-run"});
  EXPECT_EQ(r.rc, 2) << r.err;
  EXPECT_NE(r.err.find("--bs: 2G is out of range (1 to 1G)"), std::string::npos) << r.err;
  auto mix = run_cli({"storage", "--target", dir.path().string(), "--rwmix-read", "70", "--dry-run"});
  EXPECT_EQ(mix.rc, 2) << mix.err;
  EXPECT_NE(mix.err.find("--rwmix-read only applies to --rw rw or randrw"), std::string::npos) << mix.err;
}

TEST(OptionsCli, TheSameErrorFromAConfigNamesTheKeyPath) {
  TempDir dir;
  auto cfg = dir.path() / "c.yaml";
  std::ofstream(cfg) << "options:\n  storage.io: {target: '" << dir.path().string() << "', bs: 2G}\n";
  auto r = run_cli({"run", "--probe", "storage.io", "--config", cfg.string(), "--dry-run"});
  EXPECT_EQ(r.rc, 2) << r.err;
  EXPECT_NE(r.err.find(cfg.string() + ": options.storage.io.bs: 2G is out of range (1 to 1G)"),
            std::string::npos)
      << r.err;
  // A check between options, made by the probe after the table's, names the keys of the file too.
  std::ofstream(cfg) << "options:\n  storage.io: {target: '" << dir.path().string() << "', rwmix_read: 70}\n";
  r = run_cli({"run", "--probe", "storage.io", "--config", cfg.string(), "--dry-run"});
  EXPECT_EQ(r.rc, 2) << r.err;
  EXPECT_NE(r.err.find("options.storage.io.rwmix_read only applies to options.storage.io.rw rw or randrw"),
            std::string::npos)
      << r.err;
}

TEST(OptionsCli, ACheckAgainstTheTargetNamesTheOptionAsGivenToo) {
  TempDir dir;
  auto file = dir.path() / "data";
  std::ofstream(file) << std::string(1 << 20, 'x');
  auto r = run_cli({"storage", "--target", file.string(), "--size", "2M", "--dry-run"});
  EXPECT_EQ(r.rc, 2) << r.err;
  EXPECT_NE(r.err.find("--size 2097152 does not fit in " + file.string()), std::string::npos) << r.err;
  auto cfg = dir.path() / "c.yaml";
  std::ofstream(cfg) << "options:\n  storage.io: {target: '" << file.string() << "', size: 2M}\n";
  r = run_cli({"run", "--probe", "storage.io", "--config", cfg.string(), "--dry-run"});
  EXPECT_EQ(r.rc, 2) << r.err;
  EXPECT_NE(r.err.find("options.storage.io.size 2097152 does not fit in " + file.string() +
                       " (1048576 B after options.storage.io.offset); use a smaller options.storage.io.size"),
            std::string::npos)
      << r.err;
}

TEST(OptionsCli, AConfigKeyNotInTheTableIsRefusedAlsoForAProbeThatCannotRunHere) {
  TempDir dir;
  auto cfg = dir.path() / "c.yaml";
  std::ofstream(cfg) << "options:\n  host.membw: {size: 96M, bogus: 1}\n";
  auto r = run_cli({"run", "--probe", "host.membw", "--config", cfg.string(), "--dry-run"});
  EXPECT_EQ(r.rc, 2) << r.err;
  EXPECT_NE(r.err.find("options.host.membw.bogus: unknown option (allowed: threads, size, kernels, numa, "),
            std::string::npos)
      << r.err;
  std::ofstream(cfg) << "options:\n  gpu.gemm: {precisions: fp4}\n";
  r = run_cli({"run", "--probe", "host.membw", "--config", cfg.string(), "--dry-run"});
  EXPECT_EQ(r.rc, 2) << r.err;
  EXPECT_NE(r.err.find("options.gpu.gemm.precisions: unknown value 'fp4'"), std::string::npos) << r.err;
}

TEST(OptionsCli, DryRunShowsTheEffectiveOptions) {
  auto r = run_cli({"hostmem", "--dry-run", "--threads", "1", "--kernels", "triad,copy"});
  ASSERT_EQ(r.rc, 0) << r.err;
  // What the report's run.options records: flags typed as a config file would give them, lists as written.
  auto given = json::parse(r.out)["options"]["host.membw"];
  EXPECT_EQ(given, (json{{"threads", 1}, {"kernels", {"triad,copy"}}})) << given.dump();
  EXPECT_TRUE(given["threads"].is_number_integer()) << given.dump();
  auto effective = json::parse(r.out)["effective_options"]["host.membw"];
  EXPECT_EQ(effective["threads"], 1);
  EXPECT_EQ(effective["kernels"], (json{"triad", "copy"}));
  EXPECT_EQ(effective["stores"], "auto") << "the table's default";
  EXPECT_EQ(effective["numa"], true);
  EXPECT_EQ(effective["size"], "each array >= 1 GiB and >= 4x the last-level caches") << "a default in words";

  r = run_cli({"storage", "--dry-run", "--target", ".", "--iodepth", "16", "--bs", "128k"});
  ASSERT_EQ(r.rc, 0) << r.err;
  given = json::parse(r.out)["options"]["storage.io"];
  EXPECT_EQ(given["iodepth"], 16) << "an integer flag is a number, as in a config file";
  EXPECT_EQ(given["bs"], "128k") << "a size keeps its suffix, as the user wrote it";
}

}  // namespace
}  // namespace mlbench::test
