#include "serve/client.hpp"

#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstring>
#include <deque>

#include <fmt/format.h>

#include "base/error.hpp"
#include "base/input_file.hpp"

namespace mlbench::serve {
namespace {

using Clock = std::chrono::steady_clock;

constexpr std::size_t kReadBytes = 64 * 1024;
// The longest one epoll wait lasts: the stop flag, deadlines and arrivals are looked at least this often.
constexpr int kMaxWaitMs = 10;
constexpr double kProgressEvery = 0.5;  // s

std::string ssl_error_text() {
  unsigned long e = ERR_get_error();
  if (e == 0) return "no detail";
  std::array<char, 256> buf{};
  ERR_error_string_n(e, buf.data(), buf.size());
  ERR_clear_error();
  return buf.data();
}

// Adds the PEM certificates of `path` to the context's trust store: 1 when at least one was added, else 0
// (OpenSSL's error queue says why). The file comes through the bounded reader.
int add_ca_certificates(SSL_CTX* ctx, const std::string& path) {
  const std::string pem = read_input_file(path, InputKind::certificates);
  BIO* bio = BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size()));
  if (!bio) return 0;
  STACK_OF(X509_INFO)* infos = PEM_X509_INFO_read_bio(bio, nullptr, nullptr, nullptr);
  BIO_free(bio);
  if (!infos) return 0;
  int added = 0;
  X509_STORE* store = SSL_CTX_get_cert_store(ctx);
  for (int i = 0; i < sk_X509_INFO_num(infos); ++i) {
    X509_INFO* info = sk_X509_INFO_value(infos, i);
    if (info->x509 && X509_STORE_add_cert(store, info->x509) == 1) ++added;
  }
  sk_X509_INFO_pop_free(infos, X509_INFO_free);
  return added > 0 ? 1 : 0;
}

enum class ConnState { connecting, handshake, writing, reading, idle, closed };

struct Conn {
  int fd = -1;
  SSL* ssl = nullptr;
  ConnState state = ConnState::connecting;
  std::uint32_t gen = 0;
  std::uint32_t interest = 0;
  int job = -1;  // the job in flight
  std::string out;
  std::size_t out_off = 0;
  std::unique_ptr<HttpResponseParser> http;
  std::unique_ptr<SseParser> sse;
  std::string body;            // de-chunked bytes not yet given to the SSE parser
  std::uint64_t bytes_in = 0;  // of the current response
  double last_io = 0;
  unsigned served = 0;  // responses completed on this connection
  bool want_write_on_read = false;
};

}  // namespace

struct Client::Impl {
  Endpoint ep;
  WireLimits limits;
  sockaddr_storage addr{};
  socklen_t addr_len = 0;
  SSL_CTX* ctx = nullptr;
  struct sigaction old_pipe {};

  // One load point's state.
  int epfd = -1;
  std::vector<std::unique_ptr<Conn>> slots;
  std::vector<std::size_t> free_slots;
  std::vector<std::size_t> idle;  // kept-alive connections, most recent last
  const LoadRun* load = nullptr;
  std::vector<Record>* records = nullptr;
  std::vector<bool> retried;
  Clock::time_point t0;
  unsigned in_flight = 0, opened = 0;
  std::vector<std::string> events;  // scratch

  double now() const { return std::chrono::duration<double>(Clock::now() - t0).count(); }
  double t0_s = 0;  // t0 on CLOCK_MONOTONIC, s

  // CLOCK_REALTIME − CLOCK_MONOTONIC now, s: turns a kernel receive time (real time) into the run's clock.
  static double real_minus_steady() {
    timespec r{}, m{};
    ::clock_gettime(CLOCK_REALTIME, &r);
    ::clock_gettime(CLOCK_MONOTONIC, &m);
    return double(r.tv_sec - m.tv_sec) + double(r.tv_nsec - m.tv_nsec) * 1e-9;
  }

  // recv() that also returns the kernel's receive time of the first byte read (SO_TIMESTAMPNS, real time, s),
  // 0 when it gives none.
  static ssize_t recv_stamped(int fd, char* data, std::size_t size, double& stamp) {
    iovec iov{data, size};
    alignas(cmsghdr) char control[CMSG_SPACE(sizeof(timespec))];
    msghdr msg{};
    msg.msg_iov = &iov;
    msg.msg_iovlen = 1;
    msg.msg_control = control;
    msg.msg_controllen = sizeof control;
    const ssize_t n = ::recvmsg(fd, &msg, 0);
    stamp = 0;
    if (n > 0) {
      for (cmsghdr* cm = CMSG_FIRSTHDR(&msg); cm; cm = CMSG_NXTHDR(&msg, cm)) {
        if (cm->cmsg_level == SOL_SOCKET && cm->cmsg_type == SCM_TIMESTAMPNS) {
          timespec ts{};
          std::memcpy(&ts, CMSG_DATA(cm), sizeof ts);
          stamp = double(ts.tv_sec) + double(ts.tv_nsec) * 1e-9;
        }
      }
    }
    return n;
  }

  ~Impl() {
    if (ctx) SSL_CTX_free(ctx);
  }

  void set_interest(Conn& c, std::size_t slot, std::uint32_t want) {
    if (c.interest == want) return;
    epoll_event ev{};
    ev.events = want;
    ev.data.u64 = (static_cast<std::uint64_t>(c.gen) << 32) | slot;
    ::epoll_ctl(epfd, EPOLL_CTL_MOD, c.fd, &ev);
    c.interest = want;
  }

  void close_conn(std::size_t slot) {
    Conn& c = *slots[slot];
    if (c.state == ConnState::closed) return;
    if (c.ssl) {
      SSL_free(c.ssl);
      c.ssl = nullptr;
    }
    if (c.fd >= 0) {
      ::epoll_ctl(epfd, EPOLL_CTL_DEL, c.fd, nullptr);
      ::close(c.fd);
      c.fd = -1;
    }
    if (c.state == ConnState::idle) idle.erase(std::remove(idle.begin(), idle.end(), slot), idle.end());
    c.state = ConnState::closed;
    c.job = -1;
    free_slots.push_back(slot);
  }

  // Ends the job on `slot` with `error` (none: success); the connection goes back to the pool when the
  // response ended cleanly and may be kept alive, else it is closed.
  void finish(std::size_t slot, ErrorKind error, std::string detail) {
    Conn& c = *slots[slot];
    const int j = c.job;
    Record& r = (*records)[static_cast<std::size_t>(j)];
    // A kept-alive connection the server had closed: the request never reached it; send it once more on a
    // new connection (as every HTTP client does), with its clock unchanged.
    if ((error == ErrorKind::closed || error == ErrorKind::connect) && r.reused && c.bytes_in == 0 &&
        !retried[static_cast<std::size_t>(j)]) {
      retried[static_cast<std::size_t>(j)] = true;
      close_conn(slot);
      start_on_new(j);
      return;
    }
    r.end = now();
    if (c.http && c.http->headers_done()) r.status = c.http->status();
    r.error = error;
    r.detail = std::move(detail);
    if (error == ErrorKind::none && load->jobs[static_cast<std::size_t>(j)].stream && r.chunks == 0) {
      r.error = ErrorKind::no_tokens;
      r.detail = "the stream ended without a token";
    }
    --in_flight;
    const bool reuse = error == ErrorKind::none && c.http && c.http->done() && c.http->keep_alive();
    c.job = -1;
    if (reuse) {
      ++c.served;
      c.state = ConnState::idle;
      c.http.reset();
      c.sse.reset();
      c.body.clear();
      set_interest(c, slot, EPOLLIN);
      idle.push_back(slot);
    } else {
      close_conn(slot);
    }
  }

  std::size_t new_slot() {
    if (!free_slots.empty()) {
      std::size_t s = free_slots.back();
      free_slots.pop_back();
      std::uint32_t gen = slots[s]->gen + 1;
      *slots[s] = Conn{};
      slots[s]->gen = gen;
      return s;
    }
    slots.push_back(std::make_unique<Conn>());
    return slots.size() - 1;
  }

  void prepare_request(Conn& c, const Job& job) {
    const Url& u = ep.url;
    const bool default_port = u.port == (u.tls ? 443 : 80);
    const bool v6 = u.host.find(':') != std::string::npos;
    std::string host = v6 ? "[" + u.host + "]" : u.host;
    if (!default_port) host += fmt::format(":{}", u.port);
    c.out = fmt::format("{} {}{} HTTP/1.1\r\nHost: {}\r\nUser-Agent: mlbench\r\nConnection: keep-alive\r\n",
                        job.method, u.base, job.path, host);
    if (job.stream) c.out += "Accept: text/event-stream\r\n";
    if (!ep.api_key.empty()) c.out += fmt::format("Authorization: Bearer {}\r\n", ep.api_key);
    if (job.method != "GET")
      c.out += fmt::format("Content-Type: application/json\r\nContent-Length: {}\r\n", job.body.size());
    c.out += "\r\n";
    if (job.method != "GET") c.out += job.body;
    c.out_off = 0;
    c.http = std::make_unique<HttpResponseParser>(limits);
    c.sse = std::make_unique<SseParser>(limits);
    c.body.clear();
    c.bytes_in = 0;
  }

  // A fresh connection for job j (its clock already running).
  void start_on_new(int j) {
    const std::size_t slot = new_slot();
    Conn& c = *slots[slot];
    c.job = j;
    c.last_io = now();
    (*records)[static_cast<std::size_t>(j)].reused = false;
    c.fd = ::socket(addr.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (c.fd < 0) {
      c.state = ConnState::connecting;
      finish(slot, ErrorKind::connect, fmt::format("socket: {}", std::strerror(errno)));
      return;
    }
    ++opened;
    int one = 1;
    ::setsockopt(c.fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    if (!ctx) ::setsockopt(c.fd, SOL_SOCKET, SO_TIMESTAMPNS, &one, sizeof one);
    c.state = ConnState::connecting;
    epoll_event ev{};
    ev.events = EPOLLOUT;
    ev.data.u64 = (static_cast<std::uint64_t>(c.gen) << 32) | slot;
    c.interest = EPOLLOUT;
    ::epoll_ctl(epfd, EPOLL_CTL_ADD, c.fd, &ev);
    prepare_request(c, load->jobs[static_cast<std::size_t>(j)]);
    if (::connect(c.fd, reinterpret_cast<sockaddr*>(&addr), addr_len) != 0 && errno != EINPROGRESS) {
      finish(slot, ErrorKind::connect,
             fmt::format("connecting to {}: {}", ep.url.text(), std::strerror(errno)));
      return;
    }
  }

  void dispatch(int j) {
    Record& r = (*records)[static_cast<std::size_t>(j)];
    r.start = now();
    ++in_flight;
    while (!idle.empty()) {
      const std::size_t slot = idle.back();
      idle.pop_back();
      Conn& c = *slots[slot];
      c.job = j;
      c.state = ConnState::writing;
      c.last_io = r.start;
      r.reused = true;
      prepare_request(c, load->jobs[static_cast<std::size_t>(j)]);
      if (c.ssl)
        set_interest(c, slot, EPOLLIN | EPOLLOUT);
      else
        write_out(slot);
      return;
    }
    start_on_new(j);
  }

  // TLS after the TCP connect.
  bool begin_tls(std::size_t slot) {
    Conn& c = *slots[slot];
    c.ssl = SSL_new(ctx);
    if (!c.ssl || SSL_set_fd(c.ssl, c.fd) != 1) {
      finish(slot, ErrorKind::tls, "SSL_new: " + ssl_error_text());
      return false;
    }
    const bool ip = ep.url.host.find_first_not_of("0123456789.") == std::string::npos ||
                    ep.url.host.find(':') != std::string::npos;
    SSL_set_connect_state(c.ssl);
    if (!ip) SSL_set_tlsext_host_name(c.ssl, ep.url.host.c_str());
    if (ep.verify) {
      X509_VERIFY_PARAM* param = SSL_get0_param(c.ssl);
      if (ip)
        X509_VERIFY_PARAM_set1_ip_asc(param, ep.url.host.c_str());
      else
        X509_VERIFY_PARAM_set1_host(param, ep.url.host.c_str(), 0);
    }
    c.state = ConnState::handshake;
    return true;
  }

  // Progress of a TLS handshake; false when it failed (the job is finished).
  bool handshake(std::size_t slot) {
    Conn& c = *slots[slot];
    ERR_clear_error();
    const int rc = SSL_do_handshake(c.ssl);
    if (rc == 1) {
      c.state = ConnState::writing;
      set_interest(c, slot, EPOLLIN | EPOLLOUT);
      return true;
    }
    const int e = SSL_get_error(c.ssl, rc);
    if (e == SSL_ERROR_WANT_READ) {
      set_interest(c, slot, EPOLLIN);
      return true;
    }
    if (e == SSL_ERROR_WANT_WRITE) {
      set_interest(c, slot, EPOLLOUT);
      return true;
    }
    std::string why = ssl_error_text();
    const long verify = SSL_get_verify_result(c.ssl);
    if (verify != X509_V_OK)
      why = fmt::format("certificate: {} (--no-tls-verify to skip the check, --ca-file to trust a CA)",
                        X509_verify_cert_error_string(verify));
    finish(slot, ErrorKind::tls, fmt::format("TLS handshake with {}: {}", ep.url.text(), why));
    return false;
  }

  // Writes what is left of the request; false when the job ended.
  bool write_out(std::size_t slot) {
    Conn& c = *slots[slot];
    while (c.out_off < c.out.size()) {
      const char* p = c.out.data() + c.out_off;
      const std::size_t n = c.out.size() - c.out_off;
      if (c.ssl) {
        ERR_clear_error();
        const int rc = SSL_write(c.ssl, p, static_cast<int>(std::min<std::size_t>(n, 1 << 30)));
        if (rc > 0) {
          c.out_off += static_cast<std::size_t>(rc);
          continue;
        }
        const int e = SSL_get_error(c.ssl, rc);
        if (e == SSL_ERROR_WANT_WRITE || e == SSL_ERROR_WANT_READ) return true;
        finish(slot, ErrorKind::closed, "sending the request: " + ssl_error_text());
        return false;
      }
      const ssize_t rc = ::send(c.fd, p, n, MSG_NOSIGNAL);
      if (rc > 0) {
        c.out_off += static_cast<std::size_t>(rc);
        continue;
      }
      if (rc < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) return true;
      finish(slot, ErrorKind::closed, fmt::format("sending the request: {}", std::strerror(errno)));
      return false;
    }
    c.state = ConnState::reading;
    set_interest(c, slot, EPOLLIN);
    return true;
  }

  // The body bytes of the response so far, through the SSE parser for a streamed 2xx; false when the job
  // ended.
  bool take_body(std::size_t slot, double t) {
    Conn& c = *slots[slot];
    const std::size_t j = static_cast<std::size_t>(c.job);
    Record& r = (*records)[j];
    const Job& job = load->jobs[j];
    const bool ok_status = c.http->status() >= 200 && c.http->status() < 300;
    if (!ok_status || !job.stream) {
      if (!ok_status && r.body.size() < limits.error_body_bytes)
        r.body.append(c.body.substr(0, limits.error_body_bytes - r.body.size()));
      else if (ok_status)
        r.body.append(c.body);
      c.body.clear();
      return true;
    }
    events.clear();
    WireError e = c.sse->feed(c.body, events);
    c.body.clear();
    for (const auto& data : events) {
      StreamEvent ev;
      if (auto bad = parse_stream_event(data, limits, ev)) {
        finish(slot, bad.kind, bad.detail);
        return false;
      }
      if (!ev.server_error.empty()) {
        finish(slot, ErrorKind::server_error, "the server's stream said: " + ev.server_error);
        return false;
      }
      if (ev.has_choice && !ev.text.empty()) {
        // vLLM's benchmark: a chunk with choices and text is a token chunk; the first gives TTFT, each
        // later one an inter-token gap.
        if (r.chunks == 0)
          r.first = t;
        else
          r.itl.push_back(t - r.last);
        r.last = t;
        ++r.chunks;
        if (load->keep_text) r.text += ev.text;
      }
      if (ev.completion_tokens) r.completion_tokens = *ev.completion_tokens;
      if (ev.prompt_tokens) r.prompt_tokens = *ev.prompt_tokens;
    }
    if (e) {
      finish(slot, e.kind, e.detail);
      return false;
    }
    return true;
  }

  // The response is complete: success, or the status' error.
  void complete(std::size_t slot) {
    Conn& c = *slots[slot];
    Record& r = (*records)[static_cast<std::size_t>(c.job)];
    r.status = c.http->status();
    if (r.status < 200 || r.status >= 300) {
      std::string msg = r.body;
      for (char& ch : msg)
        if (static_cast<unsigned char>(ch) < 0x20 || static_cast<unsigned char>(ch) >= 0x7f) ch = ' ';
      if (msg.size() > 200) msg = msg.substr(0, 200) + "...";
      finish(slot, ErrorKind::http_status, fmt::format("HTTP {}: {}", r.status, msg));
      return;
    }
    if (load->jobs[static_cast<std::size_t>(c.job)].stream && c.sse->pending() && r.chunks == 0) {
      finish(slot, ErrorKind::malformed_sse, "the stream ended inside an event");
      return;
    }
    finish(slot, ErrorKind::none, {});
  }

  // Reads all there is; false when the job ended.
  bool read_in(std::size_t slot) {
    Conn& c = *slots[slot];
    static thread_local std::array<char, kReadBytes> buf;
    for (;;) {
      ssize_t n = 0;
      double kernel_t = 0;
      bool eof = false;
      if (c.ssl) {
        ERR_clear_error();
        const int rc = SSL_read(c.ssl, buf.data(), static_cast<int>(buf.size()));
        if (rc > 0) {
          n = rc;
        } else {
          const int e = SSL_get_error(c.ssl, rc);
          if (e == SSL_ERROR_WANT_READ) return true;
          if (e == SSL_ERROR_WANT_WRITE) {
            set_interest(c, slot, EPOLLIN | EPOLLOUT);
            return true;
          }
          if (e == SSL_ERROR_ZERO_RETURN || e == SSL_ERROR_SYSCALL)
            eof = true;
          else {
            finish(slot, ErrorKind::tls, "reading: " + ssl_error_text());
            return false;
          }
        }
      } else {
        n = recv_stamped(c.fd, buf.data(), buf.size(), kernel_t);
        if (n < 0) {
          if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR) return true;
          if (errno != ECONNRESET) {
            finish(slot, ErrorKind::closed, fmt::format("reading: {}", std::strerror(errno)));
            return false;
          }
          eof = true;
        } else if (n == 0) {
          eof = true;
        }
      }
      // The kernel's arrival time of the bytes (plain sockets), else the time of this read: a token is timed
      // when it reached the machine, not when this thread got to it behind other streams' events.
      const double read_t = now();
      double t = read_t;
      if (kernel_t > 0) t = std::clamp(kernel_t - real_minus_steady() - t0_s, c.last_io, read_t);
      if (eof) {
        if (c.job < 0) {  // an idle connection the server closed
          close_conn(slot);
          return false;
        }
        if (WireError e = c.http->eof()) {
          // What arrived before the close still counts (tokens seen); the request failed.
          take_body(slot, t);
          if (c.job >= 0) finish(slot, e.kind, e.detail);
          return false;
        }
        if (!take_body(slot, t)) return false;
        complete(slot);
        return false;
      }
      if (c.job < 0) {  // bytes on an idle connection: nothing was asked; the connection is not trusted
        close_conn(slot);
        return false;
      }
      c.last_io = t;
      c.bytes_in += static_cast<std::size_t>(n);
      std::string_view data(buf.data(), static_cast<std::size_t>(n));
      std::size_t used = 0;
      WireError e = c.http->feed(data, c.body, used);
      if (e) {
        finish(slot, e.kind, e.detail);
        return false;
      }
      if (!take_body(slot, t)) return false;
      if (c.http->done()) {
        if (used < data.size()) c.http.reset();  // bytes past the response: never reuse this connection
        if (!c.http) {
          Record& r = (*records)[static_cast<std::size_t>(c.job)];
          r.status = 200;
          finish(slot, ErrorKind::malformed_http, "bytes after the end of the response");
          return false;
        }
        complete(slot);
        return false;
      }
    }
  }

  void on_event(std::size_t slot, std::uint32_t what) {
    Conn& c = *slots[slot];
    if (c.state == ConnState::closed) return;
    if (c.state == ConnState::idle) {
      read_in(slot);
      return;
    }
    if (c.state == ConnState::connecting) {
      int err = 0;
      socklen_t len = sizeof err;
      ::getsockopt(c.fd, SOL_SOCKET, SO_ERROR, &err, &len);
      if (err != 0 || (what & (EPOLLERR | EPOLLHUP)) != 0) {
        finish(
            slot, ErrorKind::connect,
            fmt::format("connecting to {}: {}", ep.url.text(), std::strerror(err != 0 ? err : ECONNREFUSED)));
        return;
      }
      if (ctx) {
        if (!begin_tls(slot)) return;
      } else {
        c.state = ConnState::writing;
      }
    }
    if (c.state == ConnState::handshake) {
      if (!handshake(slot) || c.state == ConnState::handshake) return;
    }
    if (c.state == ConnState::writing) {
      if (!write_out(slot)) return;
    }
    if (c.state == ConnState::reading && (what & (EPOLLIN | EPOLLHUP | EPOLLERR | EPOLLOUT)) != 0) {
      if (c.ssl && c.interest != EPOLLIN) set_interest(c, slot, EPOLLIN);
      read_in(slot);
    }
  }

  // Deadlines: the request's own, and a stall once its response began.
  void check_deadlines(double t) {
    for (std::size_t s = 0; s < slots.size(); ++s) {
      Conn& c = *slots[s];
      if (c.job < 0 || c.state == ConnState::closed) continue;
      const Record& r = (*records)[static_cast<std::size_t>(c.job)];
      if (t - r.start > load->timeout_s) {
        finish(s, ErrorKind::timeout, fmt::format("no complete response within {:g} s", load->timeout_s));
      } else if (c.bytes_in > 0 && t - c.last_io > load->stall_s) {
        finish(s, ErrorKind::stalled,
               fmt::format("no byte for {:g} s in the middle of the response", load->stall_s));
      }
    }
  }
};

Client::Client(Endpoint endpoint, WireLimits limits)
    : endpoint_(std::move(endpoint)), limits_(limits), impl_(std::make_unique<Impl>()) {
  impl_->ep = endpoint_;
  impl_->limits = limits_;
  addrinfo hints{};
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* res = nullptr;
  const std::string port = std::to_string(endpoint_.url.port);
  const int rc = ::getaddrinfo(endpoint_.url.host.c_str(), port.c_str(), &hints, &res);
  if (rc != 0 || !res)
    throw UsageError(
        fmt::format("--url: host '{}' does not resolve ({}); give a host name or address that does",
                    endpoint_.url.host, ::gai_strerror(rc)));
  std::memcpy(&impl_->addr, res->ai_addr, res->ai_addrlen);
  impl_->addr_len = res->ai_addrlen;
  ::freeaddrinfo(res);
  if (endpoint_.url.tls) {
    impl_->ctx = SSL_CTX_new(TLS_client_method());
    if (!impl_->ctx) throw Error("SSL_CTX_new: " + ssl_error_text());
    SSL_CTX_set_min_proto_version(impl_->ctx, TLS1_2_VERSION);
    if (endpoint_.verify) {
      SSL_CTX_set_verify(impl_->ctx, SSL_VERIFY_PEER, nullptr);
      // --ca-file is read through the bounded reader (a regular file under its size limit, never a FIFO
      // that would block) and its PEM certificates added from memory.
      const int ok = endpoint_.ca_file.empty() ? SSL_CTX_set_default_verify_paths(impl_->ctx)
                                               : add_ca_certificates(impl_->ctx, endpoint_.ca_file);
      if (ok != 1)
        throw UsageError(fmt::format("--ca-file '{}' holds no certificate OpenSSL reads: {}",
                                     endpoint_.ca_file, ssl_error_text()));
    } else {
      SSL_CTX_set_verify(impl_->ctx, SSL_VERIFY_NONE, nullptr);
    }
  }
}

Client::~Client() = default;

LoadResult Client::run(const LoadRun& load, const std::atomic<bool>& stop) {
  Impl& m = *impl_;
  LoadResult out;
  out.records.resize(load.jobs.size());
  for (std::size_t i = 0; i < load.jobs.size(); ++i)
    out.records[i].scheduled = i < load.arrivals.size() ? load.arrivals[i] : 0;
  // Each stream is a descriptor: raise the soft limit toward the hard one when the streams need it.
  rlimit nofile{};
  if (::getrlimit(RLIMIT_NOFILE, &nofile) == 0 && nofile.rlim_cur < load.max_in_flight + 64u) {
    nofile.rlim_cur = std::min<rlim_t>(nofile.rlim_max, load.max_in_flight + 64u);
    ::setrlimit(RLIMIT_NOFILE, &nofile);
  }
  m.epfd = ::epoll_create1(EPOLL_CLOEXEC);
  if (m.epfd < 0) throw Error(fmt::format("epoll_create1: {}", std::strerror(errno)));
  m.load = &load;
  m.records = &out.records;
  m.retried.assign(load.jobs.size(), false);
  m.slots.clear();
  m.free_slots.clear();
  m.idle.clear();
  m.in_flight = 0;
  m.opened = 0;
  // SSL_write may raise SIGPIPE on a connection the server closed; the process ignores it while it runs.
  struct sigaction ignore {};
  ignore.sa_handler = SIG_IGN;
  ::sigaction(SIGPIPE, &ignore, &m.old_pipe);
  m.t0 = Clock::now();
  m.t0_s = std::chrono::duration<double>(m.t0.time_since_epoch()).count();
  std::size_t next = 0;
  double last_check = 0, last_progress = 0;
  std::vector<epoll_event> evs(1024);
  try {
    for (;;) {
      double t = m.now();
      if (stop.load(std::memory_order_relaxed)) {
        out.interrupted = true;
        for (std::size_t s = 0; s < m.slots.size(); ++s)
          if (m.slots[s]->job >= 0 && m.slots[s]->state != ConnState::closed)
            m.finish(s, ErrorKind::interrupted, "interrupted");
        break;
      }
      while (next < load.jobs.size() && out.records[next].scheduled <= t &&
             m.in_flight < load.max_in_flight) {
        // The client's own lateness, where no cap held the request back (open loop without a cap).
        if (load.max_in_flight >= load.jobs.size())
          out.max_lag_s = std::max(out.max_lag_s, t - out.records[next].scheduled);
        m.dispatch(static_cast<int>(next++));
      }
      if (next == load.jobs.size() && m.in_flight == 0) break;
      double wait = kMaxWaitMs * 1e-3;
      if (next < load.jobs.size() && m.in_flight < load.max_in_flight)
        wait = std::min(wait, std::max(0.0, out.records[next].scheduled - t));
      const int n = ::epoll_wait(m.epfd, evs.data(), static_cast<int>(evs.size()),
                                 static_cast<int>(std::ceil(wait * 1e3)));
      if (n < 0 && errno != EINTR) throw Error(fmt::format("epoll_wait: {}", std::strerror(errno)));
      for (int i = 0; i < n; ++i) {
        const std::size_t slot = evs[static_cast<std::size_t>(i)].data.u64 & 0xffffffffu;
        const auto gen = static_cast<std::uint32_t>(evs[static_cast<std::size_t>(i)].data.u64 >> 32);
        if (slot >= m.slots.size() || m.slots[slot]->gen != gen) continue;
        m.on_event(slot, evs[static_cast<std::size_t>(i)].events);
      }
      t = m.now();
      if (t - last_check >= 0.005) {
        m.check_deadlines(t);
        last_check = t;
      }
      if (load.progress && t - last_progress >= kProgressEvery) {
        load.progress(out.records, t);
        last_progress = t;
      }
    }
  } catch (...) {
    for (std::size_t s = 0; s < m.slots.size(); ++s) m.close_conn(s);
    ::close(m.epfd);
    ::sigaction(SIGPIPE, &m.old_pipe, nullptr);
    throw;
  }
  double end = 0;
  for (const auto& r : out.records) end = std::max(end, r.end);
  out.seconds = end;
  out.connections = m.opened;
  for (std::size_t s = 0; s < m.slots.size(); ++s) m.close_conn(s);
  ::close(m.epfd);
  m.epfd = -1;
  ::sigaction(SIGPIPE, &m.old_pipe, nullptr);
  return out;
}

Record Client::call(const Job& job, double timeout_s, const std::atomic<bool>& stop) {
  LoadRun one;
  one.jobs = {job};
  one.arrivals = {0};
  one.timeout_s = timeout_s;
  one.stall_s = timeout_s;
  LoadResult r = run(one, stop);
  if (r.interrupted) throw Interrupted();
  return std::move(r.records.front());
}

}  // namespace mlbench::serve
