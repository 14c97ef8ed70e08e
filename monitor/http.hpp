// `mlbench monitor --listen`: the HTTP pull endpoint Prometheus scrapes.
//
// Why not a library: Debian 12 has no prometheus-cpp package (`apt-cache policy libprometheus-cpp-dev` finds
// none), and a scrape endpoint needs very little HTTP: one listening IPv4 socket, `GET /metrics` (a query
// string ignored) answered 200 with the exposition as `text/plain; version=0.0.4; charset=utf-8`, any other
// path 404, any other method 405, a malformed or oversized request 400; every response `Connection: close`.
//
// The method, so that no client holds another or the sampling: one thread runs a poll() loop over
// non-blocking sockets, each connection a small state machine (read the request head, at most
// kMaxRequestHead bytes; then write the response as far as the client's window allows). Every connection has
// one deadline, kRequestDeadline from its accept for the whole exchange, so a client that dribbles its
// request (a slowloris), sends nothing or never reads its response is closed then, whatever it does
// meanwhile. At most kMaxConnections are open; a new one past that closes the least progressed (one that has
// sent nothing before one that sent part of its request, before one being answered; the oldest of those), so
// a flood of idle connections can neither lock a scrape out nor cut one that is being answered. The sampling
// runs on another thread and publishes each exposition to an Exposition; a request answers with the one
// published when its head was complete.
#pragma once

#include <atomic>
#include <chrono>
#include <cstddef>
#include <memory>
#include <mutex>
#include <string>

namespace mlbench::monitor {

inline constexpr std::size_t kMaxRequestHead = 8192;
// A scrape on a LAN takes milliseconds; Prometheus's own scrape timeout defaults to 10 s, so a client that
// has not finished in this time is stalled or hostile, not slow.
inline constexpr std::chrono::milliseconds kRequestDeadline{3000};
inline constexpr std::size_t kMaxConnections = 64;

// "127.0.0.1:9401" → {"127.0.0.1", 9401}; throws UsageError naming --listen when it is not an IPv4 address
// and port (the host must be named: ":9401" binds nothing implicitly).
struct ListenAddress {
  std::string host;
  int port = 0;
};
ListenAddress parse_listen(const std::string& text);

// The last exposition the sampling published; readers share the text, so publishing never waits on a client
// that is still being sent an older one.
class Exposition {
 public:
  void publish(std::string text);
  std::shared_ptr<const std::string> latest() const;

 private:
  mutable std::mutex mutex_;
  std::shared_ptr<const std::string> text_ = std::make_shared<const std::string>();
};

// One response: its status line and headers (with the whole body of an error) and, for GET /metrics, the
// exposition it carries.
struct Response {
  std::string head;
  std::shared_ptr<const std::string> body;  // null for HEAD and errors
  std::string text() const { return body ? head + *body : head; }
};
// The response to one request head (tested without sockets).
Response http_response(const std::string& request_head, std::shared_ptr<const std::string> exposition);

class MetricsServer {
 public:
  // Binds and listens; throws Error when the address cannot be bound (in use, not local). Port 0 picks one.
  explicit MetricsServer(const ListenAddress& address);
  ~MetricsServer();
  MetricsServer(const MetricsServer&) = delete;
  MetricsServer& operator=(const MetricsServer&) = delete;

  int port() const { return port_; }
  // Serves `exposition` until `stop` is set: a signal interrupts the wait at once, and the flag is checked at
  // least every 250 ms besides. Open connections are closed on return.
  void run(const Exposition& exposition, const std::atomic<bool>& stop);

 private:
  int fd_ = -1;
  int port_ = 0;
};

}  // namespace mlbench::monitor
