// serve.llm's pure parts: the bounded HTTP response and SSE parsers (fed whole and one byte at a time), the
// stream events, the URL, the metric definitions against hand-computed values, and the seeded arrivals.
#include <gtest/gtest.h>

#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "base/error.hpp"
#include "serve/metrics.hpp"
#include "serve/wire.hpp"
#include "serve/workload.hpp"

namespace mlbench::serve {
namespace {

struct Parsed {
  WireError error;
  std::string body;
  bool done = false;
  int status = 0;
  bool keep_alive = false;
};

// Feeds `bytes` in pieces of `step` bytes (0: all at once).
Parsed parse_http(const std::string& bytes, std::size_t step, const WireLimits& limits = {},
                  bool eof = false) {
  HttpResponseParser p(limits);
  Parsed out;
  const std::size_t n = step == 0 ? bytes.size() : step;
  for (std::size_t i = 0; i < bytes.size() && !out.error && !p.done(); i += n) {
    std::size_t used = 0;
    out.error = p.feed(std::string_view(bytes).substr(i, n), out.body, used);
  }
  if (!out.error && eof) out.error = p.eof();
  out.done = p.done();
  out.status = p.status();
  out.keep_alive = p.keep_alive();
  return out;
}

const std::string kChunked =
    "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n"
    "e\r\ndata: {\"a\":1}\n\r\n"
    "5;ext=1\r\nhello\r\n"
    "0\r\nX-Trailer: 1\r\n\r\n";

TEST(ServeHttp, ChunkedBodyInAnySplit) {
  for (std::size_t step : {0u, 1u, 2u, 3u, 7u}) {
    Parsed p = parse_http(kChunked, step);
    EXPECT_FALSE(p.error) << step << ": " << p.error.detail;
    EXPECT_TRUE(p.done) << step;
    EXPECT_EQ(p.status, 200);
    EXPECT_TRUE(p.keep_alive);
    EXPECT_EQ(p.body, "data: {\"a\":1}\nhello") << step;
  }
}

TEST(ServeHttp, ContentLengthAndConnectionClose) {
  Parsed p = parse_http("HTTP/1.1 404 Not Found\r\nContent-Length: 5\r\nConnection: close\r\n\r\nnope!", 1);
  EXPECT_FALSE(p.error);
  EXPECT_TRUE(p.done);
  EXPECT_EQ(p.status, 404);
  EXPECT_FALSE(p.keep_alive);
  EXPECT_EQ(p.body, "nope!");
}

TEST(ServeHttp, BodyUntilCloseEndsAtEofAndIsNotKeptAlive) {
  Parsed p = parse_http("HTTP/1.1 200 OK\r\n\r\ndata: x\n\n", 0, {}, true);
  EXPECT_FALSE(p.error);
  EXPECT_TRUE(p.done);
  EXPECT_FALSE(p.keep_alive);
  EXPECT_EQ(p.body, "data: x\n\n");
}

TEST(ServeHttp, InterimResponseIsSkipped) {
  Parsed p = parse_http("HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok", 1);
  EXPECT_FALSE(p.error);
  EXPECT_EQ(p.status, 200);
  EXPECT_EQ(p.body, "ok");
}

TEST(ServeHttp, ClosedMidBodyIsClosed) {
  Parsed p = parse_http(kChunked.substr(0, 100), 0, {}, true);
  EXPECT_EQ(p.error.kind, ErrorKind::closed);
  Parsed q = parse_http("", 0, {}, true);
  EXPECT_EQ(q.error.kind, ErrorKind::closed);
}

TEST(ServeHttp, MalformedInputIsMalformedHttp) {
  for (const std::string& bad : {
           std::string("SSH-2.0-OpenSSH\r\n\r\n"),
           std::string("HTTP/1.1 2x0 OK\r\n\r\n"),
           std::string("HTTP/1.1 200 OK\r\nno colon here\r\n\r\n"),
           std::string("HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\n"),
           std::string("HTTP/1.1 200 OK\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n"),
           std::string("HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip\r\n\r\n"),
           std::string("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n"),
           std::string("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nabc\r\n"),
       }) {
    for (std::size_t step : {0u, 1u}) {
      Parsed p = parse_http(bad, step);
      EXPECT_EQ(p.error.kind, ErrorKind::malformed_http) << bad << " step " << step;
    }
  }
}

TEST(ServeHttp, EveryBoundIsTooLarge) {
  WireLimits small;
  small.header_bytes = 64;
  small.chunk_bytes = 16;
  small.body_bytes = 20;
  small.line_bytes = 32;
  // Headers without an end: refused at the bound, not buffered on.
  EXPECT_EQ(parse_http("HTTP/1.1 200 OK\r\nX: " + std::string(1000, 'a'), 1, small).error.kind,
            ErrorKind::too_large);
  EXPECT_EQ(parse_http("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n11\r\n", 0, small).error.kind,
            ErrorKind::too_large);
  EXPECT_EQ(
      parse_http("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n" + std::string(40, '0'), 1, small)
          .error.kind,
      ErrorKind::too_large);
  EXPECT_EQ(parse_http("HTTP/1.1 200 OK\r\nContent-Length: 21\r\n\r\n", 0, small).error.kind,
            ErrorKind::too_large);
  EXPECT_EQ(parse_http("HTTP/1.1 200 OK\r\n\r\n" + std::string(21, 'x'), 3, small).error.kind,
            ErrorKind::too_large);
  std::string chunks = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n";
  for (int i = 0; i < 3; ++i) chunks += "8\r\n12345678\r\n";
  EXPECT_EQ(parse_http(chunks, 5, small).error.kind, ErrorKind::too_large);
}

std::vector<std::string> sse(const std::string& bytes, std::size_t step, WireError* error = nullptr,
                             const WireLimits& limits = {}) {
  SseParser p(limits);
  std::vector<std::string> events;
  const std::size_t n = step == 0 ? bytes.size() : step;
  for (std::size_t i = 0; i < bytes.size(); i += n) {
    WireError e = p.feed(std::string_view(bytes).substr(i, n), events);
    if (e) {
      if (error) *error = e;
      break;
    }
  }
  return events;
}

TEST(ServeSse, EventsInAnySplitAndEveryLineEnding) {
  const std::string stream =
      ": ping\n\ndata: one\n\ndata:two\r\n\r\nevent: x\ndata: a\ndata: b\n\ndata: c\r\rid: 7\ndata\n\n"
      "data: d\r\ndata: e\r\n\r\n";
  for (std::size_t step : {0u, 1u, 2u, 5u}) {
    auto events = sse(stream, step);
    ASSERT_EQ(events.size(), 6u) << step;
    EXPECT_EQ(events[0], "one");
    EXPECT_EQ(events[1], "two");
    EXPECT_EQ(events[2], "a\nb");
    EXPECT_EQ(events[3], "c");
    EXPECT_EQ(events[4], "");
    EXPECT_EQ(events[5], "d\ne");  // CRLF is one line end: the two lines are one event
  }
}

TEST(ServeSse, LineAndEventBoundsAreTooLarge) {
  WireLimits small;
  small.line_bytes = 16;
  small.event_bytes = 24;
  WireError e;
  sse("data: " + std::string(100, 'x'), 1, &e, small);
  EXPECT_EQ(e.kind, ErrorKind::too_large);
  WireError e2;
  sse("data: 0123456789\ndata: 0123456789\ndata: 0123456789\n\n", 0, &e2, small);
  EXPECT_EQ(e2.kind, ErrorKind::too_large);
}

TEST(ServeSse, StreamEventsAsVllmReadsThem) {
  WireLimits l;
  StreamEvent ev;
  EXPECT_FALSE(parse_stream_event("[DONE]", l, ev));
  EXPECT_TRUE(ev.done);
  EXPECT_FALSE(parse_stream_event(R"({"choices":[{"index":0,"text":" w1"}]})", l, ev));
  EXPECT_TRUE(ev.has_choice);
  EXPECT_EQ(ev.text, " w1");
  EXPECT_FALSE(parse_stream_event(R"({"choices":[{"delta":{"role":"assistant","content":""}}]})", l, ev));
  EXPECT_TRUE(ev.has_choice);
  EXPECT_EQ(ev.text, "");
  EXPECT_FALSE(
      parse_stream_event(R"({"choices":[],"usage":{"prompt_tokens":12,"completion_tokens":34}})", l, ev));
  EXPECT_FALSE(ev.has_choice);
  EXPECT_EQ(ev.prompt_tokens, 12);
  EXPECT_EQ(ev.completion_tokens, 34);
  EXPECT_FALSE(parse_stream_event(R"({"error":{"message":"overloaded"}})", l, ev));
  EXPECT_EQ(ev.server_error, "overloaded");
  for (const std::string& bad :
       {std::string(R"({"id": broken)"), std::string("[1,2]"), std::string(R"({"choices":{"text":"x"}})"),
        std::string(R"({"choices":[{"text":5}]})"), std::string(R"({"usage":{"completion_tokens":-3}})"),
        std::string(100, '[') + std::string(100, ']')}) {
    EXPECT_EQ(parse_stream_event(bad, l, ev).kind, ErrorKind::malformed_sse) << bad;
  }
}

TEST(ServeUrl, ParsedAndRefused) {
  Url u = parse_url("http://127.0.0.1:8000/v1");
  EXPECT_FALSE(u.tls);
  EXPECT_EQ(u.host, "127.0.0.1");
  EXPECT_EQ(u.port, 8000);
  EXPECT_EQ(u.base, "");
  Url v = parse_url("https://[::1]/proxy/v1/");
  EXPECT_TRUE(v.tls);
  EXPECT_EQ(v.host, "::1");
  EXPECT_EQ(v.port, 443);
  EXPECT_EQ(v.base, "/proxy");
  EXPECT_EQ(v.text(), "https://[::1]:443/proxy");
  for (const char* bad : {"ftp://x", "http://", "http://h:0", "http://h:70000", "http://user:pw@h:1",
                          "http://h:1/?q", "http://h h:1", "http://[::1"}) {
    EXPECT_THROW(parse_url(bad), UsageError) << bad;
  }
}

// Two requests by hand: TTFT, TPOT = (E2E − TTFT)/(out − 1), ITL per chunk, E2E, throughputs, goodput.
TEST(ServeMetrics, DefinitionsAgainstHandValues) {
  Record a;
  a.start = 0.0;
  a.first = 0.1;
  a.last = 0.5;
  a.end = 0.52;
  a.itl = {0.2, 0.2};  // 3 chunks
  a.chunks = 3;
  a.completion_tokens = 5;  // usage: 5 tokens in 3 chunks
  a.prompt_tokens = 10;
  Record b;
  b.start = 0.2;
  b.first = 0.5;
  b.last = 0.5;
  b.end = 1.0;
  b.chunks = 1;
  b.completion_tokens = 1;
  b.prompt_tokens = 20;
  Record c;  // failed
  c.start = 0.3;
  c.end = 0.4;
  c.error = ErrorKind::http_status;
  Targets t;
  t.ttft = 0.2;
  PointFigures f = summarize({a, b, c}, 1.0, {0, 0, 0}, t);
  EXPECT_EQ(f.sent, 3u);
  EXPECT_EQ(f.completed, 2u);
  EXPECT_EQ(f.failed, 1u);
  EXPECT_EQ(f.errors.at("http_status"), 1u);
  EXPECT_EQ(f.good, 1u);  // a (TTFT 0.1); b's TTFT is 0.3
  EXPECT_EQ(f.output_tokens, 6);
  EXPECT_EQ(f.input_tokens, 30);
  ASSERT_EQ(f.ttft.size(), 2u);
  EXPECT_DOUBLE_EQ(f.ttft[0], 0.1);
  EXPECT_NEAR(f.ttft[1], 0.3, 1e-12);
  ASSERT_EQ(f.tpot.size(), 1u);  // b has one token: no TPOT
  EXPECT_DOUBLE_EQ(f.tpot[0], (0.5 - 0.1) / 4);
  EXPECT_EQ(f.itl.size(), 2u);
  EXPECT_NEAR(f.e2e[0], 0.3, 1e-12);
  EXPECT_DOUBLE_EQ(f.e2e[1], 0.5);
  auto m = point_metrics(f, true);
  auto get = [&](std::string_view n) {
    for (const auto& x : m)
      if (x.name == n) return x.value;
    ADD_FAILURE() << n;
    return 0.0;
  };
  EXPECT_EQ(m.front().name, "output_tokens_per_s");
  EXPECT_DOUBLE_EQ(get("output_tokens_per_s"), 6.0);
  EXPECT_DOUBLE_EQ(get("requests_per_s"), 2.0);
  EXPECT_DOUBLE_EQ(get("total_tokens_per_s"), 36.0);
  EXPECT_DOUBLE_EQ(get("goodput"), 1.0);
  EXPECT_NEAR(get("ttft_p50"), 0.2, 1e-12);   // numpy linear: halfway between 0.1 and 0.3
  EXPECT_NEAR(get("ttft_p90"), 0.28, 1e-12);  // 0.1 + 0.9 × 0.2
  EXPECT_NEAR(get("e2e_mean"), 0.4, 1e-12);
  EXPECT_NEAR(get("error_rate"), 100.0 / 3, 1e-9);
}

TEST(ServeMetrics, UsageMissingCountsChunksAndSaysSo) {
  Record a;
  a.start = 0;
  a.first = 0.1;
  a.last = 0.4;
  a.chunks = 4;
  a.itl = {0.1, 0.1, 0.1};
  PointFigures f = summarize({a}, 1.0, {7}, {});
  EXPECT_FALSE(f.tokens_exact);
  EXPECT_EQ(f.output_tokens, 4);
  EXPECT_EQ(f.input_tokens, 7);
  EXPECT_NEAR(f.tpot[0], 0.1, 1e-12);
}

TEST(ServeMetrics, TailPercentileOfFewSamplesHasAnOpenInterval) {
  std::vector<double> v;
  for (int i = 1; i <= 100; ++i) v.push_back(i * 0.001);
  Metric p50 = percentile_metric("ttft_p50", v, 0.5, "requests");
  ASSERT_TRUE(p50.ci);
  EXPECT_LT(p50.ci->lo, p50.value);
  EXPECT_GT(p50.ci->hi, p50.value);
  EXPECT_TRUE(p50.ci_open.empty());
  Metric p999 = percentile_metric("ttft_p999", v, 0.999, "requests");
  EXPECT_TRUE(std::isinf(p999.ci->hi));
  EXPECT_NE(p999.ci_open.find("p99.9 of 100 requests"), std::string::npos) << p999.ci_open;
}

TEST(ServeWorkload, ArrivalsAreSeededPoissonAtTheRate) {
  auto a = arrival_times(20000, 50.0, 1.0, 7);
  auto b = arrival_times(20000, 50.0, 1.0, 7);
  auto c = arrival_times(20000, 50.0, 1.0, 8);
  EXPECT_EQ(a, b);
  EXPECT_NE(a, c);
  EXPECT_EQ(a.front(), 0.0);
  // Mean gap 1/rate; exponential gaps have CV 1.
  std::vector<double> gaps;
  for (std::size_t i = 1; i < a.size(); ++i) gaps.push_back(a[i] - a[i - 1]);
  double mean = 0, sq = 0;
  for (double g : gaps) mean += g;
  mean /= static_cast<double>(gaps.size());
  for (double g : gaps) sq += (g - mean) * (g - mean);
  const double cv = std::sqrt(sq / static_cast<double>(gaps.size() - 1)) / mean;
  EXPECT_NEAR(mean, 0.02, 0.02 * 0.03);
  EXPECT_NEAR(cv, 1.0, 0.03);
  // Burstiness 0.25: the same mean, CV 2 (gamma shape k has CV 1/sqrt(k)).
  auto bursty = arrival_times(20000, 50.0, 0.25, 7);
  EXPECT_NEAR(bursty.back() / 19999, 0.02, 0.02 * 0.06);
  auto all = arrival_times(5, std::numeric_limits<double>::infinity(), 1.0, 7);
  EXPECT_EQ(all, std::vector<double>(5, 0.0));
}

TEST(ServeWorkload, LengthsAndPromptsAreSeeded) {
  std::mt19937_64 r1(3), r2(3);
  auto l1 = draw_lengths(1000, 100, Lengths::uniform, 0.5, r1);
  auto l2 = draw_lengths(1000, 100, Lengths::uniform, 0.5, r2);
  EXPECT_EQ(l1, l2);
  for (auto v : l1) {
    EXPECT_GE(v, 50);
    EXPECT_LE(v, 150);
  }
  EXPECT_EQ(synthetic_prompt(50, r1).size() > 0, true);
  std::mt19937_64 r3(9), r4(9);
  const std::string p = synthetic_prompt(300, r3);
  EXPECT_EQ(p, synthetic_prompt(300, r4));
  EXPECT_EQ(std::count(p.begin(), p.end(), ' '), 299);
  // Fitting a prompt to a token count adds or takes off whole words, never below one.
  const std::string longer = resize_prompt(p, 5, r3);
  EXPECT_EQ(longer.substr(0, p.size()), p);
  EXPECT_EQ(std::count(longer.begin(), longer.end(), ' '), 304);
  const std::string shorter = resize_prompt(p, -10, r3);
  EXPECT_EQ(p.substr(0, shorter.size()), shorter);
  EXPECT_EQ(std::count(shorter.begin(), shorter.end(), ' '), 289);
  EXPECT_EQ(resize_prompt("one two", -5, r3), "one");
}

// A prompt file as the probe reads it: ShareGPT's first human turn and the reply's words; JSONL's prompt and
// max_tokens; entries without a prompt skipped; a file without one, or a bad line, refused naming the flag.
TEST(ServeWorkload, PromptFilesShareGptAndJsonl) {
  const auto dir =
      std::filesystem::temp_directory_path() / ("mlbench-serve-prompts-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  auto write = [&](const char* name, const std::string& text) {
    std::ofstream(dir / name) << text;
    return dir / name;
  };
  auto share = load_prompt_file(
      write("s.json",
            R"([{"conversations":[{"from":"human","value":"hi there"},{"from":"gpt","value":"a b c"}]},
                          {"conversations":[{"from":"human","value":"alone"}]},
                          {"id":"no conversations"}])"),
      "--prompts");
  ASSERT_EQ(share.size(), 1u);
  EXPECT_EQ(share[0].prompt, "hi there");
  EXPECT_EQ(share[0].output_words, 3);
  auto lines = load_prompt_file(
      write("p.jsonl", "{\"prompt\": \"one\", \"max_tokens\": 7}\n\n{\"text\": \"two\"}\n"), "--prompts");
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_EQ(lines[0].max_tokens, 7);
  EXPECT_EQ(lines[1].prompt, "two");
  EXPECT_THROW(load_prompt_file(write("bad.jsonl", "{\"prompt\": \"x\"}\nnot json\n"), "--prompts"),
               UsageError);
  EXPECT_THROW(load_prompt_file(write("neg.jsonl", "{\"prompt\": \"x\", \"max_tokens\": -1}\n"), "--prompts"),
               UsageError);
  EXPECT_THROW(load_prompt_file(write("none.json", "[]"), "--prompts"), UsageError);
  EXPECT_THROW(load_prompt_file("/dev/zero", "--prompts"), UsageError);
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace mlbench::serve
