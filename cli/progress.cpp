#include "cli/progress.hpp"

#include <sys/ioctl.h>
#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <string_view>

#include <fmt/format.h>

#include "reports/summary.hpp"
#include "reports/table.hpp"

namespace mlbench::cli {
namespace {

// "ok, iops 12.3 k/s" or "skipped": the status and headline of a finished case (its first result; "+N" more).
std::string case_outcome(std::span<const Result> results) {
  const Result& r = results.front();
  std::string out(to_string(r.status));
  if (shows_figures(r.status) && !r.metrics.empty()) {
    const Metric& m = r.metrics.front();
    out += fmt::format(", {} {}", m.name, format_metric_value(m.value, m.unit));
  }
  if (results.size() > 1) out += fmt::format(" (+{} results)", results.size() - 1);
  return out;
}

std::string format_eta(double s) {
  if (s < 60) return fmt::format("{:.0f}s", s);
  return fmt::format("{:.0f}m{:02.0f}s", std::floor(s / 60), std::fmod(s, 60));
}

// The live line's short names of the rates probes report.
std::string rate_text(const LiveMetric& m) {
  const std::string_view name = m.name == "bandwidth" ? "bw" : m.name;
  return fmt::format("{} {}", name, format_metric_value(m.value, std::string(m.unit)));
}

}  // namespace

std::size_t terminal_width(int fd) {
  if (const char* columns = std::getenv("COLUMNS")) {
    std::size_t n = 0;
    const std::string_view text(columns);
    auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), n);
    if (ec == std::errc() && ptr == text.data() + text.size() && n > 0) return n;
  }
  winsize ws{};
  if (::isatty(fd) == 1 && ::ioctl(fd, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0) return ws.ws_col;
  return kDefaultConsoleWidth;
}

ProgressStyle progress_style(bool stderr_tty, bool json, const char* no_color, const char* term) {
  const bool plain =
      (no_color != nullptr && *no_color != '\0') || (term != nullptr && std::string_view(term) == "dumb");
  return stderr_tty && !json && !plain ? ProgressStyle::live : ProgressStyle::lines;
}

std::string format_clock(double seconds) {
  // Clamped to 0..99 h (a NaN is 0): an estimate gone wild must not overflow the conversion.
  const double r = std::round(seconds);
  const auto s = static_cast<long long>(r > 0 ? std::min(r, 99 * 3600.0) : 0.0);
  if (s >= 3600) return fmt::format("{}h{:02}m:{:02}s", s / 3600, s / 60 % 60, s % 60);
  return fmt::format("{:02}m:{:02}s", s / 60, s % 60);
}

std::string format_live_line(const LiveStatus& s, std::size_t width) {
  std::string tail;
  if (s.case_estimate_s > 0) {
    const double pct = std::min(99.0, 100.0 * s.case_elapsed_s / s.case_estimate_s);
    tail += fmt::format("[{:.0f}%]", std::floor(pct));
  }
  for (const auto& r : s.rates) tail += "[" + r + "]";
  tail += fmt::format("[elapsed {}][eta {}]", format_clock(s.case_elapsed_s), format_clock(s.eta_s));
  std::string head = fmt::format("[{}/{}] {} ", s.index, s.total, s.probe);
  const std::size_t max = width > 1 ? width - 1 : 1;
  const std::size_t fixed = display_width(head) + 1 + display_width(tail);
  std::string line = head + (fixed < max ? cut_to_width(s.label, max - fixed) : std::string()) + " " + tail;
  return cut_to_width(line, max);
}

LiveLine::LiveLine(std::size_t width, std::function<void(std::string_view)> write)
    : width_(width), write_(std::move(write)) {}

void LiveLine::event(const ProgressEvent& e, double now) {
  std::lock_guard lock(mu_);
  switch (e.phase) {
    case Phase::notice:
      return;
    case Phase::start:
      status_ =
          LiveStatus{e.index, e.total, e.probe, e.label, e.case_elapsed_s, e.case_estimate_s, e.eta_s, {}};
      status_at_ = now;
      running_ = true;
      draw(now);
      return;
    case Phase::running:
      status_.case_elapsed_s = e.case_elapsed_s;
      status_.eta_s = e.eta_s;
      status_.rates.clear();
      for (const auto& m : e.live) status_.rates.push_back(rate_text(m));
      status_at_ = now;
      return;
    case Phase::finished:
      running_ = false;
      clear_locked();
      return;
  }
}

void LiveLine::tick(double now) {
  std::lock_guard lock(mu_);
  if (running_ && now - drawn_at_ >= kRefresh) draw(now);
}

void LiveLine::clear() {
  std::lock_guard lock(mu_);
  running_ = false;
  clear_locked();
}

void LiveLine::draw(double now) {
  LiveStatus s = status_;
  const double since = std::max(0.0, now - status_at_);
  s.case_elapsed_s += since;
  s.eta_s = std::max(0.0, s.eta_s - since);
  write_("\r\033[K" + format_live_line(s, width_));
  drawn_at_ = now;
  shown_ = true;
}

void LiveLine::clear_locked() {
  if (shown_) write_("\r\033[K");
  shown_ = false;
}

std::string finished_case_line(const ProgressEvent& e) {
  if (e.phase == Phase::notice) return fmt::format("mlbench: {}\n", e.label);
  return fmt::format("mlbench: [{}/{}] {} {}: {}  elapsed {}  ETA {}\n", e.index, e.total, e.probe, e.label,
                     case_outcome(e.finished), format_eta(e.elapsed_s), format_eta(e.eta_s));
}

}  // namespace mlbench::cli
