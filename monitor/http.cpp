#include "monitor/http.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <optional>
#include <vector>

#include "base/error.hpp"

namespace mlbench::monitor {
namespace {

using Clock = std::chrono::steady_clock;
// The longest the loop waits without looking at the stop flag (a signal that lands on another thread does
// not interrupt its poll()).
constexpr std::chrono::milliseconds kStopCheck{250};

Response reply(int code, const char* reason, const char* type, const std::string& text,
               std::shared_ptr<const std::string> body = nullptr) {
  std::size_t length = body ? body->size() : text.size();
  return {
      fmt::format("HTTP/1.1 {} {}\r\nContent-Type: {}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{}",
                  code, reason, type, length, text),
      std::move(body)};
}

// One accepted client: reading its request head until the head is complete, then writing the response, then
// (its end shut) discarding what the client still sends until it closes: closing with unread bytes would
// reset the connection, and a reset can destroy the response before the client has read it.
struct Connection {
  int fd = -1;
  Clock::time_point deadline;
  std::string head;
  std::optional<Response> response;
  std::size_t sent = 0;
  bool draining = false;

  Connection(int client, Clock::time_point accepted) : fd(client), deadline(accepted + kRequestDeadline) {}
  ~Connection() {
    if (fd >= 0) ::close(fd);
  }
  Connection(const Connection&) = delete;
  Connection& operator=(const Connection&) = delete;

  // Makes the close a reset: a client cut at its deadline or to make room gets nothing more, and the kernel
  // keeps no orphaned send queue for a client that does not read.
  void abort() const {
    linger reset{1, 0};
    ::setsockopt(fd, SOL_SOCKET, SO_LINGER, &reset, sizeof reset);
  }

  bool writing() const { return response && !draining; }

  // How far the exchange has come: 0 nothing received, 1 part of a request head, 2 answering (the
  // response being written or already sent).
  int progress() const { return response ? 2 : head.empty() ? 0 : 1; }

  // Reads what has arrived; false when the connection is finished (the peer closed or failed).
  bool read(const Exposition& exposition) {
    char buf[4096];
    while (draining) {
      ssize_t n = ::recv(fd, buf, sizeof buf, 0);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) return n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK);
    }
    while (!response) {
      std::size_t room = std::min(sizeof buf, kMaxRequestHead - head.size());
      ssize_t n = ::recv(fd, buf, room, 0);
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) return errno == EAGAIN || errno == EWOULDBLOCK;
      if (n == 0) return false;
      head.append(buf, static_cast<std::size_t>(n));
      if (head.find("\r\n\r\n") != std::string::npos) {
        response = http_response(head, exposition.latest());
      } else if (head.size() >= kMaxRequestHead) {
        response = http_response("", nullptr);  // no end of the head within the bound: 400
      }
    }
    return write();
  }

  // Sends what the client's window takes; false when the peer went.
  bool write() {
    const std::string empty;
    const std::string& body = response->body ? *response->body : empty;
    const std::size_t total = response->head.size() + body.size();
    while (sent < total) {
      iovec parts[2];
      int count = 0;
      if (sent < response->head.size()) {
        parts[count++] = {const_cast<char*>(response->head.data() + sent), response->head.size() - sent};
      }
      std::size_t body_sent = sent > response->head.size() ? sent - response->head.size() : 0;
      if (body_sent < body.size()) {
        parts[count++] = {const_cast<char*>(body.data() + body_sent), body.size() - body_sent};
      }
      msghdr msg{};
      msg.msg_iov = parts;
      msg.msg_iovlen = static_cast<std::size_t>(count);
      ssize_t n = ::sendmsg(fd, &msg, MSG_NOSIGNAL);
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) return errno == EAGAIN || errno == EWOULDBLOCK;
      sent += static_cast<std::size_t>(n);
    }
    ::shutdown(fd, SHUT_WR);
    draining = true;
    return true;
  }
};

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

void Exposition::publish(std::string text) {
  auto next = std::make_shared<const std::string>(std::move(text));
  std::lock_guard lock(mutex_);
  text_ = std::move(next);
}

std::shared_ptr<const std::string> Exposition::latest() const {
  std::lock_guard lock(mutex_);
  return text_;
}

Response http_response(const std::string& request_head, std::shared_ptr<const std::string> exposition) {
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
  Response r = reply(200, "OK", "text/plain; version=0.0.4; charset=utf-8", "", std::move(exposition));
  if (method == "HEAD") r.body = nullptr;  // the length of the GET, no body
  return r;
}

MetricsServer::MetricsServer(const ListenAddress& address) {
  fd_ = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
  if (fd_ < 0) throw Error(fmt::format("monitor: socket: {}", std::strerror(errno)));
  int one = 1;
  setsockopt(fd_, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  sockaddr_in sa{};
  sa.sin_family = AF_INET;
  sa.sin_port = htons(static_cast<std::uint16_t>(address.port));
  inet_pton(AF_INET, address.host.c_str(), &sa.sin_addr);
  if (bind(fd_, reinterpret_cast<sockaddr*>(&sa), sizeof sa) != 0 || listen(fd_, SOMAXCONN) != 0) {
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

void MetricsServer::run(const Exposition& exposition, const std::atomic<bool>& stop) {
  std::vector<std::unique_ptr<Connection>> open;  // in accept order: the oldest first
  std::vector<pollfd> fds;
  // Room for a new connection: the least progressed one goes, the oldest of those (the first in accept
  // order), so a flood of connections that send nothing never cuts a scrape that is being answered.
  auto make_room = [&open] {
    auto victim = std::min_element(
        open.begin(), open.end(), [](const auto& a, const auto& b) { return a->progress() < b->progress(); });
    (*victim)->abort();
    open.erase(victim);
  };
  while (!stop.load()) {
    auto now = Clock::now();
    std::erase_if(open, [now](const auto& c) {
      if (c->deadline > now) return false;
      c->abort();
      return true;
    });
    auto wait = kStopCheck;
    fds.assign(1, pollfd{fd_, POLLIN, 0});
    for (const auto& c : open) {
      fds.push_back({c->fd, static_cast<short>(c->writing() ? POLLOUT : POLLIN), 0});
      wait = std::min(wait, std::chrono::ceil<std::chrono::milliseconds>(c->deadline - now));
    }
    if (::poll(fds.data(), fds.size(), static_cast<int>(wait.count())) < 0) {
      if (errno == EINTR) continue;  // a signal: the loop looks at the stop flag
      // Anything else (EINVAL: more descriptors than the open-file limit; ENOMEM) would fail again at
      // once: a fault of the run, not a loop that spins.
      const int error = errno;
      throw Error(fmt::format(
          "monitor: cannot wait on {} connections: {}{}", open.size(), std::strerror(error),
          error == EINVAL
              ? fmt::format(" (the open-file limit, ulimit -n, must be above {})", kMaxConnections + 1)
              : ""));
    }
    for (std::size_t i = 0; i < open.size(); ++i) {
      auto& c = open[i];
      short ready = fds[i + 1].revents;
      if (ready == 0) continue;
      bool more = c->writing() ? c->write() : c->read(exposition);
      if (!more) c.reset();
    }
    std::erase(open, nullptr);
    if (fds[0].revents & POLLIN) {
      for (;;) {
        int client = ::accept4(fd_, nullptr, nullptr, SOCK_CLOEXEC | SOCK_NONBLOCK);
        if (client < 0 && errno == EINTR) continue;
        // Out of descriptors: a connection makes room, and the next round accepts again.
        if (client < 0 && (errno == EMFILE || errno == ENFILE) && !open.empty()) make_room();
        if (client < 0) break;
        if (open.size() >= kMaxConnections) make_room();
        open.push_back(std::make_unique<Connection>(client, Clock::now()));
      }
    }
  }
}

}  // namespace mlbench::monitor
