#include "serve/probe.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <optional>
#include <random>

#include <fmt/format.h>

#include "base/error.hpp"
#include "serve/client.hpp"
#include "serve/metrics.hpp"
#include "serve/workload.hpp"

namespace mlbench::serve {
namespace {

using nlohmann::json;

constexpr const char* kId = "serve.llm";
constexpr std::string_view kParams[] = {"model",   "endpoint", "isl",  "osl",
                                        "prompts", "mode",     "rate", "concurrency"};
// point_metrics' names (serve/metrics.hpp), and max_rate: the search's answer.
constexpr std::string_view kMetrics[] = {"max_rate",       "output_tokens_per_s",
                                         "requests_per_s", "total_tokens_per_s",
                                         "goodput",        "ttft_mean",
                                         "ttft_p50",       "ttft_p90",
                                         "ttft_p99",       "ttft_p999",
                                         "tpot_mean",      "tpot_p50",
                                         "tpot_p90",       "tpot_p99",
                                         "tpot_p999",      "itl_mean",
                                         "itl_p50",        "itl_p90",
                                         "itl_p99",        "itl_p999",
                                         "e2e_mean",       "e2e_p50",
                                         "e2e_p90",        "e2e_p99",
                                         "e2e_p999",       "error_rate"};
// Words of the sample a calibration measures tokens per word on.
constexpr std::int64_t kCalibrationWords = 400;
constexpr double kSetupTimeout = 60;  // s: /v1/models, /tokenize, the calibration request
constexpr unsigned kMaxSearchTrials = 16;
// Rounds of /tokenize that fit the synthetic prompts to their token lengths, and the calls in flight.
constexpr unsigned kFitRounds = 3;
constexpr unsigned kFitStreams = 32;
constexpr double kMinSearchRate = 0.01;  // 1/s: below it the search stops with max_rate 0

constexpr OptionSpec kOptions[] = {
    {.name = "url",
     .type = OptionType::text,
     .help = "The server: http://HOST:PORT or https://HOST:PORT (a path prefix and /v1 may follow)"},
    {.name = "model",
     .type = OptionType::text,
     .def = "the server's first (/v1/models)",
     .help = "Model name"},
    {.name = "endpoint",
     .type = OptionType::choice,
     .def = "completions",
     .choices = [] { return choices_of(kApiNames); },
     .help = "completions (/v1/completions) or chat (/v1/chat/completions)"},
    {.name = "api_key_env",
     .type = OptionType::text,
     .def = "OPENAI_API_KEY",
     .help = "Environment variable holding the API key (sent as a Bearer token, never recorded)"},
    {.name = "rate",
     .type = OptionType::number,
     .unit = "1/s",
     .min = 0,
     .max = 1e6,
     .min_exclusive = true,
     .help = "Poisson arrivals at this many requests/s (--search: where it starts)"},
    {.name = "concurrency",
     .type = OptionType::integer,
     .min = 1,
     .max = 100000,
     .help = "Keep this many requests in flight (with --rate: at most this many)"},
    {.name = "burstiness",
     .type = OptionType::number,
     .def = "1",
     .min = 0,
     .max = 1000,
     .min_exclusive = true,
     .help = "Gamma shape of the arrival gaps: 1 Poisson, below 1 burstier (vLLM's --burstiness)"},
    {.name = "offline", .type = OptionType::flag, .def = "false", .help = "Send every request at once"},
    {.name = "sweep_rates",
     .type = OptionType::list,
     .unit = "1/s",
     .help = "One load point per rate (requests/s), e.g. 1,2,4,8"},
    {.name = "sweep_concurrency",
     .type = OptionType::integers,
     .min = 1,
     .max = 100000,
     .help = "One load point per concurrency, e.g. 1,8,64"},
    {.name = "search",
     .type = OptionType::flag,
     .def = "false",
     .help = "Find the highest rate whose TTFT p99 and TPOT p99 meet --ttft/--tpot (MLPerf server scenario)"},
    {.name = "search_precision",
     .type = OptionType::number,
     .def = "0.05",
     .min = 0.001,
     .max = 1,
     .help = "--search stops when the passing and failing rates are this close (relative)"},
    {.name = "ttft",
     .type = OptionType::duration,
     .unit = "s",
     .min = 0,
     .min_exclusive = true,
     .help = "TTFT target: goodput counts requests within it; --search holds the p99 to it"},
    {.name = "tpot",
     .type = OptionType::duration,
     .unit = "s",
     .min = 0,
     .min_exclusive = true,
     .help = "TPOT target: goodput counts requests within it; --search holds the p99 to it"},
    {.name = "e2e",
     .type = OptionType::duration,
     .unit = "s",
     .min = 0,
     .min_exclusive = true,
     .help = "E2E latency target for goodput"},
    {.name = "requests",
     .type = OptionType::integer,
     .def = "200",
     .min = 1,
     .max = 10'000'000,
     .help = "Requests per load point (and per search trial)"},
    {.name = "isl",
     .type = OptionType::integer,
     .def = "512",
     .min = 1,
     .max = 1'000'000,
     .help = "Input tokens per request (synthetic prompts)"},
    {.name = "osl",
     .type = OptionType::integer,
     .def = "128",
     .min = 1,
     .max = 1'000'000,
     .help = "Output tokens per request (max_tokens; with --ignore-eos the server generates them all)"},
    {.name = "lengths",
     .type = OptionType::choice,
     .def = "fixed",
     .choices = [] { return choices_of(kLengthsNames); },
     .help = "fixed, uniform (in isl/osl x (1 +- spread)) or normal (sd spread x isl/osl)"},
    {.name = "length_spread",
     .type = OptionType::number,
     .def = "0.5",
     .min = 0,
     .max = 1,
     .help = "Spread of uniform or normal lengths, relative"},
    {.name = "prompts",
     .type = OptionType::text,
     .help = "Prompt file: ShareGPT JSON or JSONL ({\"prompt\": ..., \"max_tokens\": ...} a line)"},
    {.name = "ignore_eos",
     .type = OptionType::flag,
     .def = "true",
     .help = "Ask the server to generate all max_tokens (vLLM, SGLang: ignore_eos)",
     .off_help = "Let the model stop at its end-of-sequence token"},
    {.name = "timeout",
     .type = OptionType::duration,
     .def = "300s",
     .unit = "s",
     .min = 0,
     .max = 86400,
     .min_exclusive = true,
     .help = "Deadline of each request, from its dispatch"},
    {.name = "stall_timeout",
     .type = OptionType::duration,
     .def = "30s",
     .unit = "s",
     .min = 0,
     .max = 86400,
     .min_exclusive = true,
     .help = "A response with no byte this long is stalled"},
    {.name = "seed",
     .type = OptionType::integer,
     .def = "1",
     .min = 0,
     .max = 9e15,
     .help = "Seed of the arrivals, lengths and prompts"},
    {.name = "tls_verify",
     .type = OptionType::flag,
     .def = "true",
     .help = "Verify the server's certificate and name (https)",
     .off_help = "Do not verify the server's certificate (https; a test server)"},
    {.name = "ca_file",
     .type = OptionType::text,
     .help = "Trust the CA certificates of this PEM file (https)"},
    {.name = "node_gpu",
     .type = OptionType::text,
     .help = "The GPU behind the server (recorded, for sizing)"},
    {.name = "node_gpus",
     .type = OptionType::integer,
     .min = 1,
     .max = 4096,
     .help = "GPUs behind the server (recorded, for sizing)"},
};

enum class Mode { rate, concurrency, offline, search };
constexpr EnumName<Mode> kModeNames[] = {{Mode::rate, "rate"},
                                         {Mode::concurrency, "concurrency"},
                                         {Mode::offline, "offline"},
                                         {Mode::search, "search"}};
static_assert(names_cover(kModeNames));

struct Point {
  Mode mode = Mode::rate;
  double rate = std::numeric_limits<double>::infinity();
  unsigned concurrency = 0;  // 0: no cap
};

struct Setup {
  Url url;
  std::string model, key_env, prompts_file, prompts_flag, ca_file;
  Api api = Api::completions;
  std::vector<Point> points;
  double burstiness = 1, precision = 0.05, timeout = 300, stall = 30, spread = 0.5;
  Targets targets;
  std::int64_t requests = 200, isl = 512, osl = 128;
  Lengths lengths = Lengths::fixed;
  bool ignore_eos = true, verify = true;
  std::uint64_t seed = 1;
  std::string node_gpu;
  std::int64_t node_gpus = 0;
};

Setup resolve(const json& options, const OptionSource& source) {
  auto v = parse_options(kOptions, options, source);
  Setup s;
  if (!v.has("url"))
    throw UsageError(fmt::format("give {} http://HOST:PORT (the server to measure)", v.name("url")));
  s.url = parse_url(v.get<std::string>("url"), v.name("url"));
  if (auto m = v.given<std::string>("model")) s.model = *m;
  s.api = *value_of(kApiNames, v.get<std::string>("endpoint"));
  s.key_env = v.get<std::string>("api_key_env");
  s.burstiness = v.get<double>("burstiness");
  s.precision = v.get<double>("search_precision");
  s.timeout = v.get<double>("timeout");
  s.stall = v.get<double>("stall_timeout");
  s.requests = v.get<std::int64_t>("requests");
  s.isl = v.get<std::int64_t>("isl");
  s.osl = v.get<std::int64_t>("osl");
  s.lengths = *value_of(kLengthsNames, v.get<std::string>("lengths"));
  s.spread = v.get<double>("length_spread");
  s.ignore_eos = v.get<bool>("ignore_eos");
  s.verify = v.get<bool>("tls_verify");
  s.seed = static_cast<std::uint64_t>(v.get<std::int64_t>("seed"));
  if (auto p = v.given<std::string>("prompts")) s.prompts_file = *p;
  s.prompts_flag = v.name("prompts");
  if (auto c = v.given<std::string>("ca_file")) s.ca_file = *c;
  if (auto g = v.given<std::string>("node_gpu")) s.node_gpu = *g;
  if (auto g = v.given<std::int64_t>("node_gpus")) s.node_gpus = *g;
  if (auto t = v.given<double>("ttft")) s.targets.ttft = *t;
  if (auto t = v.given<double>("tpot")) s.targets.tpot = *t;
  if (auto t = v.given<double>("e2e")) s.targets.e2e = *t;
  if (!s.prompts_file.empty() && (v.has("isl") || v.has("lengths")))
    throw UsageError(fmt::format("{} sets the prompts; {} and {} only shape synthetic ones",
                                 v.name("prompts"), v.name("isl"), v.name("lengths")));

  const bool offline = v.get<bool>("offline"), search = v.get<bool>("search");
  const auto rate = v.given<double>("rate");
  const auto conc = v.given<std::int64_t>("concurrency");
  const auto rates = v.given<std::vector<std::string>>("sweep_rates");
  const auto concs = v.given<std::vector<std::int64_t>>("sweep_concurrency");
  const int modes = int(offline) + int(search) + int(rates.has_value()) + int(concs.has_value());
  if (modes > 1)
    throw UsageError(fmt::format("give one of {}, {}, {} and {}", v.name("offline"), v.name("search"),
                                 v.name("sweep_rates"), v.name("sweep_concurrency")));
  const unsigned cap = conc ? static_cast<unsigned>(*conc) : 0;
  if (offline) {
    if (rate || conc)
      throw UsageError(fmt::format("{} sends every request at once; drop {} and {}", v.name("offline"),
                                   v.name("rate"), v.name("concurrency")));
    s.points.push_back({Mode::offline, std::numeric_limits<double>::infinity(), 0});
  } else if (search) {
    if (!s.targets.ttft && !s.targets.tpot)
      throw UsageError(fmt::format("{} needs a target: give {} and/or {} (MLPerf Llama-2-70B: 2s and 200ms)",
                                   v.name("search"), v.name("ttft"), v.name("tpot")));
    s.points.push_back({Mode::search, rate.value_or(1.0), cap});
  } else if (rates) {
    if (rate)
      throw UsageError(fmt::format("{} gives the rates; drop {}", v.name("sweep_rates"), v.name("rate")));
    for (const auto& text : *rates) {
      char* end = nullptr;
      const double r = std::strtod(text.c_str(), &end);
      if (text.empty() || *end != '\0' || !(r > 0) || r > 1e6)
        throw UsageError(fmt::format("{}: '{}' is not a rate above 0 and at most 1000000 requests/s",
                                     v.name("sweep_rates"), text));
      s.points.push_back({Mode::rate, r, cap});
    }
  } else if (concs) {
    if (rate || conc)
      throw UsageError(fmt::format("{} gives the concurrencies; drop {} and {}", v.name("sweep_concurrency"),
                                   v.name("rate"), v.name("concurrency")));
    for (auto c : *concs)
      s.points.push_back(
          {Mode::concurrency, std::numeric_limits<double>::infinity(), static_cast<unsigned>(c)});
  } else if (rate) {
    s.points.push_back({Mode::rate, *rate, cap});
  } else if (conc) {
    s.points.push_back({Mode::concurrency, std::numeric_limits<double>::infinity(), cap});
  } else {
    throw UsageError(fmt::format("give the load: {} N, {} R, {}, {} or {} LIST", v.name("concurrency"),
                                 v.name("rate"), v.name("offline"), v.name("search"), v.name("sweep_rates")));
  }
  return s;
}

json point_params(const Setup& s, const Point& p) {
  json j{{"endpoint", std::string(name_of(kApiNames, s.api))},
         {"mode", std::string(name_of(kModeNames, p.mode))}};
  if (!s.model.empty()) j["model"] = s.model;
  if (s.prompts_file.empty()) {
    j["isl"] = s.isl;
    j["prompts"] = std::string(name_of(kLengthsNames, s.lengths));
  } else {
    j["prompts"] = std::filesystem::path(s.prompts_file).filename().string();
  }
  j["osl"] = s.osl;
  if (p.mode == Mode::rate) j["rate"] = p.rate;
  if (p.mode == Mode::concurrency || (p.mode == Mode::rate && p.concurrency > 0))
    j["concurrency"] = p.concurrency;
  return j;
}

std::string point_label(const Point& p) {
  switch (p.mode) {
    case Mode::rate:
      return p.concurrency > 0 ? fmt::format("rate {:g}/s (max {} in flight)", p.rate, p.concurrency)
                               : fmt::format("rate {:g}/s", p.rate);
    case Mode::concurrency:
      return fmt::format("concurrency {}", p.concurrency);
    case Mode::offline:
      return "offline";
    case Mode::search:
      return "search for the highest rate at the targets";
  }
  return {};
}

// The prepared requests of a run: the same for every load point of it.
struct Prepared {
  std::vector<Job> jobs;
  std::vector<std::int64_t> input_tokens;  // as planned
  json info;                               // how the prompts were made
};

class ServeProbe final : public Probe {
 public:
  ProbeInfo info() const override {
    return {kId,
            "An OpenAI-compatible inference server under load: TTFT, TPOT, ITL, throughput, goodput",
            "an OpenAI-compatible server's URL (vLLM, SGLang, trtllm-serve, llama.cpp...)",
            kOptions,
            kParams,
            kMetrics};
  }
  std::optional<std::string> unavailable(const Json&) const override { return std::nullopt; }

  std::vector<Case> plan(const PlanContext& ctx) const override {
    if (!ctx.options.is_object()) throw UsageError("options must be a mapping");
    if (ctx.options.empty()) return {};  // `mlbench run` without a server: nothing to measure
    Setup s = resolve(ctx.options, ctx.source);
    if (!s.prompts_file.empty()) load_prompt_file(s.prompts_file, s.prompts_flag);
    std::vector<Case> cases;
    for (std::size_t i = 0; i < s.points.size(); ++i) {
      const Point& p = s.points[i];
      Case c;
      c.label = point_label(p);
      c.params = point_params(s, p);
      c.config = json{{"options", ctx.options}, {"from_config", ctx.source.from_config()}, {"point", i}};
      const double n = static_cast<double>(s.requests);
      const double per = std::isfinite(p.rate) ? n / p.rate : n * 0.05;
      c.estimate_s = (p.mode == Mode::search ? 8 : 1) * (per + 2);
      cases.push_back(std::move(c));
    }
    return cases;
  }

  std::vector<Result> run(const Case& c, RunContext& ctx) override {
    const OptionSource source =
        c.config.value("from_config", false) ? OptionSource::config(kId) : OptionSource{};
    Setup s = resolve(c.config.at("options"), source);
    const Point point = s.points.at(c.config.at("point").get<std::size_t>());
    Endpoint ep;
    ep.url = s.url;
    ep.verify = s.verify;
    ep.ca_file = s.ca_file;
    if (const char* key = std::getenv(s.key_env.c_str())) ep.api_key = key;
    Client client(ep, WireLimits{});
    if (s.model.empty()) s.model = first_model(client, ctx);
    Prepared prep = prepare(s, client, ctx);

    Result r = ctx.make_result(kId, c);
    r.params["model"] = s.model;
    json info{{"url", s.url.text()}, {"prompts", prep.info}, {"api_key", !ep.api_key.empty()}};
    if (s.targets.ttft) info["targets"]["ttft"] = *s.targets.ttft;
    if (s.targets.tpot) info["targets"]["tpot"] = *s.targets.tpot;
    if (s.targets.e2e) info["targets"]["e2e"] = *s.targets.e2e;
    if (!s.node_gpu.empty()) info["node"]["gpu"] = s.node_gpu;
    if (s.node_gpus > 0) info["node"]["gpus"] = s.node_gpus;

    if (point.mode != Mode::search) {
      Measured m = measure(s, point, prep, client, ctx);
      fill(r, s, m, info);
      return {r};
    }
    // The search: double from the start rate until a trial fails, then bisect.
    std::optional<double> pass, fail;
    std::optional<Measured> best;
    json trials = json::array();
    double rate = point.rate;
    for (unsigned t = 0; t < kMaxSearchTrials && !ctx.stopping(); ++t) {
      Measured m = measure(s, Point{Mode::rate, rate, point.concurrency}, prep, client, ctx);
      if (m.interrupted) break;
      const auto p99 = [](const std::vector<double>& v) {
        return v.empty() ? 0.0 : percentile_sorted(v, 0.99);
      };
      const double ttft = p99(m.f.ttft), tpot = p99(m.f.tpot);
      const bool ok = m.f.completed > 0 && m.f.failed == 0 && (!s.targets.ttft || ttft <= *s.targets.ttft) &&
                      (!s.targets.tpot || tpot <= *s.targets.tpot);
      trials.push_back(
          {{"rate", rate},
           {"passed", ok},
           {"ttft_p99", ttft},
           {"tpot_p99", tpot},
           {"requests_per_s", m.f.seconds > 0 ? double(m.f.completed) / m.f.seconds : 0},
           {"output_tokens_per_s", m.f.seconds > 0 ? double(m.f.output_tokens) / m.f.seconds : 0},
           {"errors", m.f.failed}});
      if (ok) {
        pass = rate;
        best = std::move(m);
      } else {
        fail = rate;
      }
      if (pass && fail && (*fail - *pass) <= s.precision * *pass) break;
      if (!pass && rate / 2 < kMinSearchRate) break;
      rate = pass && fail ? (*pass + *fail) / 2 : pass ? rate * 2 : rate / 2;
    }
    if (ctx.stopping() && trials.empty()) throw Interrupted();
    info["trials"] = trials;
    r.add_metric("max_rate", pass.value_or(0.0), "1/s");
    if (best) {
      fill(r, s, *best, info);  // after max_rate, which stays the headline
    } else {
      r.info = info;
      r.warnings.push_back(fmt::format("no rate down to {:g}/s met the targets: max_rate 0", kMinSearchRate));
    }
    if (ctx.stopping())
      r.warnings.push_back("interrupted: the search stopped early; max_rate is of the trials run");
    if (pass && !fail)
      r.warnings.push_back("every trial passed: the search ended at its trial limit, not a failing rate");
    return {r};
  }

 private:
  struct Measured {
    LoadResult load;
    PointFigures f;
    bool interrupted = false;
  };

  static std::string first_model(Client& client, RunContext& ctx) {
    Job j{"GET", "/v1/models", "", false};
    Record r = client.call(j, kSetupTimeout, ctx.stop);
    if (!r.ok()) throw Error(fmt::format("GET /v1/models: {}; give --model NAME", r.detail));
    json m = json::parse(r.body, nullptr, false);
    if (m.is_discarded() || !m.is_object() || !m.contains("data") || !m["data"].is_array() ||
        m["data"].empty() || !m["data"][0].is_object() || !m["data"][0].contains("id") ||
        !m["data"][0]["id"].is_string())
      throw Error("GET /v1/models named no model; give --model NAME");
    return m["data"][0]["id"].get<std::string>();
  }

  // Tokens per word of the synthetic text: the server's /tokenize (vLLM, SGLang) when it answers, else the
  // prompt_tokens of one request's usage.
  static std::pair<double, std::string> calibrate(const Setup& s, Client& client, RunContext& ctx) {
    std::mt19937_64 rng(s.seed ^ 0x5eed);
    const std::string sample = synthetic_prompt(kCalibrationWords, rng);
    Record t = client.call(Job{"POST", "/tokenize", tokenize_body(s.api, s.model, sample), false},
                           kSetupTimeout, ctx.stop);
    if (t.ok()) {
      if (auto count = tokenize_count(t.body)) return {double(*count) / kCalibrationWords, "tokenize"};
    }
    Record u = client.call(Job{"POST", std::string(api_path(s.api)),
                               request_body(s.api, s.model, sample, 1, false, false), false},
                           kSetupTimeout, ctx.stop);
    if (!u.ok()) throw Error(fmt::format("the first request to {} failed: {}", s.url.text(), u.detail));
    json j = json::parse(u.body, nullptr, false);
    if (j.is_object() && j.contains("usage") && j["usage"].is_object() &&
        j["usage"].contains("prompt_tokens") && j["usage"]["prompt_tokens"].is_number_integer() &&
        j["usage"]["prompt_tokens"].get<std::int64_t>() > 0)
      return {double(j["usage"]["prompt_tokens"].get<std::int64_t>()) / kCalibrationWords, "usage"};
    return {1.0, "none"};
  }

  // Tokenizes every prompt through the server's /tokenize (many at once) and adds or takes off words until
  // it has its length in tokens, in at most kFitRounds rounds; returns how many have it exactly.
  static std::size_t fit_to_tokens(const Setup& s, Client& client, RunContext& ctx,
                                   std::vector<std::string>& prompts, const std::vector<std::int64_t>& tokens,
                                   std::mt19937_64& rng) {
    std::vector<std::size_t> open(prompts.size());
    for (std::size_t i = 0; i < open.size(); ++i) open[i] = i;
    std::size_t exact = 0;
    for (unsigned round = 0; round < kFitRounds && !open.empty(); ++round) {
      LoadRun run;
      for (std::size_t i : open)
        run.jobs.push_back(Job{"POST", "/tokenize", tokenize_body(s.api, s.model, prompts[i]), false});
      run.arrivals.assign(run.jobs.size(), 0.0);
      run.max_in_flight = kFitStreams;
      run.timeout_s = run.stall_s = kSetupTimeout;
      LoadResult out = client.run(run, ctx.stop);
      if (out.interrupted) throw Interrupted();
      std::vector<std::size_t> still;
      for (std::size_t k = 0; k < open.size(); ++k) {
        const std::size_t i = open[k];
        const auto count = out.records[k].ok() ? tokenize_count(out.records[k].body) : std::nullopt;
        if (!count) continue;  // the server did not say: the prompt stays as calibrated
        if (*count == tokens[i]) {
          ++exact;
        } else if (round + 1 < kFitRounds) {  // resized only where a later round checks it
          prompts[i] = resize_prompt(std::move(prompts[i]), tokens[i] - *count, rng);
          still.push_back(i);
        }
      }
      open = std::move(still);
    }
    return exact;
  }

  static Prepared prepare(const Setup& s, Client& client, RunContext& ctx) {
    Prepared p;
    const auto n = static_cast<std::size_t>(s.requests);
    std::mt19937_64 rng(s.seed);
    const auto [per_word, method] = calibrate(s, client, ctx);
    p.info = {{"tokens_per_word", per_word}, {"calibration", method}, {"approximate", true}};
    std::vector<std::int64_t> outs = draw_lengths(n, s.osl, s.lengths, s.spread, rng);
    if (s.prompts_file.empty()) {
      std::vector<std::int64_t> ins = draw_lengths(n, s.isl, s.lengths, s.spread, rng);
      std::vector<std::string> prompts;
      for (std::size_t i = 0; i < n; ++i)
        prompts.push_back(
            synthetic_prompt(std::max<std::int64_t>(1, std::llround(double(ins[i]) / per_word)), rng));
      if (method == "tokenize") {
        const std::size_t exact = fit_to_tokens(s, client, ctx, prompts, ins, rng);
        p.info["exact"] = exact;
        p.info["approximate"] = exact < n;
      }
      for (std::size_t i = 0; i < n; ++i) {
        p.jobs.push_back(Job{"POST", std::string(api_path(s.api)),
                             request_body(s.api, s.model, prompts[i], outs[i], s.ignore_eos)});
        p.input_tokens.push_back(ins[i]);
      }
      return p;
    }
    std::vector<FilePrompt> file = load_prompt_file(s.prompts_file, s.prompts_flag);
    std::shuffle(file.begin(), file.end(), rng);
    p.info["file"] = s.prompts_file;
    p.info["entries"] = file.size();
    for (std::size_t i = 0; i < n; ++i) {
      const FilePrompt& f = file[i % file.size()];
      std::int64_t out = f.max_tokens > 0 ? f.max_tokens
                         : f.output_words > 0
                             ? std::max<std::int64_t>(1, std::llround(double(f.output_words) * per_word))
                             : outs[i];
      p.jobs.push_back(Job{"POST", std::string(api_path(s.api)),
                           request_body(s.api, s.model, f.prompt, out, s.ignore_eos)});
      p.input_tokens.push_back(0);  // the server's usage counts them
    }
    return p;
  }

  static Measured measure(const Setup& s, const Point& point, const Prepared& prep, Client& client,
                          RunContext& ctx) {
    LoadRun run;
    run.jobs = prep.jobs;
    const bool open_loop = point.mode == Mode::rate;
    run.arrivals =
        arrival_times(run.jobs.size(), open_loop ? point.rate : std::numeric_limits<double>::infinity(),
                      s.burstiness, s.seed);
    run.max_in_flight = point.concurrency > 0 ? point.concurrency : static_cast<unsigned>(run.jobs.size());
    run.timeout_s = s.timeout;
    run.stall_s = s.stall;
    run.progress = [&ctx](const std::vector<Record>& recs, double elapsed) {
      std::int64_t tokens = 0, done = 0;
      for (const auto& r : recs) {
        tokens += r.chunks;
        if (r.end >= 0) ++done;
      }
      const LiveMetric live[] = {
          {"output_tokens_per_s", elapsed > 0 ? double(tokens) / elapsed : 0, "token/s"},
          {"requests_per_s", elapsed > 0 ? double(done) / elapsed : 0, "1/s"}};
      ctx.report_live(live);
    };
    Measured m;
    m.load = client.run(run, ctx.stop);
    m.interrupted = m.load.interrupted;
    m.f = summarize(m.load.records, m.load.seconds, prep.input_tokens, s.targets);
    return m;
  }

  static void fill(Result& r, const Setup& s, const Measured& m, json& info) {
    const PointFigures& f = m.f;
    if (f.completed == 0) {
      if (m.interrupted) throw Interrupted();
      std::string kinds, first;
      for (const auto& [k, n] : f.errors) kinds += fmt::format("{}{} {}", kinds.empty() ? "" : ", ", n, k);
      for (const auto& rec : m.load.records)
        if (!rec.ok() && rec.start >= 0) {
          first = rec.detail;
          break;
        }
      throw Error(fmt::format("all {} requests failed ({}); the first: {}", f.sent, kinds, first));
    }
    for (auto& metric : point_metrics(f, s.targets.any())) r.metrics.push_back(std::move(metric));
    r.work = json{{"requests", f.completed},
                  {"sent", f.sent},
                  {"input_tokens", f.input_tokens},
                  {"output_tokens", f.output_tokens},
                  {"seconds", f.seconds}};
    json errors = json::object();
    for (const auto& [k, n] : f.errors) errors[k] = n;
    info["errors"] = errors;
    info["tokens"] = f.tokens_exact ? "usage" : "chunks";
    info["connections"] = m.load.connections;
    info["max_dispatch_lag_s"] = m.load.max_lag_s;
    if (!m.load.records.empty()) {
      for (const auto& rec : m.load.records)
        if (!rec.ok() && rec.start >= 0) {
          info["first_error"] = rec.detail;
          break;
        }
    }
    r.info = info;
    if (f.failed > 0)
      r.warnings.push_back(
          fmt::format("{} of {} requests failed ({}): the figures are of the {} that completed", f.failed,
                      f.sent, errors.dump(), f.completed));
    if (!f.tokens_exact)
      r.warnings.push_back(
          "the server sent no usage counts: output tokens are counted as chunks (approximate)");
    if (m.interrupted)
      r.warnings.push_back(fmt::format("interrupted after {} of {} requests: the figures are of those",
                                       f.sent, m.load.records.size()));
  }
};

}  // namespace

std::span<const OptionSpec> serve_options() { return kOptions; }
std::unique_ptr<Probe> make_serve_probe() { return std::make_unique<ServeProbe>(); }

}  // namespace mlbench::serve
