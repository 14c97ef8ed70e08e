// `mlbench monitor --listen`: the HTTP pull endpoint Prometheus scrapes.
//
// Why not a library: Debian 12 has no prometheus-cpp package (`apt-cache policy libprometheus-cpp-dev` finds
// none), and a scrape endpoint needs very little HTTP: one listening IPv4 socket served by the monitor's one
// thread between samples, `GET /metrics` (a query string ignored) answered 200 with the exposition as
// `text/plain; version=0.0.4; charset=utf-8`, any other path 404, any other method 405, a malformed or
// oversized request 400; every response `Connection: close`. A client gets 2 s to send its request head, so a
// stalled client delays the next scrape at most that long and never stops the exporter.
#pragma once

#include <string>

namespace mlbench::monitor {

// "127.0.0.1:9401" → {"127.0.0.1", 9401}; throws UsageError naming --listen when it is not an IPv4 address
// and port (the host must be named: ":9401" binds nothing implicitly).
struct ListenAddress {
  std::string host;
  int port = 0;
};
ListenAddress parse_listen(const std::string& text);

class MetricsServer {
 public:
  // Binds and listens; throws Error when the address cannot be bound (in use, not local). Port 0 picks one.
  explicit MetricsServer(const ListenAddress& address);
  ~MetricsServer();
  MetricsServer(const MetricsServer&) = delete;
  MetricsServer& operator=(const MetricsServer&) = delete;

  int port() const { return port_; }
  // Answers requests with `body` for at most `timeout_ms`; returns early when a signal interrupts the wait.
  void serve(int timeout_ms, const std::string& body);

 private:
  void answer(int client, const std::string& body);
  int fd_ = -1;
  int port_ = 0;
};

// The response to one request head (tested without sockets).
std::string http_response(const std::string& request_head, const std::string& body);

}  // namespace mlbench::monitor
