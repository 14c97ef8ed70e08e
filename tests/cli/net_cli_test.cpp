// `mlbench nccl` for real on this machine: bad input, the single-process mode without a GPU, and the
// multi-process mode with 2–3 real processes on 127.0.0.1 (TCP rendezvous, and mpirun when built with MPI)
// producing one merged cluster report; a rendezvous whose peer never comes ends within its timeout.
#include <unistd.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <future>

#include <nlohmann/json.hpp>

#include "mlbench_config.hpp"
#include "tests/cli/cli_util.hpp"

namespace mlbench::test {
namespace {

using nlohmann::json;

json read_json(const std::filesystem::path& p) {
  std::ifstream in(p);
  return json::parse(in);
}

// Every result of net.nccl skipped because this machine has no GPU (or the build has no NCCL).
void expect_nccl_skipped(const json& report) {
  ASSERT_FALSE(report["results"].empty());
  for (const auto& r : report["results"]) {
    EXPECT_EQ(r["probe"], "net.nccl");
    EXPECT_EQ(r["status"], "skipped");
    EXPECT_FALSE(r["reason"].get<std::string>().empty());
  }
}

TEST(NetCli, BadInputIsOneLineAndExitTwo) {
  TempDir dir;
  auto out = (dir.path() / "r.json").string();
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases{
      {{"--min-bytes", "1G", "--max-bytes", "1M"}, "--min-bytes"},
      {{"--factor", "1"}, "--factor"},
      {{"--ops", "all_reduce,allreduce"}, "unknown collective 'allreduce'"},
      {{"--dtype", "fp64"}, "unknown data type 'fp64'"},
      {{"--iters", "0"}, "--iters"},
  };
  for (const auto& [args, needle] : cases) {
    std::vector<std::string> argv{"nccl", "-o", out};
    argv.insert(argv.end(), args.begin(), args.end());
    auto r = run_cli(argv);
    EXPECT_EQ(r.rc, 2) << needle << "\n" << r.err;
    EXPECT_NE(r.err.find(needle), std::string::npos) << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    EXPECT_FALSE(std::filesystem::exists(out));
  }
  auto addr = run_cli({"nccl", "-o", out}, {"RANK=0", "WORLD_SIZE=2", "MASTER_ADDR=10.0.0.300"});
  EXPECT_EQ(addr.rc, 2) << addr.err;
  EXPECT_NE(addr.err.find("MASTER_ADDR='10.0.0.300'"), std::string::npos) << addr.err;
  EXPECT_FALSE(std::filesystem::exists(out));
  auto world = run_cli({"nccl"}, {"RANK=3", "WORLD_SIZE=2", "MASTER_ADDR=127.0.0.1"});
  EXPECT_EQ(world.rc, 2) << world.err;
}

TEST(NetCli, SingleProcessWithoutGpuRecordsTheSkip) {
  TempDir dir;
  auto out = dir.path() / "r.json";
  auto r = run_cli({"nccl", "--profile", "quick", "-o", out.string()});
  ASSERT_EQ(r.rc, 0) << r.err;
  auto report = read_json(out);
  expect_nccl_skipped(report);
  EXPECT_FALSE(report.contains("cluster"));
  EXPECT_EQ(validate_report_schema(out), "");
}

TEST(NetCli, ThreeRanksOnLocalhostMergeIntoOneClusterReport) {
  TempDir dir;
  auto out = dir.path() / "cluster.json";
  const int port = free_port();
  constexpr int kWorld = 3;
  std::vector<std::future<CliResult>> ranks;
  for (int r = kWorld - 1; r >= 0; --r) {
    std::vector<std::string> args{"nccl", "--profile", "quick", "--timeout", "60"};
    if (r == 0) args.insert(args.end(), {"-o", out.string()});
    ranks.push_back(
        std::async(std::launch::async, [args, r, port] { return run_cli(args, rank_env(r, kWorld, port)); }));
  }
  for (auto& f : ranks) {
    auto res = f.get();
    EXPECT_EQ(res.rc, 0) << res.err;
  }
  ASSERT_TRUE(std::filesystem::exists(out));
  EXPECT_EQ(std::distance(std::filesystem::directory_iterator(dir.path()), {}), 1);  // one merged report
  auto report = read_json(out);
  ASSERT_TRUE(report.contains("cluster"));
  const auto& cluster = report["cluster"];
  EXPECT_EQ(cluster["world_size"], kWorld);
  EXPECT_EQ(cluster["launcher"], "torchrun");
  EXPECT_EQ(cluster["bootstrap"], "tcp 127.0.0.1:" + std::to_string(port));
  ASSERT_EQ(cluster["ranks"].size(), static_cast<std::size_t>(kWorld));
  for (int r = 0; r < kWorld; ++r) {
    const auto& e = cluster["ranks"][static_cast<std::size_t>(r)];
    EXPECT_EQ(e["rank"], r);
    EXPECT_EQ(e["local_rank"], r);
    EXPECT_TRUE(e["node"].is_string());
    EXPECT_TRUE(e["gpu"].is_null());  // no GPU here
    EXPECT_TRUE(e["host"].contains("cpu"));
  }
  expect_nccl_skipped(report);
  EXPECT_NE(report["results"][0]["reason"].get<std::string>().find("rank"), std::string::npos);
  EXPECT_EQ(validate_report_schema(out), "");
}

TEST(NetCli, RendezvousWithAMissingPeerEndsWithinItsTimeoutNamingIt) {
  TempDir dir;
  auto out = dir.path() / "cluster.json";
  const int port = free_port();
  auto peer = std::async(std::launch::async, [port] {
    return run_cli({"nccl", "--timeout", "2"}, rank_env(2, 3, port));
  });
  auto root = run_cli({"nccl", "--timeout", "2", "-o", out.string()}, rank_env(0, 3, port));
  EXPECT_EQ(root.rc, 1) << root.err;
  EXPECT_NE(root.err.find("rank 1 of 3 never arrived"), std::string::npos) << root.err;
  auto p = peer.get();
  EXPECT_NE(p.rc, 0);
  EXPECT_FALSE(std::filesystem::exists(out));
}

TEST(NetCli, MpirunTwoRanksOnLocalhostMergeIntoOneClusterReport) {
  if (!MLBENCH_HAS_MPI) GTEST_SKIP() << "built without MPI";
  const char* mpirun = "/usr/bin/mpirun";
  if (::access(mpirun, X_OK) != 0) GTEST_SKIP() << "mpirun not installed";
  TempDir dir;
  auto out = dir.path() / "cluster.json";
  // Loopback only: MPI's own wire-up and transport stay on 127.0.0.1.
  // Open MPI keeps allocations past MPI_Finalize in components it has unloaded (LeakSanitizer cannot name
  // them to suppress them): leak checking is off for the ranks of this test only (no-op without ASan).
  auto r = spawn_program({mpirun,
                          "-np",
                          "2",
                          "--allow-run-as-root",
                          "--oversubscribe",
                          "--mca",
                          "btl",
                          "self,tcp",
                          "--mca",
                          "btl_tcp_if_include",
                          "lo",
                          "--mca",
                          "oob_tcp_if_include",
                          "lo",
                          MLBENCH_EXE,
                          "nccl",
                          "--profile",
                          "quick",
                          "--timeout",
                          "60",
                          "-o",
                          out.string()},
                         {"LSAN_OPTIONS=detect_leaks=0"})
               .wait();
  ASSERT_EQ(r.rc, 0) << r.out << r.err;
  auto report = read_json(out);
  ASSERT_TRUE(report.contains("cluster"));
  EXPECT_EQ(report["cluster"]["world_size"], 2);
  EXPECT_EQ(report["cluster"]["bootstrap"], "mpi");
  EXPECT_EQ(report["cluster"]["launcher"], "openmpi");
  ASSERT_EQ(report["cluster"]["ranks"].size(), 2u);
  EXPECT_EQ(report["cluster"]["ranks"][1]["rank"], 1);
  expect_nccl_skipped(report);
  EXPECT_EQ(validate_report_schema(out), "");
}

}  // namespace
}  // namespace mlbench::test
