// What a user reads on the console while a run runs (a live status line: that it is alive, how far, how
// fast), and the terminal's width.
//
// On a terminal: one live status line on stderr per case, fio's habit — "[2/7] storage.io 4k randread qd32
// [43%][iops 31.5 k/s][bw 129 MB/s][elapsed 00m:03s][eta 01m:17s]" — rewritten in place with "\r" about twice
// a second (a ticker redraws it, so the elapsed time moves also for probes that report no rate) and cleared
// when the case ends. Elsewhere (a CI log, a pipe), with --json, TERM=dumb or NO_COLOR (plain output asked
// for: no escape sequences), one line per finished case instead, so that a log shows progress. The line is
// cut to the terminal's width less one column: a line that wraps can no longer be rewritten with "\r".
#pragma once

#include <cstddef>
#include <functional>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "bench/runner.hpp"

namespace mlbench::cli {

// Columns of the terminal on `fd`: $COLUMNS when it is a positive number, else the terminal's (TIOCGWINSZ),
// else kDefaultConsoleWidth (not a terminal).
std::size_t terminal_width(int fd);

enum class ProgressStyle { live, lines };
// `stderr_tty`: stderr is a terminal; `no_color`, `term`: the environment's NO_COLOR and TERM (null when
// unset).
ProgressStyle progress_style(bool stderr_tty, bool json, const char* no_color, const char* term);

// "00m:03s", "12m:40s", "1h02m:03s" (fio's clock).
std::string format_clock(double seconds);

// What the live line shows: the case, its share of its estimate, its current rate, elapsed and ETA.
struct LiveStatus {
  std::size_t index = 0, total = 0;
  std::string probe, label;
  double case_elapsed_s = 0, case_estimate_s = 0, eta_s = 0;
  std::vector<std::string> rates;  // "iops 31.5 k/s"
};
// The line, within `width` columns less one; the label is cut first ("..."), then the line's end.
std::string format_live_line(const LiveStatus& s, std::size_t width);

// The update policy: a case's start draws at once; its rate reports update what the line shows; tick()
// redraws when kRefresh has passed since the last draw (with the elapsed time and ETA moved on); the case's
// end clears the line. Times are seconds on one steady clock. Every text goes to `write`; safe from two
// threads (the runner's events, the ticker's ticks).
class LiveLine {
 public:
  static constexpr double kRefresh = 0.5;
  LiveLine(std::size_t width, std::function<void(std::string_view)> write);
  void event(const ProgressEvent& e, double now);
  void tick(double now);
  // Clears the line when one is shown (interrupted mid-case).
  void clear();

 private:
  void draw(double now);
  void clear_locked();

  std::mutex mu_;
  std::size_t width_;
  std::function<void(std::string_view)> write_;
  LiveStatus status_;
  double status_at_ = 0;  // when status_ was received
  double drawn_at_ = 0;
  bool running_ = false, shown_ = false;
};

// One line per finished case for a log: "mlbench: [2/7] storage.io 4k randread qd32: ok, iops 31.5 k/s
// elapsed 25s  ETA 2m10s"; a notice as "mlbench: NOTICE".
std::string finished_case_line(const ProgressEvent& e);

}  // namespace mlbench::cli
