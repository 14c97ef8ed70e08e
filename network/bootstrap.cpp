#include "network/bootstrap.hpp"

#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstring>
#include <thread>

#include <fmt/format.h>

#include "bench/error.hpp"

namespace mlbench::net {
namespace {

using Clock = std::chrono::steady_clock;

constexpr char kMagic[] = "mlbench-bootstrap-1";
constexpr std::uint64_t kMaxMessage = std::uint64_t{1} << 30;

int ms_left(Clock::time_point deadline) {
  auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
  return left <= 0 ? 0 : static_cast<int>(std::min<long long>(left, 1000));
}

struct AddrInfo {
  addrinfo* list = nullptr;
  AddrInfo(const std::string& host, int port) {
    addrinfo hints{};
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    std::string h = host;
    if (h.size() >= 2 && h.front() == '[') h = h.substr(1, h.size() - 2);
    int rc = getaddrinfo(h.c_str(), std::to_string(port).c_str(), &hints, &list);
    if (rc != 0) {
      throw Error(fmt::format("getaddrinfo({}) failed: {} (is MASTER_ADDR right?)", host, gai_strerror(rc)));
    }
  }
  ~AddrInfo() { freeaddrinfo(list); }
  AddrInfo(const AddrInfo&) = delete;
  AddrInfo& operator=(const AddrInfo&) = delete;
};

// Waits until fd is ready for `events` or the deadline passes; false on timeout.
bool wait_fd(int fd, short events, Clock::time_point deadline) {
  while (true) {
    pollfd p{fd, events, 0};
    int rc = ::poll(&p, 1, ms_left(deadline));
    if (rc > 0) return true;
    if (rc < 0 && errno != EINTR) MLBENCH_CHECK_SYS(rc);
    if (Clock::now() >= deadline) return false;
  }
}

// Sends everything or throws (a peer that stops reading for the whole timeout is as good as dead).
void send_all(int fd, const void* data, std::size_t n, Clock::time_point deadline, const std::string& peer) {
  const char* p = static_cast<const char*>(data);
  while (n > 0) {
    if (!wait_fd(fd, POLLOUT, deadline)) throw Error(fmt::format("timed out sending to {}", peer));
    ssize_t w = ::send(fd, p, n, MSG_NOSIGNAL);
    if (w < 0) {
      if (errno == EINTR || errno == EAGAIN) continue;
      throw Error(fmt::format("send to {} failed: {} (it probably died)", peer, std::strerror(errno)));
    }
    p += w;
    n -= static_cast<std::size_t>(w);
  }
}

void send_message(int fd, const std::string& msg, Clock::time_point deadline, const std::string& peer) {
  std::uint64_t len = msg.size();
  unsigned char hdr[8];
  for (int i = 0; i < 8; ++i) hdr[i] = static_cast<unsigned char>(len >> (8 * i));
  send_all(fd, hdr, sizeof hdr, deadline, peer);
  send_all(fd, msg.data(), msg.size(), deadline, peer);
}

// Incremental reader of one length-prefixed message from a non-blocking socket.
struct MessageReader {
  std::string header, body;
  std::uint64_t length = 0;
  bool done = false;

  // Reads what is available; throws when the peer closed the connection.
  void pump(int fd, const std::string& peer) {
    char buf[65536];
    while (!done) {
      std::size_t want =
          header.size() < 8 ? 8 - header.size() : std::min<std::uint64_t>(length - body.size(), sizeof buf);
      ssize_t r = ::recv(fd, buf, want, 0);
      if (r == 0) throw Error(fmt::format("{} closed the connection (it probably died)", peer));
      if (r < 0) {
        const int e = errno;
        if (e == EAGAIN || e == EWOULDBLOCK || e == EINTR) return;
        throw Error(fmt::format("receive from {} failed: {}{}", peer, std::strerror(e),
                                e == ECONNRESET ? " (it probably died)" : ""));
      }
      if (header.size() < 8) {
        header.append(buf, static_cast<std::size_t>(r));
        if (header.size() == 8) {
          for (int i = 0; i < 8; ++i)
            length |= std::uint64_t{static_cast<unsigned char>(header[i])} << (8 * i);
          if (length > kMaxMessage)
            throw Error(fmt::format("{} sent an oversized message ({} bytes)", peer, length));
        }
      } else {
        body.append(buf, static_cast<std::size_t>(r));
      }
      done = header.size() == 8 && body.size() == length;
    }
  }
};

std::string receive_message(int fd, Clock::time_point deadline, const std::string& peer, double timeout_s) {
  MessageReader reader;
  while (!reader.done) {
    if (!wait_fd(fd, POLLIN, deadline)) {
      throw Error(fmt::format("timed out after {} s waiting for {}", timeout_s, peer));
    }
    reader.pump(fd, peer);
  }
  return reader.body;
}

void set_nonblocking(int fd) {
  int flags = ::fcntl(fd, F_GETFL);
  MLBENCH_CHECK_SYS(flags);
  MLBENCH_CHECK_SYS(::fcntl(fd, F_SETFL, flags | O_NONBLOCK));
  int one = 1;
  ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
}

std::string rank_list(const std::vector<int>& ranks) {
  std::string out;
  for (int r : ranks) out += (out.empty() ? "" : ", ") + std::to_string(r);
  return out;
}

}  // namespace

Fd::~Fd() {
  if (fd_ >= 0) ::close(fd_);
}

Fd& Fd::operator=(Fd&& o) noexcept {
  if (this != &o) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = o.release();
  }
  return *this;
}

TcpBootstrap::TcpBootstrap(int rank, int world_size, const std::string& addr, int port, double timeout_s)
    : rank_(rank), world_(world_size), addr_(addr), port_(port), timeout_s_(timeout_s) {
  if (addr.empty()) {
    throw UsageError(
        "a multi-process run without MPI needs MASTER_ADDR (and MASTER_PORT, default 29500) naming rank 0's "
        "address");
  }
  peers_.resize(rank == 0 ? static_cast<std::size_t>(world_size) : 1);
  if (rank == 0) {
    accept_all();
  } else {
    connect_to_root();
  }
}

std::string TcpBootstrap::describe() const { return fmt::format("tcp {}:{}", addr_, port_); }

TcpBootstrap::Clock::time_point TcpBootstrap::deadline() const {
  return Clock::now() +
         std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(timeout_s_));
}

void TcpBootstrap::accept_all() {
  AddrInfo ai(addr_, port_);
  std::string last_error;
  for (addrinfo* a = ai.list; a != nullptr && listener_.get() < 0; a = a->ai_next) {
    Fd s(::socket(a->ai_family, a->ai_socktype, a->ai_protocol));
    if (s.get() < 0) continue;
    int one = 1;
    ::setsockopt(s.get(), SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    if (::bind(s.get(), a->ai_addr, a->ai_addrlen) == 0 && ::listen(s.get(), 1024) == 0) {
      listener_ = std::move(s);
    } else {
      last_error = std::strerror(errno);
    }
  }
  if (listener_.get() < 0) {
    throw Error(
        fmt::format("rank 0 cannot listen on {}:{}: {} (MASTER_ADDR must be an address of rank 0's host "
                    "and MASTER_PORT free)",
                    addr_, port_, last_error));
  }
  set_nonblocking(listener_.get());
  auto end = deadline();
  // Connections whose introduction has not fully arrived yet.
  std::vector<std::pair<Fd, MessageReader>> pending;
  int arrived = 1;
  while (arrived < world_) {
    std::vector<pollfd> fds{{listener_.get(), POLLIN, 0}};
    for (auto& [fd, _] : pending) fds.push_back({fd.get(), POLLIN, 0});
    // Ranks that arrived are watched for a hang-up only (their next message is read later): one that dies
    // while the others are still coming ends the rendezvous at once, named, instead of at the timeout.
    const std::size_t first_arrived = fds.size();
    std::vector<int> arrived_ranks;
    for (int r = 1; r < world_; ++r) {
      if (peers_[static_cast<std::size_t>(r)].get() < 0) continue;
      fds.push_back({peers_[static_cast<std::size_t>(r)].get(), POLLRDHUP, 0});
      arrived_ranks.push_back(r);
    }
    int rc = ::poll(fds.data(), fds.size(), ms_left(end));
    if (rc < 0 && errno != EINTR) MLBENCH_CHECK_SYS(rc);
    for (std::size_t i = first_arrived; i < fds.size(); ++i) {
      if (fds[i].revents & (POLLRDHUP | POLLHUP | POLLERR)) {
        throw Error(fmt::format("rank {} closed the connection during the rendezvous (it probably died)",
                                arrived_ranks[i - first_arrived]));
      }
    }
    if (Clock::now() >= end && rc <= 0) {
      std::vector<int> missing;
      for (int r = 1; r < world_; ++r) {
        if (peers_[static_cast<std::size_t>(r)].get() < 0) missing.push_back(r);
      }
      throw Error(fmt::format(
          "rendezvous on {}:{} timed out after {} s: rank{} {} of {} never arrived (check that every rank "
          "was "
          "started with the same MASTER_ADDR/MASTER_PORT and WORLD_SIZE, and that the port is reachable)",
          addr_, port_, timeout_s_, missing.size() == 1 ? "" : "s", rank_list(missing), world_));
    }
    if (fds[0].revents & POLLIN) {
      int c = ::accept(listener_.get(), nullptr, nullptr);
      if (c >= 0) {
        set_nonblocking(c);
        pending.emplace_back(Fd(c), MessageReader{});
      }
    }
    for (std::size_t i = 0; i < pending.size();) {
      auto& [fd, reader] = pending[i];
      bool drop = false;
      try {
        reader.pump(fd.get(), "a connecting rank");
      } catch (const Error&) {
        drop = true;  // a stray connection or a rank that died mid-introduction: not one of ours yet
      }
      if (!drop && reader.done) {
        int r = -1, w = -1;
        char magic[sizeof kMagic] = {};
        if (std::sscanf(reader.body.c_str(), "%19s %d %d", magic, &r, &w) != 3 ||
            std::strcmp(magic, kMagic) != 0) {
          drop = true;
        } else if (w != world_) {
          throw Error(
              fmt::format("rank {} was started with a world of {} ranks, rank 0 with {}; start every rank "
                          "with the same WORLD_SIZE",
                          r, w, world_));
        } else if (r <= 0 || r >= world_ || peers_[static_cast<std::size_t>(r)].get() >= 0) {
          throw Error(
              fmt::format("two processes claim rank {} (or it is out of range for {} ranks)", r, world_));
        } else {
          peers_[static_cast<std::size_t>(r)] = std::move(fd);
          ++arrived;
          drop = true;  // handled: remove from pending
        }
      }
      if (drop || reader.done) {
        pending.erase(pending.begin() + static_cast<std::ptrdiff_t>(i));
      } else {
        ++i;
      }
    }
  }
}

void TcpBootstrap::connect_to_root() {
  auto end = deadline();
  std::string last_error = "no answer";
  while (Clock::now() < end) {
    AddrInfo ai(addr_, port_);
    for (addrinfo* a = ai.list; a != nullptr; a = a->ai_next) {
      Fd s(::socket(a->ai_family, a->ai_socktype, a->ai_protocol));
      if (s.get() < 0) continue;
      set_nonblocking(s.get());
      int rc = ::connect(s.get(), a->ai_addr, a->ai_addrlen);
      if (rc != 0 && errno != EINPROGRESS) {
        last_error = std::strerror(errno);
        continue;
      }
      if (rc != 0) {
        if (!wait_fd(s.get(), POLLOUT, std::min(end, Clock::now() + std::chrono::seconds(1)))) continue;
        int err = 0;
        socklen_t len = sizeof err;
        ::getsockopt(s.get(), SOL_SOCKET, SO_ERROR, &err, &len);
        if (err != 0) {
          last_error = std::strerror(err);
          continue;
        }
      }
      send_message(s.get(), fmt::format("{} {} {}", kMagic, rank_, world_), end, "rank 0");
      peers_[0] = std::move(s);
      return;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  throw Error(
      fmt::format("rank {} could not reach rank 0 at {}:{} within {} s ({}): rank 0 not started, wrong "
                  "MASTER_ADDR/MASTER_PORT, or a firewall",
                  rank_, addr_, port_, timeout_s_, last_error));
}

std::string TcpBootstrap::broadcast(const std::string& blob) {
  auto end = deadline();
  if (rank_ == 0) {
    for (int r = 1; r < world_; ++r) {
      send_message(peers_[static_cast<std::size_t>(r)].get(), blob, end, fmt::format("rank {}", r));
    }
    return blob;
  }
  return receive_message(peers_[0].get(), end, "rank 0", timeout_s_);
}

std::vector<std::string> TcpBootstrap::gather(const std::string& mine) {
  auto end = deadline();
  if (rank_ != 0) {
    send_message(peers_[0].get(), mine, end, "rank 0");
    return {};
  }
  std::vector<std::string> out(static_cast<std::size_t>(world_));
  out[0] = mine;
  std::vector<MessageReader> readers(static_cast<std::size_t>(world_));
  int received = 1;
  while (received < world_) {
    std::vector<pollfd> fds;
    std::vector<int> ranks;
    for (int r = 1; r < world_; ++r) {
      if (readers[static_cast<std::size_t>(r)].done) continue;
      fds.push_back({peers_[static_cast<std::size_t>(r)].get(), POLLIN, 0});
      ranks.push_back(r);
    }
    int rc = ::poll(fds.data(), fds.size(), ms_left(end));
    if (rc < 0 && errno != EINTR) MLBENCH_CHECK_SYS(rc);
    if (rc <= 0 && Clock::now() >= end) {
      throw Error(
          fmt::format("timed out after {} s waiting for the results of rank{} {} of {} (hung or too slow; "
                      "raise --timeout if they are still measuring)",
                      timeout_s_, ranks.size() == 1 ? "" : "s", rank_list(ranks), world_));
    }
    for (std::size_t i = 0; i < fds.size(); ++i) {
      if (fds[i].revents == 0) continue;
      auto r = static_cast<std::size_t>(ranks[i]);
      readers[r].pump(fds[i].fd, fmt::format("rank {}", ranks[i]));
      if (readers[r].done) {
        out[r] = std::move(readers[r].body);
        ++received;
      }
    }
  }
  return out;
}

}  // namespace mlbench::net
