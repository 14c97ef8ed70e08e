#include "cli/suggest.hpp"

#include <algorithm>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "cli/common.hpp"

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

namespace {

const CLI::App* deepest(const CLI::App& app) {
  const CLI::App* cur = &app;
  for (auto subs = cur->get_subcommands(); !subs.empty(); subs = cur->get_subcommands()) cur = subs.back();
  return cur;
}

// "mlbench storage", "mlbench": the command whose --help lists the options.
std::string command_path(const CLI::App* cur) {
  std::string path;
  for (; cur != nullptr; cur = cur->get_parent())
    path = (cur->get_parent() == nullptr ? std::string("mlbench") : cur->get_name()) +
           (path.empty() ? "" : " " + path);
  return path;
}

}  // namespace

std::string as_typed(const CLI::App& app, std::string message, const std::vector<std::string>& argv) {
  for (const CLI::Option* o : deepest(app)->get_options()) {
    std::vector<std::string> names;
    for (const auto& n : o->get_lnames()) names.push_back("--" + n);
    for (const auto& n : o->get_snames()) names.push_back("-" + n);
    if (names.size() < 2) continue;
    const std::string canonical = o->get_name();
    const auto at = message.find(canonical);
    if (at == std::string::npos) continue;
    for (const auto& arg : argv) {
      const std::string word = arg.substr(0, arg.find('='));
      if (word == canonical || std::find(names.begin(), names.end(), word) == names.end()) continue;
      message.replace(at, canonical.size(), word);
      break;
    }
  }
  return message;
}

std::string failure_message(const CLI::App* app, const CLI::Error& e) {
  const CLI::App* cur = deepest(*app);
  const auto s = suggestion(*app);
  std::string msg = e.what();
  std::vector<std::string> rest = cur->remaining();
  // In the order typed (CLI11 lists what it did not take last first): the first is what to fix.
  const auto& args = argv();
  std::stable_sort(rest.begin(), rest.end(), [&args](const std::string& a, const std::string& b) {
    return std::find(args.begin(), args.end(), a) < std::find(args.begin(), args.end(), b);
  });
  if (s && !s->closest.starts_with("-")) {
    msg = fmt::format("unknown subcommand '{}'; did you mean {}?", s->given, s->closest);
  } else if (e.get_exit_code() == static_cast<int>(CLI::ExitCodes::ExtrasError) && !rest.empty()) {
    const std::string& first = rest.front();
    msg = first.starts_with("-") ? fmt::format("unknown option {}", first.substr(0, first.find('=')))
                                 : fmt::format("unexpected argument '{}'", first);
    if (s) msg += fmt::format("; did you mean {}?", s->closest);
  } else if (cur == app && !rest.empty() && !rest.front().starts_with("-")) {
    std::vector<std::string> commands;
    for (const CLI::App* sub : app->get_subcommands([](const CLI::App*) { return true; }))
      commands.push_back(sub->get_name());
    msg = fmt::format("unknown subcommand '{}' (subcommands: {})", rest.front(), fmt::join(commands, ", "));
  } else if (s) {
    msg += fmt::format("; did you mean {}?", s->closest);
  }
  for (auto& c : msg)
    if (c == '\n') c = ' ';
  return fmt::format("mlbench: error: {} (see '{} --help')\n", as_typed(*app, msg, args), command_path(cur));
}

}  // namespace mlbench::cli
