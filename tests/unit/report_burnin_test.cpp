// The burn-in report pieces: decimation keeps at most 600 points with bucket means, NaN gaps survive, and
// timelines, phase spans and events round-trip through JSON; bad shapes are refused; a report's burn-in
// results are read back into their parts.
#include "report/report_burnin.hpp"

#include <cmath>

#include <gtest/gtest.h>

#include "base/error.hpp"

namespace mlbench::burnin_report {
namespace {

Timeline ramp(std::size_t n) {
  Timeline t;
  for (std::size_t i = 0; i < n; ++i) {
    t.append(static_cast<double>(i), {{"power_w", 100.0 + static_cast<double>(i)}, {"temperature_c", 50.0}});
  }
  return t;
}

TEST(BurninTimeline, DecimatesToTheLimitWithBucketMeans) {
  const auto t = ramp(1800);  // 30 min at 1 s
  const auto d = decimate(t);
  ASSERT_EQ(d.t.size(), kMaxTimelinePoints);
  ASSERT_EQ(d.find("power_w")->size(), kMaxTimelinePoints);
  // Buckets of 3 samples: t = 0,1,2 -> 1; power 100,101,102 -> 101.
  EXPECT_DOUBLE_EQ(d.t[0], 1.0);
  EXPECT_DOUBLE_EQ((*d.find("power_w"))[0], 101.0);
  EXPECT_DOUBLE_EQ(d.t.back(), 1798.0);
  EXPECT_DOUBLE_EQ((*d.find("temperature_c"))[599], 50.0);
}

TEST(BurninTimeline, UnevenLengthsStillGiveTheLimitAndCoverEverySample) {
  const auto d = decimate(ramp(1001), 600);
  EXPECT_EQ(d.t.size(), 600u);
  EXPECT_DOUBLE_EQ(d.t.front(), 0.0);   // the first bucket holds sample 0 alone
  EXPECT_DOUBLE_EQ(d.t.back(), 999.5);  // the last holds 999 and 1000
}

TEST(BurninTimeline, ShortTimelinesAreUnchanged) {
  const auto t = ramp(10);
  const auto d = decimate(t);
  EXPECT_EQ(d.t, t.t);
}

TEST(BurninTimeline, MissingSamplesAreNaNAndLeftOutOfMeans) {
  Timeline t;
  t.append(0, {{"power_w", 10}});
  t.append(1, {{"sm_clock_hz", 1e9}});  // power missing here, clock new
  t.append(2, {{"power_w", 30}, {"sm_clock_hz", 2e9}});
  t.append(3, {{"power_w", 50}});
  ASSERT_EQ(t.find("sm_clock_hz")->size(), 4u);
  EXPECT_TRUE(std::isnan((*t.find("sm_clock_hz"))[0]));
  EXPECT_TRUE(std::isnan((*t.find("power_w"))[1]));
  const auto d = decimate(t, 2);
  EXPECT_DOUBLE_EQ((*d.find("power_w"))[0], 10.0);     // (10, NaN) -> 10
  EXPECT_DOUBLE_EQ((*d.find("sm_clock_hz"))[0], 1e9);  // (NaN, 1e9) -> 1e9
  EXPECT_DOUBLE_EQ((*d.find("power_w"))[1], 40.0);     // (30, 50)
}

TEST(BurninTimeline, RoundTripsThroughJsonWithNullForNaN) {
  Timeline t;
  t.append(0, {{"power_w", 10}});
  t.append(1, {{"sm_clock_hz", 1e9}});
  const auto j = to_json(t);
  EXPECT_TRUE(j["power_w"][1].is_null());
  const auto back = timeline_from_json(j);
  EXPECT_EQ(back.t, t.t);
  EXPECT_DOUBLE_EQ((*back.find("power_w"))[0], 10.0);
  EXPECT_TRUE(std::isnan((*back.find("power_w"))[1]));
}

TEST(BurninTimeline, RefusesUnequalLengthsAndNonNumbers) {
  EXPECT_THROW(timeline_from_json(Json{{"t", {0, 1}}, {"power_w", {1}}}), Error);
  EXPECT_THROW(timeline_from_json(Json{{"t", {0}}, {"power_w", {"hot"}}}), Error);
  EXPECT_THROW(timeline_from_json(Json{{"power_w", {1}}}), Error);
}

TEST(BurninReport, PhaseSpansEventsAndVerdictsRoundTrip) {
  const PhaseSpan p{"gemm", 1.5, 61.5};
  const auto p2 = phase_span_from_json(to_json(p));
  EXPECT_EQ(p2.phase, "gemm");
  EXPECT_DOUBLE_EQ(p2.end_s, 61.5);
  const Event e{12.0, "gpu3", "xid", 79, "GPU has fallen off the bus"};
  const auto e2 = event_from_json(to_json(e));
  EXPECT_EQ(e2.device, "gpu3");
  EXPECT_EQ(e2.code, 79);
  EXPECT_EQ(e2.text, e.text);
  EXPECT_THROW(phase_span_from_json(Json{{"phase", "gemm"}}), Error);
  EXPECT_THROW(event_from_json(Json{{"time_s", "soon"}, {"device", "gpu0"}, {"kind", "xid"}}), Error);
  EXPECT_EQ(verdict_from_string("warn"), Verdict::warn);
  EXPECT_EQ(to_string(Verdict::fail), "fail");
  EXPECT_THROW(verdict_from_string("maybe"), Error);
}

Result burnin_result(std::string_view probe, Json info) {
  Result r;
  r.probe = std::string(probe);
  r.info = std::move(info);
  return r;
}

// read_burnin sorts a report's burn-in results into the node, the GPUs with their timelines, the host's
// timeline and the phases, and names the result whose info has the wrong shape.
TEST(BurninReport, ReadBurninSortsThePartsAndNamesABadOne) {
  Result other;
  other.probe = "gpu.gemm";
  EXPECT_FALSE(read_burnin({other}));
  const std::vector<Result> results{
      other,
      burnin_result(kNodeProbe,
                    Json{{"verdict", "warn"},
                         {"phases", Json::array({to_json(PhaseSpan{"gemm", 0, 60})})},
                         {"events", Json::array({to_json(Event{5, "gpu0", "xid", 79, "off the bus"})})}}),
      burnin_result(kGpuProbe, Json{{"verdict", "pass"}, {"timeline", to_json(ramp(3))}}),
      burnin_result(kHostProbe, Json{{"timeline", to_json(ramp(2))}}),
      burnin_result("burnin.gemm", Json::object())};
  const auto b = read_burnin(results);
  ASSERT_TRUE(b);
  EXPECT_EQ(b->node, &results[1]);
  ASSERT_EQ(b->gpus.size(), 1u);
  EXPECT_EQ(b->gpus[0].result, &results[2]);
  EXPECT_EQ(b->gpus[0].timeline.t.size(), 3u);
  ASSERT_TRUE(b->host);
  EXPECT_EQ(b->host->t.size(), 2u);
  ASSERT_EQ(b->phases.size(), 1u);
  EXPECT_EQ(b->phases[0], &results[4]);
  ASSERT_EQ(b->spans.size(), 1u);
  ASSERT_EQ(b->events.size(), 1u);
  EXPECT_EQ(b->events[0].code, 79);
  EXPECT_EQ(verdict_of(results[1]), Verdict::warn);
  EXPECT_FALSE(verdict_of(results[3]));

  const std::vector<Result> bad{burnin_result(kGpuProbe, Json{{"verdict", "maybe"}})};
  try {
    read_burnin(bad);
    FAIL() << "no error";
  } catch (const BadBurninResult& e) {
    EXPECT_EQ(e.result, &bad[0]);
    EXPECT_NE(std::string(e.what()).find("unknown verdict 'maybe'"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace mlbench::burnin_report
