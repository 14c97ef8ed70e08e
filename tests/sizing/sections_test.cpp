// The sections every sheet prints: local NVMe RAID levels (each level's figures from one set of formulas),
// the network sized from the plan's traffic (no fabric a plan does not use) and the cooling options with
// their goodput.
#include <algorithm>
#include <cmath>
#include <stdexcept>

#include <gtest/gtest.h>

#include "sizing/fabric.hpp"
#include "sizing/raid.hpp"
#include "tests/sizing/test_util.hpp"

namespace mlbench::sizing::test {
namespace {

// A Gen4 U.2 3.84 TB drive at its datasheet figures (no sustained share): the "8 x 4 TB" of the common
// recommendation.
DriveFigures gen4_drive() { return {3.84e12, 7.0e9, 4.2e9, 1.0e6, 180e3, "datasheet"}; }

const SheetLine& line_of(const Sheet& s, const std::string& item) {
  for (const auto& l : s.lines)
    if (l.item == item) return l;
  throw std::runtime_error("no line " + item);
}

bool has_line(const Sheet& s, const std::string& item) {
  for (const auto& l : s.lines)
    if (l.item == item) return true;
  return false;
}

Sheet plan_with(const std::string& workload, std::optional<int> nodes = std::nullopt,
                const std::string& cooling = "", std::vector<Report> reports = {}) {
  PlanRequest req;
  req.workload = load_workload(source_dir() / "configs" / "workloads" / (workload + ".yaml"));
  req.nodes = nodes;
  req.cooling = cooling;
  req.reports = std::move(reports);
  return plan(req, shipped_catalog());
}

// ----- RAID levels: each level's formulas at 8 (RAID-1: 2) drives.
struct LevelCase {
  const char* name;
  int drives;
  double usable_tb, read_gbs, write_gbs, write_kiops;
  int tolerates;
  bool rebuilds;
};

class Raid : public ::testing::TestWithParam<LevelCase> {};

TEST_P(Raid, LevelFollowsItsFormula) {
  const auto& c = GetParam();
  const auto& level = raid_level(c.name);
  ASSERT_TRUE(level.allows(c.drives));
  auto f = raid_figures(level, c.drives, gen4_drive());
  EXPECT_NEAR(f.usable / 1e12, c.usable_tb, 1e-9);
  EXPECT_NEAR(f.read / 1e9, c.read_gbs, 1e-9);
  EXPECT_NEAR(f.write / 1e9, c.write_gbs, 1e-9);
  EXPECT_NEAR(f.write_iops / 1e3, c.write_kiops, 1e-9);
  EXPECT_NEAR(f.read_iops, c.drives * 1e6, 1e-3);
  EXPECT_EQ(level.tolerates, c.tolerates);
  EXPECT_EQ(f.rebuild_s > 0, c.rebuilds);
  if (c.rebuilds) {
    EXPECT_NEAR(f.rebuild_s, 3.84e12 / 4.2e9, 1e-6);  // one drive at its write rate
  }
}

// Write penalties 1 / 2 / 2 / 4 / 6: 8 x 180k random-write IOPS become 1440 / 360 (2 drives) / 720 / 360 /
// 240 k.
INSTANTIATE_TEST_SUITE_P(Levels, Raid,
                         ::testing::Values(LevelCase{"RAID-0", 8, 30.72, 56.0, 33.6, 1440, 0, false},
                                           LevelCase{"RAID-1", 2, 3.84, 14.0, 4.2, 180, 1, true},
                                           LevelCase{"RAID-10", 8, 15.36, 56.0, 16.8, 720, 1, true},
                                           LevelCase{"RAID-5", 8, 26.88, 49.0, 29.4, 360, 1, true},
                                           LevelCase{"RAID-6", 8, 23.04, 42.0, 25.2, 240, 2, true}),
                         [](const ::testing::TestParamInfo<LevelCase>& p) {
                           return std::string(p.param.name).substr(5);
                         });

TEST(RaidChoice, TheNeedChoosesTheLevel) {
  auto d = gen4_drive();
  // Bandwidth alone: stripe.
  auto fast = choose_raid({20e9, 0, 1e12, false}, d, 16);
  ASSERT_TRUE(fast);
  EXPECT_EQ(fast->level->name, "RAID-0");
  EXPECT_EQ(fast->drives, 5);  // ceil(20 / 4.2)
  // The staged checkpoint must survive a drive: no RAID-0; capacity-bound, so parity beats mirrors.
  auto safe = choose_raid({1e9, 0, 20e12, true}, d, 16);
  ASSERT_TRUE(safe);
  EXPECT_EQ(safe->level->name, "RAID-5");
  EXPECT_EQ(safe->drives, 7);  // 6 x 3.84 = 23 TB usable
  // Small and safe: a mirrored pair.
  auto pair = choose_raid({1e9, 0, 1e12, true}, d, 16);
  ASSERT_TRUE(pair);
  EXPECT_EQ(pair->level->name, "RAID-1");
  EXPECT_FALSE(choose_raid({1e12, 0, 0, false}, d, 16));  // 1 TB/s: nothing within 16 drives
}

TEST(RaidChoice, MeasuredFiguresArePerDriveOfTheArrayMeasured) {
  Report r;
  r.host["block_devices"] = nlohmann::json::array();
  for (const char* n : {"nvme0n1", "nvme1n1", "nvme2n1", "nvme3n1"})
    r.host["block_devices"].push_back({{"name", n}, {"holders", {"md0"}}});
  Result read;
  read.probe = "storage.io";
  read.params = {{"rw", "read"}};
  read.info = {{"device", "md0"}};
  read.add_metric("bandwidth", 24e9, "B/s");
  Result randwrite = read;
  randwrite.params = {{"rw", "randwrite"}};
  randwrite.info = {{"device", "nvme5n1"}};  // one drive on its own
  randwrite.metrics.clear();
  randwrite.add_metric("iops", 150e3, "1/s");
  Result unknown = read;  // no device: the drives it spans are unknown, so it is left out
  unknown.info = nlohmann::json::object();
  unknown.metrics.clear();
  unknown.add_metric("bandwidth", 99e9, "B/s");
  r.results = {read, randwrite, unknown};
  auto d = measured_drive({r}, gen4_drive());
  ASSERT_TRUE(d);
  EXPECT_DOUBLE_EQ(d->read, 6e9);  // 24 GB/s over md0's 4 drives
  EXPECT_DOUBLE_EQ(d->write_iops, 150e3);
  EXPECT_DOUBLE_EQ(d->write, 4.2e9);  // not measured: the datasheet's
  EXPECT_NE(d->basis.find("md0 (4 drives)"), std::string::npos) << d->basis;
  EXPECT_FALSE(measured_drive({Report{}}, gen4_drive()));
}

// "8 x 4 TB NVMe striped to 32 TB and mirrored (RAID 0+1), theoretical 56 GB/s, over 1.5 M IOPS": the
// sheet of an 8-drive H100 node states what mirroring those drives really gives.
TEST(RaidSheet, TheCommonRecommendationComesOutWithItsRealNumbers) {
  auto s = plan_with("llm-70b-pretraining");
  ASSERT_TRUE(s.figures.contains("raid")) << s.figures.dump();
  const nlohmann::json* r10 = nullptr;
  for (const auto& l : s.figures["raid"]["levels"])
    if (l["level"] == "RAID-10") r10 = &l;
  ASSERT_TRUE(r10);
  EXPECT_EQ((*r10)["drives"], 8);
  EXPECT_NEAR((*r10)["usable_bytes"].get<double>(), 15.36e12, 1e6);        // half of the 30.72 TB striped
  EXPECT_NEAR((*r10)["read_bytes_per_s"].get<double>(), 56e9 * 0.9, 1e6);  // 56 GB/s rated x sustained share
  EXPECT_NEAR((*r10)["write_bytes_per_s"].get<double>(), 4 * 4.2e9 * 0.9, 1e6);  // the mirror halves writes
  EXPECT_NEAR((*r10)["write_iops"].get<double>(), 720e3, 1);                     // not 1.5 M: 8 x 180k / 2
  EXPECT_NEAR((*r10)["read_iops"].get<double>(), 8e6, 1);
  ASSERT_FALSE(s.tables.empty());
  std::string row;
  for (const auto& cells : s.tables.front().rows)
    if (cells.front().text == "RAID-10")
      for (const auto& c : cells) row += c.text + " | ";
  EXPECT_NE(row.find("56.0 rated"), std::string::npos) << row;
  EXPECT_NE(row.find("30.72 TB usable mirrored takes 16 drives"), std::string::npos) << row;
  // The lanes: 8 GPUs and 8 NICs at x16 plus the drives exceed two Xeons' 160 root lanes.
  const auto& lanes = line_of(s, "Local NVMe PCIe lanes");
  EXPECT_NE(lanes.driver.find("160 Gen5 root lanes"), std::string::npos) << lanes.driver;
  EXPECT_NE(lanes.driver.find("behind PCIe switches"), std::string::npos) << lanes.driver;
}

// The node measured: its storage.io read on md0 (4 member drives) becomes the per-drive figure the levels
// use.
TEST(RaidSheet, MeasuredDrivesFeedTheLevels) {
  auto r = load_report(data_dir() / "report-a100-8gpu.json");
  r.host["block_devices"] = nlohmann::json::array();
  for (const char* n : {"nvme0n1", "nvme1n1", "nvme2n1", "nvme3n1"})
    r.host["block_devices"].push_back({{"name", n}, {"holders", {"md0"}}});
  for (auto& res : r.results)
    if (res.probe == "storage.io") res.info["device"] = "md0";
  auto s = plan_with("llm-70b-pretraining", 8, "", {r});
  EXPECT_EQ(s.figures["raid"]["per_drive_source"], "measured");
  EXPECT_EQ(line_of(s, "Local NVMe per node").source, "measured");
  EXPECT_NE(
      line_of(s, "Local NVMe per node").driver.find("read 24.5 GB/s on md0 (4 drives) = 6.12 GB/s per drive"),
      std::string::npos)
      << line_of(s, "Local NVMe per node").driver;
  const auto& r0 = s.figures["raid"]["levels"][0];  // RAID-0 at the template's 8 drives
  EXPECT_NEAR(r0["read_bytes_per_s"].get<double>(), 8 * 24.5e9 / 4, 1);
  EXPECT_NEAR(r0["write_bytes_per_s"].get<double>(), 8 * 14e9 / 4, 1);
}

// The measured node's storage.dataload (the shape `mlbench dataload -o` writes: unet3d on a100, 6
// accelerators supported at 9 GB/s): per GPU 9 / 6 = 1.5 GB/s (above the 70B's training-data read) x 8 GPUs x
// 1.25 = 15 GB/s; the storage.io results name no device, so a drive is the loader's 9 GB/s over the
// template's 8 drives = 1.125 GB/s, and RAID-0 reads n R >= 15 GB/s at 14 drives. 6 accelerators < 8 GPUs: a
// warning.
TEST(RaidSheet, DataloadSaysHowManyDrivesFeedTheGpus) {
  auto s =
      plan_with("llm-70b-pretraining", 8, "", {load_report(data_dir() / "report-a100-8gpu-dataload.json")});
  const auto& feed = s.figures["raid"]["feed"];
  EXPECT_EQ(feed["per_gpu_source"], "storage.dataload");
  EXPECT_NEAR(feed["read_bytes_per_s"].get<double>(), 1.5e9 * 8 * 1.25, 1);
  EXPECT_NEAR(feed["per_drive_read_bytes_per_s"].get<double>(), 9e9 / 8, 1);
  EXPECT_EQ(feed["level"], "RAID-10");
  EXPECT_EQ(feed["drives"], 14);
  const auto& need = line_of(s, "Local read to feed the GPUs");
  EXPECT_NEAR(need.quantity, 15, 1e-9);
  EXPECT_EQ(need.formula, "per_gpu x gpus x (1 + headroom)");
  EXPECT_NE(
      need.driver.find("storage.dataload unet3d on a100: 9.00 GB/s at 6 accelerators supported (AU >= 90 %)"),
      std::string::npos)
      << need.driver;
  const auto& drives = line_of(s, "Local drives to feed the GPUs");
  EXPECT_EQ(drives.quantity, 14);
  EXPECT_NE(drives.driver.find("RAID-10 read n R >= 15.00 GB/s"), std::string::npos) << drives.driver;
  EXPECT_NE(
      drives.driver.find("over 8 drives (the template's; its device not recorded) = 1.12 GB/s per drive"),
      std::string::npos)
      << drives.driver;
  auto warned = [&](std::string_view what) {
    return std::any_of(s.warnings.begin(), s.warnings.end(),
                       [&](const std::string& w) { return w.find(what) != std::string::npos; });
  };
  EXPECT_TRUE(warned("this storage cannot feed this node: storage.dataload unet3d kept 6 a100 accelerators"));
  EXPECT_TRUE(warned("feeding the 8 GPUs takes 14 drives in RAID-10"));

  // Measured drives (storage.io on md0's 4 members, 24.5 GB/s read = 6.12 GB/s per drive) take over from the
  // loader's figure: 15 GB/s needs 3 of them; a survived drive loss rules RAID-0 out.
  auto r = load_report(data_dir() / "report-a100-8gpu-dataload.json");
  r.host["block_devices"] = nlohmann::json::array();
  for (const char* n : {"nvme0n1", "nvme1n1", "nvme2n1", "nvme3n1"})
    r.host["block_devices"].push_back({{"name", n}, {"holders", {"md0"}}});
  for (auto& res : r.results)
    if (res.probe == "storage.io") res.info["device"] = "md0";
  auto m = plan_with("llm-70b-pretraining", 8, "", {r});
  EXPECT_NEAR(m.figures["raid"]["feed"]["per_drive_read_bytes_per_s"].get<double>(), 24.5e9 / 4, 1);
  EXPECT_EQ(m.figures["raid"]["feed"]["drives"], 3);
  EXPECT_NE(
      line_of(m, "Local drives to feed the GPUs").driver.find("storage.io measured read 24.5 GB/s on md0"),
      std::string::npos);

  // An accelerator that is not the sized GPU: the workload's read is the demand, and no feed warning.
  for (auto& res : r.results)
    if (res.probe == "storage.dataload") res.params["accelerator"] = "h100";
  auto other = plan_with("llm-70b-pretraining", 8, "", {r});
  EXPECT_EQ(other.figures["raid"]["feed"]["per_gpu_source"], "workload");
  EXPECT_NE(line_of(other, "Local read to feed the GPUs")
                .driver.find("storage.dataload simulated h100, not this GPU"),
            std::string::npos);
  for (const auto& w : other.warnings) EXPECT_EQ(w.find("cannot feed this node"), std::string::npos) << w;

  // No dataload result: no feed lines.
  EXPECT_FALSE(plan_with("llm-70b-pretraining").figures["raid"].contains("feed"));
}

TEST(RaidSheet, ADriveLossThatMustNotLoseTheCheckpointRulesOutRaid0) {
  auto s = plan_with("llm-70b-pretraining");
  EXPECT_EQ(s.figures["raid"]["level"], "RAID-0");
  PlanRequest req;
  req.workload = load_workload(source_dir() / "configs" / "workloads" / "llm-70b-pretraining.yaml");
  std::get<LlmTraining>(req.workload.spec).checkpoint.survive_drive_loss = true;
  auto safe = plan(req, shipped_catalog());
  EXPECT_NE(safe.figures["raid"]["level"], "RAID-0");
  EXPECT_NE(line_of(safe, "Local NVMe per node").driver.find("survive a drive loss"), std::string::npos);
}

// ----- Network from the traffic.
TEST(Fabric, LeavesAndSpinesScaleWithTheNodes) {
  auto two = compute_fabric(2, 8, 64);  // was 8 leaves, 4 spines, 272 links
  EXPECT_EQ(two.leaves, 8);
  EXPECT_EQ(two.spines, 1);
  EXPECT_EQ(two.cables, 32);
  auto f = compute_fabric(64, 8, 64);
  EXPECT_EQ(f.leaves, 16);  // 8 rails x ceil(64 / 32)
  EXPECT_EQ(f.uplinks, 512);
  EXPECT_EQ(f.spines, 8);
  auto g = compute_fabric(33, 8, 64);
  EXPECT_EQ(g.leaves, 16);
  EXPECT_EQ(g.uplinks, 264);  // uplinks = downlinks, not 16 x 32
  EXPECT_EQ(g.spines, 5);
  auto one_rail = compute_fabric(20, 1, 64);
  EXPECT_EQ(one_rail.leaves, 1);
  EXPECT_EQ(one_rail.spines, 0);
  EXPECT_EQ(compute_fabric(1, 8, 64).leaves, 0);
  EXPECT_EQ(front_end_network(40, 64).switches, 2);
}

TEST(Fabric, ServingThatFitsANodeBuysAFrontEndNotAComputeFabric) {
  auto s = plan_with("llm-70b-serving", 2);
  EXPECT_FALSE(has_line(s, "Leaf switches"));
  EXPECT_FALSE(has_line(s, "Spine switches"));
  EXPECT_FALSE(has_line(s, "Compute-fabric NICs"));
  EXPECT_EQ(line_of(s, "Front-end NICs").quantity, 2);
  EXPECT_EQ(line_of(s, "Top-of-rack switches").quantity, 1);
  EXPECT_EQ(line_of(s, "Cables/transceivers").quantity, 2);
  EXPECT_EQ(s.figures["network"]["kind"], "front-end");
  // Training across nodes keeps its compute fabric.
  auto t = plan_with("llm-70b-pretraining");
  EXPECT_GT(line_of(t, "Leaf switches").quantity, 0);
}

// ----- Cooling.
TEST(Cooling, CatalogCarriesTheLabsFiguresAndTheVendorsPue) {
  const auto& c = shipped_catalog();
  EXPECT_EQ(c.reference_cooling, "air");
  EXPECT_DOUBLE_EQ(c.cooling_spec("air").gpu_w, 650);
  EXPECT_DOUBLE_EQ(c.cooling_spec("liquid").gpu_w, 580);
  EXPECT_DOUBLE_EQ(c.cooling_spec("phase-change").gpu_w, 540);
  EXPECT_DOUBLE_EQ(c.cooling_spec("phase-change").stability, 0.999);
  EXPECT_DOUBLE_EQ(c.cooling_spec("liquid").pue, 1.08);
  EXPECT_NEAR(c.cooling_spec("liquid").gpu_power_factor, 580.0 / 650, 1e-12);
  EXPECT_NE(c.cooling_spec("liquid").pue_source.find("vendor"), std::string::npos);
}

TEST(Cooling, StabilityFeedsTheGoodputAndTheSheetLabelsItsSources) {
  auto air = plan_with("llm-70b-pretraining", 64, "air");
  auto liquid = plan_with("llm-70b-pretraining", 64, "liquid");
  auto phase = plan_with("llm-70b-pretraining", 64, "phase-change");
  // The engine's goodput was measured with air: air keeps it; the steadier options gain.
  EXPECT_DOUBLE_EQ(air.figures["cooling"]["goodput"].get<double>(), 0.9);
  double g_liquid = liquid.figures["cooling"]["goodput"].get<double>();
  double g_phase = phase.figures["cooling"]["goodput"].get<double>();
  EXPECT_GT(g_liquid, 0.9);
  EXPECT_GT(g_phase, g_liquid);
  // -ln(stability) interruptions per day, each losing a 10-minute restart + half the checkpoint interval.
  auto w = load_workload(source_dir() / "configs" / "workloads" / "llm-70b-pretraining.yaml");
  double lost = (600 + std::get<LlmTraining>(w.spec).checkpoint.interval_s / 2) / 86400.0;
  EXPECT_NEAR(g_liquid, 0.9 * (1 + std::log(0.997) * lost) / (1 + std::log(0.93) * lost), 1e-12);
  EXPECT_NEAR(air.figures["cooling"]["interruptions_per_day"].get<double>(), -std::log(0.93), 1e-12);
  EXPECT_LT(liquid.figures["time_s"].get<double>(), air.figures["time_s"].get<double>());
  EXPECT_LT(liquid.figures["power"]["node_w"].get<double>(), air.figures["power"]["node_w"].get<double>());
  EXPECT_LT(liquid.figures["power"]["mwh"].get<double>(), air.figures["power"]["mwh"].get<double>());
  bool lab = false, vendor = false;
  for (const auto& a : liquid.assumptions) {
    lab |= a.name == "Cooling liquid: training stability" && a.source == "one lab's A100 comparison";
    vendor |= a.name == "Cooling liquid: PUE" && a.source.find("vendor's claim") != std::string::npos;
  }
  EXPECT_TRUE(lab && vendor);
  EXPECT_NE(line_of(liquid, "Goodput with this cooling").spec.find("lab's A100 comparison"),
            std::string::npos);
}

TEST(Cooling, CompareCoolingPutsTheOptionsSideBySide) {
  PlanRequest req;
  req.workload = load_workload(source_dir() / "configs" / "workloads" / "llm-70b-pretraining.yaml");
  req.nodes = 64;
  auto doc = cooling_comparison(plan_each_cooling(req, shipped_catalog()));
  ASSERT_EQ(doc.tables.size(), 1u);
  const auto& t = doc.tables.front();
  ASSERT_EQ(t.rows.size(), 3u);
  EXPECT_EQ(t.rows[0][0].text, "air");
  EXPECT_EQ(t.rows[2][0].text, "phase-change");
  for (const char* col : {"Time", "Energy", "Cost", "Goodput"})
    EXPECT_NE(std::find(t.columns.begin(), t.columns.end(), col), t.columns.end()) << col;
  auto md = render(doc, Format::markdown);
  EXPECT_NE(md.find("one lab's A100 comparison"), std::string::npos) << md;
  EXPECT_NE(md.find("vendor's claim"), std::string::npos) << md;
  // Steadier and cooler: less time, less energy.
  EXPECT_LT(*t.rows[1][6].number, *t.rows[0][6].number);
  EXPECT_LT(*t.rows[1][7].number, *t.rows[0][7].number);
}

}  // namespace
}  // namespace mlbench::sizing::test
