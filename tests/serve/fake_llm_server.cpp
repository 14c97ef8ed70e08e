// mlbench_fake_llm_server: an OpenAI-compatible HTTP/1.1 server whose timing follows the continuous-batching
// model of fake_llm_model.hpp, the fixture `mlbench serve` is tested against. One thread: epoll over the
// listening socket, the connections, a timerfd armed at the end of the engine's step in progress and a
// signalfd for SIGTERM/SIGINT. Every request it ends is one JSONL line of its log: the truth the client's
// TTFT, TPOT and throughput are compared with. Run with --help for the command line.
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include <nlohmann/json.hpp>

#include "fake_llm_model.hpp"

namespace {

using mlbench::fake_llm::Emit;
using mlbench::fake_llm::Engine;
using mlbench::fake_llm::ModelParams;
using json = nlohmann::json;

constexpr const char* kHelp = R"(mlbench_fake_llm_server: a fake OpenAI-compatible LLM server (test fixture)

Usage:
  mlbench_fake_llm_server --port-file PATH [--log PATH] [--model NAME] [model flags] [fault flags]
  mlbench_fake_llm_server --simulate --rate R --isl N --osl N [--requests N] [--seed N] [model flags]
  mlbench_fake_llm_server --find-rate --isl N --osl N --ttft S --tpot S [--requests N] [--seed N] [model flags]

Serving: listens on 127.0.0.1, port chosen by the kernel, written (decimal, newline) to --port-file once it
accepts. POST /v1/completions and /v1/chat/completions (stream true: chunked SSE, `data: {...}` events in
OpenAI's shape, the usage chunk when stream_options.include_usage is true, then `data: [DONE]`; stream false:
one JSON body), POST /tokenize (vLLM's shape), GET /v1/models, GET /health. HTTP/1.1 keep-alive.
SIGTERM or SIGINT: exits 0.

Timing model (continuous batching, vLLM V0 style, prefill not chunked):
  a running batch of at most --max-batch sequences and a FIFO queue; steps run back to back while there is
  work, an idle engine starts one at the arrival; at a step's start arrived requests join the batch FIFO while
  it has room. A step is a PREFILL step when a sequence in the batch has not been prefilled:
  --prefill-ms-per-token x (their prompt tokens), ending with each of them emitting its first token; else a
  DECODE step of --step-ms + --step-ms-per-seq x (sequences in the batch), ending with every sequence emitting
  one token. A lone request: TTFT = prefill x prompt tokens, TPOT = step + step-per-seq.
  Tokenizer: --tokens-per-word tokens per whitespace-separated word (a prompt of token ids counts its ids). Output: max_tokens
  (default --default-max-tokens) tokens " w1", " w2", ...; with --eos-after N and ignore_eos not true, stops
  at min(N, max_tokens) with finish_reason "stop".

Model flags:
  --model NAME               the served model name (default fake-llm); another name in a request: 404
  --max-batch N              default 8
  --prefill-ms-per-token X   default 0.05
  --step-ms A                default 5
  --step-ms-per-seq B        default 0.5
  --eos-after N              default 0 (never: every request runs to max_tokens)
  --default-max-tokens N     default 16
  --tokens-per-word K        default 1: the tokenizer counts K tokens per word (a server whose tokens are
                             not the client's words)
  --no-tokenize              POST /tokenize answers 404, as a server without the route does

Fault flags (or per request: header `X-Fake-Fault: KIND[:AFTER]`):
  --fault KIND[:AFTER]       http500 | http429 | stall | close | malformed | wrong-usage; AFTER = tokens sent
                             before the fault (default 1)
  --fault-every N            the fault hits every N-th generation request (default 1: all)

Log (--log PATH): one JSON line per request when it ends: id, request_id (X-Request-Id), endpoint, stream,
model, status, outcome (ok | client_closed | http500 | http429 | stall | close | malformed | wrong-usage |
stopped: still in flight at SIGTERM),
finish_reason, prompt_tokens, max_tokens, output_tokens (sent), arrival_s, first_token_s, last_token_s,
token_times_s (each token's send time). Times are CLOCK_MONOTONIC seconds.

--simulate: the model's TTFT/TPOT p50/p99 and throughput at Poisson rate R (seeded), as JSON.
--find-rate: the highest Poisson rate whose simulated TTFT p99 and TPOT p99 meet the targets, as JSON.
)";

enum class FaultKind { none, http500, http429, stall, close, malformed, wrong_usage };
struct Fault {
  FaultKind kind = FaultKind::none;
  int after = 1;
};

const std::pair<FaultKind, std::string_view> kFaultNames[] = {
    {FaultKind::http500, "http500"},     {FaultKind::http429, "http429"},
    {FaultKind::stall, "stall"},         {FaultKind::close, "close"},
    {FaultKind::malformed, "malformed"}, {FaultKind::wrong_usage, "wrong-usage"}};

std::string_view fault_name(FaultKind k) {
  for (const auto& [kind, name] : kFaultNames)
    if (kind == k) return name;
  return "ok";
}

bool parse_fault(std::string_view s, Fault& f) {
  std::string_view name = s.substr(0, s.find(':'));
  f = {};
  for (const auto& [kind, n] : kFaultNames)
    if (n == name) f.kind = kind;
  if (f.kind == FaultKind::none) return false;
  if (name.size() < s.size()) {
    std::string after(s.substr(name.size() + 1));
    char* end = nullptr;
    long v = std::strtol(after.c_str(), &end, 10);
    if (after.empty() || *end != '\0' || v < 1 || v > 1'000'000) return false;
    f.after = static_cast<int>(v);
  }
  return true;
}

double mono() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

struct Options {
  std::string port_file, log, model = "fake-llm";
  ModelParams p;
  int eos_after = 0, default_max_tokens = 16;
  int tokens_per_word = 1;
  bool tokenize = true;
  Fault fault;
  int fault_every = 1;
  bool simulate = false, find_rate = false;
  int isl = 0, osl = 0, requests = 4000;
  double rate = 0, ttft = 0, tpot = 0;
  std::uint64_t seed = 1;
};

[[noreturn]] void usage_error(const std::string& msg) {
  std::fprintf(stderr, "mlbench_fake_llm_server: error: %s (see --help)\n", msg.c_str());
  std::exit(2);
}

double number(const char* flag, const char* v, double lo, double hi) {
  char* end = nullptr;
  double d = std::strtod(v, &end);
  if (*v == '\0' || *end != '\0' || !std::isfinite(d) || d < lo || d > hi)
    usage_error(std::string(flag) + " takes a number from " + std::to_string(lo) + " to " +
                std::to_string(hi) + ", not '" + v + "'");
  return d;
}

Options parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    std::string_view a = argv[i];
    if (a == "--help" || a == "-h") {
      std::fputs(kHelp, stdout);
      std::exit(0);
    }
    if (a == "--simulate") {
      o.simulate = true;
      continue;
    }
    if (a == "--find-rate") {
      o.find_rate = true;
      continue;
    }
    if (a == "--no-tokenize") {
      o.tokenize = false;
      continue;
    }
    if (i + 1 >= argc) usage_error(std::string(a) + " needs a value");
    const char* v = argv[++i];
    if (a == "--port-file")
      o.port_file = v;
    else if (a == "--log")
      o.log = v;
    else if (a == "--model")
      o.model = v;
    else if (a == "--max-batch")
      o.p.max_batch = static_cast<int>(number(argv[i - 1], v, 1, 1e6));
    else if (a == "--prefill-ms-per-token")
      o.p.prefill_s_per_token = number(argv[i - 1], v, 0, 1e4) / 1e3;
    else if (a == "--step-ms")
      o.p.step_s = number(argv[i - 1], v, 0, 1e6) / 1e3;
    else if (a == "--step-ms-per-seq")
      o.p.step_s_per_seq = number(argv[i - 1], v, 0, 1e6) / 1e3;
    else if (a == "--eos-after")
      o.eos_after = static_cast<int>(number(argv[i - 1], v, 0, 1e9));
    else if (a == "--tokens-per-word")
      o.tokens_per_word = static_cast<int>(number(argv[i - 1], v, 1, 1000));
    else if (a == "--default-max-tokens")
      o.default_max_tokens = static_cast<int>(number(argv[i - 1], v, 1, 1e9));
    else if (a == "--fault") {
      if (!parse_fault(v, o.fault)) usage_error(std::string("--fault: unknown fault '") + v + "'");
    } else if (a == "--fault-every")
      o.fault_every = static_cast<int>(number(argv[i - 1], v, 1, 1e9));
    else if (a == "--isl")
      o.isl = static_cast<int>(number(argv[i - 1], v, 0, 1e7));
    else if (a == "--osl")
      o.osl = static_cast<int>(number(argv[i - 1], v, 1, 1e7));
    else if (a == "--requests")
      o.requests = static_cast<int>(number(argv[i - 1], v, 1, 1e8));
    else if (a == "--seed")
      o.seed = static_cast<std::uint64_t>(number(argv[i - 1], v, 0, 1e15));
    else if (a == "--rate")
      o.rate = number(argv[i - 1], v, 1e-9, 1e9);
    else if (a == "--ttft")
      o.ttft = number(argv[i - 1], v, 0, 1e9);
    else if (a == "--tpot")
      o.tpot = number(argv[i - 1], v, 0, 1e9);
    else
      usage_error("unknown option '" + std::string(a) + "'");
  }
  if (o.simulate || o.find_rate) {
    if (o.osl == 0) usage_error("--simulate and --find-rate need --isl and --osl");
    if (o.simulate && o.rate <= 0) usage_error("--simulate needs --rate");
    if (o.find_rate && o.ttft <= 0 && o.tpot <= 0) usage_error("--find-rate needs --ttft or --tpot");
  } else if (o.port_file.empty()) {
    usage_error("--port-file is required");
  }
  return o;
}

int count_words(std::string_view s) {
  int n = 0;
  bool in = false;
  for (char c : s) {
    bool space = c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
    if (!space && !in) ++n;
    in = !space;
  }
  return n;
}

std::vector<std::string> words(std::string_view s) {
  std::vector<std::string> out;
  std::string cur;
  for (char c : s) {
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v') {
      if (!cur.empty()) out.push_back(std::move(cur));
      cur.clear();
    } else {
      cur += c;
    }
  }
  if (!cur.empty()) out.push_back(std::move(cur));
  return out;
}

// The prompt tokens of a request body, or -1 when its prompt/messages are not of a shape the API takes.
int prompt_tokens(const json& body, bool chat, std::string* text) {
  if (chat) {
    const json* m = body.contains("messages") ? &body["messages"] : nullptr;
    if (!m || !m->is_array() || m->empty()) return -1;
    int n = 0;
    for (const auto& msg : *m) {
      if (!msg.is_object() || !msg.contains("content")) return -1;
      const auto& c = msg["content"];
      if (c.is_string()) {
        n += count_words(c.get_ref<const std::string&>());
        *text += c.get<std::string>() + " ";
      } else if (c.is_array()) {
        for (const auto& part : c)
          if (part.is_object() && part.value("type", "") == "text" && part.contains("text") &&
              part["text"].is_string()) {
            n += count_words(part["text"].get_ref<const std::string&>());
            *text += part["text"].get<std::string>() + " ";
          }
      } else if (!c.is_null()) {
        return -1;
      }
    }
    return n;
  }
  if (!body.contains("prompt")) return -1;
  json p = body["prompt"];
  // A batch of one prompt is that prompt.
  if (p.is_array() && p.size() == 1 && (p[0].is_string() || p[0].is_array())) p = p[0];
  if (p.is_string()) {
    *text = p.get<std::string>();
    return count_words(*text);
  }
  if (p.is_array() && !p.empty()) {
    for (const auto& id : p)
      if (!id.is_number_integer()) return -1;
    return static_cast<int>(p.size());
  }
  return -1;
}

struct Request {
  std::uint64_t id = 0;
  int fd = -1;
  std::string sid, request_id, endpoint, prefix;
  bool chat = false, stream = false, include_usage = false;
  int prompt = 0, max_tokens = 0, target = 0, sent = 0;
  std::string finish = "length";
  Fault fault;
  bool stalled = false;
  double arrival = 0;
  std::vector<double> times;
  std::string text;  // the output so far (non-streaming)
};

struct Conn {
  int fd = -1;
  std::string in, out;
  std::size_t out_off = 0;
  std::uint64_t req = 0;  // the request being answered, 0 when none
  bool keep_alive = true;
  bool closing = false;  // close once `out` is written
  bool want_out = false;
  bool continued = false;  // "100 Continue" sent for the request being read
};

class Server {
 public:
  explicit Server(Options o) : o_(std::move(o)), engine_(o_.p) {}
  int run();

 private:
  Options o_;
  Engine engine_;
  int ep_ = -1, listen_ = -1, timer_ = -1, sig_ = -1, log_fd_ = -1;
  std::unordered_map<int, Conn> conns_;
  std::unordered_map<std::uint64_t, Request> reqs_;
  std::uint64_t next_id_ = 1, generations_ = 0;
  long created_ = std::time(nullptr);

  void accept_all();
  void on_readable(Conn& c);
  void process(Conn& c);
  void handle(Conn& c, std::string_view method, std::string_view path, const std::string& body,
              const std::unordered_map<std::string, std::string>& headers);
  void generate(Conn& c, const std::string& path, const json& body,
                const std::unordered_map<std::string, std::string>& headers);
  void on_emit(const Emit& e);
  void finish(Request& r, Conn& c);
  void respond(Conn& c, int status, std::string_view reason, const std::string& body,
               std::string_view content_type = "application/json", std::string_view extra = "");
  void error(Conn& c, int status, std::string_view reason, const std::string& message, std::string_view type,
             std::string_view extra = "");
  void send(Conn& c, std::string_view data);
  void chunk(Conn& c, std::string_view event);
  void flush(Conn& c);
  void close_conn(int fd);
  void log(const Request& r, int status, std::string_view outcome, std::string_view finish);
  void arm_timer();
};

void Server::send(Conn& c, std::string_view data) {
  c.out.append(data);
  flush(c);
}

void Server::chunk(Conn& c, std::string_view event) {
  char head[32];
  int n = std::snprintf(head, sizeof head, "%zx\r\n", event.size());
  c.out.append(head, static_cast<std::size_t>(n));
  c.out.append(event);
  c.out.append("\r\n");
  flush(c);
}

void Server::flush(Conn& c) {
  while (c.out_off < c.out.size()) {
    ssize_t n = ::send(c.fd, c.out.data() + c.out_off, c.out.size() - c.out_off, MSG_NOSIGNAL);
    if (n > 0) {
      c.out_off += static_cast<std::size_t>(n);
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
      if (!c.want_out) {
        epoll_event ev{};
        ev.events = EPOLLIN | EPOLLOUT | EPOLLRDHUP;
        ev.data.fd = c.fd;
        epoll_ctl(ep_, EPOLL_CTL_MOD, c.fd, &ev);
        c.want_out = true;
      }
      return;
    }
    // The peer is gone: its request ends when the connection's hang-up is read.
    c.out.clear();
    c.out_off = 0;
    return;
  }
  c.out.clear();
  c.out_off = 0;
  if (c.want_out) {
    epoll_event ev{};
    ev.events = EPOLLIN | EPOLLRDHUP;
    ev.data.fd = c.fd;
    epoll_ctl(ep_, EPOLL_CTL_MOD, c.fd, &ev);
    c.want_out = false;
  }
}

void Server::respond(Conn& c, int status, std::string_view reason, const std::string& body,
                     std::string_view content_type, std::string_view extra) {
  std::string head = "HTTP/1.1 " + std::to_string(status) + " " + std::string(reason) +
                     "\r\nContent-Type: " + std::string(content_type) +
                     "\r\nContent-Length: " + std::to_string(body.size()) + "\r\n" + std::string(extra);
  if (!c.keep_alive) head += "Connection: close\r\n";
  head += "\r\n";
  send(c, head + body);
}

void Server::error(Conn& c, int status, std::string_view reason, const std::string& message,
                   std::string_view type, std::string_view extra) {
  json e = {{"error", {{"message", message}, {"type", type}, {"param", nullptr}, {"code", status}}}};
  respond(c, status, reason, e.dump(), "application/json", extra);
}

void Server::log(const Request& r, int status, std::string_view outcome, std::string_view finish) {
  if (log_fd_ < 0) return;
  json j = {{"id", r.sid},
            {"request_id", r.request_id},
            {"endpoint", r.endpoint},
            {"stream", r.stream},
            {"model", o_.model},
            {"status", status},
            {"outcome", outcome},
            {"finish_reason", finish},
            {"prompt_tokens", r.prompt},
            {"max_tokens", r.max_tokens},
            {"output_tokens", r.sent},
            {"arrival_s", r.arrival},
            {"first_token_s", r.times.empty() ? json(nullptr) : json(r.times.front())},
            {"last_token_s", r.times.empty() ? json(nullptr) : json(r.times.back())},
            {"token_times_s", r.times}};
  std::string line = j.dump() + "\n";
  // One write per line on an O_APPEND descriptor: a reader never sees half a line.
  ssize_t n = write(log_fd_, line.data(), line.size());
  (void)n;
}

void Server::close_conn(int fd) {
  auto it = conns_.find(fd);
  if (it == conns_.end()) return;
  Conn& c = it->second;
  if (c.req != 0) {
    auto r = reqs_.find(c.req);
    if (r != reqs_.end()) {
      engine_.cancel(r->second.id);
      log(r->second, 200, r->second.stalled ? "stall" : "client_closed", "");
      reqs_.erase(r);
    }
  }
  epoll_ctl(ep_, EPOLL_CTL_DEL, fd, nullptr);
  ::close(fd);
  conns_.erase(it);
}

void Server::accept_all() {
  for (;;) {
    int fd = accept4(listen_, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (fd < 0) {
      if (errno == EINTR) continue;
      return;  // EAGAIN, or out of descriptors (the backlog keeps the client waiting)
    }
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    epoll_event ev{};
    ev.events = EPOLLIN | EPOLLRDHUP;
    ev.data.fd = fd;
    epoll_ctl(ep_, EPOLL_CTL_ADD, fd, &ev);
    conns_[fd].fd = fd;
  }
}

void Server::on_readable(Conn& c) {
  char buf[65536];
  const int fd = c.fd;
  for (;;) {
    ssize_t n = read(fd, buf, sizeof buf);
    if (n > 0) {
      c.in.append(buf, static_cast<std::size_t>(n));
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) break;
    close_conn(fd);  // EOF or error
    return;
  }
  process(c);
}

std::string lower(std::string_view s) {
  std::string out(s);
  for (auto& ch : out) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  return out;
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

// Parses the requests buffered on `c`, one at a time: the next waits until the one being answered ends.
void Server::process(Conn& c) {
  constexpr std::size_t kMaxHead = 64 * 1024, kMaxBody = 64 * 1024 * 1024;
  while (c.req == 0 && !c.closing) {
    std::size_t end = c.in.find("\r\n\r\n");
    if (end == std::string::npos) {
      if (c.in.size() > kMaxHead) {
        c.keep_alive = false;
        error(c, 431, "Request Header Fields Too Large", "request head over 64 KiB", "invalid_request_error");
        c.closing = true;
      }
      break;
    }
    std::string_view head(c.in.data(), end);
    std::size_t line_end = head.find("\r\n");
    std::string_view first = head.substr(0, line_end);
    std::size_t s1 = first.find(' '), s2 = first.rfind(' ');
    if (s1 == std::string_view::npos || s2 == s1) {
      c.keep_alive = false;
      error(c, 400, "Bad Request", "malformed request line", "invalid_request_error");
      c.closing = true;
      break;
    }
    std::string method(first.substr(0, s1)), path(first.substr(s1 + 1, s2 - s1 - 1));
    std::string version(first.substr(s2 + 1));
    std::unordered_map<std::string, std::string> headers;
    std::size_t pos = line_end == std::string_view::npos ? head.size() : line_end + 2;
    while (pos < head.size()) {
      std::size_t e = head.find("\r\n", pos);
      if (e == std::string_view::npos) e = head.size();
      std::string_view h = head.substr(pos, e - pos);
      std::size_t colon = h.find(':');
      if (colon != std::string_view::npos)
        headers[lower(trim(h.substr(0, colon)))] = std::string(trim(h.substr(colon + 1)));
      pos = e + 2;
    }
    std::size_t length = 0;
    if (auto it = headers.find("content-length"); it != headers.end()) {
      char* e = nullptr;
      unsigned long long v = std::strtoull(it->second.c_str(), &e, 10);
      if (it->second.empty() || *e != '\0' || v > kMaxBody) {
        c.keep_alive = false;
        error(c, 413, "Payload Too Large", "Content-Length missing a number or over 64 MiB",
              "invalid_request_error");
        c.closing = true;
        break;
      }
      length = static_cast<std::size_t>(v);
    } else if (headers.count("transfer-encoding")) {
      c.keep_alive = false;
      error(c, 411, "Length Required", "send the body with Content-Length", "invalid_request_error");
      c.closing = true;
      break;
    }
    if (c.in.size() < end + 4 + length) {
      // curl and others wait for this before a large body.
      if (auto e = headers.find("expect");
          e != headers.end() && lower(e->second) == "100-continue" && !c.continued) {
        c.continued = true;
        send(c, "HTTP/1.1 100 Continue\r\n\r\n");
      }
      break;
    }
    c.continued = false;
    std::string body = c.in.substr(end + 4, length);
    c.in.erase(0, end + 4 + length);
    auto conn = headers.find("connection");
    std::string conn_v = conn == headers.end() ? "" : lower(conn->second);
    c.keep_alive = version == "HTTP/1.0" ? conn_v == "keep-alive" : conn_v != "close";
    handle(c, method, path, body, headers);
    if (!c.keep_alive && c.req == 0) c.closing = true;
  }
  if (c.closing && c.out_off >= c.out.size()) close_conn(c.fd);
}

void Server::handle(Conn& c, std::string_view method, std::string_view path, const std::string& body,
                    const std::unordered_map<std::string, std::string>& headers) {
  if (method == "GET" && path == "/health") {
    respond(c, 200, "OK", "", "text/plain");
    return;
  }
  if (method == "GET" && path == "/v1/models") {
    json m = {
        {"object", "list"},
        {"data", {{{"id", o_.model}, {"object", "model"}, {"created", created_}, {"owned_by", "mlbench"}}}}};
    respond(c, 200, "OK", m.dump());
    return;
  }
  const bool gen = path == "/v1/completions" || path == "/v1/chat/completions";
  if (!gen && (path != "/tokenize" || !o_.tokenize)) {
    error(c, 404, "Not Found", "no route " + std::string(path), "not_found_error");
    return;
  }
  if (method != "POST") {
    error(c, 405, "Method Not Allowed", std::string(path) + " takes POST", "invalid_request_error");
    return;
  }
  json j = json::parse(body, nullptr, false);
  if (j.is_discarded() || !j.is_object()) {
    error(c, 400, "Bad Request", "the body is not a JSON object", "invalid_request_error");
    return;
  }
  if (path == "/tokenize") {
    const bool chat = j.contains("messages");
    std::string text;
    int n = prompt_tokens(j, chat, &text);
    if (n < 0) {
      error(c, 400, "Bad Request", "give \"prompt\" (a string) or \"messages\"", "invalid_request_error");
      return;
    }
    if (!text.empty()) n *= o_.tokens_per_word;
    json ids = json::array();
    if (text.empty() && j.contains("prompt") && j["prompt"].is_array()) {
      ids = j["prompt"];
    } else {
      // A word's id: its FNV-1a hash in a 32,000-entry vocabulary.
      for (const auto& w : words(text)) {
        std::uint32_t h = 2166136261u;
        for (unsigned char ch : w) h = (h ^ ch) * 16777619u;
        for (int k = 0; k < o_.tokens_per_word; ++k) ids.push_back((h + k) % 32000);
      }
    }
    respond(c, 200, "OK", json{{"count", n}, {"max_model_len", 1 << 20}, {"tokens", ids}}.dump());
    return;
  }
  generate(c, std::string(path), j, headers);
}

void Server::generate(Conn& c, const std::string& path, const json& body,
                      const std::unordered_map<std::string, std::string>& headers) {
  const double arrival = mono();
  const bool chat = path == "/v1/chat/completions";
  if (body.contains("model") && body["model"].is_string() && body["model"].get<std::string>() != o_.model) {
    error(c, 404, "Not Found", "The model `" + body["model"].get<std::string>() + "` does not exist.",
          "NotFoundError");
    return;
  }
  std::string text;
  int prompt = prompt_tokens(body, chat, &text);
  if (prompt < 0) {
    error(c, 400, "Bad Request",
          chat ? "\"messages\" must be a non-empty array of messages with content"
               : "\"prompt\" must be a string or an array of token ids",
          "invalid_request_error");
    return;
  }
  if (!text.empty()) prompt *= o_.tokens_per_word;
  int max_tokens = o_.default_max_tokens;
  for (const char* key : {"max_tokens", "max_completion_tokens"}) {
    if (!body.contains(key) || body[key].is_null()) continue;
    if (!body[key].is_number_integer() || body[key].get<long long>() < 1 ||
        body[key].get<long long>() > 1 << 24) {
      error(c, 400, "Bad Request", std::string(key) + " must be a positive integer", "invalid_request_error");
      return;
    }
    max_tokens = body[key].get<int>();
  }
  auto flag = [&](const json& o, const char* key) {
    return o.contains(key) && o[key].is_boolean() && o[key].get<bool>();
  };
  Request r;
  r.id = next_id_++;
  r.fd = c.fd;
  r.chat = chat;
  r.endpoint = path;
  r.sid = (chat ? "chatcmpl-" : "cmpl-") + std::to_string(r.id);
  r.stream = flag(body, "stream");
  r.include_usage = r.stream && body.contains("stream_options") && body["stream_options"].is_object() &&
                    flag(body["stream_options"], "include_usage");
  r.prompt = prompt;
  r.max_tokens = max_tokens;
  r.target = max_tokens;
  if (o_.eos_after > 0 && !flag(body, "ignore_eos") && o_.eos_after < max_tokens) {
    r.target = o_.eos_after;
    r.finish = "stop";
  }
  r.arrival = arrival;
  if (auto it = headers.find("x-request-id"); it != headers.end()) r.request_id = it->second;
  ++generations_;
  if (auto it = headers.find("x-fake-fault"); it != headers.end()) {
    if (!parse_fault(it->second, r.fault)) {
      error(c, 400, "Bad Request", "unknown X-Fake-Fault '" + it->second + "'", "invalid_request_error");
      return;
    }
  } else if (generations_ % static_cast<std::uint64_t>(o_.fault_every) == 0) {
    r.fault = o_.fault;
  }
  if (r.fault.kind == FaultKind::http500 || r.fault.kind == FaultKind::http429) {
    bool busy = r.fault.kind == FaultKind::http429;
    error(c, busy ? 429 : 500, busy ? "Too Many Requests" : "Internal Server Error",
          busy ? "rate limited (fault injected)" : "internal error (fault injected)",
          busy ? "rate_limit_error" : "server_error", busy ? "Retry-After: 1\r\n" : "");
    log(r, busy ? 429 : 500, fault_name(r.fault.kind), "");
    return;
  }
  json model = o_.model;
  r.prefix = "{\"id\":\"" + r.sid + "\",\"object\":\"" +
             (chat ? "chat.completion.chunk" : "text_completion") +
             "\",\"created\":" + std::to_string(created_) + ",\"model\":" + model.dump() + ",\"choices\":[";
  if (r.stream) {
    std::string head =
        "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nCache-Control: no-cache\r\n"
        "Transfer-Encoding: chunked\r\n";
    if (!c.keep_alive) head += "Connection: close\r\n";
    send(c, head + "\r\n");
    // The role comes first, before any token, as vLLM and OpenAI send it.
    if (chat)
      chunk(c, "data: " + r.prefix +
                   "{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":\"\"},\"logprobs\":null,"
                   "\"finish_reason\":null}]}\n\n");
  }
  c.req = r.id;
  engine_.submit(r.id, prompt, r.target, arrival);
  reqs_.emplace(r.id, std::move(r));
}

void Server::on_emit(const Emit& e) {
  auto it = reqs_.find(e.id);
  if (it == reqs_.end()) return;
  Request& r = it->second;
  if (r.stalled) return;
  auto cit = conns_.find(r.fd);
  if (cit == conns_.end()) return;
  Conn& c = cit->second;
  ++r.sent;
  r.times.push_back(mono());
  const std::string tok = " w" + std::to_string(e.index);
  const bool fault_now = r.fault.kind != FaultKind::none && r.sent == r.fault.after;
  if (r.stream) {
    std::string fin = e.last ? "\"" + r.finish + "\"" : "null";
    std::string body = r.chat ? "{\"index\":0,\"delta\":{\"content\":\"" + tok + "\"}"
                              : "{\"index\":0,\"text\":\"" + tok + "\"";
    chunk(c, "data: " + r.prefix + body + ",\"logprobs\":null,\"finish_reason\":" + fin + "}]}\n\n");
  } else {
    r.text += tok;
  }
  if (fault_now && r.fault.kind == FaultKind::stall) {
    // Nothing more is ever sent; the request ends when the client closes.
    r.stalled = true;
    engine_.cancel(r.id);
    return;
  }
  if (fault_now && r.fault.kind == FaultKind::close) {
    engine_.cancel(r.id);
    log(r, 200, "close", "");
    c.req = 0;
    reqs_.erase(it);
    c.closing = true;
    if (c.out_off >= c.out.size()) close_conn(c.fd);
    return;
  }
  if (fault_now && r.fault.kind == FaultKind::malformed) {
    if (r.stream) {
      chunk(c, "data: {\"id\": broken\n\n");
    } else {
      c.keep_alive = false;
      respond(c, 200, "OK", "{\"id\": broken");
      log(r, 200, "malformed", "");
      c.req = 0;
      reqs_.erase(it);
      c.closing = true;
      if (c.out_off >= c.out.size()) close_conn(c.fd);
      return;
    }
  }
  if (e.last) finish(r, c);
}

void Server::finish(Request& r, Conn& c) {
  const bool wrong = r.fault.kind == FaultKind::wrong_usage;
  const int completion = r.sent + (wrong ? 10 : 0);
  json usage = {{"prompt_tokens", r.prompt},
                {"completion_tokens", completion},
                {"total_tokens", r.prompt + completion}};
  if (r.stream) {
    if (r.include_usage) chunk(c, "data: " + r.prefix + "],\"usage\":" + usage.dump() + "}\n\n");
    chunk(c, "data: [DONE]\n\n");
    send(c, "0\r\n\r\n");
  } else {
    json choice = {{"index", 0}, {"logprobs", nullptr}, {"finish_reason", r.finish}};
    if (r.chat)
      choice["message"] = {{"role", "assistant"}, {"content", r.text}};
    else
      choice["text"] = r.text;
    json b = {{"id", r.sid},
              {"object", r.chat ? "chat.completion" : "text_completion"},
              {"created", created_},
              {"model", o_.model},
              {"choices", json::array({choice})},
              {"usage", usage}};
    respond(c, 200, "OK", b.dump());
  }
  log(r, 200, r.fault.kind == FaultKind::none ? "ok" : fault_name(r.fault.kind), r.finish);
  const std::uint64_t id = r.id;
  c.req = 0;
  reqs_.erase(id);
  if (!c.keep_alive) {
    c.closing = true;
    if (c.out_off >= c.out.size()) close_conn(c.fd);
    return;
  }
  process(c);  // a pipelined request waiting behind this one
}

void Server::arm_timer() {
  itimerspec its{};
  double t = engine_.next_event();
  if (std::isfinite(t)) {
    // An absolute CLOCK_MONOTONIC deadline: nanosecond resolution, no drift from relative sleeps.
    double sec = std::floor(t);
    its.it_value.tv_sec = static_cast<time_t>(sec);
    its.it_value.tv_nsec = static_cast<long>((t - sec) * 1e9);
    if (its.it_value.tv_sec == 0 && its.it_value.tv_nsec == 0) its.it_value.tv_nsec = 1;
  }
  timerfd_settime(timer_, TFD_TIMER_ABSTIME, &its, nullptr);
}

int Server::run() {
  // Thousands of concurrent streams need as many descriptors: the soft limit is raised to the hard one.
  rlimit nofile{};
  if (getrlimit(RLIMIT_NOFILE, &nofile) == 0 && nofile.rlim_cur < nofile.rlim_max) {
    nofile.rlim_cur = nofile.rlim_max;
    setrlimit(RLIMIT_NOFILE, &nofile);
  }
  sigset_t mask;
  sigemptyset(&mask);
  sigaddset(&mask, SIGTERM);
  sigaddset(&mask, SIGINT);
  sigprocmask(SIG_BLOCK, &mask, nullptr);
  signal(SIGPIPE, SIG_IGN);
  sig_ = signalfd(-1, &mask, SFD_NONBLOCK | SFD_CLOEXEC);
  timer_ = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
  ep_ = epoll_create1(EPOLL_CLOEXEC);
  listen_ = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (sig_ < 0 || timer_ < 0 || ep_ < 0 || listen_ < 0) {
    std::perror("mlbench_fake_llm_server: setup");
    return 1;
  }
  if (!o_.log.empty()) {
    log_fd_ = open(o_.log.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC, 0644);
    if (log_fd_ < 0) {
      std::perror(("mlbench_fake_llm_server: " + o_.log).c_str());
      return 1;
    }
  }
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = 0;
  socklen_t len = sizeof addr;
  if (bind(listen_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 || listen(listen_, 4096) != 0 ||
      getsockname(listen_, reinterpret_cast<sockaddr*>(&addr), &len) != 0) {
    std::perror("mlbench_fake_llm_server: listen");
    return 1;
  }
  for (int fd : {listen_, timer_, sig_}) {
    epoll_event ev{};
    ev.events = EPOLLIN;
    ev.data.fd = fd;
    epoll_ctl(ep_, EPOLL_CTL_ADD, fd, &ev);
  }
  {
    // Written whole under another name, then renamed: a reader sees no file or the whole port.
    std::string tmp = o_.port_file + ".tmp";
    FILE* f = std::fopen(tmp.c_str(), "w");
    if (!f || std::fprintf(f, "%d\n", ntohs(addr.sin_port)) < 0 || std::fclose(f) != 0 ||
        std::rename(tmp.c_str(), o_.port_file.c_str()) != 0) {
      std::perror(("mlbench_fake_llm_server: " + o_.port_file).c_str());
      return 1;
    }
  }
  std::vector<Emit> emits;
  std::vector<epoll_event> events(512);
  for (;;) {
    // The steps that are due, a bounded number per turn so that a zero-cost model still serves the sockets.
    for (int i = 0; i < 64 && engine_.next_event() <= mono(); ++i) {
      emits.clear();
      engine_.advance(mono(), emits);
      for (const auto& e : emits) on_emit(e);
    }
    arm_timer();
    const int timeout = engine_.next_event() <= mono() ? 0 : -1;
    int n = epoll_wait(ep_, events.data(), static_cast<int>(events.size()), timeout);
    if (n < 0 && errno != EINTR) {
      std::perror("mlbench_fake_llm_server: epoll_wait");
      return 1;
    }
    for (int i = 0; i < n; ++i) {
      const int fd = events[static_cast<std::size_t>(i)].data.fd;
      const auto ev = events[static_cast<std::size_t>(i)].events;
      if (fd == listen_) {
        accept_all();
      } else if (fd == timer_) {
        std::uint64_t expirations = 0;
        ssize_t r = read(timer_, &expirations, sizeof expirations);
        (void)r;
      } else if (fd == sig_) {
        for (auto& [id, r] : reqs_) log(r, 200, r.stalled ? "stall" : "stopped", "");
        if (log_fd_ >= 0) ::close(log_fd_);
        return 0;
      } else {
        auto it = conns_.find(fd);
        if (it == conns_.end()) continue;
        if (ev & EPOLLOUT) {
          flush(it->second);
          if (it->second.closing && it->second.out_off >= it->second.out.size()) {
            close_conn(fd);
            continue;
          }
        }
        if (ev & (EPOLLIN | EPOLLRDHUP | EPOLLHUP | EPOLLERR)) on_readable(it->second);
      }
    }
  }
}

}  // namespace

int main(int argc, char** argv) {
  Options o = parse(argc, argv);
  if (o.simulate) {
    auto s = mlbench::fake_llm::simulate(o.p, o.isl, o.osl, o.rate, o.requests, o.seed);
    std::printf("%s\n", json{{"rate", o.rate},
                             {"ttft_p50_s", s.ttft_p50},
                             {"ttft_p99_s", s.ttft_p99},
                             {"tpot_p50_s", s.tpot_p50},
                             {"tpot_p99_s", s.tpot_p99},
                             {"output_tokens_per_s", s.output_tokens_per_s},
                             {"requests_per_s", s.requests_per_s}}
                            .dump()
                            .c_str());
    return 0;
  }
  if (o.find_rate) {
    auto t = mlbench::fake_llm::find_rate(o.p, o.isl, o.osl, o.ttft, o.tpot, o.requests, o.seed);
    std::printf(
        "%s\n",
        json{{"rate", t.rate}, {"ttft_p99_s", t.ttft_p99}, {"tpot_p99_s", t.tpot_p99}}.dump().c_str());
    return 0;
  }
  return Server(std::move(o)).run();
}
