// The test fixture for `mlbench serve`: the timing model of a continuous-batching inference engine, the
// simulation that predicts what it serves at a Poisson rate (the "truth" a rate search is checked against),
// and a handle on the fixture server process (mlbench_fake_llm_server) with its per-request log.
//
// The model (vLLM V0's scheduler without chunked prefill):
//   - a running batch of at most max_batch sequences and a FIFO queue of waiting requests;
//   - steps run back to back while there is work; an idle engine starts a step at the next arrival;
//   - at a step's start the waiting requests that have arrived join the batch, FIFO, while it has room;
//   - a step is a prefill step when a sequence in the batch has not been prefilled: it takes
//     prefill_s_per_token x (the prompt tokens of every such sequence) and ends with each of them emitting
//     its first token; otherwise it is a decode step of step_s + step_s_per_seq x (sequences in the batch) at
//     whose end every sequence emits one token;
//   - a sequence leaves the batch at the end of the step that emits its last token.
// A lone request therefore sees TTFT = prefill_s_per_token x prompt and TPOT = step_s + step_s_per_seq.
#pragma once

#include <cstdint>
#include <deque>
#include <limits>
#include <string>
#include <vector>

namespace mlbench::fake_llm {

struct ModelParams {
  int max_batch = 8;
  double prefill_s_per_token = 50e-6;
  double step_s = 5e-3;
  double step_s_per_seq = 0.5e-3;
};

// One token a step emitted: request `id`'s token number `index` (1-based), at model time `t`.
struct Emit {
  std::uint64_t id;
  int index;
  bool last;
  double t;
};

class Engine {
 public:
  explicit Engine(ModelParams p) : p_(p) {}

  // A request of `prompt` tokens asking for `output` (>= 1) tokens arrives at `t` (not before the time the
  // engine was last advanced to).
  void submit(std::uint64_t id, int prompt, int output, double t);
  // Removes a request wherever it is (its client went away); the step in progress keeps its duration.
  void cancel(std::uint64_t id);
  // When the engine next changes: the end of the step in progress, or the start of the next step; +inf when
  // idle.
  double next_event() const;
  // Completes the step in progress when it ends by `now` (appending what it emitted), or starts the next step
  // when its start is before `now` (strictly: requests that arrive at the very instant a step would start
  // still join it). Returns false when neither is due.
  bool advance(double now, std::vector<Emit>& out);

 private:
  struct Seq {
    std::uint64_t id;
    int prompt, output, emitted = 0;
    bool prefilled = false;
    double arrival;
  };
  void start_step(double t);

  ModelParams p_;
  std::deque<Seq> waiting_;
  std::vector<Seq> running_;
  enum class Phase { idle, pending, stepping };
  Phase phase_ = Phase::idle;
  bool prefill_step_ = false;
  double at_ = 0;  // the pending step's start, or the end of the step in progress
};

// A simulated run: `requests` requests of `isl` prompt and `osl` output tokens at Poisson `rate` (seeded
// exponential gaps; the same seed gives the same unit gaps at every rate).
struct SimRequest {
  double arrival, ttft, tpot, e2e;
};
struct SimResult {
  std::vector<SimRequest> requests;
  double ttft_p50 = 0, ttft_p99 = 0, tpot_p50 = 0, tpot_p99 = 0;
  double output_tokens_per_s = 0;  // output tokens / (last token - first arrival)
  double requests_per_s = 0;
};
SimResult simulate(const ModelParams& p, int isl, int osl, double rate, int requests, std::uint64_t seed);

// Percentile q (0..100) with numpy's default linear interpolation (what vLLM's benchmark reports).
double percentile(std::vector<double> v, double q);

// The highest Poisson rate whose simulated TTFT p99 and TPOT p99 both meet their targets (a target <= 0 is
// not checked), found by bisection to 0.5 %; `ttft_p99`/`tpot_p99` at that rate. rate 0 when even a trickle
// misses.
struct RateTruth {
  double rate = 0, ttft_p99 = 0, tpot_p99 = 0;
};
RateTruth find_rate(const ModelParams& p, int isl, int osl, double ttft_target, double tpot_target,
                    int requests, std::uint64_t seed);

// One line of the server's JSONL log.
struct LogEntry {
  std::string id, request_id, endpoint, outcome, finish_reason;
  bool stream = false;
  int status = 0, prompt_tokens = 0, max_tokens = 0, output_tokens = 0;
  double arrival_s = 0, first_token_s = 0, last_token_s = 0;
  std::vector<double> token_times_s;
  double ttft() const { return first_token_s - arrival_s; }
  // (E2E - TTFT) / (output - 1), as vLLM's benchmark defines TPOT; 0 for one token.
  double tpot() const { return output_tokens > 1 ? (last_token_s - first_token_s) / (output_tokens - 1) : 0; }
};
std::vector<LogEntry> read_log(const std::string& path);

// The fixture server, started on 127.0.0.1 port 0 with `args` (the model and fault flags), its port read from
// the port file it writes; stopped (SIGTERM, then waited for) on destruction. Throws std::runtime_error when
// it does not come up within 30 s.
class FakeLlmServer {
 public:
  explicit FakeLlmServer(std::vector<std::string> args = {});
  ~FakeLlmServer();
  FakeLlmServer(const FakeLlmServer&) = delete;
  FakeLlmServer& operator=(const FakeLlmServer&) = delete;

  int port() const { return port_; }
  std::string url() const { return "http://127.0.0.1:" + std::to_string(port_); }
  const std::string& log_path() const { return log_; }
  std::vector<LogEntry> read_log() const { return fake_llm::read_log(log_); }
  // Stops the server now (its log is complete afterwards); returns its exit status as waitpid gives it.
  int stop();

 private:
  std::string dir_, log_;
  int pid_ = -1, port_ = 0, status_ = 0;
};

// The server executable's path (set by the build).
const char* server_path();

}  // namespace mlbench::fake_llm
