// serve.llm — what an OpenAI-compatible inference server (vLLM, SGLang, trtllm-serve, llama.cpp, ...)
// delivers under load: TTFT, TPOT, inter-token latency, E2E latency, request and token throughput and goodput
// at latency targets (serve/metrics.hpp has the definitions, vLLM's), one result per load point.
//
// Load: a fixed --concurrency (closed loop), Poisson (gamma, --burstiness) arrivals at --rate (open loop,
// with
// --concurrency as a cap), --offline (every request at once), a sweep over rates or concurrencies, or
// --search: the highest rate whose TTFT p99 and TPOT p99 meet --ttft/--tpot (MLPerf's server scenario),
// doubling from --rate (1/s) until a trial fails, then bisecting to --search-precision, every trial recorded
// in info.trials. Requests: synthetic prompts of --isl tokens (the server's /tokenize calibrates words to
// tokens when it has one, else one request's usage) with --osl output tokens held by max_tokens and
// ignore_eos, length distributions, or a prompt file; seeded. The client is serve/client.hpp's. Options: the
// table in probe.cpp, `mlbench serve --help`.
#pragma once

#include <memory>
#include <span>

#include "bench/probe.hpp"

namespace mlbench::serve {

std::span<const OptionSpec> serve_options();
std::unique_ptr<Probe> make_serve_probe();

}  // namespace mlbench::serve
