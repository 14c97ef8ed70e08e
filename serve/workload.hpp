// What serve.llm sends, seeded so that two runs send the same requests at the same times: the arrival times
// of a load point (vLLM's: gaps drawn from a gamma distribution of shape `burstiness` and mean 1/rate, which
// is Poisson at burstiness 1 and burstier below), the prompts (synthetic text of a token length, or a prompt
// file) and their output lengths, and the request bodies.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "base/names.hpp"

namespace mlbench::serve {

// Arrival times (s after the start) of n requests at `rate` requests/s; all 0 when rate is infinite.
std::vector<double> arrival_times(std::size_t n, double rate, double burstiness, std::uint64_t seed);

enum class Lengths { fixed, uniform, normal };
inline constexpr EnumName<Lengths> kLengthsNames[] = {
    {Lengths::fixed, "fixed"}, {Lengths::uniform, "uniform"}, {Lengths::normal, "normal"}};
static_assert(names_cover(kLengthsNames));

// n lengths around `mean`: fixed; uniform in [mean·(1−spread), mean·(1+spread)] (vLLM's random range ratio);
// normal with σ = spread·mean. Each at least 1.
std::vector<std::int64_t> draw_lengths(std::size_t n, std::int64_t mean, Lengths how, double spread,
                                       std::mt19937_64& rng);

// `words` words of common English, each one token in the usual BPE vocabularies, drawn from `rng` so that no
// two prompts share a prefix a server could cache.
std::string synthetic_prompt(std::int64_t words, std::mt19937_64& rng);

// `prompt` with `delta` words added at its end (drawn from `rng`), or -delta words taken off (never below
// one).
std::string resize_prompt(std::string prompt, std::int64_t delta, std::mt19937_64& rng);

// One prompt of a prompt file and the output length it asks for (0: none given, the --osl applies).
struct FilePrompt {
  std::string prompt;
  std::int64_t output_words = 0;  // ShareGPT: the words of the reply, turned into tokens by the calibration
  std::int64_t max_tokens = 0;    // JSONL: "max_tokens" or "output_len"
};
// A ShareGPT JSON file (a list of {"conversations": [{"from": "human", "value": ...}, {"from": "gpt", ...}]}:
// the first human turn and the reply after it) or JSONL (one object a line with "prompt" (or "text"), and
// optionally "max_tokens" or "output_len"). Bounded (base/input_file.hpp); UsageError naming the file and
// what is wrong; entries without a prompt are skipped (ShareGPT has some), a file without any is refused.
std::vector<FilePrompt> load_prompt_file(const std::filesystem::path& path, std::string_view flag);

enum class Api { completions, chat };
inline constexpr EnumName<Api> kApiNames[] = {{Api::completions, "completions"}, {Api::chat, "chat"}};
static_assert(names_cover(kApiNames));
std::string_view api_path(Api api);  // "/v1/completions", "/v1/chat/completions"

// The streamed request's JSON: model, the prompt (chat: one user message), max_tokens, temperature 0,
// stream with stream_options.include_usage, and ignore_eos (vLLM, SGLang) when asked.
std::string request_body(Api api, std::string_view model, std::string_view prompt, std::int64_t max_tokens,
                         bool ignore_eos, bool stream = true);
// The body of the server's /tokenize (vLLM, SGLang) for the prompt as `api` sends it: {"prompt"} for
// completions, {"messages"} for chat (its template's tokens counted too).
std::string tokenize_body(Api api, std::string_view model, std::string_view prompt);
// The "count" of a /tokenize answer, or nullopt when it has none.
std::optional<std::int64_t> tokenize_count(std::string_view body);

}  // namespace mlbench::serve
