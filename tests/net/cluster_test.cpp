// Rank 0's decision from the hellos and the merge of other ranks' results.
#include "network/cluster.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <deque>

#include <fmt/format.h>

#include "network/bootstrap.hpp"
#include "network/text.hpp"
#include "report/report.hpp"
#include "tests/common/files.hpp"

namespace mlbench::net {
namespace {

Json hello(int rank, const std::string& node, const char* bus, std::uint64_t free_bytes) {
  return Json{{"rank", rank}, {"node", node}, {"bus_id", bus}, {"free_bytes", free_bytes}};
}

TEST(Cluster, RunsWithTheSmallestFreeMemory) {
  auto d = decide_world({hello(0, "a", "0000:1b:00.0", 80), hello(1, "a", "0000:1c:00.0", 60),
                         hello(2, "b", "0000:1b:00.0", 70)});
  EXPECT_EQ(d["run"], true);
  EXPECT_EQ(d["free_bytes"], 60);
}

TEST(Cluster, TwoRanksOnOneGpuIsALaunchError) {
  auto d = decide_world({hello(0, "a", "0000:1b:00.0", 80), hello(1, "a", "0000:1b:00.0", 80)});
  ASSERT_TRUE(d.contains("error"));
  EXPECT_NE(d["error"].get<std::string>().find("ranks 0 and 1 on a would share GPU"), std::string::npos);
}

TEST(Cluster, AnyRankWithoutAGpuSkipsTheWorld) {
  Json no_gpu{{"rank", 1}, {"node", "b"}, {"skip_reason", "no CUDA GPU visible to rank 1 on b"}};
  Json no_gpu2{{"rank", 2}, {"node", "c"}, {"skip_reason", "no CUDA GPU visible to rank 2 on c"}};
  auto d = decide_world({hello(0, "a", "0000:1b:00.0", 80), no_gpu, no_gpu2});
  EXPECT_EQ(d["skip"], "no CUDA GPU visible to rank 1 on b (and 1 more rank)");
}

Result result(const char* bytes, Status s, const char* reason = "") {
  Result r;
  r.probe = "net.nccl";
  r.params = Json{{"collective", "all_reduce"}, {"bytes", bytes}};
  r.status = s;
  r.reason = reason;
  return r;
}

TEST(Cluster, MergeKeepsTheWorstStatusAndNamesTheRank) {
  std::vector<Result> root{result("8", Status::ok), result("16", Status::ok),
                           result("32", Status::failed, "x")};
  merge_rank_results(root, 3,
                     {result("8", Status::ok), result("16", Status::incorrect, "2 wrong"),
                      result("32", Status::failed, "y"), result("64", Status::failed, "only on 3")});
  EXPECT_EQ(root[0].status, Status::ok);
  EXPECT_EQ(root[1].status, Status::incorrect);
  EXPECT_EQ(root[1].reason, "rank 3: 2 wrong");
  EXPECT_EQ(root[2].reason, "x");
  ASSERT_EQ(root.size(), 4u);
  EXPECT_EQ(root[3].reason, "rank 3: only on 3");
}

// ---- The cluster's messages, checked against their schemas.

// The one-line error `parse` throws, or "" when it accepts the message.
template <class F>
std::string refusal(F&& parse) {
  try {
    parse();
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

// One printable line that names `needle`, with no JSON parser text and no raw byte of the peer's.
void expect_one_clean_line(const std::string& msg, const std::string& needle) {
  EXPECT_NE(msg.find(needle), std::string::npos) << msg;
  EXPECT_EQ(msg.find("json.exception"), std::string::npos) << msg;
  EXPECT_TRUE(std::all_of(msg.begin(), msg.end(), [](char ch) { return ch >= ' ' && ch < 0x7f; })) << msg;
}

const Json kHello{{"rank", 1},
                  {"node", "n1"},
                  {"local_rank", 1},
                  {"gpu", nullptr},
                  {"skip_reason", "no GPU"},
                  {"host", Json::object()}};

TEST(ClusterMessages, AHelloIsAcceptedOnlyFromItsOwnRank) {
  EXPECT_EQ(parse_hello(kHello.dump(), 1)["node"], "n1");
  Json evil = kHello;
  evil["rank"] = 0;
  evil["node"] = "evil-node";
  expect_one_clean_line(refusal([&] { parse_hello(evil.dump(), 1); }),
                        "rank 1's hello: field 'rank' must be 1, the rank its connection joined as");
  evil["rank"] = "1";
  expect_one_clean_line(refusal([&] { parse_hello(evil.dump(), 1); }), "rank 1's hello: field 'rank'");
}

TEST(ClusterMessages, AHelloOfWrongTypesNamesTheRankAndTheField) {
  const std::pair<const char*, Json> cases[] = {
      {"node", 7},         {"node", ""}, {"node", "a\u001b[31m"},   {"local_rank", -1},
      {"local_rank", 1.5}, {"gpu", "0"}, {"bus_id", Json::array()}, {"free_bytes", -5},
      {"skip_reason", 3},  {"host", "x"}};
  for (const auto& [field, value] : cases) {
    Json h = kHello;
    h[field] = value;
    expect_one_clean_line(refusal([&] { parse_hello(h.dump(), 1); }),
                          fmt::format("rank 1's hello: field '{}'", field));
  }
  for (const char* field : {"rank", "node", "local_rank", "gpu", "host"}) {
    Json h = kHello;
    h.erase(field);
    expect_one_clean_line(refusal([&] { parse_hello(h.dump(), 1); }),
                          fmt::format("rank 1's hello: field '{}'", field));
  }
  expect_one_clean_line(refusal([&] { parse_hello("[1]", 2); }), "rank 2's hello: not a JSON object");
}

TEST(ClusterMessages, InvalidJsonAndRawBytesNeverReachTheMessage) {
  const std::string ff = "{\"rank\":1,\"node\":\"\xff\xfe\"}";
  expect_one_clean_line(refusal([&] { parse_hello(ff, 1); }), "rank 1's hello: not valid JSON");
  expect_one_clean_line(refusal([&] { parse_rank_results("[{\"probe\": \xff", 3); }),
                        "rank 3's results: not valid JSON");
  expect_one_clean_line(refusal([] { parse_final_status("\xff"); }), "rank 0's final status: not valid JSON");
  // Free text that is valid JSON keeps its meaning but loses its control characters.
  Json h = kHello;
  h["skip_reason"] = "no GPU\u001b[2J\n\u00ff";
  EXPECT_EQ(parse_hello(h.dump(), 1)["skip_reason"], "no GPU\\x1b[2J\\x0a\\xc3\\xbf");
}

// nlohmann's serializer recurses once per level: a rank's deeply nested results or host inventory would
// crash rank 0 when it decodes them or writes the report.
TEST(ClusterMessages, DeeplyNestedJsonIsRefusedWithoutExhaustingTheStack) {
  const std::string deep = std::string(200000, '[') + std::string(200000, ']');
  expect_one_clean_line(refusal([&] { parse_rank_results(deep, 1); }),
                        "rank 1's results: nested deeper than 64 levels");
  Json h = kHello;
  std::string host_deep = h.dump();
  host_deep.replace(host_deep.find("\"host\":{}"), 9,
                    "\"host\":{\"x\":" + std::string(100000, '[') + std::string(100000, ']') + "}");
  expect_one_clean_line(refusal([&] { parse_hello(host_deep, 1); }),
                        "rank 1's hello: nested deeper than 64 levels");
  expect_one_clean_line(refusal([&] { parse_decision(deep); }),
                        "rank 0's decision: nested deeper than 64 levels");
  // Brackets inside strings are text, not nesting.
  h["skip_reason"] = std::string(1000, '[');
  EXPECT_EQ(parse_hello(h.dump(), 1)["skip_reason"], std::string(1000, '['));
}

// Every string is text on rank 0's terminal (the summary prints a result's params and metric names) or in its
// report: none keeps a control byte, keys included.
TEST(ClusterMessages, EveryStringOfAResultOrAHostIsEscaped) {
  Result r;
  r.probe = "net.nccl";
  r.status = Status::ok;
  r.params = Json{{"collective\u001b]0;x\u0007", "all_reduce\u001b[2J"}};
  r.metrics.push_back(Metric{"busbw\u001b[31m", 1.0, "GB/s", Better::higher, std::nullopt, std::nullopt});
  r.info = Json{{"deep", {{"k", Json::array({"\u009b"})}}}};
  const auto parsed = parse_rank_results(Json::array({to_json(r)}).dump(), 1);
  ASSERT_EQ(parsed.size(), 1u);
  const std::string all = to_json(parsed[0]).dump(-1, ' ', false, Json::error_handler_t::strict);
  EXPECT_TRUE(std::all_of(all.begin(), all.end(), [](char ch) { return ch >= ' ' && ch < 0x7f; })) << all;
  EXPECT_EQ(parsed[0].params.begin().key(), "collective\\x1b]0;x\\x07");
  EXPECT_EQ(parsed[0].metrics[0].name, "busbw\\x1b[31m");
  Json h = kHello;
  h["host"] = Json{{"cpu", {{"model\u0007", "x\u001b[1m"}}}};
  const auto host = parse_hello(h.dump(), 1)["host"].dump();
  EXPECT_TRUE(std::all_of(host.begin(), host.end(), [](char ch) { return ch >= ' ' && ch < 0x7f; })) << host;
}

TEST(ClusterMessages, ResultsOfWrongTypesNameTheRankAndTheField) {
  Result r;
  r.probe = "net.nccl";
  r.status = Status::skipped;
  r.reason = "no GPU\x07";
  Json good = Json::array({to_json(r)});
  auto parsed = parse_rank_results(good.dump(), 2);
  ASSERT_EQ(parsed.size(), 1u);
  EXPECT_EQ(parsed[0].reason, "no GPU\\x07");
  Json bad = good;
  bad[0]["status"] = 5;
  expect_one_clean_line(refusal([&] { parse_rank_results(bad.dump(), 2); }), "rank 2's results: [0]: ");
  expect_one_clean_line(refusal([&] { parse_rank_results(bad.dump(), 2); }), "status");
  bad[0]["status"] = "fine\u001b";
  expect_one_clean_line(refusal([&] { parse_rank_results(bad.dump(), 2); }), "rank 2's results: [0]: ");
  expect_one_clean_line(refusal([] { parse_rank_results("{}", 2); }), "rank 2's results: not a JSON array");
}

TEST(ClusterMessages, DecisionsAndFinalStatusesAreChecked) {
  EXPECT_EQ(parse_decision(R"({"run": true, "nodes": 2, "unique_id": "00ff"})")["nodes"], 2);
  EXPECT_EQ(parse_decision(R"({"skip": "no GPU"})")["skip"], "no GPU");
  EXPECT_EQ(parse_decision(R"({"fault": "rank 1's hello: ..."})")["fault"], "rank 1's hello: ...");
  for (const auto& [text, field] : std::vector<std::pair<std::string, std::string>>{
           {R"({"run": true, "nodes": 2, "unique_id": "0g"})", "unique_id"},
           {R"({"run": true, "nodes": 2, "unique_id": "abc"})", "unique_id"},
           {R"({"run": true, "nodes": 0, "unique_id": "00"})", "nodes"},
           {R"({"run": 1})", "run"},
           {R"({"skip": 3})", "skip"},
           {R"({"error": "x", "run": true})", "error"}}) {
    const std::string& decision = text;  // clang 14 captures no structured binding
    expect_one_clean_line(refusal([&] { parse_decision(decision); }),
                          fmt::format("rank 0's decision: field '{}'", field));
  }
  EXPECT_EQ(parse_final_status(R"({"ok": true})"), std::nullopt);
  EXPECT_EQ(parse_final_status(R"({"error": "rank 2 died\u0007"})"), "rank 2 died\\x07");
  expect_one_clean_line(refusal([] { parse_final_status(R"({"ok": 1})"); }), "rank 0's final status: field");
  expect_one_clean_line(refusal([] { parse_final_status(R"({"error": []})"); }),
                        "rank 0's final status: field 'error'");
}

// ---- Rank 0 with several lying ranks at once: every one is named, and no valid rank's results are lost.

// Rank 0's side of a world whose other ranks' messages are scripted: each gather returns rank 0's own
// message beside the next scripted ones, or throws RanksVanished as TcpBootstrap does when one is nullopt (a
// rank that died); finish() keeps the status rank 0 sends.
class ScriptedWorld : public Bootstrap {
 public:
  using Messages = std::vector<std::optional<std::string>>;
  explicit ScriptedWorld(std::deque<Messages> others) : others_(std::move(others)) {}
  int rank() const override { return 0; }
  int world_size() const override { return static_cast<int>(others_.front().size()) + 1; }
  std::string describe() const override { return "scripted"; }
  std::string broadcast(const std::string& blob) override { return blob; }
  std::vector<std::string> gather(const std::string& mine) override {
    Messages all{mine};
    all.insert(all.end(), others_.front().begin(), others_.front().end());
    others_.pop_front();
    std::vector<std::string> out;
    for (std::size_t r = 0; r < all.size(); ++r) {
      if (!all[r])
        throw RanksVanished(fmt::format("rank {} closed the connection (it probably died)", r), all);
      out.push_back(*all[r]);
    }
    return out;
  }
  std::string finish(const std::string& status) override {
    status_ = status;
    return status;
  }
  const std::string& status() const { return status_; }

 private:
  std::deque<Messages> others_;
  std::string status_;
};

std::string hello_of(int rank) {
  return Json{{"rank", rank},           {"node", "node-" + std::to_string(rank)},
              {"local_rank", 0},        {"gpu", nullptr},
              {"host", Json::object()}, {"skip_reason", "no GPU"}}
      .dump();
}

LaunchInfo rank_zero_of(int world) {
  LaunchInfo launch;
  launch.launcher = Launcher::torchrun;
  launch.world_size = world;
  return launch;
}

TEST(ClusterRun, EveryRankWithInvalidResultsIsNamedAndTheValidRanksResultsAreKept) {
  test::TempDir dir;
  const auto out = dir.path() / "cluster.json";
  Result failed;
  failed.probe = "net.nccl";
  failed.params = Json{{"collective", "only-on-rank-2"}};
  failed.status = Status::failed;
  failed.reason = "2 wrong bytes";
  Json bad_status = Json::array({to_json(failed)});
  bad_status[0]["status"] = 5;
  ScriptedWorld world({{hello_of(1), hello_of(2), hello_of(3)},
                       {"not json", Json::array({to_json(failed)}).dump(), bad_status.dump()}});
  ClusterRun run{Json::object(), Profile::quick, out, {"mlbench", "nccl"}, Json::object()};
  try {
    run_cluster(rank_zero_of(4), world, run);
    FAIL() << "a world with two invalid ranks succeeded";
  } catch (const Error& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("rank 1's results: not valid JSON"), std::string::npos) << msg;
    EXPECT_NE(msg.find("rank 3's results: [0]: "), std::string::npos) << msg;
    EXPECT_EQ(msg.find("rank 2"), std::string::npos) << msg;
  }
  // Every rank is told of both.
  const auto status = parse_final_status(world.status());
  ASSERT_TRUE(status);
  EXPECT_NE(status->find("rank 1's results"), std::string::npos) << *status;
  EXPECT_NE(status->find("rank 3's results"), std::string::npos) << *status;
  // Rank 2's results are in the report, marked with its rank.
  const Report report = load_report(out);
  const auto two = std::find_if(report.results.begin(), report.results.end(), [](const Result& r) {
    return r.params == Json{{"collective", "only-on-rank-2"}};
  });
  ASSERT_NE(two, report.results.end()) << "the valid rank's results were dropped";
  EXPECT_EQ(two->status, Status::failed);
  EXPECT_EQ(two->reason, "rank 2: 2 wrong bytes");
  EXPECT_NE(report.cluster["incomplete"].get<std::string>().find("rank 3's results"), std::string::npos);
}

TEST(ClusterRun, ARankThatVanishedHidesNeitherAnotherBadRankNorTheValidRanksResults) {
  test::TempDir dir;
  const auto out = dir.path() / "cluster.json";
  Result failed;
  failed.probe = "net.nccl";
  failed.params = Json{{"collective", "only-on-rank-2"}};
  failed.status = Status::failed;
  failed.reason = "2 wrong bytes";
  ScriptedWorld world(
      {{hello_of(1), hello_of(2), hello_of(3)}, {std::nullopt, Json::array({to_json(failed)}).dump(), "{}"}});
  ClusterRun run{Json::object(), Profile::quick, out, {"mlbench", "nccl"}, Json::object()};
  try {
    run_cluster(rank_zero_of(4), world, run);
    FAIL() << "a world with a vanished rank succeeded";
  } catch (const Error& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("rank 1 closed the connection (it probably died); rank 3's results: not a JSON array"),
              std::string::npos)
        << msg;
  }
  const Report report = load_report(out);
  const auto two = std::find_if(report.results.begin(), report.results.end(), [](const Result& r) {
    return r.params == Json{{"collective", "only-on-rank-2"}};
  });
  ASSERT_NE(two, report.results.end()) << "the surviving rank's results were dropped";
  EXPECT_EQ(two->reason, "rank 2: 2 wrong bytes");
}

TEST(ClusterRun, EveryRankWithAnInvalidHelloIsNamed) {
  Json claims_zero = Json::parse(hello_of(2));
  claims_zero["rank"] = 0;
  ScriptedWorld world({{"[1, 2", hello_of(2), claims_zero.dump()}});
  ClusterRun run{Json::object(), Profile::quick, std::nullopt, {"mlbench", "nccl"}, Json::object()};
  try {
    run_cluster(rank_zero_of(4), world, run);
    FAIL() << "a world with two invalid hellos ran";
  } catch (const Error& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("rank 1's hello: not valid JSON"), std::string::npos) << msg;
    EXPECT_NE(msg.find("rank 3's hello: field 'rank' must be 3"), std::string::npos) << msg;
    EXPECT_EQ(msg.find("rank 2"), std::string::npos) << msg;
  }
}

TEST(ClusterText, ManyErrorsMakeOneBoundedLine) {
  EXPECT_EQ(join_bounded({}, 100), "");
  EXPECT_EQ(join_bounded({"a", "b"}, 100), "a; b");
  std::vector<std::string> many(1000, std::string(50, 'x'));
  const std::string line = join_bounded(many, kMaxText);
  EXPECT_LE(line.size(), kMaxText);
  EXPECT_TRUE(line.ends_with(" more")) << line;
  EXPECT_EQ(line.find('\n'), std::string::npos);
  const std::string one = join_bounded({std::string(10000, 'y'), "z"}, 100);
  EXPECT_LE(one.size(), 100u);
  EXPECT_TRUE(one.ends_with("...; and 1 more")) << one;
  EXPECT_EQ(join_bounded({std::string(10000, 'y')}, 100), std::string(97, 'y') + "...");
}

}  // namespace
}  // namespace mlbench::net
