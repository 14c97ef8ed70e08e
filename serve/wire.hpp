// What serve.llm reads from a server, parsed incrementally and bounded: the URL it is given, an HTTP/1.1
// response (status line, headers, a chunked, Content-Length or read-until-close body) and the Server-Sent
// Events stream inside it. The server is a peer, not a trusted party: every size is bounded (a header block,
// a line, a chunk, an event, the whole body) and every violation is an error of its kind, never a crash, an
// unbounded buffer or a hang. The parsers take bytes in any split (one byte at a time works), so that they
// see what a socket delivers.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/names.hpp"

namespace mlbench::serve {

// The largest of each thing a server may send; past it the response is an error of kind too_large.
struct WireLimits {
  std::size_t header_bytes = 16 * 1024;  // the status line and every header, together
  std::size_t line_bytes = 64 * 1024;    // one SSE line; also one chunk-size line of a chunked body
  std::size_t chunk_bytes = 8u << 20;    // one chunk of a chunked body
  std::size_t event_bytes = 256 * 1024;  // one SSE event's data
  std::size_t body_bytes = 64u << 20;    // the whole body of one response
  std::size_t error_body_bytes = 2048;   // of a non-2xx response, what is kept for the message
  int json_depth = 32;                   // nesting of one JSON message
};

// An http:// or https:// URL: scheme, host (a name, IPv4 or [IPv6]), port (80/443 when absent), and the
// path prefix before /v1 ("" or "/prefix"). No user:password@ (a key goes in the environment).
struct Url {
  bool tls = false;
  std::string host;
  std::uint16_t port = 0;
  std::string base;  // without a trailing slash
  // scheme://host:port/base, as the report records it.
  std::string text() const;
};
// Throws UsageError naming `flag` and what is wrong.
Url parse_url(std::string_view text, std::string_view flag = "--url");

// Why a response failed, as the report counts them (info.errors).
enum class ErrorKind {
  none,
  http_status,     // a status other than 2xx
  connect,         // the connection could not be made (refused, unreachable, DNS)
  tls,             // the TLS handshake or a certificate failed
  timeout,         // the request's deadline passed
  stalled,         // no byte for the stall timeout in the middle of a response
  closed,          // the server closed the connection before the response ended
  malformed_http,  // a status line, header or chunk that is not HTTP/1.1
  malformed_sse,   // an SSE event that is not a JSON object or [DONE]
  too_large,       // past a WireLimits bound
  no_tokens,       // the stream ended without a token
  server_error,    // an error object inside the stream
  interrupted,     // Ctrl-C while it ran
};
inline constexpr EnumName<ErrorKind> kErrorKindNames[] = {
    {ErrorKind::none, "none"},
    {ErrorKind::http_status, "http_status"},
    {ErrorKind::connect, "connect"},
    {ErrorKind::tls, "tls"},
    {ErrorKind::timeout, "timeout"},
    {ErrorKind::stalled, "stalled"},
    {ErrorKind::closed, "closed"},
    {ErrorKind::malformed_http, "malformed_http"},
    {ErrorKind::malformed_sse, "malformed_sse"},
    {ErrorKind::too_large, "too_large"},
    {ErrorKind::no_tokens, "no_tokens"},
    {ErrorKind::server_error, "server_error"},
    {ErrorKind::interrupted, "interrupted"},
};
static_assert(names_cover(kErrorKindNames));
std::string_view to_string(ErrorKind k);

// A failure with its kind and one line of detail.
struct WireError {
  ErrorKind kind = ErrorKind::none;
  std::string detail;
  explicit operator bool() const { return kind != ErrorKind::none; }
};

// An HTTP/1.1 response, fed as bytes arrive. The body's bytes (de-chunked) go to `body` of feed()'s caller;
// the parser keeps no body itself.
class HttpResponseParser {
 public:
  explicit HttpResponseParser(const WireLimits& limits) : limits_(&limits) {}
  // Consumes all of `data` (or up to the end of the response: the rest, for a response that ended, is
  // returned in `used` short of data.size() and is the next response's, which a server must not send
  // unasked). Appends body bytes to `body`. Returns the error, if any; after an error nothing more is taken.
  WireError feed(std::string_view data, std::string& body, std::size_t& used);
  // The peer closed the connection: completes a read-until-close body, or is an error (closed).
  WireError eof();

  bool headers_done() const { return state_ > State::headers; }
  bool done() const { return state_ == State::done; }
  int status() const { return status_; }
  // "Connection: close" or HTTP/1.0 or a body read until close: the connection is not reused.
  bool keep_alive() const { return keep_alive_; }
  const std::string& content_type() const { return content_type_; }
  std::uint64_t body_bytes() const { return body_total_; }

 private:
  enum class State {
    headers,
    chunk_size,
    chunk_data,
    chunk_crlf,
    trailers,
    length,
    until_close,
    done,
    error
  };
  WireError fail(ErrorKind k, std::string detail);
  WireError parse_headers();
  WireError add_body(std::string_view piece, std::string& body);

  const WireLimits* limits_;
  State state_ = State::headers;
  std::string line_;  // the header block, a chunk-size line or a trailer line, being gathered
  int status_ = 0;
  bool keep_alive_ = true, chunked_ = false;
  std::optional<std::uint64_t> length_;
  std::uint64_t remaining_ = 0, body_total_ = 0;
  std::string content_type_;
};

// A Server-Sent Events stream (the WHATWG rules: lines end in \n, \r\n or \r; "data:" lines of one event are
// joined with \n; a blank line dispatches the event; comments and other fields are ignored; one space after
// the colon is dropped).
class SseParser {
 public:
  explicit SseParser(const WireLimits& limits) : limits_(&limits) {}
  // Appends every event that completes within `data` to `events` (their data).
  WireError feed(std::string_view data, std::vector<std::string>& events);
  // Bytes of an event not yet dispatched (a stream that ends here was cut).
  bool pending() const { return !line_.empty() || has_data_; }

 private:
  WireError line(std::string_view l, std::vector<std::string>& events);
  const WireLimits* limits_;
  std::string line_, data_;
  bool has_data_ = false, after_cr_ = false, failed_ = false;
};

// One event's data, as an OpenAI-compatible stream means it.
struct StreamEvent {
  bool done = false;        // "[DONE]"
  std::string text;         // the choice's text (completions) or delta.content (chat); may be empty
  bool has_choice = false;  // a choices[0] was there (vLLM's test for a token chunk)
  std::optional<std::int64_t> prompt_tokens, completion_tokens;  // from "usage"
  std::string server_error;                                      // an "error" object's message
};
// Parses one event's data: "[DONE]", or a JSON object within the limits (depth, size). A JSON error or a
// value of the wrong type is malformed_sse; an "error" member is returned in server_error.
WireError parse_stream_event(std::string_view data, const WireLimits& limits, StreamEvent& out);

}  // namespace mlbench::serve
