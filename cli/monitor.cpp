// `mlbench monitor [--interval 5s] [--listen 127.0.0.1:9401 | --textfile FILE] [--baseline report.json...]`:
// a long-running Prometheus exporter (monitor/). With --listen, a sampling thread samples every source each
// interval and publishes the exposition, while the main thread serves scrapes of /metrics (monitor/http.hpp),
// so no client delays a sample and no sample delays a client. With --textfile, the one thread samples and
// rewrites the file atomically after each sample, for node_exporter's textfile collector; a failed write is
// a warning and the next interval retries. SIGINT/SIGTERM end it cleanly with exit 0.
#include <pthread.h>
#include <signal.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <exception>
#include <functional>
#include <iostream>
#include <thread>

#include <fmt/ranges.h>

#include "base/error.hpp"
#include "base/units.hpp"
#include "bench/runner.hpp"
#include "bench/signals.hpp"
#include "cli/commands.hpp"
#include "monitor/exporter.hpp"
#include "monitor/http.hpp"
#include "reports/inputs.hpp"

namespace mlbench::cli {
namespace {

constexpr const char* kDefaultListen = "127.0.0.1:9401";

struct MonitorFlags {
  std::string interval = "5s";
  std::string listen;
  std::string textfile;
  std::vector<std::string> baseline;
};

double steady_seconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// Samples at steady time `next` and then every `interval` seconds until `stop`, handing each exposition to
// `publish`; the wait is sliced so that `stop` is seen within kStopCheck.
constexpr std::chrono::milliseconds kStopCheck{100};
void sample_every(monitor::Monitor& mon, double interval, double next, const std::atomic<bool>& stop,
                  const std::function<void(std::string)>& publish) {
  while (!stop.load()) {
    double now = steady_seconds();
    if (now >= next) {
      mon.sample(now);
      publish(mon.exposition());
      next += interval;
      if (next < now) next = now + interval;  // a long stall skips samples instead of bursting
      continue;
    }
    auto wait =
        std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::duration<double>(next - now));
    std::this_thread::sleep_for(std::min(kStopCheck, wait + std::chrono::milliseconds(1)));
  }
}

// Sets `stop` and joins `thread` when the scope ends, by return or by exception.
struct StopAndJoin {
  std::atomic<bool>& stop;
  std::thread& thread;
  StopAndJoin(std::atomic<bool>& flag, std::thread& joined) : stop(flag), thread(joined) {}
  StopAndJoin(const StopAndJoin&) = delete;
  StopAndJoin& operator=(const StopAndJoin&) = delete;
  ~StopAndJoin() {
    stop.store(true);
    thread.join();
  }
};

int run_monitor(const MonitorFlags& f) {
  double interval = parse_duration(f.interval, "--interval");
  if (interval < 0.1 || interval > 3600) {
    throw UsageError(fmt::format("--interval {}: give 100ms to 1h (e.g. --interval 5s)", f.interval));
  }
  if (!f.listen.empty() && !f.textfile.empty()) {
    throw UsageError("--listen and --textfile: give one (an HTTP endpoint or a file for node_exporter)");
  }
  if (!f.textfile.empty()) check_writable(f.textfile, "--textfile");
  auto log = [](const std::string& line) { std::cerr << "mlbench monitor: " << line << std::endl; };
  std::optional<monitor::Ceilings> ceilings;
  if (!f.baseline.empty()) {
    ceilings = monitor::ceilings_from_reports(load_reports(f.baseline));
    if (ceilings->empty())
      log(fmt::format(
          "--baseline {}: no ceiling in these reports (no ok storage.io result on one raw /dev "
          "device, no net.nccl NIC rates, no GPU power telemetry), so no mlbench_utilisation_ratio "
          "and no storage or network mlbench_bottleneck; give a report of mlbench run or storage "
          "on this node's drives",
          fmt::join(f.baseline, " ")));
  }
  // Only the default is implicit, and it is the loopback: another address is bound only when --listen names
  // it.
  auto address = monitor::parse_listen(f.listen.empty() ? kDefaultListen : f.listen);
  std::unique_ptr<monitor::MetricsServer> server;
  if (f.textfile.empty()) server = std::make_unique<monitor::MetricsServer>(address);
  monitor::Monitor mon(monitor::default_sources(SysReader("/")), ceilings, log);
  if (server) {
    log(fmt::format("serving http://{}:{}/metrics every {} s", address.host, server->port(), interval));
  } else {
    log(fmt::format("writing {} every {} s", f.textfile, interval));
  }
  SignalGuard guard;
  if (!server) {
    monitor::TextfileWriter textfile(f.textfile, log);
    sample_every(mon, interval, steady_seconds(), stop_flag(),
                 [&textfile](std::string text) { textfile.write(text); });
  } else {
    // The first exposition is there before the server answers anything.
    monitor::Exposition exposition;
    double first = steady_seconds();
    mon.sample(first);
    exposition.publish(mon.exposition());
    std::atomic<bool> sampling_done{false};
    std::exception_ptr sampling_failed;
    // The signals are blocked in the sampling thread (it inherits the mask), so they land on the serving
    // thread and interrupt its poll() at once.
    sigset_t signals, before;
    sigemptyset(&signals);
    sigaddset(&signals, SIGINT);
    sigaddset(&signals, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &signals, &before);
    {
      std::thread sampler([&] {
        try {
          sample_every(mon, interval, first + interval, sampling_done,
                       [&exposition](std::string text) { exposition.publish(std::move(text)); });
        } catch (...) {
          sampling_failed = std::current_exception();
          stop_flag().store(true);  // ends the server's loop
        }
      });
      // However serving ends (its stop flag, or a fault it throws), the sampler is stopped and joined first:
      // a joinable thread destroyed by the throw would end the process in std::terminate, with no error line.
      StopAndJoin join_sampler{sampling_done, sampler};
      pthread_sigmask(SIG_SETMASK, &before, nullptr);
      server->run(exposition, stop_flag());
    }
    if (sampling_failed) std::rethrow_exception(sampling_failed);
  }
  log("stopped");
  return 0;
}

}  // namespace

void add_monitor_command(CLI::App& app, Action& action) {
  auto* cmd = app.add_subcommand("monitor",
                                 "Export live Prometheus metrics (GPUs, drives, NICs, InfiniBand, CPU, "
                                 "memory), with --baseline each rate as a "
                                 "ratio of what this node measured");
  auto flags = std::make_shared<MonitorFlags>();
  cmd->add_option("--interval", flags->interval, "Sampling interval (e.g. 5s, 500ms)")->default_str("5s");
  cmd->add_option(
      "--listen", flags->listen,
      "Serve GET /metrics on IPv4 ADDRESS:PORT (default 127.0.0.1:9401; another address only when "
      "named here)");
  cmd->add_option("--textfile", flags->textfile,
                  "Instead of serving, rewrite this file atomically each interval (node_exporter textfile "
                  "collector)");
  cmd->add_option(
      "--baseline", flags->baseline,
      "Reports of this node (mlbench run -o, a multi-node mlbench nccl -o; several or a folder: the maximum "
      "of each): adds mlbench_utilisation_ratio and mlbench_bottleneck");
  cmd->callback([&action, flags] { action = [flags] { return run_monitor(*flags); }; });
}

}  // namespace mlbench::cli
