#include "serve/wire.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "base/error.hpp"

namespace mlbench::serve {
namespace {

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.remove_suffix(1);
  return s;
}

// A peer's bytes in a message: printable ASCII, the rest as \xNN, at most 120 characters.
std::string shown(std::string_view s) {
  std::string out;
  for (char c : s.substr(0, 120)) {
    auto u = static_cast<unsigned char>(c);
    if (u >= 0x20 && u < 0x7f)
      out += c;
    else
      out += fmt::format("\\x{:02x}", u);
  }
  if (s.size() > 120) out += "...";
  return out;
}

bool parse_u64(std::string_view s, std::uint64_t& v, int base = 10) {
  if (s.empty()) return false;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v, base);
  return ec == std::errc() && p == s.data() + s.size();
}

// The deepest nesting of brackets outside strings: refused before parsing so that no parser recursion or
// destructor sees a hostile depth.
int json_depth(std::string_view s) {
  int depth = 0, deepest = 0;
  bool in_string = false, escaped = false;
  for (char c : s) {
    if (in_string) {
      if (escaped)
        escaped = false;
      else if (c == '\\')
        escaped = true;
      else if (c == '"')
        in_string = false;
    } else if (c == '"') {
      in_string = true;
    } else if (c == '{' || c == '[') {
      deepest = std::max(deepest, ++depth);
    } else if (c == '}' || c == ']') {
      --depth;
    }
  }
  return deepest;
}

}  // namespace

std::string_view to_string(ErrorKind k) { return name_of(kErrorKindNames, k); }

std::string Url::text() const {
  const bool v6 = host.find(':') != std::string::npos;
  return fmt::format("{}://{}{}{}:{}{}", tls ? "https" : "http", v6 ? "[" : "", host, v6 ? "]" : "", port,
                     base);
}

Url parse_url(std::string_view text, std::string_view flag) {
  auto bad = [&](std::string_view why) {
    return UsageError(
        fmt::format("{} '{}': {}; give http://HOST:PORT or https://HOST:PORT", flag, shown(text), why));
  };
  Url u;
  std::string_view rest = text;
  if (rest.starts_with("http://")) {
    rest.remove_prefix(7);
  } else if (rest.starts_with("https://")) {
    u.tls = true;
    rest.remove_prefix(8);
  } else {
    throw bad("the scheme must be http or https");
  }
  const auto slash = rest.find('/');
  std::string_view authority = rest.substr(0, slash);
  std::string_view path = slash == std::string_view::npos ? std::string_view{} : rest.substr(slash);
  if (authority.find('@') != std::string_view::npos)
    throw bad("no user or password in the URL (the API key is read from the environment: --api-key-env)");
  if (path.find_first_of("?# ") != std::string_view::npos)
    throw bad("no query, fragment or space in the path");
  std::string_view port_text;
  if (authority.starts_with("[")) {
    const auto close = authority.find(']');
    if (close == std::string_view::npos) throw bad("an IPv6 address needs its closing ]");
    u.host = std::string(authority.substr(1, close - 1));
    std::string_view after = authority.substr(close + 1);
    if (!after.empty()) {
      if (after.front() != ':') throw bad("only :PORT may follow an IPv6 address");
      port_text = after.substr(1);
      if (port_text.empty()) throw bad("the port is empty");
    }
  } else {
    const auto colon = authority.rfind(':');
    u.host = std::string(authority.substr(0, colon));
    if (colon != std::string_view::npos) {
      port_text = authority.substr(colon + 1);
      if (port_text.empty()) throw bad("the port is empty");
    }
  }
  if (u.host.empty()) throw bad("the host is empty");
  for (char c : u.host) {
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '-' || c == ':' || c == '_'))
      throw bad("the host has a character no host name has");
  }
  if (!port_text.empty()) {
    std::uint64_t p = 0;
    if (!parse_u64(port_text, p) || p == 0 || p > 65535) throw bad("the port must be 1 to 65535");
    u.port = static_cast<std::uint16_t>(p);
  } else {
    u.port = u.tls ? 443 : 80;
  }
  while (path.ends_with('/')) path.remove_suffix(1);
  // The OpenAI base URL often ends in /v1; the paths serve.llm asks for add it.
  if (path.ends_with("/v1")) path.remove_suffix(3);
  u.base = std::string(path);
  return u;
}

WireError HttpResponseParser::fail(ErrorKind k, std::string detail) {
  state_ = State::error;
  keep_alive_ = false;
  return {k, std::move(detail)};
}

WireError HttpResponseParser::add_body(std::string_view piece, std::string& body) {
  body_total_ += piece.size();
  if (body_total_ > limits_->body_bytes)
    return fail(ErrorKind::too_large, fmt::format("the response body passed {} bytes", limits_->body_bytes));
  body.append(piece);
  return {};
}

WireError HttpResponseParser::parse_headers() {
  std::string_view block = line_;
  std::size_t eol = block.find('\n');
  std::string_view status_line = trim(block.substr(0, eol));
  // HTTP/1.x SP 3DIGIT [SP reason]
  if (!status_line.starts_with("HTTP/1.") || status_line.size() < 12 || status_line[8] != ' ')
    return fail(ErrorKind::malformed_http,
                fmt::format("status line '{}' is not HTTP/1.x", shown(status_line)));
  std::uint64_t code = 0;
  if (!parse_u64(status_line.substr(9, 3), code) || code < 100 || code > 599 ||
      (status_line.size() > 12 && status_line[12] != ' '))
    return fail(ErrorKind::malformed_http,
                fmt::format("status line '{}' has no status code", shown(status_line)));
  status_ = static_cast<int>(code);
  keep_alive_ = status_line[7] == '1';
  chunked_ = false;
  length_.reset();
  content_type_.clear();
  while (eol != std::string_view::npos) {
    block.remove_prefix(eol + 1);
    eol = block.find('\n');
    std::string_view h = trim(block.substr(0, eol));
    if (h.empty()) break;
    const auto colon = h.find(':');
    if (colon == std::string_view::npos || colon == 0)
      return fail(ErrorKind::malformed_http, fmt::format("header '{}' has no name: value", shown(h)));
    const std::string name = lower(h.substr(0, colon));
    const std::string_view value = trim(h.substr(colon + 1));
    if (name == "transfer-encoding") {
      const std::string v = lower(value);
      if (v != "chunked" && v != "identity")
        return fail(ErrorKind::malformed_http,
                    fmt::format("Transfer-Encoding '{}' is not chunked", shown(value)));
      chunked_ = v == "chunked";
    } else if (name == "content-length") {
      std::uint64_t n = 0;
      if (!parse_u64(value, n) || (length_ && *length_ != n))
        return fail(ErrorKind::malformed_http,
                    fmt::format("Content-Length '{}' is not one number", shown(value)));
      length_ = n;
    } else if (name == "connection") {
      const std::string v = lower(value);
      if (v.find("close") != std::string::npos) keep_alive_ = false;
      if (v.find("keep-alive") != std::string::npos) keep_alive_ = true;
    } else if (name == "content-type") {
      content_type_ = lower(value);
    }
  }
  line_.clear();
  if (status_ < 200) {  // an interim response (100 Continue): the real one follows
    state_ = State::headers;
    return {};
  }
  if (status_ == 204 || status_ == 304) {
    state_ = State::done;
  } else if (chunked_) {
    state_ = State::chunk_size;
  } else if (length_) {
    if (*length_ > limits_->body_bytes)
      return fail(ErrorKind::too_large,
                  fmt::format("Content-Length {} passes {} bytes", *length_, limits_->body_bytes));
    remaining_ = *length_;
    state_ = remaining_ == 0 ? State::done : State::length;
  } else {
    keep_alive_ = false;
    state_ = State::until_close;
  }
  return {};
}

WireError HttpResponseParser::feed(std::string_view data, std::string& body, std::size_t& used) {
  const std::size_t size = data.size();
  auto consumed = [&] { return size - data.size(); };
  while (!data.empty()) {
    switch (state_) {
      case State::headers: {
        const std::size_t from = line_.size() >= 3 ? line_.size() - 3 : 0;
        const std::size_t room = limits_->header_bytes - line_.size();
        std::string_view take = data.substr(0, room);
        line_.append(take);
        std::size_t end = line_.find("\r\n\r\n", from);
        std::size_t end_len = 4;
        if (std::size_t lf = line_.find("\n\n", from); lf != std::string::npos && lf < end) {
          end = lf;
          end_len = 2;
        }
        if (end == std::string::npos) {
          data.remove_prefix(take.size());
          if (line_.size() >= limits_->header_bytes) {
            used = consumed();
            return fail(ErrorKind::too_large,
                        fmt::format("the response headers passed {} bytes", limits_->header_bytes));
          }
          break;
        }
        const std::size_t keep = end + end_len;
        data.remove_prefix(take.size() - (line_.size() - keep));
        line_.resize(keep);
        if (auto e = parse_headers()) {
          used = consumed();
          return e;
        }
        break;
      }
      case State::chunk_size:
      case State::trailers: {
        const auto nl = data.find('\n');
        line_.append(data.substr(0, nl == std::string_view::npos ? data.size() : nl));
        if (line_.size() > limits_->line_bytes) {
          used = consumed();
          return fail(ErrorKind::too_large, "a chunk-size or trailer line passed the line limit");
        }
        if (nl == std::string_view::npos) {
          data = {};
          break;
        }
        data.remove_prefix(nl + 1);
        std::string_view l = trim(line_);
        if (state_ == State::trailers) {
          if (l.empty()) state_ = State::done;
          line_.clear();
          break;
        }
        l = trim(l.substr(0, l.find(';')));
        std::uint64_t n = 0;
        if (!parse_u64(l, n, 16)) {
          used = consumed();
          return fail(ErrorKind::malformed_http, fmt::format("chunk size '{}' is not hexadecimal", shown(l)));
        }
        line_.clear();
        if (n > limits_->chunk_bytes) {
          used = consumed();
          return fail(ErrorKind::too_large,
                      fmt::format("a chunk of {} bytes passes {}", n, limits_->chunk_bytes));
        }
        remaining_ = n;
        state_ = n == 0 ? State::trailers : State::chunk_data;
        break;
      }
      case State::chunk_data:
      case State::length: {
        const std::size_t n = static_cast<std::size_t>(std::min<std::uint64_t>(remaining_, data.size()));
        if (auto e = add_body(data.substr(0, n), body)) {
          used = consumed();
          return e;
        }
        data.remove_prefix(n);
        remaining_ -= n;
        if (remaining_ == 0) state_ = state_ == State::length ? State::done : State::chunk_crlf;
        break;
      }
      case State::chunk_crlf: {
        // The CRLF after a chunk's data (a bare LF is taken too).
        if (data.front() == '\r') {
          if (!line_.empty()) {
            used = consumed();
            return fail(ErrorKind::malformed_http, "a chunk's data is not followed by CRLF");
          }
          line_.assign(1, '\r');
          data.remove_prefix(1);
        } else if (data.front() == '\n') {
          line_.clear();
          data.remove_prefix(1);
          state_ = State::chunk_size;
        } else {
          used = consumed();
          return fail(ErrorKind::malformed_http, "a chunk's data is longer than its size");
        }
        break;
      }
      case State::until_close: {
        if (auto e = add_body(data, body)) {
          used = consumed();
          return e;
        }
        data = {};
        break;
      }
      case State::done:
        used = consumed();
        return {};
      case State::error:
        used = consumed();
        return {ErrorKind::malformed_http, "the response had already failed"};
    }
  }
  used = consumed();
  return {};
}

WireError HttpResponseParser::eof() {
  if (state_ == State::until_close) {
    state_ = State::done;
    return {};
  }
  if (state_ == State::done) return {};
  if (state_ == State::error) return {ErrorKind::closed, "closed after an error"};
  return fail(ErrorKind::closed, state_ == State::headers
                                     ? "the server closed the connection before a response"
                                     : "the server closed the connection in the middle of the response");
}

WireError SseParser::line(std::string_view l, std::vector<std::string>& events) {
  if (l.empty()) {
    if (has_data_) events.push_back(std::move(data_));
    data_.clear();
    has_data_ = false;
    return {};
  }
  if (l.front() == ':') return {};  // a comment (keep-alive pings)
  const auto colon = l.find(':');
  std::string_view field = l.substr(0, colon);
  std::string_view value = colon == std::string_view::npos ? std::string_view{} : l.substr(colon + 1);
  if (value.starts_with(' ')) value.remove_prefix(1);
  if (field != "data") return {};  // event, id, retry: nothing serve.llm uses
  if (data_.size() + value.size() + 1 > limits_->event_bytes) {
    failed_ = true;
    return {ErrorKind::too_large, fmt::format("an SSE event passed {} bytes", limits_->event_bytes)};
  }
  if (has_data_) data_ += '\n';
  data_.append(value);
  has_data_ = true;
  return {};
}

WireError SseParser::feed(std::string_view data, std::vector<std::string>& events) {
  if (failed_) return {ErrorKind::malformed_sse, "the event stream had already failed"};
  while (!data.empty()) {
    if (after_cr_) {
      after_cr_ = false;
      if (data.front() == '\n') {
        data.remove_prefix(1);
        continue;
      }
    }
    const auto end = data.find_first_of("\r\n");
    if (end == std::string_view::npos) {
      if (line_.size() + data.size() > limits_->line_bytes) {
        failed_ = true;
        return {ErrorKind::too_large, fmt::format("an SSE line passed {} bytes", limits_->line_bytes)};
      }
      line_.append(data);
      return {};
    }
    if (line_.size() + end > limits_->line_bytes) {
      failed_ = true;
      return {ErrorKind::too_large, fmt::format("an SSE line passed {} bytes", limits_->line_bytes)};
    }
    after_cr_ = data[end] == '\r';
    WireError e;
    if (line_.empty()) {
      e = line(data.substr(0, end), events);
    } else {
      line_.append(data.substr(0, end));
      e = line(line_, events);
      line_.clear();
    }
    if (e) return e;
    data.remove_prefix(end + 1);
  }
  return {};
}

WireError parse_stream_event(std::string_view data, const WireLimits& limits, StreamEvent& out) {
  out = StreamEvent{};
  std::string_view t = trim(data);
  if (t == "[DONE]") {
    out.done = true;
    return {};
  }
  if (data.size() > limits.event_bytes)
    return {ErrorKind::too_large, fmt::format("an SSE event passed {} bytes", limits.event_bytes)};
  if (json_depth(t) > limits.json_depth)
    return {ErrorKind::malformed_sse, fmt::format("an event nests deeper than {} levels", limits.json_depth)};
  nlohmann::json j = nlohmann::json::parse(t, nullptr, false);
  if (j.is_discarded() || !j.is_object())
    return {ErrorKind::malformed_sse, fmt::format("event '{}' is not a JSON object or [DONE]", shown(t))};
  auto wrong = [&](std::string_view what) {
    return WireError{ErrorKind::malformed_sse, fmt::format("event '{}': {}", shown(t), what)};
  };
  if (auto e = j.find("error"); e != j.end() && !e->is_null()) {
    if (e->is_object() && e->contains("message") && (*e)["message"].is_string())
      out.server_error = (*e)["message"].get<std::string>();
    else if (e->is_string())
      out.server_error = e->get<std::string>();
    else
      out.server_error = shown(e->dump());
    out.server_error = shown(out.server_error);
    return {};
  }
  if (auto c = j.find("choices"); c != j.end() && !c->is_null()) {
    if (!c->is_array()) return wrong("choices is not a list");
    if (!c->empty()) {
      const auto& first = (*c)[0];
      if (!first.is_object()) return wrong("choices[0] is not an object");
      out.has_choice = true;
      const nlohmann::json* text = nullptr;
      if (auto d = first.find("delta"); d != first.end() && !d->is_null()) {
        if (!d->is_object()) return wrong("delta is not an object");
        if (auto ct = d->find("content"); ct != d->end()) text = &*ct;
        // A reasoning model streams its thinking first; those are output tokens too.
        if ((!text || text->is_null()) && d->contains("reasoning_content")) text = &(*d)["reasoning_content"];
      } else if (auto tx = first.find("text"); tx != first.end()) {
        text = &*tx;
      }
      if (text && !text->is_null()) {
        if (!text->is_string()) return wrong("the text is not a string");
        out.text = text->get<std::string>();
      }
    }
  }
  if (auto u = j.find("usage"); u != j.end() && !u->is_null()) {
    if (!u->is_object()) return wrong("usage is not an object");
    auto count = [&](const char* key, std::optional<std::int64_t>& v) -> bool {
      auto it = u->find(key);
      if (it == u->end() || it->is_null()) return true;
      if (!it->is_number_integer() || it->get<std::int64_t>() < 0) return false;
      v = it->get<std::int64_t>();
      return true;
    };
    if (!count("prompt_tokens", out.prompt_tokens) || !count("completion_tokens", out.completion_tokens))
      return wrong("a usage count is not a whole number >= 0");
  }
  return {};
}

}  // namespace mlbench::serve
