#include "storage/dataload/workload.hpp"

#include <algorithm>
#include <cmath>
#include <set>

#include <fmt/format.h>

#include "base/error.hpp"
#include "bench/yaml_json.hpp"

namespace mlbench::storage {
namespace {

using nlohmann::json;

std::string join(const std::vector<std::string>& v) {
  std::string out;
  for (const auto& s : v) out += (out.empty() ? "" : ", ") + s;
  return out;
}

// A whole number ≥ min at y[key]; `where` names the file and key in the message.
std::uint64_t whole(const json& v, const std::string& where, std::uint64_t min) {
  if (!v.is_number()) throw UsageError(fmt::format("{}: {} is not a number", where, v.dump()));
  double d = v.get<double>();
  if (d < 0) throw UsageError(fmt::format("{}: {} is negative; give a size of at least {}", where, d, min));
  if (d != std::floor(d)) throw UsageError(fmt::format("{}: {} is not a whole number", where, d));
  if (d < static_cast<double>(min))
    throw UsageError(fmt::format("{}: {} is below {}; give at least {}", where, d, min, min));
  return static_cast<std::uint64_t>(d);
}

double seconds(const json& v, const std::string& where) {
  if (!v.is_number()) throw UsageError(fmt::format("{}: {} is not a number of seconds", where, v.dump()));
  double d = v.get<double>();
  if (d < 0) throw UsageError(fmt::format("{}: {} is negative; give seconds ≥ 0", where, d));
  return d;
}

bool shuffle_of(const json& v, const std::string& where) {
  if (v.is_boolean()) return v.get<bool>();
  if (v.is_string()) {
    auto s = v.get<std::string>();
    if (s == "off" || s == "none") return false;
    if (s == "seed" || s == "random" || s == "on") return true;
  }
  throw UsageError(fmt::format("{}: {} is not a shuffle mode; give off, seed or random", where, v.dump()));
}

// The format at y[key] (absent: "file"), one of kDatasetFormats; `where` names the file and key.
std::string format_of(const json& y, const char* key, const std::string& where) {
  if (!y.contains(key)) return std::string(kDatasetFormats[0]);
  const json& v = y[key];
  if (!v.is_string() || !is_dataset_format(v.get<std::string>())) {
    std::vector<std::string> known(std::begin(kDatasetFormats), std::end(kDatasetFormats));
    throw UsageError(
        fmt::format("{}: {} is not a dataset format; give one of {}", where, v.dump(), join(known)));
  }
  return v.get<std::string>();
}

void check_shape(const Workload& w, const std::string& where) {
  if (w.record_length == 0)
    throw UsageError(fmt::format("{}: the record length is 0; give a sample size in bytes", where));
  if (w.read_threads == 0) throw UsageError(fmt::format("{}: read_threads is 0; give at least 1", where));
}

}  // namespace

bool is_dataset_format(std::string_view format) {
  return std::find(std::begin(kDatasetFormats), std::end(kDatasetFormats), format) !=
         std::end(kDatasetFormats);
}

bool is_dataset_name(std::string_view name) {
  if (name.empty() || name.size() > 64 || name[0] == '.') return false;
  return std::all_of(name.begin(), name.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
           c == '_' || c == '-';
  });
}

Workload workload_from_json(const json& y, const std::string& where) {
  if (!y.is_object()) throw UsageError(fmt::format("{}: not a mapping of workload keys", where));
  static const std::set<std::string> kKeys = {"name",          "format",
                                              "num_files",     "samples_per_file",
                                              "record_length", "record_length_stdev",
                                              "batch_size",    "read_threads",
                                              "step_time",     "au_floor",
                                              "epochs",        "file_shuffle",
                                              "sample_shuffle"};
  for (const auto& item : y.items())
    if (!kKeys.count(item.key())) throw UsageError(fmt::format("{}: unknown key '{}'", where, item.key()));
  auto at = [&](const char* key) -> const json& {
    if (!y.contains(key)) throw UsageError(fmt::format("{}: '{}' is missing", where, key));
    return y[key];
  };
  auto key = [&](const char* k) { return fmt::format("{}: {}", where, k); };
  Workload w;
  w.name = at("name").is_string() ? at("name").get<std::string>() : at("name").dump();
  w.format = format_of(y, "format", key("format"));
  w.num_files = whole(at("num_files"), key("num_files"), 1);
  w.samples_per_file = whole(y.value("samples_per_file", json(1)), key("samples_per_file"), 1);
  w.record_length = whole(at("record_length"), key("record_length"), 1);
  w.record_stdev = whole(y.value("record_length_stdev", json(0)), key("record_length_stdev"), 0);
  w.batch_size = whole(at("batch_size"), key("batch_size"), 1);
  w.read_threads = static_cast<unsigned>(whole(y.value("read_threads", json(1)), key("read_threads"), 1));
  if (y.contains("file_shuffle")) w.file_shuffle = shuffle_of(y["file_shuffle"], key("file_shuffle"));
  if (y.contains("sample_shuffle")) w.sample_shuffle = shuffle_of(y["sample_shuffle"], key("sample_shuffle"));
  const json& st = at("step_time");
  if (!st.is_object() || st.empty())
    throw UsageError(
        fmt::format("{}: step_time must map accelerator types (h100, a100, b200) to seconds", where));
  for (const auto& item : st.items()) {
    auto a = value_of(kAcceleratorNames, item.key());
    if (!a) throw UsageError(fmt::format("{}: step_time: unknown accelerator '{}'", where, item.key()));
    w.step_time[*a] = seconds(item.value(), key("step_time"));
  }
  double floor = y.value("au_floor", json(0.9)).is_number() ? y.value("au_floor", 0.9) : -1;
  if (floor <= 0 || floor > 1)
    throw UsageError(fmt::format("{}: au_floor must be a fraction in (0, 1], like 0.9", where));
  w.au_floor = floor;
  w.epochs = whole(y.value("epochs", json(0)), key("epochs"), 0);
  check_shape(w, where);
  return w;
}

std::vector<std::string> workload_names(const std::filesystem::path& dir) {
  std::vector<std::string> out;
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(dir, ec))
    if (e.path().extension() == ".yaml") out.push_back(e.path().stem().string());
  std::sort(out.begin(), out.end());
  return out;
}

Workload load_workload(std::string_view name, const std::filesystem::path& dir) {
  auto file = dir / (std::string(name) + ".yaml");
  if (name.empty() || name.find('/') != std::string_view::npos || !std::filesystem::exists(file)) {
    throw UsageError(
        fmt::format("unknown workload '{}'; known: {} (or --dlio FILE)", name, join(workload_names(dir))));
  }
  return workload_from_json(load_yaml_file(file), file.string());
}

Workload dlio_from_json(const json& y, const std::string& where, const std::filesystem::path& dir) {
  if (!y.is_object()) throw UsageError(fmt::format("{}: not a DLIO workload (a mapping)", where));
  // The keys that shape the I/O, by section; everything else is reported as ignored.
  static const std::map<std::string, std::set<std::string>> kUsed = {
      {"dataset",
       {"num_files_train", "num_samples_per_file", "record_length", "record_length_stdev",
        "record_length_bytes", "record_length_bytes_stdev", "format"}},
      {"reader", {"batch_size", "read_threads", "file_shuffle", "sample_shuffle"}},
      {"train", {"computation_time", "epochs"}},
      {"model", {}}};
  Workload w;
  for (const auto& item : y.items()) {
    auto used = kUsed.find(item.key());
    if (used == kUsed.end()) {
      w.ignored.push_back(item.key());
      continue;
    }
    if (item.key() == "model") continue;
    if (!item.value().is_object())
      throw UsageError(
          fmt::format("{}: {} must be a mapping, not {}", where, item.key(), item.value().dump()));
    for (const auto& sub : item.value().items())
      if (!used->second.count(sub.key())) w.ignored.push_back(item.key() + "." + sub.key());
  }
  auto section = [&](const char* s) -> const json& {
    static const json kEmpty = json::object();
    return y.contains(s) ? y[s] : kEmpty;
  };
  const json& ds = section("dataset");
  const json& rd = section("reader");
  const json& tr = section("train");
  auto key = [&](const char* s, const char* k) { return fmt::format("{}: {}.{}", where, s, k); };
  if (!ds.contains("num_files_train"))
    throw UsageError(fmt::format("{}: dataset.num_files_train is missing", where));
  w.name = "dlio";
  if (y.contains("model") && !(y["model"].is_object() && !y["model"].contains("name"))) {
    const json& m = y["model"].is_object() ? y["model"]["name"] : y["model"];
    if (!m.is_string()) throw UsageError(fmt::format("{}: model: {} is not a name", where, m.dump()));
    w.name = m.get<std::string>();
  }
  w.format = format_of(ds, "format", key("dataset", "format"));
  w.num_files = whole(ds["num_files_train"], key("dataset", "num_files_train"), 1);
  w.samples_per_file =
      whole(ds.value("num_samples_per_file", json(1)), key("dataset", "num_samples_per_file"), 1);
  const char* len_key = ds.contains("record_length_bytes") ? "record_length_bytes" : "record_length";
  const char* sd_key =
      ds.contains("record_length_bytes_stdev") ? "record_length_bytes_stdev" : "record_length_stdev";
  if (!ds.contains(len_key)) throw UsageError(fmt::format("{}: dataset.record_length is missing", where));
  w.record_length = whole(ds[len_key], key("dataset", len_key), 1);
  w.record_stdev = whole(ds.value(sd_key, json(0)), key("dataset", sd_key), 0);
  w.batch_size = whole(rd.value("batch_size", json(1)), key("reader", "batch_size"), 1);
  w.read_threads =
      static_cast<unsigned>(whole(rd.value("read_threads", json(1)), key("reader", "read_threads"), 1));
  if (rd.contains("file_shuffle"))
    w.file_shuffle = shuffle_of(rd["file_shuffle"], key("reader", "file_shuffle"));
  if (rd.contains("sample_shuffle"))
    w.sample_shuffle = shuffle_of(rd["sample_shuffle"], key("reader", "sample_shuffle"));
  double step = seconds(tr.value("computation_time", json(0)), key("train", "computation_time"));
  for (const auto& row : kAcceleratorNames) w.step_time[row.value] = step;
  w.epochs = whole(tr.value("epochs", json(0)), key("train", "epochs"), 0);
  std::error_code ec;
  if (std::filesystem::exists(dir / (w.name + ".yaml"), ec)) w.au_floor = load_workload(w.name, dir).au_floor;
  check_shape(w, where);
  return w;
}

Workload load_dlio(const std::filesystem::path& file, const std::filesystem::path& dir) {
  return dlio_from_json(load_yaml_file(file), file.string(), dir);
}

json to_json(const Workload& w) {
  json st = json::object();
  for (const auto& [a, s] : w.step_time) st[std::string(to_string(a))] = s;
  json j{{"name", w.name},
         {"format", w.format},
         {"num_files", w.num_files},
         {"samples_per_file", w.samples_per_file},
         {"record_length", w.record_length},
         {"record_length_stdev", w.record_stdev},
         {"batch_size", w.batch_size},
         {"read_threads", w.read_threads},
         {"file_shuffle", w.file_shuffle},
         {"sample_shuffle", w.sample_shuffle},
         {"step_time", st},
         {"au_floor", w.au_floor},
         {"epochs", w.epochs}};
  return j;
}

}  // namespace mlbench::storage
