#include "report/report_reader.hpp"

#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <string>

#include <fmt/format.h>

#include "base/error.hpp"

namespace mlbench::detail {
namespace {

constexpr int kMaxDepth = 512;

bool is_digit(char c) { return c >= '0' && c <= '9'; }

class Reader {
 public:
  explicit Reader(std::string_view text)
      : begin_(text.data()), p_(text.data()), end_(text.data() + text.size()) {}

  [[noreturn]] void syntax(std::string_view what) const {
    int line = 1;
    const char* line_start = begin_;
    for (const char* q = begin_; q < p_; ++q) {
      if (*q == '\n') {
        ++line;
        line_start = q + 1;
      }
    }
    throw JsonSyntaxError(fmt::format("line {}, column {}: {}", line, p_ - line_start + 1,
                                      p_ == end_ ? "unexpected end of input" : what));
  }

  // The next significant character, or '\0' at the end (a NUL in the text is rejected wherever it appears).
  char peek() {
    while (p_ < end_ && (*p_ == ' ' || *p_ == '\n' || *p_ == '\r' || *p_ == '\t')) ++p_;
    return p_ < end_ ? *p_ : '\0';
  }

  void expect(char c) {
    if (peek() != c || p_ == end_) syntax(fmt::format("expected '{}'", c));
    ++p_;
  }

  // Nothing but whitespace may follow the top-level value.
  void finish() {
    if (peek() != '\0' || p_ != end_) syntax("unexpected text after the JSON value");
  }

  // Calls on_member(key) for each member, with the reader at the member's value, which it must consume.
  template <class F>
  void object(F&& on_member) {
    expect('{');
    enter();
    if (peek() == '}') {
      ++p_;
    } else {
      for (;;) {
        if (peek() != '"') syntax("expected a string key");
        std::string key = string();
        expect(':');
        on_member(key);
        char c = peek();
        ++p_;
        if (c == '}') break;
        if (c != ',') {
          --p_;
          syntax("expected ',' or '}'");
        }
      }
    }
    --depth_;
  }

  // Calls on_element(index) for each element, with the reader at the element, which it must consume.
  template <class F>
  void array(F&& on_element) {
    expect('[');
    enter();
    if (peek() == ']') {
      ++p_;
    } else {
      for (std::size_t i = 0;; ++i) {
        on_element(i);
        char c = peek();
        ++p_;
        if (c == ']') break;
        if (c != ',') {
          --p_;
          syntax("expected ',' or ']'");
        }
      }
    }
    --depth_;
  }

  Json value() {
    switch (peek()) {
      case '{': {
        Json o = Json::object();
        object([&](std::string& key) {
          Json v = value();
          o[std::move(key)] = std::move(v);  // a repeated key: the last one wins, as in nlohmann::json
        });
        return o;
      }
      case '[': {
        Json a = Json::array();
        array([&](std::size_t) { a.push_back(value()); });
        return a;
      }
      case '"':
        return string();
      case 't':
        literal("true");
        return true;
      case 'f':
        literal("false");
        return false;
      case 'n':
        literal("null");
        return nullptr;
      default:
        return number();
    }
  }

  // Checks the value's syntax and discards it; numbers are only scanned, never converted.
  void skip() {
    switch (peek()) {
      case '{':
        object([&](std::string&) { skip(); });
        return;
      case '[':
        array([&](std::size_t) { skip(); });
        return;
      case '"':
        string();
        return;
      case 't':
        literal("true");
        return;
      case 'f':
        literal("false");
        return;
      case 'n':
        literal("null");
        return;
      default:
        number_value();
    }
  }

  bool at(char c) { return peek() == c && p_ != end_; }
  std::size_t offset() const { return static_cast<std::size_t>(p_ - begin_); }
  bool at_number() {
    char c = peek();
    return c == '-' || is_digit(c);
  }

  std::string string() {
    ++p_;  // the opening quote
    std::string out;
    for (;;) {
      const char* run = p_;
      while (p_ < end_ && *p_ != '"' && *p_ != '\\' && static_cast<unsigned char>(*p_) >= 0x20 &&
             static_cast<unsigned char>(*p_) < 0x80) {
        ++p_;
      }
      out.append(run, p_);
      if (p_ == end_) syntax("unterminated string");
      auto c = static_cast<unsigned char>(*p_);
      if (c == '"') {
        ++p_;
        return out;
      }
      if (c < 0x20) syntax("control character in a string (it must be escaped)");
      if (c == '\\') {
        escape(out);
      } else {
        utf8(out);
      }
    }
  }

  // A number as nlohmann::json types it: unsigned or signed 64-bit integer when it has no fraction or
  // exponent and fits, else a double.
  Json number() {
    const char* start = p_;
    bool integral = scan_number();
    if (integral) {
      if (*start == '-') {
        std::int64_t v = 0;
        if (std::from_chars(start, p_, v).ec == std::errc()) return v;
      } else {
        std::uint64_t v = 0;
        if (std::from_chars(start, p_, v).ec == std::errc()) return v;
      }
    }
    return to_double(start);
  }

  double number_value() {
    const char* start = p_;
    scan_number();
    return to_double(start);
  }

 private:
  void enter() {
    if (++depth_ > kMaxDepth) syntax(fmt::format("nested deeper than {} levels", kMaxDepth));
  }

  void literal(std::string_view word) {
    if (static_cast<std::size_t>(end_ - p_) < word.size() || std::string_view(p_, word.size()) != word) {
      syntax(fmt::format("invalid literal (expected '{}')", word));
    }
    p_ += word.size();
  }

  // -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)? ; true when it has neither fraction nor exponent.
  bool scan_number() {
    if (p_ < end_ && *p_ == '-') ++p_;
    if (p_ == end_ || !is_digit(*p_)) syntax("expected a JSON value");
    if (*p_ == '0') {
      ++p_;
    } else {
      while (p_ < end_ && is_digit(*p_)) ++p_;
    }
    bool integral = true;
    if (p_ < end_ && *p_ == '.') {
      ++p_;
      integral = false;
      if (p_ == end_ || !is_digit(*p_)) syntax("invalid number: a digit must follow '.'");
      while (p_ < end_ && is_digit(*p_)) ++p_;
    }
    if (p_ < end_ && (*p_ == 'e' || *p_ == 'E')) {
      ++p_;
      integral = false;
      if (p_ < end_ && (*p_ == '+' || *p_ == '-')) ++p_;
      if (p_ == end_ || !is_digit(*p_)) syntax("invalid number: the exponent has no digits");
      while (p_ < end_ && is_digit(*p_)) ++p_;
    }
    return integral;
  }

  // Correctly rounded, as strtod; an overflow to infinity is an error (JSON has no infinities), an underflow
  // reads as strtod gives it (zero or subnormal).
  double to_double(const char* start) {
    double d = 0;
    auto [end, ec] = std::from_chars(start, p_, d);
    if (ec == std::errc() && end == p_) return d;
    d = std::strtod(std::string(start, p_).c_str(), nullptr);
    if (!std::isfinite(d)) {
      p_ = start;
      syntax("number out of range");
    }
    return d;
  }

  unsigned hex4() {
    if (end_ - p_ < 4) syntax("invalid \\u escape (four hex digits needed)");
    unsigned v = 0;
    for (int i = 0; i < 4; ++i) {
      char c = *p_++;
      v <<= 4;
      if (is_digit(c)) {
        v |= static_cast<unsigned>(c - '0');
      } else if (c >= 'a' && c <= 'f') {
        v |= static_cast<unsigned>(c - 'a' + 10);
      } else if (c >= 'A' && c <= 'F') {
        v |= static_cast<unsigned>(c - 'A' + 10);
      } else {
        --p_;
        syntax("invalid \\u escape (four hex digits needed)");
      }
    }
    return v;
  }

  static void append_utf8(std::string& out, unsigned cp) {
    if (cp < 0x80) {
      out += static_cast<char>(cp);
    } else if (cp < 0x800) {
      out += static_cast<char>(0xC0 | (cp >> 6));
      out += static_cast<char>(0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
      out += static_cast<char>(0xE0 | (cp >> 12));
      out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (cp & 0x3F));
    } else {
      out += static_cast<char>(0xF0 | (cp >> 18));
      out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
      out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (cp & 0x3F));
    }
  }

  void escape(std::string& out) {
    ++p_;  // the backslash
    if (p_ == end_) syntax("unterminated string");
    switch (*p_++) {
      case '"':
        out += '"';
        return;
      case '\\':
        out += '\\';
        return;
      case '/':
        out += '/';
        return;
      case 'b':
        out += '\b';
        return;
      case 'f':
        out += '\f';
        return;
      case 'n':
        out += '\n';
        return;
      case 'r':
        out += '\r';
        return;
      case 't':
        out += '\t';
        return;
      case 'u':
        break;
      default:
        --p_;
        syntax("invalid escape in a string");
    }
    unsigned cp = hex4();
    if (cp >= 0xD800 && cp <= 0xDBFF) {
      if (end_ - p_ < 2 || p_[0] != '\\' || p_[1] != 'u') syntax("unpaired UTF-16 surrogate in a \\u escape");
      p_ += 2;
      unsigned low = hex4();
      if (low < 0xDC00 || low > 0xDFFF) syntax("unpaired UTF-16 surrogate in a \\u escape");
      cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
    } else if (cp >= 0xDC00 && cp <= 0xDFFF) {
      syntax("unpaired UTF-16 surrogate in a \\u escape");
    }
    append_utf8(out, cp);
  }

  // One multi-byte UTF-8 sequence, validated as RFC 3629 (no overlong forms, no surrogates, ≤ U+10FFFF).
  void utf8(std::string& out) {
    auto byte = [&](std::ptrdiff_t i) { return static_cast<unsigned char>(p_[i]); };
    unsigned char c = byte(0);
    int n = 0;
    unsigned char lo = 0x80, hi = 0xBF;
    if (c >= 0xC2 && c <= 0xDF) {
      n = 1;
    } else if (c == 0xE0) {
      n = 2;
      lo = 0xA0;
    } else if ((c >= 0xE1 && c <= 0xEC) || c == 0xEE || c == 0xEF) {
      n = 2;
    } else if (c == 0xED) {
      n = 2;
      hi = 0x9F;
    } else if (c == 0xF0) {
      n = 3;
      lo = 0x90;
    } else if (c >= 0xF1 && c <= 0xF3) {
      n = 3;
    } else if (c == 0xF4) {
      n = 3;
      hi = 0x8F;
    } else {
      syntax("invalid UTF-8 in a string");
    }
    if (end_ - p_ <= n || byte(1) < lo || byte(1) > hi) syntax("invalid UTF-8 in a string");
    for (int i = 2; i <= n; ++i) {
      if (byte(i) < 0x80 || byte(i) > 0xBF) syntax("invalid UTF-8 in a string");
    }
    out.append(p_, p_ + n + 1);
    p_ += n + 1;
  }

  const char* begin_;
  const char* p_;
  const char* end_;
  int depth_ = 0;
};

// Decodes the fixed part of the model; `where` names the value in shape errors ("results[3]").
class ModelDecoder {
 public:
  explicit ModelDecoder(Reader& in) : in_(in) {}

  Result result(const std::string& where, bool keep_samples) {
    if (!in_.at('{')) shape(where, "an object");
    Result r;
    bool has_probe = false, has_status = false;
    in_.object([&](std::string& key) {
      if (key == "probe") {
        r.probe = string(where, key);
        has_probe = true;
      } else if (key == "status") {
        std::string s = string(where, key);
        try {
          r.status = status_from_string(s);
        } catch (const Error& e) {
          throw ReportShapeError(fmt::format("{}.status: {}", where, e.what()));
        }
        has_status = true;
      } else if (key == "reason") {
        r.reason = string(where, key);
      } else if (key == "params") {
        r.params = in_.value();
      } else if (key == "work") {
        r.work = in_.value();
      } else if (key == "telemetry") {
        r.telemetry = in_.value();
      } else if (key == "info") {
        r.info = in_.value();
      } else if (key == "warnings") {
        if (!in_.at('[')) shape(where + ".warnings", "an array of strings");
        r.warnings.clear();
        in_.array([&](std::size_t i) {
          r.warnings.push_back(string(where + ".warnings", fmt::format("[{}]", i)));
        });
      } else if (key == "samples" && keep_samples) {
        if (!in_.at('[')) shape(where + ".samples", "an array of numbers");
        r.samples.clear();
        in_.array([&](std::size_t i) {
          r.samples.push_back(number_or_null(where + ".samples", fmt::format("[{}]", i)));
        });
      } else if (key == "metrics") {
        if (!in_.at('[')) shape(where + ".metrics", "an array");
        r.metrics.clear();
        in_.array(
            [&](std::size_t i) { r.metrics.push_back(metric(fmt::format("{}.metrics[{}]", where, i))); });
      } else {
        in_.skip();
      }
    });
    if (!has_probe) shape(where + ".probe", "a string (it is missing)");
    if (!has_status) shape(where + ".status", "a string (it is missing)");
    return r;
  }

  [[noreturn]] static void shape(const std::string& where, std::string_view expected) {
    throw ReportShapeError(fmt::format("{}: expected {}", where.empty() ? "the value" : where, expected));
  }

  std::string string(const std::string& where, std::string_view key) {
    if (!in_.at('"')) shape(join(where, key), "a string");
    return in_.string();
  }

 private:
  static std::string join(const std::string& where, std::string_view key) {
    if (key.starts_with('[')) return where + std::string(key);
    return where.empty() ? std::string(key) : fmt::format("{}.{}", where, key);
  }

  double number(const std::string& where, std::string_view key) {
    if (!in_.at_number()) shape(join(where, key), "a number");
    return in_.number_value();
  }

  // JSON has no NaN: a non-finite metric or sample is written as null and reads back as NaN.
  double number_or_null(const std::string& where, std::string_view key) {
    if (in_.at('n')) {
      in_.skip();
      return std::nan("");
    }
    return number(where, key);
  }

  Metric metric(const std::string& where) {
    if (!in_.at('{')) shape(where, "an object");
    Metric m;
    bool has_name = false, has_value = false;
    in_.object([&](std::string& key) {
      if (key == "name") {
        m.name = string(where, key);
        has_name = true;
      } else if (key == "value") {
        m.value = number_or_null(where, key);
        has_value = true;
      } else if (key == "unit") {
        m.unit = string(where, key);
      } else if (key == "better") {
        m.better = value_of(kBetterNames, string(where, key)).value_or(Better::higher);
      } else if (key == "stats" && in_.at('{')) {
        m.stats = stats(where + ".stats");
      } else if (key == "ci" && in_.at('{')) {
        m.ci = ci(where + ".ci", m.ci_open);
      } else {
        in_.skip();
      }
    });
    if (!has_name) shape(where + ".name", "a string (it is missing)");
    if (!has_value) shape(where + ".value", "a number or null (it is missing)");
    return m;
  }

  // `open`: the interval's "open" (why a bound is missing; that bound, null, reads as ±infinity).
  ConfidenceInterval ci(const std::string& where, std::string& open) {
    ConfidenceInterval c;
    unsigned seen = 0;
    in_.object([&](std::string& key) {
      if (key == "lo" || key == "hi") {
        (key == "lo" ? c.lo : c.hi) = number_or_null(where, key);
        seen |= key == "lo" ? 1u : 2u;
      } else if (key == "open") {
        open = string(where, key);
      } else {
        in_.skip();
      }
    });
    if (seen != 3u) shape(where, "lo and hi");
    if (!open.empty()) {
      if (std::isnan(c.lo)) c.lo = -std::numeric_limits<double>::infinity();
      if (std::isnan(c.hi)) c.hi = std::numeric_limits<double>::infinity();
    }
    return c;
  }

  Stats stats(const std::string& where) {
    Stats s;
    unsigned seen = 0;
    const std::pair<std::string_view, double*> fields[] = {
        {"min", &s.min}, {"p10", &s.p10},   {"median", &s.median}, {"p90", &s.p90},
        {"max", &s.max}, {"mean", &s.mean}, {"cv", &s.cv},         {"mad", &s.mad}};
    in_.object([&](std::string& key) {
      if (key == "n") {
        if (!in_.at_number()) shape(where + ".n", "a number");
        s.n = in_.number().get<std::size_t>();
        seen |= 1u << 8;
        return;
      }
      for (unsigned i = 0; i < std::size(fields); ++i) {
        if (key == fields[i].first) {
          *fields[i].second = number(where, key);
          seen |= 1u << i;
          return;
        }
      }
      in_.skip();
    });
    // mad (bit 7) came with schema 1.0.0's stats but is optional for reports written before it.
    constexpr unsigned kRequired = 0x1FFu & ~(1u << 7);
    if ((seen & kRequired) != kRequired) shape(where, "min, p10, median, p90, max, mean, cv and n");
    return s;
  }

  Reader& in_;
};

int major_of(const std::string& version) {
  std::size_t dot = version.find('.');
  int major = -1;
  auto [end, ec] = std::from_chars(version.data(), version.data() + std::min(dot, version.size()), major);
  return ec == std::errc() && end != version.data() && major >= 0 ? major : -1;
}

}  // namespace

Report decode_report(std::string_view text, bool keep_samples) {
  Reader in(text);
  if (!in.at('{')) {
    in.skip();
    in.finish();
    throw UsageError("not an mlbench report (no schema_version/results)");
  }
  Report r;
  ModelDecoder model(in);
  bool has_version = false;
  std::string_view results;
  in.object([&](std::string& key) {
    if (key == "schema_version") {
      r.schema_version = model.string("", key);
      has_version = true;
    } else if (key == "results") {
      // Decoded after the schema version is known: a newer major schema must get the version message, not a
      // complaint about a result shape it changed.
      if (!in.at('[')) ModelDecoder::shape("results", "an array");
      std::size_t from = in.offset();
      in.skip();
      results = text.substr(from, in.offset() - from);
    } else if (key == "tool") {
      r.tool = in.value();
    } else if (key == "host") {
      r.host = in.value();
    } else if (key == "run") {
      r.run = in.value();
    } else if (key == "cluster") {
      r.cluster = in.value();
    } else {
      in.skip();
    }
  });
  in.finish();
  if (!has_version || results.data() == nullptr) {
    throw UsageError("not an mlbench report (no schema_version/results)");
  }
  int major = major_of(r.schema_version);
  if (major < 0) throw UsageError(fmt::format("malformed schema_version '{}'", r.schema_version));
  if (major > kSchemaMajor) {
    throw UsageError(
        fmt::format("report schema {} is newer than this mlbench understands ({}); upgrade mlbench",
                    r.schema_version, kSchemaVersion));
  }
  Reader rin(results);
  ModelDecoder rmodel(rin);
  rin.array([&](std::size_t i) {
    r.results.push_back(rmodel.result(fmt::format("results[{}]", i), keep_samples));
  });
  return r;
}

Result decode_result(std::string_view text) {
  Reader in(text);
  ModelDecoder model(in);
  Result r = model.result("result", true);
  in.finish();
  return r;
}

}  // namespace mlbench::detail
