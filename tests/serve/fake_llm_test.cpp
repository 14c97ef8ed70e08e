// The fixture server keeps to its model: the engine's timing by itself, the HTTP server's responses in
// OpenAI's shapes, its timing against the model (a lone request, a queue behind a full batch), its log
// against what a client received, and each fault it injects.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "fake_llm_model.hpp"

namespace {

using mlbench::fake_llm::Emit;
using mlbench::fake_llm::Engine;
using mlbench::fake_llm::FakeLlmServer;
using mlbench::fake_llm::LogEntry;
using mlbench::fake_llm::ModelParams;
using json = nlohmann::json;

double now_s() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// ---- the engine alone
// ---------------------------------------------------------------------------------------

struct Times {
  std::map<std::uint64_t, std::vector<double>> tokens;
};

Times run_engine(const ModelParams& p,
                 const std::vector<std::tuple<std::uint64_t, int, int, double>>& arrivals) {
  Engine e(p);
  Times t;
  std::vector<Emit> out;
  auto take = [&] {
    for (const auto& x : out) t.tokens[x.id].push_back(x.t);
    out.clear();
  };
  for (const auto& [id, prompt, output, at] : arrivals) {
    while (e.advance(at, out)) take();
    e.submit(id, prompt, output, at);
  }
  while (e.advance(1e18, out)) take();
  return t;
}

TEST(FakeLlmEngine, LoneRequestTtftIsItsPrefillAndTpotOneStep) {
  ModelParams p{8, 1e-3, 10e-3, 2e-3};
  auto t = run_engine(p, {{7, 100, 5, 2.0}});
  ASSERT_EQ(t.tokens[7].size(), 5u);
  EXPECT_DOUBLE_EQ(t.tokens[7][0], 2.0 + 0.1);
  for (int i = 1; i < 5; ++i) EXPECT_NEAR(t.tokens[7][i] - t.tokens[7][i - 1], 12e-3, 1e-12);
}

TEST(FakeLlmEngine, DecodeStepGrowsWithTheBatchAndAFullBatchQueuesFifo) {
  ModelParams p{2, 1e-3, 10e-3, 5e-3};
  // Three requests at once into a batch of two: 1 and 2 prefill together (20 ms), decode at batch 2 (20 ms a
  // step); 3 waits until they leave, then prefills alone and decodes at batch 1 (15 ms).
  auto t = run_engine(p, {{1, 10, 3, 0}, {2, 10, 3, 0}, {3, 10, 3, 0}});
  EXPECT_NEAR(t.tokens[1][0], 0.020, 1e-12);
  EXPECT_NEAR(t.tokens[2][0], 0.020, 1e-12);
  EXPECT_NEAR(t.tokens[1][1] - t.tokens[1][0], 0.020, 1e-12);
  EXPECT_NEAR(t.tokens[1][2], 0.060, 1e-12);
  EXPECT_NEAR(t.tokens[3][0], 0.060 + 0.010, 1e-12);
  EXPECT_NEAR(t.tokens[3][1] - t.tokens[3][0], 0.015, 1e-12);
}

TEST(FakeLlmEngine, ArrivalDuringADecodeStepPrefillsAtItsEndWithoutDecodingTheOthers) {
  ModelParams p{4, 1e-3, 10e-3, 0};
  auto t = run_engine(p, {{1, 10, 4, 0}, {2, 30, 2, 0.015}});
  // 1: first token at 10 ms, decode step 10-20 ms; 2 arrives at 15 ms, prefills 20-50 ms; 1 resumes at 60 ms.
  EXPECT_NEAR(t.tokens[1][1], 0.020, 1e-12);
  EXPECT_NEAR(t.tokens[2][0], 0.050, 1e-12);
  EXPECT_NEAR(t.tokens[1][2], 0.060, 1e-12);
}

TEST(FakeLlmTruth, FoundRateMeetsTheTargetsAndAFasterOneMisses) {
  ModelParams p{8, 0.2e-3, 10e-3, 2e-3};
  auto truth = mlbench::fake_llm::find_rate(p, 200, 50, 0.5, 0.03, 2000, 3);
  ASSERT_GT(truth.rate, 0);
  EXPECT_LE(truth.ttft_p99, 0.5);
  EXPECT_LE(truth.tpot_p99, 0.03);
  auto faster = mlbench::fake_llm::simulate(p, 200, 50, truth.rate * 1.1, 2000, 3);
  EXPECT_TRUE(faster.ttft_p99 > 0.5 || faster.tpot_p99 > 0.03);
  // Deterministic with the seed.
  EXPECT_EQ(mlbench::fake_llm::find_rate(p, 200, 50, 0.5, 0.03, 2000, 3).rate, truth.rate);
  // A trickle sees the lone request's figures.
  auto slow = mlbench::fake_llm::simulate(p, 200, 50, 0.01, 200, 3);
  EXPECT_NEAR(slow.ttft_p50, 0.04, 1e-9);
  EXPECT_NEAR(slow.tpot_p50, 0.012, 1e-9);
}

TEST(FakeLlmTruth, PercentileInterpolatesLikeNumpy) {
  EXPECT_DOUBLE_EQ(mlbench::fake_llm::percentile({1, 2, 3, 4}, 50), 2.5);
  EXPECT_DOUBLE_EQ(mlbench::fake_llm::percentile({4, 1, 3, 2}, 100), 4);
  EXPECT_NEAR(mlbench::fake_llm::percentile({0, 10}, 99), 9.9, 1e-12);
}

// The server's command line with `args`: its exit status and stdout.
std::pair<int, std::string> run_server(const std::string& args) {
  std::string cmd = std::string(mlbench::fake_llm::server_path()) + " " + args + " 2>/dev/null";
  FILE* f = popen(cmd.c_str(), "r");
  if (!f) return {-1, ""};
  char buf[512] = {};
  std::string out;
  while (fgets(buf, sizeof buf, f)) out += buf;
  int st = pclose(f);
  return {WIFEXITED(st) ? WEXITSTATUS(st) : -1, out};
}

TEST(FakeLlmTruth, CommandLineFindRateAndSimulateAreTheLibrarysAnswers) {
  const std::string model = " --max-batch 8 --prefill-ms-per-token 0.2 --step-ms 10 --step-ms-per-seq 2";
  auto [rc, out] =
      run_server("--find-rate --isl 200 --osl 50 --ttft 0.5 --tpot 0.03 --requests 500 --seed 4" + model);
  ASSERT_EQ(rc, 0);
  auto truth = mlbench::fake_llm::find_rate({8, 0.2e-3, 10e-3, 2e-3}, 200, 50, 0.5, 0.03, 500, 4);
  EXPECT_DOUBLE_EQ(json::parse(out)["rate"].get<double>(), truth.rate);
  auto [src, sout] = run_server("--simulate --rate 3 --isl 200 --osl 50 --requests 300 --seed 4" + model);
  ASSERT_EQ(src, 0);
  auto sim = mlbench::fake_llm::simulate({8, 0.2e-3, 10e-3, 2e-3}, 200, 50, 3, 300, 4);
  auto j = json::parse(sout);
  EXPECT_DOUBLE_EQ(j["ttft_p99_s"].get<double>(), sim.ttft_p99);
  EXPECT_DOUBLE_EQ(j["tpot_p50_s"].get<double>(), sim.tpot_p50);
  EXPECT_DOUBLE_EQ(j["output_tokens_per_s"].get<double>(), sim.output_tokens_per_s);
}

TEST(FakeLlmTruth, BadCommandLinesExitTwo) {
  EXPECT_EQ(run_server("--max-batch 0 --port-file x").first, 2);
  EXPECT_EQ(run_server("--fault meltdown --port-file x").first, 2);
  EXPECT_EQ(run_server("--frobnicate 1").first, 2);
  EXPECT_EQ(run_server("--simulate --isl 10 --osl 10").first, 2);  // no --rate
  EXPECT_EQ(run_server("--help").first, 0);
}

// ---- a minimal HTTP client: what arrived and when
// ------------------------------------------------------------

struct Event {
  double t;
  std::string data;  // the text after "data: "
};
struct Response {
  int status = 0;
  std::map<std::string, std::string> headers;
  std::string body;  // a Content-Length body, or the chunks' payloads joined
  std::vector<Event> events;
  bool complete = false;  // the body ended as HTTP says it ends
  bool eof = false;       // the server closed the connection
};

class Client {
 public:
  explicit Client(int port) {
    fd_ = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_port = htons(static_cast<std::uint16_t>(port));
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (connect(fd_, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0) throw std::runtime_error("connect");
    int one = 1;
    setsockopt(fd_, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  }
  ~Client() { close(fd_); }

  double post(const std::string& path, const json& body, const std::string& extra_headers = "") {
    std::string b = body.dump();
    std::string req = "POST " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n" +
                      extra_headers + "Content-Length: " + std::to_string(b.size()) + "\r\n\r\n" + b;
    double t = now_s();
    EXPECT_EQ(write(fd_, req.data(), req.size()), static_cast<ssize_t>(req.size()));
    return t;
  }
  void raw(const std::string& bytes) {
    EXPECT_EQ(write(fd_, bytes.data(), bytes.size()), static_cast<ssize_t>(bytes.size()));
  }
  void get(const std::string& path) {
    std::string req = "GET " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n";
    EXPECT_EQ(write(fd_, req.data(), req.size()), static_cast<ssize_t>(req.size()));
  }

  // Reads one response, waiting at most `timeout_s` for each piece of it.
  Response read(double timeout_s = 20) {
    Response r;
    std::size_t head_end;
    while ((head_end = buf_.find("\r\n\r\n")) == std::string::npos)
      if (!fill(timeout_s, r)) return r;
    std::string head = buf_.substr(0, head_end);
    buf_.erase(0, head_end + 4);
    r.status = std::stoi(head.substr(9, 3));
    std::size_t pos = head.find("\r\n");
    while (pos != std::string::npos && pos < head.size()) {
      std::size_t e = head.find("\r\n", pos + 2);
      std::string line = head.substr(pos + 2, e == std::string::npos ? std::string::npos : e - pos - 2);
      std::size_t c = line.find(':');
      if (c != std::string::npos) {
        std::string k = line.substr(0, c);
        for (auto& ch : k) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
        r.headers[k] = line.substr(line.find_first_not_of(' ', c + 1));
      }
      pos = e;
    }
    if (r.status == 100) {
      r.complete = true;
      return r;
    }
    if (r.headers.count("content-length")) {
      std::size_t n = std::stoul(r.headers["content-length"]);
      while (buf_.size() < n)
        if (!fill(timeout_s, r)) return r;
      r.body = buf_.substr(0, n);
      buf_.erase(0, n);
      r.complete = true;
      return r;
    }
    // Chunked: each chunk's payload stamped with the time it was read.
    std::string sse;
    for (;;) {
      std::size_t e;
      while ((e = buf_.find("\r\n")) == std::string::npos)
        if (!fill(timeout_s, r)) return r;
      std::size_t n = std::stoul(buf_.substr(0, e), nullptr, 16);
      while (buf_.size() < e + 2 + n + 2)
        if (!fill(timeout_s, r)) return r;
      std::string payload = buf_.substr(e + 2, n);
      buf_.erase(0, e + 2 + n + 2);
      if (n == 0) {
        r.complete = true;
        return r;
      }
      r.body += payload;
      sse += payload;
      std::size_t sep;
      while ((sep = sse.find("\n\n")) != std::string::npos) {
        std::string ev = sse.substr(0, sep);
        sse.erase(0, sep + 2);
        EXPECT_EQ(ev.rfind("data: ", 0), 0u) << ev;
        r.events.push_back({last_read_, ev.substr(6)});
      }
    }
  }

 private:
  bool fill(double timeout_s, Response& r) {
    pollfd p{fd_, POLLIN, 0};
    if (poll(&p, 1, static_cast<int>(timeout_s * 1000)) <= 0) return false;
    char b[65536];
    ssize_t n = ::read(fd_, b, sizeof b);
    last_read_ = now_s();
    if (n <= 0) {
      r.eof = true;
      return false;
    }
    buf_.append(b, static_cast<std::size_t>(n));
    return true;
  }

  int fd_ = -1;
  std::string buf_;
  double last_read_ = 0;
};

std::string words(int n) {
  std::string s;
  for (int i = 0; i < n; ++i) s += "word" + std::to_string(i) + " ";
  return s;
}

json completion(int isl, int osl, bool stream = true) {
  return {{"model", "fake-llm"}, {"prompt", words(isl)}, {"max_tokens", osl},
          {"ignore_eos", true},  {"stream", stream},     {"stream_options", {{"include_usage", true}}}};
}

// ---- the HTTP server
// ---------------------------------------------------------------------------------------

// A lone streamed request: chunks in OpenAI's completion shape, the usage chunk, [DONE]; TTFT = prefill and
// TPOT = one decode step, as the client saw them and as the server logged them.
TEST(FakeLlmServer, LoneStreamedCompletionFollowsTheModelAndTheLogMatchesTheClient) {
  FakeLlmServer srv({"--prefill-ms-per-token", "0.5", "--step-ms", "20", "--step-ms-per-seq", "5"});
  Client c(srv.port());
  double sent = c.post("/v1/completions", completion(200, 8), "X-Request-Id: r-1\r\n");
  Response r = c.read();
  ASSERT_EQ(r.status, 200);
  ASSERT_TRUE(r.complete);
  EXPECT_EQ(r.headers["transfer-encoding"], "chunked");
  EXPECT_EQ(r.headers["content-type"], "text/event-stream");
  ASSERT_EQ(r.events.size(), 8u + 2);
  for (int i = 0; i < 8; ++i) {
    auto j = json::parse(r.events[static_cast<std::size_t>(i)].data);
    EXPECT_EQ(j["object"], "text_completion");
    EXPECT_EQ(j["id"], r.events.size() ? json::parse(r.events[0].data)["id"] : json());
    EXPECT_EQ(j["model"], "fake-llm");
    ASSERT_EQ(j["choices"].size(), 1u);
    EXPECT_EQ(j["choices"][0]["index"], 0);
    EXPECT_EQ(j["choices"][0]["text"], " w" + std::to_string(i + 1));
    EXPECT_EQ(j["choices"][0]["finish_reason"], i == 7 ? json("length") : json(nullptr));
  }
  auto usage = json::parse(r.events[8].data);
  EXPECT_TRUE(usage["choices"].empty());
  EXPECT_EQ(usage["usage"], (json{{"prompt_tokens", 200}, {"completion_tokens", 8}, {"total_tokens", 208}}));
  EXPECT_EQ(r.events[9].data, "[DONE]");

  // The client's view: TTFT from its send, TPOT over the later tokens. Late is possible on a loaded host,
  // early is not, for each token: the k-th comes no sooner than the prefill and k decode steps after the
  // send. (A TPOT between the first and last token can come out short when only the first was late: the
  // engine keeps model time and catches up.)
  const double ttft = r.events[0].t - sent, tpot = (r.events[7].t - r.events[0].t) / 7;
  for (std::size_t k = 0; k < 8; ++k)
    EXPECT_GE(r.events[k].t - sent, 0.100 + 0.025 * static_cast<double>(k) - 1e-3) << "token " << k;
  EXPECT_LT(ttft, 0.100 + 0.1);
  EXPECT_LT(tpot, 0.025 + 0.015);

  EXPECT_EQ(srv.stop(), 0);  // exited 0 on SIGTERM (a sanitizer's report would make it non-zero)
  auto log = srv.read_log();
  ASSERT_EQ(log.size(), 1u);
  const LogEntry& e = log[0];
  EXPECT_EQ(e.request_id, "r-1");
  EXPECT_EQ(e.outcome, "ok");
  EXPECT_EQ(e.prompt_tokens, 200);
  EXPECT_EQ(e.output_tokens, 8);
  ASSERT_EQ(e.token_times_s.size(), 8u);
  // The log and the client read the same clock: each token was sent before it was read, and read soon after.
  EXPECT_GE(e.arrival_s, sent);
  for (std::size_t i = 0; i < 8; ++i) {
    EXPECT_LE(e.token_times_s[i], r.events[i].t);
    EXPECT_LT(r.events[i].t - e.token_times_s[i], 0.1);
  }
  for (std::size_t k = 0; k < 8; ++k)
    EXPECT_GE(e.token_times_s[k] - e.arrival_s, 0.100 + 0.025 * static_cast<double>(k) - 1e-6)
        << "token " << k;
  EXPECT_LT(e.ttft(), 0.100 + 0.1);
  EXPECT_LT(e.tpot(), 0.025 + 0.015);
}

// Concurrent requests into a batch of two: the log's token times are the model's for the log's arrivals.
TEST(FakeLlmServer, QueueBehindAFullBatchFollowsTheModel) {
  ModelParams p{2, 0.2e-3, 15e-3, 5e-3};
  FakeLlmServer srv(
      {"--max-batch", "2", "--prefill-ms-per-token", "0.2", "--step-ms", "15", "--step-ms-per-seq", "5"});
  std::vector<std::unique_ptr<Client>> clients;
  for (int i = 0; i < 5; ++i) {
    clients.push_back(std::make_unique<Client>(srv.port()));
    clients.back()->post("/v1/completions", completion(100, 6),
                         "X-Request-Id: " + std::to_string(i) + "\r\n");
  }
  for (auto& c : clients) ASSERT_TRUE(c->read().complete);
  srv.stop();
  auto log = srv.read_log();
  ASSERT_EQ(log.size(), 5u);
  std::vector<std::tuple<std::uint64_t, int, int, double>> arrivals;
  std::sort(log.begin(), log.end(),
            [](const LogEntry& a, const LogEntry& b) { return a.arrival_s < b.arrival_s; });
  for (std::size_t i = 0; i < log.size(); ++i) arrivals.emplace_back(i, 100, 6, log[i].arrival_s);
  auto model = run_engine(p, arrivals);
  double worst = 0;
  for (std::size_t i = 0; i < log.size(); ++i) {
    ASSERT_EQ(log[i].token_times_s.size(), 6u);
    for (std::size_t k = 0; k < 6; ++k) {
      double late = log[i].token_times_s[k] - model.tokens[i][k];
      EXPECT_GE(late, -1e-6) << "request " << i << " token " << k;
      worst = std::max(worst, late);
    }
  }
  // Sent when the model says, give or take the server's wake-up latency on a busy host.
  EXPECT_LT(worst, 0.1);
  // And the queue is real: the last request's first token came after the first two finished.
  EXPECT_GT(log[4].first_token_s, log[0].last_token_s);
}

TEST(FakeLlmServer, ChatStreamSendsTheRoleFirstThenContentDeltas) {
  FakeLlmServer srv;
  Client c(srv.port());
  c.post("/v1/chat/completions",
         {{"model", "fake-llm"},
          {"messages",
           {{{"role", "system"}, {"content", "be brief"}}, {{"role", "user"}, {"content", "a b c"}}}},
          {"max_completion_tokens", 3},
          {"stream", true},
          {"stream_options", {{"include_usage", true}}}});
  Response r = c.read();
  ASSERT_TRUE(r.complete);
  ASSERT_EQ(r.events.size(), 1u + 3 + 2);
  auto role = json::parse(r.events[0].data);
  EXPECT_EQ(role["object"], "chat.completion.chunk");
  EXPECT_EQ(role["choices"][0]["delta"], (json{{"role", "assistant"}, {"content", ""}}));
  for (int i = 1; i <= 3; ++i) {
    auto j = json::parse(r.events[static_cast<std::size_t>(i)].data);
    EXPECT_EQ(j["choices"][0]["delta"]["content"], " w" + std::to_string(i));
    EXPECT_EQ(j["choices"][0]["finish_reason"], i == 3 ? json("length") : json(nullptr));
  }
  EXPECT_EQ(json::parse(r.events[4].data)["usage"]["prompt_tokens"], 5);
  EXPECT_EQ(r.events[5].data, "[DONE]");
}

TEST(FakeLlmServer, NonStreamingBodiesCarryTheTextAndUsageAndKeepAliveServesTheNext) {
  FakeLlmServer srv;
  Client c(srv.port());
  c.post("/v1/completions", completion(4, 3, false));
  Response r = c.read();
  ASSERT_EQ(r.status, 200);
  auto j = json::parse(r.body);
  EXPECT_EQ(j["object"], "text_completion");
  EXPECT_EQ(j["choices"][0]["text"], " w1 w2 w3");
  EXPECT_EQ(j["usage"]["completion_tokens"], 3);
  // The same connection, a chat body.
  c.post("/v1/chat/completions",
         {{"messages", {{{"role", "user"}, {"content", "hi there"}}}}, {"max_tokens", 2}});
  r = c.read();
  ASSERT_EQ(r.status, 200);
  j = json::parse(r.body);
  EXPECT_EQ(j["object"], "chat.completion");
  EXPECT_EQ(j["choices"][0]["message"]["content"], " w1 w2");
  EXPECT_EQ(j["usage"]["prompt_tokens"], 2);
  srv.stop();
  EXPECT_EQ(srv.read_log().size(), 2u);
}

TEST(FakeLlmServer, TokenizeCountsWordsAndTokenIdPromptsCountTheirIds) {
  FakeLlmServer srv;
  Client c(srv.port());
  c.post("/tokenize", {{"prompt", "the  quick\nbrown fox"}});
  auto j = json::parse(c.read().body);
  EXPECT_EQ(j["count"], 4);
  EXPECT_EQ(j["tokens"].size(), 4u);
  c.post("/tokenize", {{"prompt", "the fox"}});
  EXPECT_EQ(json::parse(c.read().body)["tokens"][0], j["tokens"][0]);
  c.post("/v1/completions", {{"prompt", {1, 2, 3, 4, 5, 6, 7}}, {"max_tokens", 1}});
  EXPECT_EQ(json::parse(c.read().body)["usage"]["prompt_tokens"], 7);
}

TEST(FakeLlmServer, IgnoreEosRunsToMaxTokensElseTheNaturalEnd) {
  FakeLlmServer srv({"--eos-after", "3"});
  Client c(srv.port());
  c.post("/v1/completions", {{"prompt", "a"}, {"max_tokens", 8}});
  auto j = json::parse(c.read().body);
  EXPECT_EQ(j["usage"]["completion_tokens"], 3);
  EXPECT_EQ(j["choices"][0]["finish_reason"], "stop");
  c.post("/v1/completions", {{"prompt", "a"}, {"max_tokens", 8}, {"ignore_eos", true}});
  j = json::parse(c.read().body);
  EXPECT_EQ(j["usage"]["completion_tokens"], 8);
  EXPECT_EQ(j["choices"][0]["finish_reason"], "length");
}

// A client that sends "Expect: 100-continue" (curl, for a large body) gets the interim response, then the
// answer.
TEST(FakeLlmServer, ExpectContinueIsAnsweredBeforeTheBody) {
  FakeLlmServer srv;
  Client c(srv.port());
  std::string body = json{{"prompt", words(2000)}, {"max_tokens", 1}}.dump();
  std::string head = "POST /v1/completions HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\nContent-Length: " +
                     std::to_string(body.size()) + "\r\n\r\n";
  c.raw(head);
  EXPECT_EQ(c.read().status, 100);
  c.raw(body);
  Response r = c.read();
  ASSERT_EQ(r.status, 200);
  EXPECT_EQ(json::parse(r.body)["usage"]["prompt_tokens"], 2000);
}

TEST(FakeLlmServer, UnknownModelRouteAndBodyAreOpenAiErrors) {
  FakeLlmServer srv;
  Client c(srv.port());
  c.post("/v1/completions", {{"model", "other"}, {"prompt", "a"}});
  Response r = c.read();
  EXPECT_EQ(r.status, 404);
  EXPECT_TRUE(json::parse(r.body)["error"].contains("message"));
  c.post("/v1/completions", {{"prompt", 5}});
  EXPECT_EQ(c.read().status, 400);
  c.get("/v1/nothing");
  EXPECT_EQ(c.read().status, 404);
  c.get("/health");
  EXPECT_EQ(c.read().status, 200);
  c.get("/v1/models");
  EXPECT_EQ(json::parse(c.read().body)["data"][0]["id"], "fake-llm");
}

// ---- faults ----------------------------------------------------------------------------------------------

TEST(FakeLlmFaults, Http500And429AreErrorBodiesAndLogged) {
  FakeLlmServer srv({"--fault", "http500", "--fault-every", "2"});
  Client c(srv.port());
  c.post("/v1/completions", completion(3, 2));
  EXPECT_EQ(c.read().status, 200);  // the first of every two is served
  c.post("/v1/completions", completion(3, 2));
  Response r = c.read();
  EXPECT_EQ(r.status, 500);
  EXPECT_EQ(json::parse(r.body)["error"]["code"], 500);
  c.post("/v1/completions", completion(3, 2), "X-Fake-Fault: http429\r\n");
  r = c.read();
  EXPECT_EQ(r.status, 429);
  EXPECT_EQ(r.headers["retry-after"], "1");
  srv.stop();
  auto log = srv.read_log();
  ASSERT_EQ(log.size(), 3u);
  EXPECT_EQ(log[1].outcome, "http500");
  EXPECT_EQ(log[1].status, 500);
  EXPECT_EQ(log[2].outcome, "http429");
}

TEST(FakeLlmFaults, StallSendsNothingMoreAndKeepsTheConnectionOpen) {
  FakeLlmServer srv({"--step-ms", "1", "--step-ms-per-seq", "0"});
  {
    Client c(srv.port());
    c.post("/v1/completions", completion(3, 20), "X-Fake-Fault: stall:2\r\n");
    Response r = c.read(0.5);
    EXPECT_EQ(r.status, 200);
    EXPECT_FALSE(r.complete);
    EXPECT_FALSE(r.eof);
    EXPECT_EQ(r.events.size(), 2u);
  }
  // The server still serves others.
  Client d(srv.port());
  d.post("/v1/completions", completion(3, 2));
  EXPECT_TRUE(d.read().complete);
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  srv.stop();
  auto log = srv.read_log();
  ASSERT_EQ(log.size(), 2u);
  auto stalled = log[0].outcome == "stall" ? log[0] : log[1];
  EXPECT_EQ(stalled.outcome, "stall");
  EXPECT_EQ(stalled.output_tokens, 2);
}

TEST(FakeLlmFaults, CloseEndsTheConnectionMidStreamWithoutTheLastChunk) {
  FakeLlmServer srv({"--fault", "close:3", "--step-ms", "1"});
  Client c(srv.port());
  c.post("/v1/completions", completion(3, 10));
  Response r = c.read();
  EXPECT_FALSE(r.complete);
  EXPECT_TRUE(r.eof);
  EXPECT_EQ(r.events.size(), 3u);
  srv.stop();
  EXPECT_EQ(srv.read_log().at(0).outcome, "close");
}

TEST(FakeLlmFaults, MalformedSendsOneEventThatIsNotJsonThenGoesOn) {
  FakeLlmServer srv({"--fault", "malformed", "--step-ms", "1"});
  Client c(srv.port());
  c.post("/v1/completions", completion(3, 3));
  Response r = c.read();
  ASSERT_TRUE(r.complete);
  ASSERT_EQ(r.events.size(), 1u + 1 + 2 + 2);
  EXPECT_TRUE(json::parse(r.events[1].data, nullptr, false).is_discarded());
  EXPECT_EQ(r.events.back().data, "[DONE]");
}

TEST(FakeLlmFaults, WrongUsageReportsTenTokensMoreThanSent) {
  FakeLlmServer srv({"--fault", "wrong-usage", "--step-ms", "1"});
  Client c(srv.port());
  c.post("/v1/completions", completion(3, 4));
  Response r = c.read();
  ASSERT_TRUE(r.complete);
  auto usage = json::parse(r.events[r.events.size() - 2].data)["usage"];
  EXPECT_EQ(usage["completion_tokens"], 14);
  EXPECT_EQ(usage["total_tokens"], 17);
}

TEST(FakeLlmFaults, UnknownFaultIsABadRequest) {
  FakeLlmServer srv;
  Client c(srv.port());
  c.post("/v1/completions", completion(3, 4), "X-Fake-Fault: meltdown\r\n");
  EXPECT_EQ(c.read().status, 400);
}

}  // namespace
