// The option-table facility: typed values from JSON or flag text, ranges, defaults, unknown keys, and errors
// that name the option the way the user gave it.
#include "bench/options.hpp"

#include <gtest/gtest.h>

#include "base/error.hpp"

namespace mlbench {
namespace {

using nlohmann::json;

constexpr OptionSpec kTable[] = {
    {.name = "bs",
     .type = OptionType::size,
     .def = "4k",
     .unit = "B",
     .min = 1,
     .max = 1 << 30,
     .help = "Block"},
    {.name = "iodepth", .type = OptionType::integer, .def = "1", .min = 1, .max = 4096, .help = "Depth"},
    {.name = "runtime",
     .type = OptionType::duration,
     .def = "10s",
     .unit = "s",
     .min = 0,
     .min_exclusive = true,
     .help = "Time"},
    {.name = "rw",
     .type = OptionType::choice,
     .def = "randread",
     .choices =
         [] {
           return std::vector<std::string_view>{"read", "randread"};
         },
     .help = "Mode"},
    {.name = "kernels",
     .type = OptionType::choices,
     .def = "all",
     .choices =
         [] {
           return std::vector<std::string_view>{"copy", "triad"};
         },
     .help = "Kernels"},
    {.name = "sizes",
     .type = OptionType::integers,
     .def = "1024..16384",
     .min = 1,
     .max = 1 << 17,
     .help = "N"},
    {.name = "direct", .type = OptionType::flag, .def = "true", .help = "O_DIRECT", .off_help = "Buffered"},
    {.name = "factor", .type = OptionType::number, .def = "2", .min = 1, .min_exclusive = true, .help = "F"},
    {.name = "target", .type = OptionType::paths, .help = "Where"},
    {.name = "rwmix_read",
     .type = OptionType::integer,
     .def = "50",
     .unit = "%",
     .min = 0,
     .max = 100,
     .help = "R"},
};

std::string error_of(const json& options, const OptionSource& source = {}) {
  try {
    parse_options(kTable, options, source);
  } catch (const UsageError& e) {
    return e.what();
  }
  return "accepted";
}

TEST(Options, FlagTextAndJsonGiveTheSameTypedValues) {
  auto cli =
      parse_options(kTable, json{{"bs", "128k"}, {"iodepth", "32"}, {"runtime", "2m"}, {"factor", "1.5"}});
  auto cfg = parse_options(kTable, json{{"bs", 131072}, {"iodepth", 32}, {"runtime", 120}, {"factor", 1.5}});
  for (const auto* v : {&cli, &cfg}) {
    EXPECT_EQ(v->get<std::uint64_t>("bs"), 128u * 1024);
    EXPECT_EQ(v->get<std::int64_t>("iodepth"), 32);
    EXPECT_DOUBLE_EQ(v->get<double>("runtime"), 120.0);
    EXPECT_DOUBLE_EQ(v->get<double>("factor"), 1.5);
    EXPECT_TRUE(v->has("bs"));
    EXPECT_FALSE(v->has("rw"));
  }
}

TEST(Options, DefaultsComeFromTheTableText) {
  auto v = parse_options(kTable, json::object());
  EXPECT_EQ(v.get<std::uint64_t>("bs"), 4096u);
  EXPECT_EQ(v.get<std::int64_t>("iodepth"), 1);
  EXPECT_DOUBLE_EQ(v.get<double>("runtime"), 10.0);
  EXPECT_EQ(v.get<std::string>("rw"), "randread");
  EXPECT_TRUE(v.get<bool>("direct"));
  EXPECT_FALSE(v.given<std::uint64_t>("bs"));
  // A default in words is the probe's to apply; reading it as a value is a bug.
  EXPECT_THROW(v.get<std::vector<std::string>>("kernels"), std::logic_error);
  EXPECT_THROW(v.get<std::string>("bs"), std::logic_error) << "the wrong type";
  EXPECT_THROW(v.has("nope"), std::logic_error) << "not in the table";
  EXPECT_THROW(v.given<bool>("nope"), std::logic_error);
  EXPECT_TRUE(parse_options(kTable, json()).effective().contains("bs")) << "null is no options";
}

TEST(Options, ListsSplitAtCommasDropDuplicatesAndCheckChoices) {
  auto v = parse_options(kTable, json{{"kernels", json::array({"triad,copy", "triad"})},
                                      {"sizes", "4096, 8192"},
                                      {"target", json::array({"/a,b", "/c"})}});
  EXPECT_EQ(v.get<std::vector<std::string>>("kernels"), (std::vector<std::string>{"triad", "copy"}));
  EXPECT_EQ(v.get<std::vector<std::int64_t>>("sizes"), (std::vector<std::int64_t>{4096, 8192}));
  EXPECT_EQ(v.get<std::vector<std::string>>("target"), (std::vector<std::string>{"/a,b", "/c"}))
      << "paths are never split";
  EXPECT_NE(
      error_of(json{{"kernels", "copy,dot"}}).find("--kernels: unknown value 'dot' (use copy or triad)"),
      std::string::npos);
  EXPECT_NE(error_of(json{{"kernels", ","}}).find("--kernels: the list is empty"), std::string::npos);
  EXPECT_NE(error_of(json{{"sizes", "8,0"}}).find("--sizes: 0 is out of range (1 to 131072)"),
            std::string::npos);
}

TEST(Options, ATypeOrRangeErrorNamesTheFlagOnTheCommandLine) {
  EXPECT_EQ(error_of(json{{"bs", "4q"}}).rfind("--bs: ", 0), 0u) << error_of(json{{"bs", "4q"}});
  EXPECT_EQ(error_of(json{{"bs", "2G"}}), "--bs: 2G is out of range (1 to 1G)");
  EXPECT_EQ(error_of(json{{"bs", -5}}), "--bs: '-5' is negative; give a positive size such as 4k or 1G");
  EXPECT_EQ(error_of(json{{"iodepth", "0"}}), "--iodepth: 0 is out of range (1 to 4096)");
  EXPECT_EQ(error_of(json{{"iodepth", "two"}}), "--iodepth: 'two' is not a whole number");
  EXPECT_EQ(error_of(json{{"rwmix_read", 101}}), "--rwmix-read: 101 is out of range (0 to 100)");
  EXPECT_EQ(error_of(json{{"runtime", 0}}), "--runtime: 0 is out of range (greater than 0s)");
  EXPECT_EQ(error_of(json{{"factor", 1}}), "--factor: 1 is out of range (greater than 1)");
  EXPECT_EQ(error_of(json{{"rw", "sideways"}}), "--rw: unknown value 'sideways' (use read or randread)");
  EXPECT_EQ(error_of(json{{"direct", "yes"}}), "--direct: 'yes' is not true or false");
}

TEST(Options, TheSameErrorFromAConfigNamesTheKeyPath) {
  auto cfg = OptionSource::config("storage.io");
  EXPECT_EQ(error_of(json{{"bs", "2G"}}, cfg), "options.storage.io.bs: 2G is out of range (1 to 1G)");
  EXPECT_EQ(error_of(json{{"rwmix_read", 101}}, cfg),
            "options.storage.io.rwmix_read: 101 is out of range (0 to 100)");
  EXPECT_EQ(error_of(json::array(), cfg), "options.storage.io: expected a mapping of option names to values");
  EXPECT_EQ(cfg.name("rwmix_read"), "options.storage.io.rwmix_read");
  EXPECT_EQ(OptionSource().name("rwmix_read"), "--rwmix-read");
}

TEST(Options, AnUnknownKeyIsRefusedNamingTheKeysAllowed) {
  auto what = error_of(json{{"bogus", 1}}, OptionSource::config("storage.io"));
  EXPECT_EQ(what.rfind("options.storage.io.bogus: unknown option (allowed: bs, iodepth, runtime, ", 0), 0u)
      << what;
}

TEST(Options, EffectiveShowsGivenValuesNormalisedAndTheDefaults) {
  auto e = parse_options(kTable, json{{"bs", "1M"}, {"direct", false}}).effective();
  EXPECT_EQ(e["bs"], 1u << 20);
  EXPECT_EQ(e["direct"], false);
  EXPECT_EQ(e["iodepth"], 1);
  EXPECT_EQ(e["runtime"], 10.0);
  EXPECT_EQ(e["kernels"], "all") << "a default in words";
  EXPECT_FALSE(e.contains("target")) << "no default";
}

// fio's spelling of an option is an alias in its one row (fio users type --numjobs for --jobs).
constexpr OptionSpec kAliased[] = {
    {.name = "jobs", .alias = "numjobs", .type = OptionType::integer, .def = "1", .min = 1, .help = "Jobs"}};

TEST(Options, AnAliasIsTheSameOption) {
  EXPECT_EQ(parse_options(kAliased, json{{"numjobs", 4}}).get<std::int64_t>("jobs"), 4);
  EXPECT_EQ(parse_options(kAliased, json{{"jobs", 3}}).get<std::int64_t>("jobs"), 3);
  try {
    parse_options(kAliased, json{{"jobs", 2}, {"numjobs", 4}}, OptionSource::config("storage.io"));
    FAIL() << "both names accepted";
  } catch (const UsageError& e) {
    EXPECT_STREQ(e.what(),
                 "options.storage.io.jobs and options.storage.io.numjobs are the same option; give it once");
  }
  auto j = options_to_json(kAliased);
  EXPECT_EQ(j[0]["alias"], "numjobs");
}

TEST(Options, TheTableAsListJsonDocumentsIt) {
  auto j = options_to_json(kTable);
  ASSERT_EQ(j.size(), std::size(kTable));
  EXPECT_EQ(j[0], (json{{"name", "bs"},
                        {"type", "size"},
                        {"default", "4k"},
                        {"unit", "B"},
                        {"range", "1 to 1G"},
                        {"help", "Block"},
                        {"flag", "--bs"}}));
  EXPECT_EQ(j[3]["choices"], (json{"read", "randread"}));
  EXPECT_EQ(j[9]["flag"], "--rwmix-read");
  EXPECT_FALSE(j[8].contains("range"));
}

}  // namespace
}  // namespace mlbench
