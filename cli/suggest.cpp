#include "cli/suggest.hpp"

#include <algorithm>

#include <fmt/format.h>

namespace mlbench::cli {

std::size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<std::vector<std::size_t>> d(a.size() + 1, std::vector<std::size_t>(b.size() + 1));
  for (std::size_t i = 0; i <= a.size(); ++i) d[i][0] = i;
  for (std::size_t j = 0; j <= b.size(); ++j) d[0][j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
      d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1])
        d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
    }
  }
  return d[a.size()][b.size()];
}

std::string closest_name(std::string_view word, const std::vector<std::string>& candidates) {
  std::string best;
  std::size_t best_d = 0;
  for (const auto& c : candidates) {
    const std::size_t d = edit_distance(word, c);
    if (d == 0 || d > 2 || 3 * d > std::max(word.size(), c.size())) continue;
    if (best.empty() || d < best_d) {
      best = c;
      best_d = d;
    }
  }
  return best;
}

std::optional<Suggestion> suggestion(const CLI::App& app) {
  const CLI::App* cur = &app;
  for (auto subs = cur->get_subcommands(); !subs.empty(); subs = cur->get_subcommands()) cur = subs.back();
  for (const std::string& arg : cur->remaining()) {
    std::vector<std::string> names;
    const bool flag = arg.starts_with("-");
    const std::string word = flag ? arg.substr(0, arg.find('=')) : arg;
    if (flag) {
      for (const CLI::Option* o : cur->get_options()) {
        for (const auto& n : o->get_lnames()) names.push_back("--" + n);
      }
    } else {
      for (const CLI::App* sub : cur->get_subcommands([](const CLI::App*) { return true; }))
        names.push_back(sub->get_name());
    }
    if (auto best = closest_name(word, names); !best.empty()) return Suggestion{word, best};
    if (flag) return std::nullopt;  // the first unknown flag decides: what follows may be its value
  }
  return std::nullopt;
}

std::string failure_message(const CLI::App* app, const CLI::Error& e) {
  const std::string msg = CLI::FailureMessage::simple(app, e);
  const auto s = suggestion(*app);
  if (!s) return msg;
  const auto eol = std::min(msg.find('\n'), msg.size());
  const std::string first =
      s->closest.starts_with("-") ? msg.substr(0, eol) : fmt::format("unknown subcommand '{}'", s->given);
  return fmt::format("{}; did you mean {}?{}", first, s->closest, msg.substr(eol));
}

}  // namespace mlbench::cli
