#include "serve/workload.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "base/error.hpp"
#include "base/input_file.hpp"

namespace mlbench::serve {
namespace {

// Frequent English words, each a single token (with its leading space) in GPT-2/Llama/Qwen vocabularies.
constexpr std::string_view kWords[] = {
    "the",     "of",     "and",     "to",       "in",      "is",     "that",  "for",   "it",    "as",
    "was",     "with",   "be",      "by",       "on",      "not",    "he",    "this",  "are",   "or",
    "his",     "from",   "at",      "which",    "but",     "have",   "an",    "had",   "they",  "you",
    "were",    "their",  "one",     "all",      "we",      "can",    "her",   "has",   "there", "been",
    "if",      "more",   "when",    "will",     "would",   "who",    "so",    "no",    "time",  "people",
    "year",    "way",    "day",     "man",      "thing",   "woman",  "life",  "child", "world", "school",
    "state",   "family", "group",   "country",  "problem", "hand",   "part",  "place", "case",  "week",
    "company", "system", "program", "question", "work",    "number", "night", "point", "home",  "water",
    "room",    "mother", "area",    "money",    "story",   "fact",   "month", "lot",   "right", "study",
    "book",    "eye",    "job",     "word"};

}  // namespace

std::vector<double> arrival_times(std::size_t n, double rate, double burstiness, std::uint64_t seed) {
  std::vector<double> t(n, 0.0);
  if (!std::isfinite(rate)) return t;
  std::mt19937_64 rng(seed);
  // vLLM: theta = 1 / (rate · burstiness), gap ~ Gamma(shape = burstiness, scale = theta): mean 1/rate.
  std::gamma_distribution<double> gap(burstiness, 1.0 / (rate * burstiness));
  double now = 0;
  for (std::size_t i = 0; i < n; ++i) {
    t[i] = now;
    now += gap(rng);
  }
  return t;
}

std::vector<std::int64_t> draw_lengths(std::size_t n, std::int64_t mean, Lengths how, double spread,
                                       std::mt19937_64& rng) {
  std::vector<std::int64_t> out(n, std::max<std::int64_t>(1, mean));
  if (how == Lengths::fixed || spread <= 0) return out;
  const double m = static_cast<double>(mean);
  if (how == Lengths::uniform) {
    std::uniform_int_distribution<std::int64_t> d(std::max<std::int64_t>(1, std::llround(m * (1 - spread))),
                                                  std::max<std::int64_t>(1, std::llround(m * (1 + spread))));
    for (auto& v : out) v = d(rng);
  } else {
    std::normal_distribution<double> d(m, spread * m);
    for (auto& v : out) v = std::max<std::int64_t>(1, std::llround(d(rng)));
  }
  return out;
}

std::string synthetic_prompt(std::int64_t words, std::mt19937_64& rng) {
  std::uniform_int_distribution<std::size_t> pick(0, std::size(kWords) - 1);
  std::string s;
  s.reserve(static_cast<std::size_t>(std::max<std::int64_t>(0, words)) * 6);
  for (std::int64_t i = 0; i < words; ++i) {
    if (i > 0) s += ' ';
    s += kWords[pick(rng)];
  }
  return s;
}

std::string resize_prompt(std::string prompt, std::int64_t delta, std::mt19937_64& rng) {
  if (delta > 0) {
    std::uniform_int_distribution<std::size_t> pick(0, std::size(kWords) - 1);
    for (std::int64_t i = 0; i < delta; ++i) {
      if (!prompt.empty()) prompt += ' ';
      prompt += kWords[pick(rng)];
    }
    return prompt;
  }
  for (std::int64_t i = 0; i < -delta; ++i) {
    const auto space = prompt.rfind(' ');
    if (space == std::string::npos) break;
    prompt.resize(space);
  }
  return prompt;
}

std::vector<FilePrompt> load_prompt_file(const std::filesystem::path& path, std::string_view flag) {
  const std::string text = read_input_file(path, InputKind::prompts);
  auto bad = [&](std::string_view why) {
    return UsageError(fmt::format("{} {}: {}; give a ShareGPT JSON list or JSONL with a \"prompt\" per line",
                                  flag, path.string(), why));
  };
  auto words = [](const std::string& s) {
    std::int64_t n = 0;
    bool in = false;
    for (char c : s) {
      const bool space = c == ' ' || c == '\n' || c == '\t' || c == '\r';
      if (!space && !in) ++n;
      in = !space;
    }
    return n;
  };
  std::vector<FilePrompt> out;
  std::size_t first = text.find_first_not_of(" \t\r\n");
  if (first == std::string::npos) throw bad("the file is empty");
  if (text[first] == '[') {
    nlohmann::json j = nlohmann::json::parse(text, nullptr, false);
    if (j.is_discarded() || !j.is_array()) throw bad("not valid JSON");
    for (const auto& e : j) {
      if (!e.is_object()) continue;
      auto c = e.find("conversations");
      if (c == e.end() || !c->is_array() || c->size() < 2) continue;
      const auto& h = (*c)[0];
      const auto& g = (*c)[1];
      if (!h.is_object() || !g.is_object() || !h.contains("value") || !g.contains("value") ||
          !h["value"].is_string() || !g["value"].is_string())
        continue;
      FilePrompt p;
      p.prompt = h["value"].get<std::string>();
      if (p.prompt.empty()) continue;
      p.output_words = words(g["value"].get<std::string>());
      out.push_back(std::move(p));
    }
  } else {
    std::size_t pos = 0, line_no = 0;
    while (pos < text.size()) {
      std::size_t nl = text.find('\n', pos);
      if (nl == std::string::npos) nl = text.size();
      std::string_view line(text.data() + pos, nl - pos);
      pos = nl + 1;
      ++line_no;
      if (line.find_first_not_of(" \t\r") == std::string_view::npos) continue;
      nlohmann::json j = nlohmann::json::parse(line, nullptr, false);
      if (j.is_discarded() || !j.is_object()) throw bad(fmt::format("line {} is not a JSON object", line_no));
      FilePrompt p;
      for (const char* key : {"prompt", "text"}) {
        if (auto it = j.find(key); it != j.end() && it->is_string()) {
          p.prompt = it->get<std::string>();
          break;
        }
      }
      if (p.prompt.empty()) continue;
      for (const char* key : {"max_tokens", "output_len"}) {
        if (auto it = j.find(key); it != j.end()) {
          if (!it->is_number_integer() || it->get<std::int64_t>() < 1 || it->get<std::int64_t>() > 1'000'000)
            throw bad(fmt::format("line {}: {} must be a whole number from 1 to 1000000", line_no, key));
          p.max_tokens = it->get<std::int64_t>();
          break;
        }
      }
      out.push_back(std::move(p));
    }
  }
  if (out.empty()) throw bad("no entry has a prompt");
  return out;
}

std::string_view api_path(Api api) { return api == Api::chat ? "/v1/chat/completions" : "/v1/completions"; }

std::string request_body(Api api, std::string_view model, std::string_view prompt, std::int64_t max_tokens,
                         bool ignore_eos, bool stream) {
  nlohmann::json j{{"model", model}, {"max_tokens", max_tokens}, {"temperature", 0}, {"stream", stream}};
  if (api == Api::chat)
    j["messages"] = nlohmann::json::array({{{"role", "user"}, {"content", prompt}}});
  else
    j["prompt"] = prompt;
  if (stream) j["stream_options"] = {{"include_usage", true}};
  if (ignore_eos) j["ignore_eos"] = true;
  // Invalid UTF-8 in a prompt file is replaced, not refused: the server sees valid JSON.
  return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

std::string tokenize_body(Api api, std::string_view model, std::string_view prompt) {
  nlohmann::json j{{"model", model}};
  if (api == Api::chat)
    j["messages"] = nlohmann::json::array({{{"role", "user"}, {"content", prompt}}});
  else
    j["prompt"] = prompt;
  return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

std::optional<std::int64_t> tokenize_count(std::string_view body) {
  nlohmann::json j = nlohmann::json::parse(body, nullptr, false);
  if (!j.is_object() || !j.contains("count") || !j["count"].is_number_integer() ||
      j["count"].get<std::int64_t>() < 1)
    return std::nullopt;
  return j["count"].get<std::int64_t>();
}

}  // namespace mlbench::serve
