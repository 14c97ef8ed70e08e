// serve.llm's HTTP/1.1 client: one thread, one epoll set, non-blocking sockets (no thread per stream), TLS
// through OpenSSL where the URL is https (certificates verified unless told not to), keep-alive connections
// reused across requests. It sends the requests of one load point at their arrival times with at most
// `max_in_flight` open at once and times each streamed response as vLLM's benchmark does: the clock starts
// when the request is dispatched (a new connection's connect and handshake included), the first token chunk
// gives TTFT, each later token chunk an inter-chunk gap, the last token chunk the end (E2E). Every response
// is parsed through serve/wire.hpp's bounded parsers; a request fails with the kind of its first fault and
// never blocks the others. Every wait is at most a few milliseconds long and checks the stop flag.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "serve/wire.hpp"

namespace mlbench::serve {

struct Endpoint {
  Url url;
  std::string api_key;  // sent as "Authorization: Bearer"; never logged or reported
  bool verify = true;   // TLS: verify the certificate chain and the host name
  std::string ca_file;  // TLS: trust these certificates (PEM) instead of the system's
};

struct Job {
  std::string method = "POST";
  std::string path;  // after the URL's base: "/v1/completions"
  std::string body;  // JSON
  bool stream = true;
};

// What one request measured; times in seconds since the load point started.
struct Record {
  double scheduled = 0;                                     // when it was due
  double start = -1;                                        // when it was dispatched (-1: never sent)
  double first = -1;                                        // the first token chunk (TTFT = first - start)
  double last = -1;                                         // the last token chunk (E2E = last - start)
  double end = -1;                                          // the response's end (or the failure)
  std::vector<double> itl;                                  // the gaps between consecutive token chunks
  std::int64_t chunks = 0;                                  // token chunks
  std::int64_t prompt_tokens = -1, completion_tokens = -1;  // from usage; -1 when the server gave none
  int status = 0;
  bool reused = false;  // sent on a kept-alive connection
  ErrorKind error = ErrorKind::none;
  std::string detail;  // the error, one line
  std::string body;    // a non-streamed job's body (bounded by WireLimits::body_bytes)
  std::string text;    // a streamed job's text, when asked to keep it
  bool ok() const { return error == ErrorKind::none && start >= 0; }
};

struct LoadRun {
  std::vector<Job> jobs;
  std::vector<double> arrivals;  // seconds after the start, ascending; one per job
  unsigned max_in_flight = 1;
  double timeout_s = 60;  // per request, from its dispatch
  double stall_s = 30;    // no byte this long once the response began
  bool keep_text = false;
  // Called about twice a second with the records so far (the live status line).
  std::function<void(const std::vector<Record>&, double elapsed)> progress;
};

struct LoadResult {
  std::vector<Record> records;  // one per job, in job order
  double seconds = 0;           // from the start to the last response's end
  bool interrupted = false;     // the stop flag ended it; unsent jobs have start -1
  unsigned connections = 0;     // opened
  double max_lag_s = 0;         // the latest any request was dispatched after its arrival time
};

class Client {
 public:
  // Resolves the host (UsageError when it does not resolve) and sets TLS up.
  Client(Endpoint endpoint, WireLimits limits);
  ~Client();
  Client(const Client&) = delete;
  Client& operator=(const Client&) = delete;

  LoadResult run(const LoadRun& load, const std::atomic<bool>& stop);
  // One job alone, for the set-up calls (/v1/models, /tokenize, a calibration request).
  Record call(const Job& job, double timeout_s, const std::atomic<bool>& stop);

  const Endpoint& endpoint() const { return endpoint_; }
  const WireLimits& limits() const { return limits_; }

 private:
  struct Impl;
  Endpoint endpoint_;
  WireLimits limits_;
  std::unique_ptr<Impl> impl_;
};

}  // namespace mlbench::serve
