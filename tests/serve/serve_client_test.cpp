// serve.llm against real servers on 127.0.0.1: the fixture server (tests/serve/fake_llm_server.cpp, a
// continuous-batching timing model with a per-request log and fault modes), whose log is the truth the
// client's figures are checked against, and canned hostile responses from a socket in the test. Every fault
// must end as a per-request error of its kind, a clear status and no hang.
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "base/error.hpp"
#include "base/stats.hpp"
#include "fake_llm_model.hpp"
#include "serve/client.hpp"
#include "serve/probe.hpp"

namespace mlbench::serve {
namespace {

using fake_llm::FakeLlmServer;
using nlohmann::json;

// Runs serve.llm in process with `options`: the results of every planned case, or the error of the first that
// throws.
std::vector<Result> run_probe(json options, const std::atomic<bool>& stop) {
  auto probe = make_serve_probe();
  const json host = json::object();
  PlanContext pc{Profile::standard, host, options};
  std::vector<Result> out;
  for (const Case& c : probe->plan(pc)) {
    RunContext rc{host, std::chrono::steady_clock::now() + std::chrono::hours(1), stop};
    for (auto& r : probe->run(c, rc)) out.push_back(std::move(r));
  }
  return out;
}
std::vector<Result> run_probe(json options) {
  static const std::atomic<bool> never{false};
  return run_probe(std::move(options), never);
}

double metric(const Result& r, std::string_view name) {
  const Metric* m = r.metric(name);
  if (!m) ADD_FAILURE() << "no metric " << name;
  return m ? m->value : std::nan("");
}

double mean(const std::vector<double>& v) {
  double s = 0;
  for (double x : v) s += x;
  return v.empty() ? 0 : s / static_cast<double>(v.size());
}

// Fixture flags of a model whose figures are tens of milliseconds: large against loopback and the client's
// own time, small enough for a quick test.
const std::vector<std::string> kModel = {"--max-batch", "8",  "--prefill-ms-per-token", "0.2",
                                         "--step-ms",   "10", "--step-ms-per-seq",      "1"};

std::vector<std::string> with(std::vector<std::string> a, const std::vector<std::string>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

// The figures of a load point against the fixture's own log of the same requests: TTFT (dispatch to first
// chunk on the client, request parsed to first chunk written on the server: loopback and parsing apart),
// TPOT, E2E, token counts and throughput.
TEST(ServeClient, FiguresMatchTheServersLog) {
  for (const auto& load : {json{{"concurrency", 4}}, json{{"rate", 40}}}) {
    FakeLlmServer server(kModel);
    json o{{"url", server.url()}, {"requests", 60}, {"isl", 100}, {"osl", 20}};
    o.update(load);
    auto results = run_probe(o);
    server.stop();
    ASSERT_EQ(results.size(), 1u);
    const Result& r = results[0];
    ASSERT_EQ(r.status, Status::ok) << r.reason;
    auto log = server.read_log();
    std::vector<double> ttft, tpot, e2e;
    std::int64_t out = 0;
    for (const auto& e : log) {
      if (!e.stream) continue;  // the calibration request
      ttft.push_back(e.ttft());
      tpot.push_back(e.tpot());
      e2e.push_back(e.last_token_s - e.arrival_s);
      out += e.output_tokens;
      EXPECT_EQ(e.prompt_tokens, 100) << "the calibrated prompt is off its length";
    }
    ASSERT_EQ(ttft.size(), 60u);
    EXPECT_EQ(r.work.at("output_tokens").get<std::int64_t>(), out);
    EXPECT_EQ(out, 60 * 20);
    EXPECT_EQ(r.info.at("tokens"), "usage");
    EXPECT_EQ(r.info.at("prompts").at("calibration"), "tokenize");
    EXPECT_EQ(r.info.at("prompts").at("exact"), 60);  // each prompt checked through /tokenize
    EXPECT_EQ(r.info.at("prompts").at("approximate"), false);
    // Means: within 3 % plus 1 ms (loopback, the client's parsing, and a server step that wakes late); TTFT
    // plus 3 ms, under a third of a 10 ms step, as the client's clock starts before its write and the
    // server's after its read, each a wake-up apart on a loaded host (a request timed from the wrong chunk
    // or the schedule would be a step or more off).
    EXPECT_NEAR(metric(r, "ttft_mean"), mean(ttft), 0.03 * mean(ttft) + 3e-3) << load;
    EXPECT_NEAR(metric(r, "tpot_mean"), mean(tpot), 0.03 * mean(tpot) + 1e-3) << load;
    EXPECT_NEAR(metric(r, "e2e_mean"), mean(e2e), 0.03 * mean(e2e) + 1e-3) << load;
    std::sort(ttft.begin(), ttft.end());
    EXPECT_NEAR(metric(r, "ttft_p90"), percentile_sorted(ttft, 0.9),
                0.05 * percentile_sorted(ttft, 0.9) + 2e-3);
    double first = 1e300, last = 0;
    for (const auto& e : log)
      if (e.stream) {
        first = std::min(first, e.arrival_s);
        last = std::max(last, e.last_token_s);
      }
    EXPECT_NEAR(metric(r, "output_tokens_per_s"), double(out) / (last - first),
                0.03 * double(out) / (last - first));
    EXPECT_EQ(metric(r, "error_rate"), 0.0);
  }
}

// A server without /tokenize (404) whose tokens are not words: the words per token come from one request's
// usage, the prompts are made to length from it and marked approximate, and they reach their length.
TEST(ServeClient, WithoutTokenizeThePromptsAreCalibratedFromUsage) {
  FakeLlmServer server(with(kModel, {"--no-tokenize", "--tokens-per-word", "2"}));
  auto results =
      run_probe(json{{"url", server.url()}, {"requests", 8}, {"concurrency", 4}, {"isl", 64}, {"osl", 4}});
  server.stop();
  ASSERT_EQ(results.size(), 1u);
  const Result& r = results[0];
  ASSERT_EQ(r.status, Status::ok) << r.reason;
  EXPECT_EQ(r.info.at("prompts").at("calibration"), "usage");
  EXPECT_EQ(r.info.at("prompts").at("approximate"), true);
  EXPECT_DOUBLE_EQ(r.info.at("prompts").at("tokens_per_word").get<double>(), 2.0);
  int streamed = 0;
  for (const auto& e : server.read_log()) {
    if (!e.stream) continue;  // the calibration request
    ++streamed;
    EXPECT_EQ(e.prompt_tokens, 64) << "a prompt made from the usage calibration is off its length";
  }
  EXPECT_EQ(streamed, 8);
}

TEST(ServeClient, KeepAliveReusesOneConnectionPerStream) {
  FakeLlmServer server(kModel);
  auto results =
      run_probe({{"url", server.url()}, {"requests", 30}, {"isl", 10}, {"osl", 4}, {"concurrency", 3}});
  ASSERT_EQ(results[0].status, Status::ok);
  EXPECT_EQ(results[0].info.at("connections").get<unsigned>(), 3u);
}

TEST(ServeClient, ChatEndpointCountsTokensAfterTheRoleChunk) {
  FakeLlmServer server(kModel);
  auto results = run_probe({{"url", server.url()},
                            {"requests", 8},
                            {"isl", 30},
                            {"osl", 10},
                            {"concurrency", 2},
                            {"endpoint", "chat"}});
  ASSERT_EQ(results[0].status, Status::ok) << results[0].reason;
  EXPECT_EQ(results[0].work.at("output_tokens").get<std::int64_t>(), 80);
  auto log = server.read_log();
  double ttft = 0;
  int n = 0;
  for (const auto& e : log)
    if (e.stream) {
      ttft += e.ttft();
      ++n;
    }
  // The empty role chunk arrives before prefill; TTFT is the first token's.
  EXPECT_NEAR(metric(results[0], "ttft_mean"), ttft / n, 0.03 * ttft / n + 1e-3);
}

// Each fault of the fixture on every second request: counted by kind, the rest measured, never a hang.
TEST(ServeClient, ServerFaultsAreCountedByKind) {
  const std::pair<const char*, const char*> faults[] = {{"http500", "http_status"},
                                                        {"http429", "http_status"},
                                                        {"close:3", "closed"},
                                                        {"malformed:2", "malformed_sse"},
                                                        {"stall:2", "stalled"}};
  for (const auto& [fault, kind] : faults) {
    FakeLlmServer server(with(kModel, {"--fault", fault, "--fault-every", "2"}));
    const auto t0 = std::chrono::steady_clock::now();
    auto results = run_probe({{"url", server.url()},
                              {"requests", 10},
                              {"isl", 10},
                              {"osl", 8},
                              {"concurrency", 4},
                              {"stall_timeout", "0.5s"},
                              {"timeout", "20s"}});
    const double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    ASSERT_EQ(results.size(), 1u);
    const Result& r = results[0];
    ASSERT_EQ(r.status, Status::ok) << fault << ": " << r.reason;
    EXPECT_EQ(r.info.at("errors").value(kind, 0), 5) << fault << ": " << r.info.dump();
    EXPECT_EQ(r.work.at("requests").get<int>(), 5) << fault;
    EXPECT_NEAR(metric(r, "error_rate"), 50.0, 1e-9) << fault;
    EXPECT_FALSE(r.warnings.empty()) << fault;
    EXPECT_LT(took, 15.0) << fault;
  }
}

TEST(ServeClient, EveryRequestFailingIsTheRunsErrorNamingTheKind) {
  FakeLlmServer server(with(kModel, {"--fault", "http500"}));
  try {
    run_probe({{"url", server.url()}, {"requests", 4}, {"isl", 10}, {"osl", 4}, {"concurrency", 2}});
    FAIL() << "no error";
  } catch (const UsageError&) {
    FAIL() << "a server's fault is not bad input";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("all 4 requests failed (4 http_status)"), std::string::npos)
        << e.what();
  }
}

TEST(ServeClient, NoServerIsAClearConnectError) {
  // A port nothing listens on: bind one and close it.
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof a;
  ASSERT_EQ(::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a), 0);
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len);
  ::close(fd);
  const std::string url = "http://127.0.0.1:" + std::to_string(ntohs(a.sin_port));
  try {
    run_probe({{"url", url}, {"model", "m"}, {"requests", 2}, {"concurrency", 1}});
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("refused"), std::string::npos) << e.what();
  }
}

// Ctrl-C in the middle of a load point: the requests that finished are kept, the result says it was cut.
TEST(ServeClient, InterruptKeepsWhatWasMeasured) {
  FakeLlmServer server(with(kModel, {"--max-batch", "1"}));
  std::atomic<bool> stop{false};
  std::thread stopper([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(1500));
    stop = true;
  });
  const auto t0 = std::chrono::steady_clock::now();
  std::vector<Result> results;
  try {
    results = run_probe(
        {{"url", server.url()}, {"requests", 400}, {"isl", 10}, {"osl", 20}, {"concurrency", 2}}, stop);
  } catch (...) {
    stopper.join();
    throw;
  }
  stopper.join();
  const double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  ASSERT_EQ(results.size(), 1u);
  const Result& r = results[0];
  EXPECT_EQ(r.status, Status::ok);
  const int done = r.work.at("requests").get<int>();
  EXPECT_GT(done, 0);
  EXPECT_LT(done, 400);
  // The requests in flight when the stop came are cut: both connections', or one when the stop lands
  // between a request's end and the next one's dispatch (the fake server runs one request at a time, so
  // the two never end together).
  const int cut = r.info.at("errors").value("interrupted", 0);
  EXPECT_GE(cut, 1) << r.info.dump();
  EXPECT_LE(cut, 2) << r.info.dump();
  EXPECT_LE(done + cut, 400);
  bool said = false;
  for (const auto& w : r.warnings) said = said || w.find("interrupted") != std::string::npos;
  EXPECT_TRUE(said);
  EXPECT_LT(took, 10.0);
}

// The server scenario's search against the rate the fixture's timing model predicts for the same targets
// (its own simulation, 4,000 requests): within 30 %, the noise of p99 over a trial's 150 requests (other
// arrivals than the simulation's), the search's 10 % resolution and a busy machine's late wake-ups at 2 ms
// steps.
TEST(ServeClient, SearchFindsTheRateTheModelPredicts) {
  const fake_llm::ModelParams model{
      .max_batch = 8, .prefill_s_per_token = 25e-6, .step_s = 2e-3, .step_s_per_seq = 0.25e-3};
  const double ttft = 0.05, tpot = 0.004;
  const auto truth = fake_llm::find_rate(model, 100, 20, ttft, tpot, 4000, 1);
  ASSERT_GT(truth.rate, 5);
  FakeLlmServer server(
      {"--max-batch", "8", "--prefill-ms-per-token", "0.025", "--step-ms", "2", "--step-ms-per-seq", "0.25"});
  auto results = run_probe({{"url", server.url()},
                            {"requests", 200},
                            {"isl", 100},
                            {"osl", 20},
                            {"search", true},
                            {"ttft", ttft},
                            {"tpot", tpot},
                            {"rate", truth.rate / 2},
                            {"search_precision", 0.05}});
  ASSERT_EQ(results.size(), 1u);
  const Result& r = results[0];
  ASSERT_EQ(r.status, Status::ok) << r.reason;
  EXPECT_EQ(r.metrics.front().name, "max_rate");
  const auto& trials = r.info.at("trials");
  ASSERT_GE(trials.size(), 3u);
  EXPECT_NEAR(metric(r, "max_rate"), truth.rate, 0.3 * truth.rate) << truth.rate << " " << trials.dump();
  // The result's figures are those of the best passing trial.
  double best = 0;
  for (const auto& t : trials)
    if (t.at("passed").get<bool>()) best = std::max(best, t.at("rate").get<double>());
  EXPECT_EQ(metric(r, "max_rate"), best);
  EXPECT_LE(metric(r, "ttft_p99"), ttft);
  EXPECT_LE(metric(r, "tpot_p99"), tpot);
}

// A hostile peer: a socket that answers every connection with canned bytes (then holds it open or closes).
class CannedServer {
 public:
  CannedServer(std::string reply, bool hold) : reply_(std::move(reply)), hold_(hold) {
    fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof a;
    if (::bind(fd_, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0 || ::listen(fd_, 16) != 0)
      throw std::runtime_error("canned server: bind/listen");
    ::getsockname(fd_, reinterpret_cast<sockaddr*>(&a), &len);
    port_ = ntohs(a.sin_port);
    thread_ = std::thread([this] { serve(); });
  }
  ~CannedServer() {
    done_ = true;
    thread_.join();
    for (int c : held_) ::close(c);
    ::close(fd_);
  }
  std::string url() const { return "http://127.0.0.1:" + std::to_string(port_); }

 private:
  void serve() {
    while (!done_) {
      pollfd p{fd_, POLLIN, 0};
      if (::poll(&p, 1, 20) <= 0) continue;
      int c = ::accept(fd_, nullptr, nullptr);
      if (c < 0) continue;
      char buf[4096];
      pollfd q{c, POLLIN, 0};
      if (::poll(&q, 1, 2000) > 0) (void)::recv(c, buf, sizeof buf, 0);
      std::size_t off = 0;
      while (off < reply_.size()) {
        const ssize_t n = ::send(c, reply_.data() + off, reply_.size() - off, MSG_NOSIGNAL);
        if (n <= 0) break;
        off += static_cast<std::size_t>(n);
      }
      if (hold_)
        held_.push_back(c);
      else
        ::close(c);
    }
  }
  std::string reply_;
  bool hold_;
  int fd_ = -1, port_ = 0;
  std::atomic<bool> done_{false};
  std::vector<int> held_;
  std::thread thread_;
};

Record one_call(const std::string& url, double timeout = 5) {
  Endpoint ep;
  ep.url = parse_url(url);
  Client client(ep, WireLimits{});
  LoadRun run;
  run.jobs = {Job{"POST", "/v1/completions", "{}", true}};
  run.arrivals = {0};
  run.timeout_s = timeout;
  run.stall_s = timeout;
  std::atomic<bool> stop{false};
  return client.run(run, stop).records.at(0);
}

TEST(ServeHostile, EveryCannedFaultIsAnErrorOfItsKind) {
  const std::string ok_head = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n";
  struct Case {
    std::string reply;
    bool hold;
    ErrorKind kind;
  };
  const Case cases[] = {
      {"HTTP/1.1 200 OK\r\nX-Big: " + std::string(100000, 'a') + "\r\n\r\n", true, ErrorKind::too_large},
      {"garbage that is not http\r\n\r\n", true, ErrorKind::malformed_http},
      {ok_head + "ffffffffff\r\n", true, ErrorKind::too_large},
      {ok_head + "20000\r\ndata: " + std::string(0x20000 - 6, 'x'), true, ErrorKind::too_large},
      {ok_head + "8\r\ndata: [\n\r\n1\r\n\n\r\n", true, ErrorKind::malformed_sse},
      {ok_head + "e\r\ndata: [DONE]\n\n\r\n0\r\n\r\n", false, ErrorKind::no_tokens},
      {"HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\nshort", false, ErrorKind::closed},
      {"", false, ErrorKind::closed},
      {"HTTP/1.1 200 OK\r\n", true, ErrorKind::timeout},
  };
  for (const auto& c : cases) {
    CannedServer server(c.reply, c.hold);
    const auto t0 = std::chrono::steady_clock::now();
    Record r = one_call(server.url(), 1.0);
    const double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    EXPECT_EQ(r.error, c.kind) << c.reply.substr(0, 60) << " -> " << to_string(r.error) << ": " << r.detail;
    EXPECT_LT(took, 4.0) << c.reply.substr(0, 60);
  }
}

TEST(ServeHostile, AnErrorStatusKeepsABoundedMessage) {
  CannedServer server("HTTP/1.1 503 Busy\r\nContent-Length: 100000\r\n\r\n" + std::string(100000, 'e'),
                      false);
  Record r = one_call(server.url());
  EXPECT_EQ(r.error, ErrorKind::http_status);
  EXPECT_EQ(r.status, 503);
  EXPECT_LE(r.detail.size(), 300u);
  EXPECT_NE(r.detail.find("HTTP 503"), std::string::npos);
}

// An https peer: a self-signed certificate for IP 127.0.0.1 made here, and a TLS server thread that answers
// each connection with one streamed completion of two tokens.
class TlsServer {
 public:
  TlsServer() {
    key_ = EVP_EC_gen("P-256");
    cert_ = X509_new();
    X509_set_version(cert_, 2);
    ASN1_INTEGER_set(X509_get_serialNumber(cert_), 1);
    X509_gmtime_adj(X509_getm_notBefore(cert_), -60);
    X509_gmtime_adj(X509_getm_notAfter(cert_), 3600);
    X509_set_pubkey(cert_, key_);
    X509_NAME* name = X509_get_subject_name(cert_);
    X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC,
                               reinterpret_cast<const unsigned char*>("mlbench test"), -1, -1, 0);
    X509_set_issuer_name(cert_, name);
    X509V3_CTX v3;
    X509V3_set_ctx_nodb(&v3);
    X509V3_set_ctx(&v3, cert_, cert_, nullptr, nullptr, 0);
    for (auto [nid, value] : {std::pair{NID_subject_alt_name, "IP:127.0.0.1"},
                              std::pair{NID_basic_constraints, "critical,CA:TRUE"}}) {
      X509_EXTENSION* ext = X509V3_EXT_conf_nid(nullptr, &v3, nid, value);
      X509_add_ext(cert_, ext, -1);
      X509_EXTENSION_free(ext);
    }
    X509_sign(cert_, key_, EVP_sha256());
    pem_ =
        std::filesystem::temp_directory_path() / ("mlbench-serve-ca-" + std::to_string(::getpid()) + ".pem");
    FILE* f = std::fopen(pem_.c_str(), "w");
    PEM_write_X509(f, cert_);
    std::fclose(f);
    ctx_ = SSL_CTX_new(TLS_server_method());
    SSL_CTX_use_certificate(ctx_, cert_);
    SSL_CTX_use_PrivateKey(ctx_, key_);
    fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof a;
    EXPECT_EQ(::bind(fd_, reinterpret_cast<sockaddr*>(&a), sizeof a), 0);
    EXPECT_EQ(::listen(fd_, 16), 0);
    ::getsockname(fd_, reinterpret_cast<sockaddr*>(&a), &len);
    port_ = ntohs(a.sin_port);
    thread_ = std::thread([this] { serve(); });
  }
  ~TlsServer() {
    done_ = true;
    thread_.join();
    ::close(fd_);
    SSL_CTX_free(ctx_);
    X509_free(cert_);
    EVP_PKEY_free(key_);
    std::filesystem::remove(pem_);
  }
  std::string url() const { return "https://127.0.0.1:" + std::to_string(port_); }
  const std::filesystem::path& ca_file() const { return pem_; }

 private:
  void serve() {
    const std::string reply =
        "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
        "23\r\ndata: {\"choices\":[{\"text\":\" a\"}]}\n\n\r\n"
        "23\r\ndata: {\"choices\":[{\"text\":\" b\"}]}\n\n\r\n"
        "e\r\ndata: [DONE]\n\n\r\n0\r\n\r\n";
    while (!done_) {
      pollfd p{fd_, POLLIN, 0};
      if (::poll(&p, 1, 20) <= 0) continue;
      const int c = ::accept(fd_, nullptr, nullptr);
      if (c < 0) continue;
      timeval tv{2, 0};
      ::setsockopt(c, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
      SSL* ssl = SSL_new(ctx_);
      SSL_set_fd(ssl, c);
      if (SSL_accept(ssl) == 1) {
        char buf[4096];
        if (SSL_read(ssl, buf, sizeof buf) > 0) SSL_write(ssl, reply.data(), static_cast<int>(reply.size()));
        SSL_shutdown(ssl);
      }
      ERR_clear_error();
      SSL_free(ssl);
      ::close(c);
    }
  }
  EVP_PKEY* key_ = nullptr;
  X509* cert_ = nullptr;
  SSL_CTX* ctx_ = nullptr;
  std::filesystem::path pem_;
  int fd_ = -1, port_ = 0;
  std::atomic<bool> done_{false};
  std::thread thread_;
};

Record tls_call(const TlsServer& server, bool verify, std::string ca_file) {
  Endpoint ep;
  ep.url = parse_url(server.url());
  ep.verify = verify;
  ep.ca_file = std::move(ca_file);
  Client client(ep, WireLimits{});
  LoadRun run;
  run.jobs = {Job{"POST", "/v1/completions", "{}", true}};
  run.arrivals = {0};
  run.timeout_s = 5;
  run.stall_s = 5;
  std::atomic<bool> stop{false};
  return client.run(run, stop).records.at(0);
}

TEST(ServeTls, HttpsStreamsWithTheCertificateVerified) {
  TlsServer server;
  Record trusted = tls_call(server, true, server.ca_file());
  EXPECT_EQ(trusted.error, ErrorKind::none) << trusted.detail;
  EXPECT_EQ(trusted.chunks, 2);
  // The system's CAs do not know the test certificate: refused, saying why and what to do.
  Record untrusted = tls_call(server, true, "");
  EXPECT_EQ(untrusted.error, ErrorKind::tls);
  EXPECT_NE(untrusted.detail.find("certificate"), std::string::npos) << untrusted.detail;
  EXPECT_NE(untrusted.detail.find("--ca-file"), std::string::npos) << untrusted.detail;
  Record unchecked = tls_call(server, false, "");
  EXPECT_EQ(unchecked.error, ErrorKind::none) << unchecked.detail;
  EXPECT_EQ(unchecked.chunks, 2);
}

TEST(ServeTls, ACaFileWithoutCertificatesIsBadInput) {
  TlsServer server;
  Endpoint ep;
  ep.url = parse_url(server.url());
  ep.ca_file = "/dev/null";
  EXPECT_THROW(Client(ep, WireLimits{}), UsageError);
  // A FIFO (nobody writing) is refused at once by the bounded reader, never waited on; a regular file with
  // no certificate in it is refused by its content.
  const auto dir = std::filesystem::temp_directory_path() / ("mlbench-ca-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  ASSERT_EQ(::mkfifo((dir / "fifo").c_str(), 0600), 0);
  ep.ca_file = (dir / "fifo").string();
  const auto t0 = std::chrono::steady_clock::now();
  EXPECT_THROW(Client(ep, WireLimits{}), UsageError);
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(5));
  std::FILE* f = std::fopen((dir / "empty.pem").c_str(), "w");
  ASSERT_NE(f, nullptr);
  std::fputs("not a certificate\n", f);
  std::fclose(f);
  ep.ca_file = (dir / "empty.pem").string();
  EXPECT_THROW(Client(ep, WireLimits{}), UsageError);
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace mlbench::serve
