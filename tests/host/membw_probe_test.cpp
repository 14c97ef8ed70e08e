// host.membw options, planning and one real quick run on small arrays.
#include <gtest/gtest.h>

#include <atomic>

#include "bench/sysinfo.hpp"
#include "kernels/host/membw_probe.hpp"

namespace mlbench::hostmem {
namespace {

TEST(MembwOptions, DefaultsAndParsing) {
  auto d = parse_membw_options(Json::object());
  EXPECT_EQ(d.kernels.size(), 4u);
  EXPECT_TRUE(d.numa);
  EXPECT_FALSE(d.threads);
  auto o = parse_membw_options(Json{
      {"threads", 3}, {"size", "1G"}, {"kernels", "triad,copy"}, {"numa", false}, {"stores", "regular"}});
  EXPECT_EQ(*o.threads, 3);
  EXPECT_EQ(*o.size_bytes, 1ULL << 30);
  EXPECT_EQ(o.kernels, (std::vector<Kernel>{Kernel::copy, Kernel::triad}));  // always in STREAM order
  EXPECT_FALSE(o.numa);
  EXPECT_EQ(o.stores, Stores::regular);
  EXPECT_EQ(parse_membw_options(Json{{"kernels", {"add"}}}).kernels, std::vector<Kernel>{Kernel::add});
}

TEST(MembwOptions, BadValuesAreUsageErrors) {
  for (const Json& bad :
       {Json{{"bogus", 1}}, Json{{"threads", 0}}, Json{{"threads", "two"}}, Json{{"size", "lots"}},
        Json{{"size", -5}}, Json{{"kernels", "triad,dot"}}, Json{{"kernels", ""}}, Json{{"numa", "yes"}},
        Json{{"stores", "fast"}}, Json{{"isa", "neon"}}, Json::array()}) {
    EXPECT_THROW(parse_membw_options(bad), UsageError) << bad.dump();
  }
}

TEST(MembwPolicy, QuickIsShort) {
  auto q = membw_policy(Profile::quick);
  auto d = membw_policy(Profile::standard);
  EXPECT_LT(q.min_samples, d.min_samples);
  EXPECT_LE(q.max_time_s, 3.0);
  EXPECT_GE(d.min_samples, 20);
}

TEST(MembwLlc, PrefersSysfsTotal) {
  auto host = collect_host_info(SysReader(std::filesystem::path(MLBENCH_TEST_DATA_DIR) / "sysfs/two_socket"));
  auto llc = llc_size(host);
  ASSERT_TRUE(llc);
  EXPECT_EQ(llc->bytes, 2 * 107520ULL * 1024);
  EXPECT_EQ(llc->source, "sysfs");
}

TEST(MembwPlan, FixtureHostGetsOneCasePerRun) {
  auto host = collect_host_info(SysReader(std::filesystem::path(MLBENCH_TEST_DATA_DIR) / "sysfs/two_socket"));
  auto probe = make_membw_probe();
  Json options{{"threads", 2}};
  auto cases = probe->plan(PlanContext{Profile::quick, host, options});
  ASSERT_EQ(cases.size(), 1u);
  EXPECT_EQ(cases[0].params["threads"], 2);
  // 4x both sockets' L3 (840 MiB) is below the floor, so each array is 1 GiB, in the quick profile too.
  EXPECT_EQ(cases[0].params["array_bytes"], 1ULL << 30);
  EXPECT_EQ(cases[0].params["array_bytes"],
            array_size(2 * 107520ULL * 1024, available_memory(host), false).bytes);
  EXPECT_EQ(cases[0].config["stores"], "nt");
  Json too_big{{"size", "100T"}};
  EXPECT_THROW(probe->plan(PlanContext{Profile::quick, host, too_big}), UsageError);
  Json too_small{{"size", 1024}};
  EXPECT_THROW(probe->plan(PlanContext{Profile::quick, host, too_small}), UsageError);
}

// A hypervisor (the x86 `hypervisor` CPU flag in the host inventory) makes the plan say that the cache size
// it reports may be the VM's, not the host's.
TEST(MembwPlan, HypervisorFlagSaysTheCacheReadingMayBeVirtual) {
  auto host = collect_host_info(SysReader(std::filesystem::path(MLBENCH_TEST_DATA_DIR) / "sysfs/two_socket"));
  auto probe = make_membw_probe();
  Json options{{"threads", 2}};
  auto bare = probe->plan(PlanContext{Profile::quick, host, options});
  EXPECT_EQ(bare[0].config["warnings"].dump().find("virtual machine"), std::string::npos);
  EXPECT_FALSE(bare[0].config["llc"].contains("hypervisor"));
  host["cpu"]["flags"].push_back("hypervisor");
  auto vm = probe->plan(PlanContext{Profile::quick, host, options});
  ASSERT_EQ(vm.size(), 1u);
  const auto warnings = vm[0].config["warnings"].dump();
  EXPECT_NE(warnings.find("virtual machine"), std::string::npos) << warnings;
  EXPECT_NE(warnings.find("210.00 MiB"), std::string::npos) << warnings;
  EXPECT_EQ(vm[0].config["llc"]["hypervisor"], true);
  EXPECT_EQ(vm[0].params["array_bytes"], 1ULL << 30);
  // An explicit size below the rule is honoured, with a warning.
  Json small{{"threads", 2}, {"size", "192M"}};
  auto s = probe->plan(PlanContext{Profile::quick, host, small});
  EXPECT_EQ(s[0].params["array_bytes"], 64ULL << 20);
  EXPECT_NE(s[0].config["warnings"].dump().find("below the 1.00 GiB"), std::string::npos);
}

TEST(MembwPlan, MoreThreadsThanCpusWarns) {
  auto host = collect_host_info(SysReader(std::filesystem::path(MLBENCH_TEST_DATA_DIR) / "sysfs/two_socket"));
  auto probe = make_membw_probe();
  Json options{{"threads", 4096}, {"size", "192M"}};  // more than any test machine lets this process use
  auto cases = probe->plan(PlanContext{Profile::quick, host, options});
  ASSERT_EQ(cases.size(), 1u);
  const auto warnings = cases[0].config["warnings"].dump();
  EXPECT_NE(warnings.find("--threads 4096 is more than the "), std::string::npos) << warnings;
  Json fits{{"threads", 1}, {"size", "192M"}};
  EXPECT_EQ(
      probe->plan(PlanContext{Profile::quick, host, fits})[0].config["warnings"].dump().find("--threads"),
      std::string::npos);
}

TEST(MembwRun, QuickRunIsVerifiedWithPositiveBandwidth) {
  auto host = collect_host_info(SysReader("/"));
  auto probe = make_membw_probe();
  Json options{{"size", "48M"}, {"threads", 2}};
  auto cases = probe->plan(PlanContext{Profile::quick, host, options});
  ASSERT_EQ(cases.size(), 1u);
  std::atomic<bool> stop{false};
  RunContext ctx{host, std::chrono::steady_clock::now() + std::chrono::seconds(60), stop};
  auto results = probe->run(cases[0], ctx);
  ASSERT_EQ(results.size(), 4u);
  const char* names[] = {"copy", "scale", "add", "triad"};
  for (std::size_t i = 0; i < results.size(); ++i) {
    const auto& r = results[i];
    EXPECT_EQ(r.status, Status::ok) << r.reason;
    EXPECT_EQ(r.params["kernel"], names[i]);
    EXPECT_EQ(r.params["threads"], 2);
    ASSERT_FALSE(r.metrics.empty());
    EXPECT_EQ(r.metrics.front().name, "bandwidth");
    EXPECT_EQ(r.metrics.front().unit, "B/s");
    EXPECT_GT(r.metrics.front().value, 0.0);
    EXPECT_GE(r.samples.size(), 3u);
    double bytes = (i < 2 ? 16.0 : 24.0) * (48.0 * (1 << 20) / 3 / 8);
    EXPECT_DOUBLE_EQ(r.work["bytes"].get<double>(), bytes);
    EXPECT_EQ(r.info["verified_elements"], 48 * (1 << 20) / 3 / 8);
  }
}

}  // namespace
}  // namespace mlbench::hostmem
