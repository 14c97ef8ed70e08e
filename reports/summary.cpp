#include "reports/summary.hpp"

#include <algorithm>
#include <cmath>
#include <iterator>
#include <string_view>
#include <vector>

#include <fmt/format.h>

#include "base/units.hpp"
#include "bench/host_view.hpp"
#include "reports/table.hpp"

namespace mlbench {

std::string format_metric_value(double value, const std::string& unit, ValueStyle style) {
  if (!std::isfinite(value)) return "n/a";
  if (unit == "s") {
    if (value < 1e-3) return fmt::format("{:.1f} us", value * 1e6);
    if (value < 1) return fmt::format("{:.2f} ms", value * 1e3);
    return fmt::format("{:.2f} s", value);
  }
  if (unit == "%") return fmt::format("{:.1f} %", value);
  if (unit == "B") return format_bytes(value);
  // Every digit of a rate whose three significant ones would round it (2995 I/Os per second, not 3 k).
  const bool exact = style.exact && std::fabs(value) >= 100;
  if (unit == "1/s") return exact ? fmt::format("{:.0f}/s", value) : format_rate(value, "/s");
  if (unit.empty()) {
    // A count or a ratio has no unit to print: a whole number below a million as it is, else SI-prefixed.
    if (value == std::floor(value) && std::fabs(value) < 1e6) return fmt::format("{:.0f}", value);
    std::string out = format_rate(value, "");
    while (!out.empty() && out.back() == ' ') out.pop_back();
    return out;
  }
  if (exact) return fmt::format("{:.0f} {}", value, unit);
  return format_rate(value, unit, unit == "B/s" ? style.units : UnitBase::decimal);
}

namespace {

// Params whose value is a size in bytes: shown as users type sizes (format_size), "bs=4k".
constexpr std::string_view kSizeParams[] = {"bs", "stripe", "bytes", "array_bytes", "size"};

bool is_size_param(std::string_view key) {
  return std::find(std::begin(kSizeParams), std::end(kSizeParams), key) != std::end(kSizeParams);
}

// `s` padded with spaces to `w` display columns, on the right (text) or the left (numbers).
std::string pad(const std::string& s, std::size_t w, bool right_align = false) {
  const std::size_t n = display_width(s);
  const std::string fill(n < w ? w - n : 0, ' ');
  return right_align ? fill + s : s + fill;
}

// The figures of one headline set (ProbeInfo::console), each metric named `prefix` + its name, in order:
// "iops 31.5 k/s  bw 129 MB/s  lat p50 85.2 us  p99 210 us"; empty when the result has none of them.
std::string field_line(const Result& r, std::span<const ConsoleField> fields, const std::string& prefix,
                       ValueStyle style) {
  std::string out;
  for (const auto& f : fields) {
    const Metric* m = r.metric(prefix + std::string(f.metric));
    if (m == nullptr) continue;
    out += fmt::format("{}{} {}", out.empty() ? "" : "  ", f.label,
                       format_metric_value(m->value, m->unit, style));
    const std::string info(f.info);
    if (!info.empty() && r.info.contains(info) && r.info[info].is_number())
      out += fmt::format(" ({} {})", f.info_label,
                         format_metric_value(r.info[info].get<double>(), m->unit, style));
  }
  return out;
}

// The lines under a result: its headline set in one line, or read / write / all when the result has each
// direction's own first figure (read_iops: a randrw job, as fio's read and write sections).
std::vector<std::string> headline_lines(const Result& r, std::span<const ConsoleField> fields,
                                        ValueStyle style) {
  std::vector<std::string> lines;
  if (!shows_figures(r.status) || fields.empty()) return lines;
  for (const char* dir : {"read", "write"}) {
    const std::string prefix = std::string(dir) + "_";
    if (r.metric(prefix + std::string(fields.front().metric)) == nullptr) continue;
    lines.push_back(fmt::format("{:<6}{}", dir, field_line(r, fields, prefix, style)));
  }
  std::string all = field_line(r, fields, "", style);
  if (!all.empty()) lines.push_back(lines.empty() ? all : fmt::format("{:<6}{}", "all", all));
  return lines;
}

// fio's lines under its headline, from a storage result's figures in fio's shape (storage/io/probe.hpp):
// per direction "clat (usec): min=.., max=.., avg=.., stdev=.." for slat (when the engine split it), clat
// and lat, in the unit fio would pick for the mean; "io: ios=r/w, bytes, run=..msec" (the window's totals);
// "cpu: usr=.., sys=.., ctx=.."; and per disk "disk vda:
// ios=r/w, merge=r/w, ticks=r/w, in_queue=.., util=..%" (fio's "Disk stats (read/write)").
std::vector<std::string> fio_lines(const Result& r) {
  std::vector<std::string> lines;
  if (r.status != Status::ok || !r.info.contains("io_latency")) return lines;
  const Json& dirs = r.info["io_latency"];
  for (const auto& [dir, lat] : dirs.items()) {
    const std::string lead = dirs.size() > 1 ? fmt::format("{:<6}", dir) : "";
    for (const char* key : {"slat_ns", "clat_ns", "lat_ns"}) {
      const Json& l = lat.value(key, Json::object());
      if (l.value("N", 0) == 0) continue;
      const double mean = l.value("mean", 0.0);
      const auto [unit, div] = mean < 1e3   ? std::pair{"nsec", 1.0}
                               : mean < 1e6 ? std::pair{"usec", 1e3}
                                            : std::pair{"msec", 1e6};
      lines.push_back(fmt::format("{}{:>4} ({}): min={:.0f}, max={:.0f}, avg={:.2f}, stdev={:.2f}", lead,
                                  std::string_view(key).substr(0, std::string_view(key).find('_')), unit,
                                  l.value("min", 0.0) / div, l.value("max", 0.0) / div, mean / div,
                                  l.value("stddev", 0.0) / div));
    }
  }
  // fio's I/O totals and runtime ("io=..., run=...msec") over the measured window.
  if (r.work.contains("ios") && r.work.contains("seconds")) {
    lines.push_back(
        fmt::format("io: ios={}/{} (read/write), {}, run={:.0f} msec",
                    r.work.value("reads", std::uint64_t{0}), r.work.value("writes", std::uint64_t{0}),
                    format_bytes(r.work.value("bytes", 0.0)), 1e3 * r.work.value("seconds", 0.0)));
  }
  const Metric* usr = r.metric("usr_cpu");
  const Metric* sys = r.metric("sys_cpu");
  if (usr != nullptr && sys != nullptr) {
    lines.push_back(fmt::format("cpu: usr={:.2f}%, sys={:.2f}%, ctx={}", usr->value, sys->value,
                                r.info.value("rusage", Json::object()).value("ctx", 0)));
  }
  for (const auto& d : r.info.value("disk_stats", Json::array())) {
    auto n = [&d](const char* key) { return d.value(key, std::uint64_t{0}); };
    lines.push_back(fmt::format("disk {}: ios={}/{}, merge={}/{}, ticks={}/{}, in_queue={}, util={:.2f}%",
                                d.value("name", std::string("?")), n("read_ios"), n("write_ios"),
                                n("read_merges"), n("write_merges"), n("read_ticks"), n("write_ticks"),
                                n("in_queue"), d.value("util", 0.0)));
  }
  return lines;
}

// The params column of a row: a multi-target job's aggregate is labelled, its per-target rows name only their
// target, indented beneath it.
std::string row_params(const Result& r) {
  const std::string scope = r.params.is_object() ? r.params.value("scope", "") : "";
  if (scope == "aggregate") {
    Json rest = r.params;
    rest.erase("scope");
    const std::size_t n = rest.contains("target") && rest["target"].is_array() ? rest["target"].size() : 0;
    rest.erase("target");
    return fmt::format("aggregate of {} targets: {}", n, format_params(rest));
  }
  if (scope == "target" && r.params.contains("target")) {
    const Json& t = r.params["target"];
    return "  target=" + (t.is_string() ? t.get<std::string>() : t.dump());
  }
  return format_params(r.params);
}

}  // namespace

std::string format_params(const Json& params, std::size_t max_len) {
  std::string out;
  if (!params.is_object()) return out;
  for (const auto& [k, v] : params.items()) {
    std::string val = v.is_string()                       ? v.get<std::string>()
                      : is_size_param(k) && v.is_number() ? format_size(v.get<double>())
                                                          : v.dump();
    out += (out.empty() ? "" : " ") + k + "=" + val;
  }
  return max_len == std::string::npos ? out : cut_to_width(out, max_len);
}

void print_summary(std::ostream& out, const Report& report, std::size_t width,
                   const SummaryOptions& options) {
  const auto& results = report.results;
  struct Row {
    std::string probe, params, status, result, pct;
  };
  std::vector<Row> rows;
  Row header{"PROBE", "PARAMS", "STATUS", "RESULT", "% PEAK"};
  std::size_t w_probe = display_width(header.probe), w_params = display_width(header.params),
              w_status = display_width(header.status), w_result = display_width(header.result),
              w_pct = display_width(header.pct);
  auto console_of = [&options](const Result& r) {
    auto it = options.probes.find(r.probe);
    return it != options.probes.end() ? it->second : ProbeConsole{};
  };
  auto style_of = [&](const Result& r) { return ValueStyle{console_of(r).units, options.exact}; };
  for (const Result& r : results) {
    Row row{r.probe, row_params(r), std::string(to_string(r.status)), "-", "-"};
    if (shows_figures(r.status) && !r.metrics.empty()) {
      const Metric& m = r.metrics.front();
      row.result = fmt::format("{} {}", m.name, format_metric_value(m.value, m.unit, style_of(r)));
      if (const Metric* p = r.metric("pct_of_peak")) row.pct = fmt::format("{:.1f}", p->value);
    }
    w_probe = std::max(w_probe, display_width(row.probe));
    w_params = std::max(w_params, display_width(row.params));
    w_status = std::max(w_status, display_width(row.status));
    w_result = std::max(w_result, display_width(row.result));
    w_pct = std::max(w_pct, display_width(row.pct));
    rows.push_back(std::move(row));
  }
  // The params column takes the width the others leave (two spaces between columns), at least 16.
  constexpr std::size_t kGap = 2, kMinParams = 16;
  const std::size_t others = w_probe + w_status + w_result + w_pct + 4 * kGap;
  w_params = std::min(w_params, std::max(kMinParams, width > others ? width - others : 0));
  const std::string gap(kGap, ' '), indent(w_probe + kGap, ' ');
  auto line = [&](const Row& row) {
    std::string l = pad(row.probe, w_probe) + gap + pad(cut_to_width(row.params, w_params), w_params) + gap +
                    pad(row.status, w_status) + gap + pad(row.result, w_result, true) + gap +
                    pad(row.pct, w_pct, true);
    out << l << "\n";
  };
  line(header);
  std::size_t warnings = 0;
  for (std::size_t i = 0; i < results.size(); ++i) {
    const Result& r = results[i];
    line(rows[i]);
    for (const auto& l : headline_lines(r, console_of(r).fields, style_of(r))) out << indent << l << "\n";
    for (const auto& fio : fio_lines(r)) out << indent << fio << "\n";
    // Consecutive rows with the same reason (every GPU probe on a host without a GPU) show it once, under
    // the last of them.
    const bool next_shares_it = i + 1 < results.size() && results[i + 1].reason == r.reason;
    if (!r.reason.empty() && !next_shares_it) out << indent << r.reason << "\n";
    for (const auto& w : r.warnings) out << indent << "warning: " << w << "\n";
    warnings += r.warnings.size();
  }
  if (warnings > 0)
    out << fmt::format("{} warning{}, each under its result above\n", warnings, warnings == 1 ? "" : "s");
}

void print_host(std::ostream& out, const Json& host) {
  auto str = [](const Json& j, const char* key) {
    return j.contains(key) ? (j[key].is_string() ? j[key].get<std::string>() : j[key].dump())
                           : std::string("?");
  };
  // "1 socket", "2 sockets", "? sockets" when unknown.
  auto counted = [&str](const Json& j, const char* key, const char* one) {
    const bool single = j.contains(key) && j[key].is_number() && j[key].get<double>() == 1;
    return fmt::format("{} {}{}", str(j, key), one, single ? "" : "s");
  };
  const HostView view(host);
  auto known = [](const std::string& s) { return s.empty() ? std::string("?") : s; };
  out << "host      " << known(view.hostname) << " (" << known(view.os) << ", kernel " << known(view.kernel)
      << ")\n";
  if (!view.cpu.empty()) {
    const auto& c = view.cpu;
    out << "cpu       " << str(c, "model") << ": " << counted(c, "sockets", "socket") << ", "
        << counted(c, "cores", "core") << ", " << counted(c, "threads", "thread") << ", governor "
        << str(c, "governor") << "\n";
  }
  if (view.memory_total_bytes) out << "memory    " << format_bytes(*view.memory_total_bytes) << "\n";
  for (const auto& n : view.numa) {
    const auto cpus = n.value("cpus", Json::array()).size();
    out << "numa      node " << str(n, "node") << ": " << cpus << (cpus == 1 ? " cpu, " : " cpus, ")
        << (n.contains("memory_bytes") ? format_bytes(n["memory_bytes"].get<double>()) : "?") << "\n";
  }
  for (const auto& d : view.block_devices) {
    out << "disk      " << str(d, "name") << " " << str(d, "model") << " "
        << (d.contains("size_bytes") ? format_bytes(d["size_bytes"].get<double>()) : "?") << "\n";
  }
  for (const auto& r : view.raid) {
    out << "raid      " << str(r, "name") << " " << str(r, "level") << " members " << str(r, "members")
        << "\n";
  }
  for (const auto& n : view.nics) {
    out << "nic       " << str(n, "name") << " " << str(n, "driver") << " " << str(n, "speed_mbps")
        << " Mb/s\n";
  }
  for (const auto& g : view.gpus) {
    out << "gpu       " << str(g, "index") << ": " << str(g, "name") << " cc " << str(g, "compute_capability")
        << " " << (g.contains("memory_bytes") ? format_bytes(g["memory_bytes"].get<double>()) : "?") << "\n";
  }
  if (view.gpus.empty()) out << "gpu       none found\n";
  for (const auto& n : view.notes) out << "note      " << n.get<std::string>() << "\n";
}

}  // namespace mlbench
