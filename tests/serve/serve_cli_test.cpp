// `mlbench serve` as users run it: the real binary against the fixture server — exit codes, the report
// (schema, one result per load point, no API key in it), offline and sweeps, and Ctrl-C keeping what was
// measured.
#include <signal.h>

#include <chrono>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "fake_llm_model.hpp"
#include "tests/cli/cli_util.hpp"

namespace mlbench::test {
namespace {

using fake_llm::FakeLlmServer;
using nlohmann::json;

const std::vector<std::string> kModel = {"--max-batch", "8", "--prefill-ms-per-token", "0.1",
                                         "--step-ms",   "5", "--step-ms-per-seq",      "0.5"};

std::string slurp(const std::filesystem::path& p) {
  std::ifstream in(p);
  return {std::istreambuf_iterator<char>(in), {}};
}

TEST(ServeCli, ReportValidatesAndHoldsNoApiKey) {
  FakeLlmServer server(kModel);
  TempDir dir;
  const auto out = dir.path() / "serve.json";
  auto r = run_cli({"serve", "--url", server.url(), "--concurrency", "2", "--requests", "6", "--isl", "20",
                    "--osl", "5", "--ttft", "1s", "-o", out.string()},
                   {"OPENAI_API_KEY=sekrit-key-123"});
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_EQ(validate_report_schema(out), "");
  const std::string text = slurp(out);
  EXPECT_EQ(text.find("sekrit"), std::string::npos);
  json rep = json::parse(text);
  ASSERT_EQ(rep["results"].size(), 1u);
  EXPECT_EQ(rep["results"][0]["info"]["api_key"], true);
  EXPECT_EQ(rep["results"][0]["metrics"][0]["name"], "output_tokens_per_s");
  EXPECT_EQ(rep["results"][0]["params"]["mode"], "concurrency");
}

TEST(ServeCli, SweepGivesOneResultPerLoadPoint) {
  FakeLlmServer server(kModel);
  auto r = run_cli({"serve", "--url", server.url(), "--sweep-concurrency", "1,4", "--requests", "8", "--isl",
                    "10", "--osl", "4", "--json"});
  ASSERT_EQ(r.rc, 0) << r.err;
  json rep = json::parse(r.out);
  ASSERT_EQ(rep["results"].size(), 2u);
  EXPECT_EQ(rep["results"][0]["params"]["concurrency"], 1);
  EXPECT_EQ(rep["results"][1]["params"]["concurrency"], 4);
}

TEST(ServeCli, OfflineSendsEveryRequestAtOnce) {
  // 50 ms decode steps: the first of a batch of 8 finishes its 4 tokens 200 ms after it arrived, time enough
  // for a client sending every request at once to have sent them all on a loaded machine.
  FakeLlmServer server(
      {"--max-batch", "8", "--prefill-ms-per-token", "0.1", "--step-ms", "50", "--step-ms-per-seq", "0.5"});
  auto r = run_cli({"serve", "--url", server.url(), "--offline", "--requests", "24", "--isl", "10", "--osl",
                    "4", "--json"});
  ASSERT_EQ(r.rc, 0) << r.err;
  server.stop();
  double last_arrival = 0, first_done = 1e300;
  int n = 0;
  for (const auto& e : server.read_log())
    if (e.stream) {
      last_arrival = std::max(last_arrival, e.arrival_s);
      first_done = std::min(first_done, e.last_token_s);
      ++n;
    }
  EXPECT_EQ(n, 24);
  // No request waited for another to finish: all 24 arrived before the first of them completed (a client
  // capped at the batch, or sending one at a time, would send the 9th only after a completion).
  EXPECT_LT(last_arrival, first_done);
  EXPECT_EQ(json::parse(r.out)["results"][0]["info"]["connections"], 24);
}

TEST(ServeCli, BadInputIsOneLineAndExit2) {
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"serve", "--url", "ftp://x", "--concurrency", "1"},
        std::vector<std::string>{"serve", "--url", "http://127.0.0.1:9"},
        std::vector<std::string>{"serve", "--url", "http://127.0.0.1:9", "--search"},
        std::vector<std::string>{"serve", "--url", "http://127.0.0.1:9", "--offline", "--rate", "2"},
        std::vector<std::string>{"serve", "--concurrency", "1"}}) {
    auto r = run_cli(args);
    EXPECT_EQ(r.rc, 2) << args[2];
    EXPECT_EQ(r.out, "");
    EXPECT_EQ(r.err.rfind("mlbench: error: ", 0), 0u) << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  }
}

// Ctrl-C in the middle of the (last) load point: exit 130, and the report keeps the requests that finished.
TEST(ServeCli, InterruptExits130KeepingTheFinishedRequests) {
  FakeLlmServer server({"--max-batch", "1", "--step-ms", "5"});
  TempDir dir;
  const auto out = dir.path() / "serve.json";
  auto p = spawn_cli({"serve", "--url", server.url(), "--concurrency", "2", "--requests", "2000", "--isl",
                      "10", "--osl", "10", "-o", out.string()});
  // Ctrl-C once two requests have finished: the server logs each finished request as one whole line, the
  // prompts' /tokenize calls unstreamed.
  auto finished = [&] {
    const std::string log = slurp(server.log_path());
    int n = 0;
    for (std::size_t at = 0, end; (end = log.find('\n', at)) != std::string::npos; at = end + 1)
      n += log.substr(at, end - at).find("\"stream\":true") != std::string::npos;
    return n;
  };
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (finished() < 2 && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  ASSERT_GE(finished(), 2) << "no request finished within 60 s";
  p.kill(SIGINT);
  auto r = p.wait_for(std::chrono::seconds(30));
  ASSERT_TRUE(r.has_value()) << "still running 30 s after Ctrl-C";
  EXPECT_EQ(r->rc, 130) << r->err;
  json rep = json::parse(slurp(out));
  EXPECT_EQ(rep["run"]["interrupted"], true);
  ASSERT_EQ(rep["results"].size(), 1u);
  const auto& res = rep["results"][0];
  EXPECT_EQ(res["status"], "ok");
  EXPECT_GT(res["work"]["requests"].get<int>(), 0);
  EXPECT_LT(res["work"]["requests"].get<int>(), 2000);
  EXPECT_NE(res["warnings"].dump().find("interrupted after"), std::string::npos) << res["warnings"];
}

// `mlbench run --config` takes the same options (the probe's table) as `mlbench serve`'s flags, here with a
// JSONL prompt file: its prompts reach the server with their max_tokens.
TEST(ServeCli, RunConfigWithAPromptFile) {
  FakeLlmServer server(kModel);
  TempDir dir;
  const auto prompts = dir.path() / "p.jsonl";
  std::ofstream(prompts) << "{\"prompt\": \"one two three\", \"max_tokens\": 3}\n"
                         << "{\"prompt\": \"four five\", \"max_tokens\": 2}\n";
  const auto cfg = dir.path() / "c.yaml";
  std::ofstream(cfg) << "probes: [serve.llm]\noptions:\n  serve.llm: {url: '" << server.url()
                     << "', concurrency: 2, requests: 4, prompts: '" << prompts.string() << "'}\n";
  auto r = run_cli({"run", "--config", cfg.string(), "--json"});
  ASSERT_EQ(r.rc, 0) << r.err;
  json rep = json::parse(r.out);
  ASSERT_EQ(rep["results"].size(), 1u);
  EXPECT_EQ(rep["results"][0]["params"]["prompts"], "p.jsonl");
  EXPECT_EQ(rep["results"][0]["work"]["output_tokens"], 10);  // 2 × 3 + 2 × 2
  server.stop();
  int words = 0;
  for (const auto& e : server.read_log())
    if (e.stream) words += e.prompt_tokens;
  EXPECT_EQ(words, 10);  // 2 × 3 + 2 × 2 words
}

}  // namespace
}  // namespace mlbench::test
