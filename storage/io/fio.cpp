#include "storage/io/fio.hpp"

#include <algorithm>
#include <charconv>
#include <map>
#include <optional>

#include <fmt/format.h>

#include "base/error.hpp"
#include "base/input_file.hpp"
#include "base/units.hpp"
#include "bench/options.hpp"
#include "storage/io/job_spec.hpp"

namespace mlbench::storage {
namespace {

using nlohmann::json;

constexpr FioOption kFioOptions[] = {
    {"filename", FioTake::rename, "target", false, "Same as --target; several paths separated by ':'"},
    {"directory", FioTake::rename, "target", false,
     "A folder: mlbench creates its test file there; with --filename, the folder of a relative one"},
    {"rwmixread", FioTake::rename, "rwmix_read", false, "Same as --rwmix-read"},
    {"rwmixwrite", FioTake::complement, "rwmix_read", false, "Percent of writes: --rwmix-read 100 - N"},
    {"ioengine", FioTake::engine, "engine", false,
     "io_uring, or psync (sync, pvsync and pvsync2 run as psync: one blocking I/O at a time per thread)"},
    {"ramp_time", FioTake::rename, "ramp", false, "Same as --ramp"},
    {"io_limit", FioTake::rename, "io_size", false, "Same as --io-size"},
    {"sqthread_poll", FioTake::rename, "sqpoll", true, "Same as --sqpoll"},
    {"fixedbufs", FioTake::rename, "fixed_bufs", true, "Same as --fixed-bufs"},
    {"cpus_allowed", FioTake::rename, "cpus", false, "Same as --cpus (a CPU list)"},
    {"buffered", FioTake::negate, "direct", true, "Buffered I/O: --no-direct"},
    {"time_based", FioTake::accepted, "", true,
     "Accepted: mlbench runs for --runtime, over the region again and again, unless --io-size or "
     "--number-ios "
     "bounds it"},
    {"group_reporting", FioTake::accepted, "", true, "Accepted: mlbench reports each job's threads together"},
    {"stonewall", FioTake::accepted, "", true, "Accepted: mlbench runs a job file's jobs one after another"},
    {"wait_for_previous", FioTake::accepted, "", true,
     "Accepted: mlbench runs a job file's jobs one after another"},
    {"thread", FioTake::accepted, "", true, "Accepted: mlbench's job threads are threads"},
    {"rate_iops", FioTake::rename, "rate_iops", false, "Same as --rate-iops (per job thread)"},
    {"rate", FioTake::rate, "rate_iops", false,
     "Bytes per second per job thread (one figure for reads and writes): --rate-iops rate / bs"},
    {"bssplit", FioTake::refused, "", false,
     "mlbench has one block size per job: give --bs, or one job per block size in a job file (--job)"},
    {"output-format", FioTake::output, "", false,
     "json: the report as JSON on stdout (--json); fio-json: fio's JSON schema on stdout (jobs[].read.iops, "
     "clat_ns, disk_util: what fio-plot reads); normal: the summary table"},
};

constexpr FioEngine kFioEngines[] = {
    {"io_uring", "uring"}, {"uring", "uring"},   {"psync", "psync"}, {"sync", "psync"},
    {"pvsync", "psync"},   {"pvsync2", "psync"}, {"null", "null"},   {"libaio", ""},
    {"posixaio", ""},      {"mmap", ""},         {"splice", ""},
};

// fio's --verify methods: mlbench writes its own pattern and reads it back (--verify) for any of them.
constexpr std::string_view kVerifyMethods[] = {
    "md5",    "crc64", "crc32c",   "crc32c-intel", "crc32",    "crc16",    "crc7", "xxhash", "sha512",
    "sha256", "sha1",  "sha3-224", "sha3-256",     "sha3-384", "sha3-512", "meta", "pattern"};

// fio's rw values mlbench does not have, and the closest it measures.
constexpr std::pair<std::string_view, std::string_view> kNoTrim[] = {
    {"trim", "write"}, {"randtrim", "randwrite"}, {"trimwrite", "write"}, {"randtrimwrite", "randwrite"}};

std::string trim(std::string_view s) {
  auto b = s.find_first_not_of(" \t\r");
  if (b == std::string_view::npos) return {};
  return std::string(s.substr(b, s.find_last_not_of(" \t\r") - b + 1));
}

std::string text_of(const json& v) { return v.is_string() ? v.get<std::string>() : v.dump(); }

std::optional<bool> boolean(const json& v) {
  if (v.is_boolean()) return v.get<bool>();
  if (v.is_number_integer()) {
    if (v.get<std::int64_t>() == 0 || v.get<std::int64_t>() == 1) return v.get<std::int64_t>() == 1;
    return std::nullopt;
  }
  if (!v.is_string()) return std::nullopt;
  const std::string s = v.get<std::string>();
  for (std::string_view t : {"1", "true", "yes", "on"})
    if (s == t) return true;
  for (std::string_view f : {"0", "false", "no", "off"})
    if (s == f) return false;
  return std::nullopt;
}

const OptionSpec* own_row(std::string_view key) {
  for (const auto& r : job_options())
    if (r.name == key || (!r.alias.empty() && r.alias == key)) return &r;
  return nullptr;
}

const FioOption* fio_row(std::string_view key) {
  for (const auto& f : kFioOptions)
    if (f.fio == key) return &f;
  return nullptr;
}

std::vector<std::string> split(std::string_view s, char sep) {
  std::vector<std::string> out;
  std::size_t start = 0;
  while (true) {
    auto end = s.find(sep, start);
    out.push_back(
        trim(s.substr(start, end == std::string_view::npos ? std::string_view::npos : end - start)));
    if (end == std::string_view::npos) return out;
    start = end + 1;
  }
}

// fio's engine name as mlbench's --engine value; UsageError naming the engines mlbench runs.
std::string engine_of(const json& v, const std::string& name) {
  const std::string s = text_of(v);
  for (const auto& e : kFioEngines) {
    if (e.fio == s && !e.engine.empty()) return std::string(e.engine);
  }
  std::string runs;
  for (const auto& e : kFioEngines) {
    if (e.engine.empty() || e.fio == "uring") continue;
    runs += (runs.empty() ? "" : ", ") + std::string(e.fio);
  }
  throw UsageError(fmt::format("{}={}: mlbench has io_uring and psync (it runs {}); use {}=io_uring", name, s,
                               runs, name));
}

struct Resolver {
  bool cli;
  FioOptions out;
  std::map<std::string, std::string> set_by;  // mlbench key -> the key that set it (the command line's)
  std::vector<std::string> paths;             // filename/target, in order
  std::optional<std::string> directory;
  std::optional<std::string> bs;  // with a comma: read,write, resolved once rw is known
  std::optional<std::pair<std::string, std::string>> rate;  // --rate: (the key given, its text)

  std::string spelled(std::string_view key) const {
    return cli ? (own_row(key) != nullptr ? flag_name(key) : "--" + std::string(key)) : std::string(key);
  }

  void set(const std::string& key, const std::string& given, json value) {
    if (cli) {
      auto [it, fresh] = set_by.emplace(key, given);
      if (!fresh && it->second != given)
        throw UsageError(
            fmt::format("{} and {} set the same option; give one", spelled(it->second), spelled(given)));
    }
    out.options[key] = std::move(value);
  }

  void add_paths(const json& v, const std::string& given, bool fio_list) {
    std::vector<std::string> items;
    if (v.is_array()) {
      for (const auto& p : v) items.push_back(text_of(p));
    } else {
      items.push_back(text_of(v));
    }
    if (cli && !paths.empty()) {
      if (set_by["target"] != given)
        throw UsageError(fmt::format("{} and {} set the same option; give one", spelled(set_by["target"]),
                                     spelled(given)));
    }
    set_by.emplace("target", given);
    if (!cli) paths.clear();  // a later line replaces an earlier one, as in fio
    for (const auto& p : items) {
      if (fio_list) {
        for (auto& part : split(p, ':'))
          if (!part.empty()) paths.push_back(part);
      } else {
        paths.push_back(p);
      }
    }
  }

  // A value of one of mlbench's own rows, in fio's spelling where it has one.
  void own(const OptionSpec& row, const std::string& given, const json& v) {
    const std::string key(row.name);
    const std::string name = spelled(given);
    if (row.type == OptionType::flag) {
      auto b = boolean(v);
      if (!b && key == "verify" && v.is_string() &&
          std::find(std::begin(kVerifyMethods), std::end(kVerifyMethods), v.get<std::string>()) !=
              std::end(kVerifyMethods))
        b = true;  // fio's checksum methods: mlbench checks its own pattern
      if (!b) throw UsageError(fmt::format("{}: '{}' is not 0, 1, true or false", name, text_of(v)));
      set(key, given, *b);
      return;
    }
    if (key == "target") return add_paths(v, given, false);
    if (key == "rw" && v.is_string()) {
      const std::string s = v.get<std::string>();
      for (const auto& [fio, closest] : kNoTrim) {
        if (s == fio)
          throw UsageError(
              fmt::format("{}={}: mlbench does not trim (discard); the closest it measures is {}={}", name, s,
                          name, closest));
      }
      set(key, given, s == "readwrite" ? "rw" : s);
      return;
    }
    if (key == "size" && v.is_string() && trim(v.get<std::string>()).ends_with('%')) {
      const std::string s = trim(v.get<std::string>());
      double pct = 0;
      auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size() - 1, pct);
      if (ec != std::errc() || ptr != s.data() + s.size() - 1)
        throw UsageError(fmt::format("{}: '{}' is not a percentage such as 50%", name, s));
      if (cli && set_by.contains("size")) throw UsageError(fmt::format("{} is given twice", name));
      out.options.erase("size");
      set("size_pct", given, pct);
      return;
    }
    if (key == "size") out.options.erase("size_pct");
    if (key == "bs" && v.is_string() && v.get<std::string>().find(',') != std::string::npos) {
      bs = v.get<std::string>();
      set_by.emplace("bs", given);
      out.options.erase("bs");
      return;
    }
    if (key == "bs") bs.reset();
    if (key == "engine") return set(key, given, engine_of(v, name));
    set(key, given, v);
  }

  void fio(const FioOption& f, const std::string& given, const json& v) {
    const std::string name = spelled(given);
    switch (f.take) {
      case FioTake::rename:
        if (f.fio == "directory") {
          directory = text_of(v);
        } else if (f.option == "target") {
          add_paths(v, given, true);
        } else {
          own(*own_row(f.option), given, v);
        }
        return;
      case FioTake::complement: {
        auto n = v.is_number_integer() ? std::optional<std::int64_t>(v.get<std::int64_t>()) : std::nullopt;
        if (v.is_string()) {
          const std::string s = trim(v.get<std::string>());
          std::int64_t x = 0;
          auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), x);
          if (ec == std::errc() && ptr == s.data() + s.size() && !s.empty()) n = x;
        }
        if (!n || *n < 0 || *n > 100)
          throw UsageError(fmt::format("{}: '{}' is not a whole number from 0 to 100", name, text_of(v)));
        set(std::string(f.option), given, 100 - *n);
        return;
      }
      case FioTake::negate: {
        auto b = boolean(v);
        if (!b) throw UsageError(fmt::format("{}: '{}' is not 0, 1, true or false", name, text_of(v)));
        set(std::string(f.option), given, !*b);
        return;
      }
      case FioTake::engine:
        set(std::string(f.option), given, engine_of(v, name));
        return;
      case FioTake::rate: {
        const std::string text = text_of(v);
        if (text.find(',') != std::string::npos)
          throw UsageError(
              fmt::format("{} {}: mlbench caps reads and writes together; give one rate", name, text));
        parse_size(text, name);  // a bad value names its line in a job file
        if (cli && set_by.contains(std::string(f.option)))
          throw UsageError(fmt::format("{} and {} set the same option; give one",
                                       spelled(set_by[std::string(f.option)]), name));
        set_by.emplace(std::string(f.option), given);
        out.options.erase(std::string(f.option));
        rate = std::pair{given, text};
        return;
      }
      case FioTake::accepted:
        return;
      case FioTake::refused:
        throw UsageError(fmt::format("{}: {}", name, f.note));
      case FioTake::output: {
        if (!cli) {
          out.ignored.push_back(given);
          return;
        }
        const std::string s = text_of(v);
        if (s == "json") {
          out.json = true;
        } else if (s == "fio-json") {
          out.fio_json = true;
        } else if (s != "normal") {
          throw UsageError(fmt::format(
              "{}={}: mlbench prints normal (its summary table), json (its report) or fio-json (fio's JSON "
              "schema); use {}=json",
              name, s, name));
        }
        return;
      }
    }
  }

  void finish() {
    if (bs) {
      const auto parts = split(*bs, ',');
      const std::string read = parts[0].empty() ? "4k" : parts[0];
      const std::string write = parts.size() > 1 && !parts[1].empty() ? parts[1] : read;
      const std::string rw = out.options.value("rw", std::string("randread"));
      const std::string name = spelled(set_by.contains("bs") ? set_by["bs"] : "bs");
      const bool reads = rw != "write" && rw != "randwrite";
      const bool writes = rw != "read" && rw != "randread";
      if (reads && writes && parse_size(read, name) != parse_size(write, name))
        throw UsageError(
            fmt::format("{} {}: mlbench has one block size per job, for reads and writes alike; give one for "
                        "{} {}, or run "
                        "the reads and the writes as two jobs",
                        name, *bs, cli ? "--rw" : "rw", rw));
      out.options["bs"] = writes && !reads ? write : read;
    }
    if (rate) {
      const std::string name = spelled(rate->first);
      const std::uint64_t bytes = parse_size(rate->second, name);
      const std::uint64_t block = parse_size(text_of(out.options.value("bs", json("4k"))), spelled("bs"));
      if (bytes < block)
        throw UsageError(
            fmt::format("{} {}: less than one block ({} B) a second", name, rate->second, block));
      out.options["rate_iops"] = bytes / block;
    }
    if (directory) {
      if (paths.empty()) {
        paths.push_back(*directory);
      } else {
        for (auto& p : paths)
          if (!p.empty() && p[0] != '/') p = *directory + "/" + p;
      }
    }
    if (!paths.empty()) out.options["target"] = paths;
  }
};

}  // namespace

constexpr std::uint64_t kFioBounds[] = {2, 4, 10, 20, 50, 100, 250, 500, 750, 1000};
constexpr std::uint64_t kFioMsBounds[] = {2, 4, 10, 20, 50, 100, 250, 500, 750, 1000, 2000};
constexpr FioLatencyRanges kFioLatencyRanges[] = {{"latency_ns", 1, kFioBounds, false},
                                                  {"latency_us", 1000, kFioBounds, false},
                                                  {"latency_ms", 1000000, kFioMsBounds, true}};

std::span<const FioOption> fio_options() { return kFioOptions; }
std::span<const FioLatencyRanges> fio_latency_ranges() { return kFioLatencyRanges; }
std::span<const FioEngine> fio_engines() { return kFioEngines; }

FioOptions from_fio(const std::vector<std::pair<std::string, json>>& given, bool cli) {
  Resolver r{.cli = cli};
  for (const auto& [key, value] : given) {
    if (const OptionSpec* row = own_row(key)) {
      r.own(*row, key, value);
    } else if (const FioOption* f = fio_row(key)) {
      r.fio(*f, key, value);
    } else if (std::find(r.out.ignored.begin(), r.out.ignored.end(), key) == r.out.ignored.end()) {
      r.out.ignored.push_back(key);
    }
  }
  r.finish();
  return std::move(r.out);
}

std::vector<FioJob> parse_job_file(std::string_view text, const std::string& where) {
  using Lines = std::vector<std::pair<std::string, json>>;
  struct Section {
    std::string name;
    Lines lines;  // the [global] lines before it, then its own
  };
  Lines global;
  std::vector<Section> jobs;
  bool in_global = false;
  std::size_t n = 0;
  std::size_t start = 0;
  while (start < text.size()) {
    auto end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    const std::string line = trim(text.substr(start, end - start));
    start = end + 1;
    ++n;
    auto bad = [&](const std::string& why) { return UsageError(fmt::format("{}:{}: {}", where, n, why)); };
    if (line.empty() || line[0] == ';' || line[0] == '#') continue;
    if (line.find("${") != std::string::npos)
      throw bad(
          "${...}: environment variables in a job file are not supported (mlbench runs the file as "
          "written); put the value in the file");
    if (line[0] == '[') {
      if (line.back() != ']') throw bad(fmt::format("'{}' does not end with ']'; a section is [name]", line));
      const std::string name = trim(line.substr(1, line.size() - 2));
      if (name.empty()) throw bad("a section without a name; a section is [name]");
      in_global = name == "global";
      if (!in_global) {
        for (const auto& j : jobs)
          if (j.name == name)
            throw bad(fmt::format("job [{}] is given twice; give each job its own name", name));
        jobs.push_back({name, global});
      }
      continue;
    }
    if (line.starts_with("include ") || line.starts_with("include\t"))
      throw bad("include is not supported; put the included options into this file");
    if (!in_global && jobs.empty())
      throw bad(
          fmt::format("'{}' is outside a section; put options under [global] or a [job] section", line));
    const auto eq = line.find('=');
    const std::string key = trim(line.substr(0, eq));
    if (key.empty()) throw bad("no option name before '='");
    const json value = eq == std::string::npos ? json(true) : json(trim(line.substr(eq + 1)));
    // This line alone, through the same translation and the option's own checks: a bad value names its line.
    try {
      auto alone = from_fio({{key, value}}, false);
      parse_options(job_options(), alone.options, OptionSource::job_file());
    } catch (const UsageError& e) {
      throw bad(e.what());
    }
    (in_global ? global : jobs.back().lines).emplace_back(key, value);
  }
  if (jobs.empty()) throw UsageError(fmt::format("{}: no job section; a job is a [name] section", where));
  std::vector<FioJob> out;
  for (auto& j : jobs) {
    FioJob job;
    job.name = j.name;
    try {
      auto r = from_fio(j.lines, false);
      job.options = std::move(r.options);
      job.ignored = std::move(r.ignored);
    } catch (const UsageError& e) {
      throw UsageError(fmt::format("{} [{}]: {}", where, j.name, e.what()));
    }
    if (!job.options.contains("name")) job.options["name"] = j.name;
    for (const auto& [key, value] : j.lines)
      if (key == "stonewall" || key == "wait_for_previous") job.stonewall = boolean(value).value_or(false);
    out.push_back(std::move(job));
  }
  return out;
}

std::vector<FioJob> read_job_file(const std::filesystem::path& file) {
  return parse_job_file(read_input_file(file, InputKind::fio_job), file.string());
}

}  // namespace mlbench::storage
