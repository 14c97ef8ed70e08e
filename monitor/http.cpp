#include "monitor/http.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>

#include "base/error.hpp"

namespace mlbench::monitor {
namespace {

constexpr std::size_t kMaxHead = 8192;

std::string reply(int code, const char* reason, const char* type, const std::string& body) {
  return fmt::format(
      "HTTP/1.1 {} {}\r\nContent-Type: {}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{}", code, reason,
      type, body.size(), body);
}

}  // namespace

ListenAddress parse_listen(const std::string& text) {
  auto colon = text.rfind(':');
  ListenAddress a;
  in_addr probe{};
  if (colon == std::string::npos || colon == 0) {
    throw UsageError(fmt::format("--listen {}: give an IPv4 address and port, e.g. 127.0.0.1:9401", text));
  }
  a.host = text.substr(0, colon);
  std::string port = text.substr(colon + 1);
  if (inet_pton(AF_INET, a.host.c_str(), &probe) != 1) {
    throw UsageError(
        fmt::format("--listen {}: '{}' is not an IPv4 address (e.g. 127.0.0.1:9401)", text, a.host));
  }
  if (port.empty() || port.size() > 5 || port.find_first_not_of("0123456789") != std::string::npos ||
      std::stoi(port) > 65535) {
    throw UsageError(fmt::format("--listen {}: the port must be 0-65535 (e.g. 127.0.0.1:9401)", text));
  }
  a.port = std::stoi(port);
  return a;
}

std::string http_response(const std::string& request_head, const std::string& body) {
  auto eol = request_head.find("\r\n");
  std::string line = request_head.substr(0, eol);
  auto sp1 = line.find(' ');
  auto sp2 = sp1 == std::string::npos ? sp1 : line.find(' ', sp1 + 1);
  if (sp2 == std::string::npos || !line.substr(sp2 + 1).starts_with("HTTP/1.")) {
    return reply(400, "Bad Request", "text/plain; charset=utf-8", "bad request\n");
  }
  std::string method = line.substr(0, sp1);
  std::string path = line.substr(sp1 + 1, sp2 - sp1 - 1);
  path = path.substr(0, path.find('?'));
  if (path != "/metrics")
    return reply(404, "Not Found", "text/plain; charset=utf-8", "only /metrics is served\n");
  if (method != "GET" && method != "HEAD") {
    return reply(405, "Method Not Allowed", "text/plain; charset=utf-8", "GET /metrics\n");
  }
  std::string r = reply(200, "OK", "text/plain; version=0.0.4; charset=utf-8", body);
  if (method == "HEAD") r.resize(r.find("\r\n\r\n") + 4);
  return r;
}

MetricsServer::MetricsServer(const ListenAddress& address) {
  fd_ = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd_ < 0) throw Error(fmt::format("monitor: socket: {}", std::strerror(errno)));
  int one = 1;
  setsockopt(fd_, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  sockaddr_in sa{};
  sa.sin_family = AF_INET;
  sa.sin_port = htons(static_cast<std::uint16_t>(address.port));
  inet_pton(AF_INET, address.host.c_str(), &sa.sin_addr);
  if (bind(fd_, reinterpret_cast<sockaddr*>(&sa), sizeof sa) != 0 || listen(fd_, 16) != 0) {
    std::string why = std::strerror(errno);
    close(fd_);
    throw Error(fmt::format("monitor: cannot listen on {}:{}: {}", address.host, address.port, why));
  }
  socklen_t len = sizeof sa;
  getsockname(fd_, reinterpret_cast<sockaddr*>(&sa), &len);
  port_ = ntohs(sa.sin_port);
}

MetricsServer::~MetricsServer() {
  if (fd_ >= 0) close(fd_);
}

void MetricsServer::serve(int timeout_ms, const std::string& body) {
  auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  for (;;) {
    auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) return;
    pollfd p{fd_, POLLIN, 0};
    int n = poll(&p, 1, static_cast<int>(left.count()));
    if (n < 0) return;  // EINTR: a signal; the caller checks its stop flag
    if (n == 0) return;
    int client = accept4(fd_, nullptr, nullptr, SOCK_CLOEXEC);
    if (client < 0) continue;
    answer(client, body);
    close(client);
  }
}

void MetricsServer::answer(int client, const std::string& body) {
  timeval tv{2, 0};
  setsockopt(client, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  setsockopt(client, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
  std::string head;
  char buf[2048];
  while (head.find("\r\n\r\n") == std::string::npos && head.size() < kMaxHead) {
    ssize_t n = recv(client, buf, sizeof buf, 0);
    if (n <= 0) return;
    head.append(buf, static_cast<std::size_t>(n));
  }
  std::string out = head.size() >= kMaxHead && head.find("\r\n\r\n") == std::string::npos
                        ? http_response("", body)
                        : http_response(head, body);
  std::size_t sent = 0;
  while (sent < out.size()) {
    ssize_t n = send(client, out.data() + sent, out.size() - sent, MSG_NOSIGNAL);
    if (n <= 0) return;
    sent += static_cast<std::size_t>(n);
  }
}

}  // namespace mlbench::monitor
