#include "network/bootstrap.hpp"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <poll.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <iostream>
#include <random>
#include <thread>

#include <fmt/format.h>

#include "base/error.hpp"
#include "bench/runner.hpp"
#include "network/text.hpp"

namespace mlbench::net {
namespace {

using Clock = std::chrono::steady_clock;

// The protocol's first word; a new version gets a new word, so that mixed versions refuse each other.
constexpr std::string_view kMagic = "mlbench-bootstrap-3";

// A poll timeout: what is left until the deadline, at most kStopCheckMs so that the stop flag is seen.
int ms_left(Clock::time_point deadline) {
  auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
  return left <= 0 ? 0 : static_cast<int>(std::min<long long>(left, kStopCheckMs));
}

void check_stop() {
  if (stop_flag().load()) throw Interrupted();
}

// `seconds` from now; the caller bounds seconds (kMaxTimeoutS), so the time point cannot overflow.
Clock::time_point after(double seconds) {
  return Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(seconds));
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

// Waits until fd is ready for `events` or the deadline passes; false on timeout, Interrupted when the stop
// flag is set while it waits (a descriptor that is ready at once is never interrupted).
bool wait_fd(int fd, short events, Clock::time_point deadline) {
  while (true) {
    pollfd p{fd, events, 0};
    int rc = ::poll(&p, 1, ms_left(deadline));
    if (rc > 0) return true;
    if (rc < 0 && errno != EINTR) MLBENCH_CHECK_SYS(rc);
    check_stop();
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
  const std::string frame = encode_frame(msg);
  send_all(fd, frame.data(), frame.size(), deadline, peer);
}

// One attempt, never blocking: a stranger that is refused gets its answer when it reads, or not at all.
void try_send_message(int fd, const std::string& msg) {
  const std::string frame = encode_frame(msg);
  [[maybe_unused]] ssize_t w = ::send(fd, frame.data(), frame.size(), MSG_NOSIGNAL | MSG_DONTWAIT);
}

// Reads what is available into `frame`; throws when the peer closed the connection or the frame is too long.
void pump(int fd, FrameDecoder& frame, const std::string& peer) {
  char buf[65536];
  while (!frame.done()) {
    ssize_t r = ::recv(fd, buf, std::min(frame.wanted(), sizeof buf), 0);
    if (r == 0) throw Error(fmt::format("{} closed the connection (it probably died)", peer));
    if (r < 0) {
      const int e = errno;
      if (e == EAGAIN || e == EWOULDBLOCK || e == EINTR) return;
      throw Error(fmt::format("receive from {} failed: {}{}", peer, std::strerror(e),
                              e == ECONNRESET ? " (it probably died)" : ""));
    }
    frame.feed(std::string_view(buf, static_cast<std::size_t>(r)));
  }
}

std::string receive_message(int fd, Clock::time_point deadline, const std::string& peer, double timeout_s,
                            std::uint64_t max_body = kMaxMessage) {
  FrameDecoder frame(max_body);
  while (!frame.done()) {
    if (!wait_fd(fd, POLLIN, deadline)) {
      throw Error(fmt::format("timed out after {} s waiting for {}", timeout_s, peer));
    }
    pump(fd, frame, peer);
  }
  return std::move(frame.body());
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

// The address a stranger connected from, for the warnings: "10.0.0.7:45678", "[fe80::1]:45678".
std::string peer_name(const sockaddr_storage& a) {
  char host[INET6_ADDRSTRLEN] = "?";
  int port = 0;
  if (a.ss_family == AF_INET) {
    const auto& v4 = reinterpret_cast<const sockaddr_in&>(a);
    ::inet_ntop(AF_INET, &v4.sin_addr, host, sizeof host);
    port = ntohs(v4.sin_port);
    return fmt::format("{}:{}", host, port);
  }
  if (a.ss_family == AF_INET6) {
    const auto& v6 = reinterpret_cast<const sockaddr_in6&>(a);
    ::inet_ntop(AF_INET6, &v6.sin6_addr, host, sizeof host);
    port = ntohs(v6.sin6_port);
  }
  return fmt::format("[{}]:{}", host, port);
}

// A count as format_introduction writes it: decimal digits, no sign, no leading zero, within int.
std::optional<int> parse_count(std::string_view text) {
  if (text.empty() || text.size() > 9 || (text.size() > 1 && text.front() == '0')) return std::nullopt;
  int value = 0;
  for (char ch : text) {
    if (ch < '0' || ch > '9') return std::nullopt;
    value = value * 10 + (ch - '0');
  }
  return value;
}

// A nonce or a proof: exactly `digits` lowercase hex digits.
bool hex_digits(std::string_view text, std::size_t digits) {
  return text.size() == digits && lower_hex(text);
}

std::string_view as_chars(const unsigned char* bytes, std::size_t n) {
  return {reinterpret_cast<const char*>(bytes), n};
}

// HMAC-SHA256(token, role, both nonces, rank, world size, job id) as hex. Every field is free of spaces and
// newlines, so the message is unambiguous.
std::string proof(std::string_view role, std::string_view token, std::string_view root_nonce,
                  const Introduction& intro) {
  const std::string message = fmt::format("{} {}\n{}\n{}\n{} {} {}", kMagic, role, root_nonce, intro.nonce,
                                          intro.rank, intro.world_size, intro.job_id);
  unsigned char mac[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  if (::HMAC(EVP_sha256(), token.data(), static_cast<int>(token.size()),
             reinterpret_cast<const unsigned char*>(message.data()), message.size(), mac,
             &length) == nullptr) {
    throw Error("HMAC-SHA256 failed in libcrypto");
  }
  return to_hex(as_chars(mac, length));
}

void print_warning(const std::string& text) { std::cerr << "mlbench: warning: " << text << "\n"; }

}  // namespace

std::string encode_frame(std::string_view body) {
  std::string out(8, '\0');
  const std::uint64_t length = body.size();
  for (std::size_t i = 0; i < 8; ++i)
    out[i] = static_cast<char>(static_cast<unsigned char>(length >> (8 * i)));
  out.append(body);
  return out;
}

std::size_t FrameDecoder::wanted() const {
  if (header_.size() < 8) return 8 - header_.size();
  return static_cast<std::size_t>(length_ - body_.size());
}

std::size_t FrameDecoder::feed(std::string_view bytes) {
  std::size_t taken = 0;
  while (taken < bytes.size() && !done()) {
    const auto part = bytes.substr(taken, wanted());
    taken += part.size();
    if (header_.size() == 8) {
      body_.append(part);
      continue;
    }
    header_.append(part);
    if (header_.size() < 8) continue;
    for (std::size_t i = 0; i < 8; ++i)
      length_ |= std::uint64_t{static_cast<unsigned char>(header_[i])} << (8 * i);
    if (length_ > max_body_) {
      throw Error(
          fmt::format("announced a message of {} bytes, more than the {} allowed", length_, max_body_));
    }
  }
  return taken;
}

std::string format_challenge(std::string_view nonce) { return fmt::format("{} challenge {}", kMagic, nonce); }

std::optional<std::string> parse_challenge(std::string_view body) {
  const std::string prefix = fmt::format("{} challenge ", kMagic);
  if (!body.starts_with(prefix) || !hex_digits(body.substr(prefix.size()), kNonceHexDigits))
    return std::nullopt;
  return std::string(body.substr(prefix.size()));
}

std::string new_nonce() {
  unsigned char bytes[kNonceHexDigits / 2];
  std::size_t got = 0;
  while (got < sizeof bytes) {
    const ssize_t n = ::getrandom(bytes + got, sizeof bytes - got, 0);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0)
      throw Error(
          fmt::format("getrandom failed: {} (the rendezvous needs random nonces)", std::strerror(errno)));
    got += static_cast<std::size_t>(n);
  }
  return to_hex(as_chars(bytes, sizeof bytes));
}

std::string rank_proof(std::string_view token, std::string_view root_nonce, const Introduction& intro) {
  return proof("rank", token, root_nonce, intro);
}

std::string root_proof(std::string_view token, std::string_view root_nonce, const Introduction& intro) {
  return proof("root", token, root_nonce, intro);
}

bool same_proof(std::string_view a, std::string_view b) {
  return a.size() == b.size() && CRYPTO_memcmp(a.data(), b.data(), a.size()) == 0;
}

std::string escape_peer_text(std::string_view text) {
  std::string out;
  for (char ch : text) {
    if (printable_char(ch)) {
      out += ch;
    } else {
      out += fmt::format("\\x{:02x}", static_cast<unsigned char>(ch));
    }
  }
  return out;
}

std::string format_introduction(const Introduction& intro) {
  return fmt::format("{} {} {} {} {} {}", kMagic, intro.rank, intro.world_size, intro.job_id, intro.nonce,
                     intro.proof);
}

std::optional<Introduction> parse_introduction(std::string_view body, std::string& why) {
  std::vector<std::string_view> words;
  for (std::size_t pos = 0; words.size() <= 6;) {
    const auto space = body.find(' ', pos);
    words.push_back(body.substr(pos, space == std::string_view::npos ? space : space - pos));
    if (space == std::string_view::npos) break;
    pos = space + 1;
  }
  if (words.front() != kMagic) {
    why = fmt::format(
        "not an mlbench introduction: it does not start with '{}' (another program, or another "
        "mlbench version)",
        kMagic);
    return std::nullopt;
  }
  if (words.size() != 6) {
    why = fmt::format("malformed introduction: not '{} RANK WORLD_SIZE JOB_ID NONCE PROOF'", kMagic);
    return std::nullopt;
  }
  const auto rank = parse_count(words[1]);
  const auto world = parse_count(words[2]);
  if (!rank || !world || *world < 1) {
    why = "malformed introduction: RANK and WORLD_SIZE must be decimal numbers, WORLD_SIZE at least 1";
    return std::nullopt;
  }
  if (!valid_job_id(words[3])) {
    why = fmt::format("malformed introduction: the job id is not 1 to {} printable characters without space",
                      kMaxJobIdLength);
    return std::nullopt;
  }
  if (!hex_digits(words[4], kNonceHexDigits) || !hex_digits(words[5], kProofHexDigits)) {
    why = fmt::format("malformed introduction: NONCE and PROOF must be {} and {} lowercase hex digits",
                      kNonceHexDigits, kProofHexDigits);
    return std::nullopt;
  }
  return Introduction{*rank, *world, std::string(words[3]), std::string(words[4]), std::string(words[5])};
}

std::string format_answer(const Answer& answer) {
  if (answer.admitted) return fmt::format("{} ok {}", kMagic, answer.proof);
  std::string reason = answer.reason.empty() ? std::string("no reason given") : answer.reason;
  for (char& ch : reason) {
    if (!printable_char(ch)) ch = '?';
  }
  return fmt::format("{} refused {}", kMagic, reason);
}

std::optional<Answer> parse_answer(std::string_view body) {
  if (!body.starts_with(kMagic)) return std::nullopt;
  const auto rest = body.substr(kMagic.size());
  constexpr std::string_view kOk = " ok ";
  if (rest.starts_with(kOk) && hex_digits(rest.substr(kOk.size()), kProofHexDigits))
    return Answer{true, {}, std::string(rest.substr(kOk.size()))};
  constexpr std::string_view kRefused = " refused ";
  if (!rest.starts_with(kRefused) || rest.size() == kRefused.size() || !printable_line(rest))
    return std::nullopt;
  return Answer{false, std::string(rest.substr(kRefused.size())), {}};
}

std::string judge_introduction(const Introduction& intro, const JobId& job, std::string_view token,
                               std::string_view root_nonce, const std::vector<bool>& joined) {
  const int world = static_cast<int>(joined.size());
  // Nothing of rank 0's job before the proof holds: a stranger must not learn the job id or its source.
  if (!same_proof(intro.proof, rank_proof(token, root_nonce, intro))) {
    return "the proof of the job token is wrong: this process was not given rank 0's MLBENCH_JOB_TOKEN "
           "(or another job's rank 0 listens on this MASTER_ADDR:MASTER_PORT); start every rank of the job "
           "with the same MLBENCH_JOB_TOKEN, and give each job its own MASTER_PORT";
  }
  if (intro.job_id != job.value) {
    return fmt::format(
        "rank 0 runs job '{}' ({}), this process job '{}': two jobs share one MASTER_ADDR:MASTER_PORT; give "
        "each job its own MASTER_PORT",
        job.value, job.source, intro.job_id);
  }
  if (intro.world_size != world) {
    return fmt::format(
        "rank 0 was started with a world of {} ranks, this rank with {}; start every rank with the same "
        "WORLD_SIZE",
        world, intro.world_size);
  }
  if (intro.rank < 1 || intro.rank >= world) {
    return fmt::format("rank {} is not one of the ranks 1 to {} that connect to rank 0", intro.rank,
                       world - 1);
  }
  if (joined[static_cast<std::size_t>(intro.rank)]) {
    return fmt::format("rank {} has already joined (two processes started as rank {}?)", intro.rank,
                       intro.rank);
  }
  return {};
}

JobId rendezvous_job_id(int rank, const std::optional<JobId>& from_launcher) {
  if (from_launcher) return *from_launcher;
  if (rank != 0) {
    throw UsageError(
        fmt::format("rank {} has no job id (none of {} is set), so it could join another job's rank 0: set "
                    "MLBENCH_JOB_ID "
                    "to the id rank 0 printed, or start every rank with the same MLBENCH_JOB_ID",
                    rank, job_id_variables()));
  }
  std::random_device random;
  std::string id;
  for (int i = 0; i < 4; ++i) id += fmt::format("{:08x}", random());
  print_warning(fmt::format(
      "no launcher job id in the environment (none of {}): this rendezvous is job '{}'; start the "
      "other ranks with MLBENCH_JOB_ID={} (or every rank with one MLBENCH_JOB_ID of your choice)",
      job_id_variables(), id, id));
  return {id, "generated by rank 0"};
}

std::string rendezvous_token(int rank, const std::optional<std::string>& from_launcher) {
  if (from_launcher) return *from_launcher;
  throw UsageError(fmt::format(
      "rank {} has no MLBENCH_JOB_TOKEN: the TCP rendezvous admits only ranks that prove they hold the job's "
      "secret token; give every rank the same random one, e.g. export MLBENCH_JOB_TOKEN=$({}) before "
      "starting "
      "them",
      rank, kMakeJobToken));
}

TcpBootstrap::TcpBootstrap(int rank, int world_size, const std::string& addr, int port, double timeout_s,
                           JobId job, std::string token, StrangerLimits limits)
    : rank_(rank),
      world_(world_size),
      addr_(addr),
      port_(port),
      timeout_s_(timeout_s),
      job_(std::move(job)),
      token_(std::move(token)),
      limits_(limits) {
  if (!(timeout_s > 0 && timeout_s <= kMaxTimeoutS)) {
    throw UsageError(
        fmt::format("the rendezvous timeout {} s is outside (0, {}] s", timeout_s, kMaxTimeoutS));
  }
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

TcpBootstrap::Clock::time_point TcpBootstrap::deadline() const { return after(timeout_s_); }

void TcpBootstrap::refuse(const std::string& warning) {
  ++refused_;
  last_refusal_ = warning;
  if (refusals_.size() == kMaxKeptRefusals) return;
  refusals_.push_back(warning);
  print_warning(warning);
  if (refusals_.size() == kMaxKeptRefusals)
    print_warning("further refused connections are counted, not printed");
}

void TcpBootstrap::accept_all() {
  AddrInfo ai(addr_, port_);
  std::string last_error;
  for (addrinfo* a = ai.list; a != nullptr && listener_.get() < 0; a = a->ai_next) {
    OwnedFd s(::socket(a->ai_family, a->ai_socktype, a->ai_protocol));
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
  const auto end = deadline();
  const auto intro_wait = after(limits_.introduction_wait_s) - Clock::now();
  const std::string here = fmt::format("rendezvous on {}:{}", addr_, port_);
  struct Stranger {
    OwnedFd fd;
    FrameDecoder intro{kMaxIntroduction};
    Clock::time_point until;
    std::string from;
    std::string nonce;  // the challenge it must answer
  };
  std::vector<Stranger> strangers;
  std::vector<bool> joined(static_cast<std::size_t>(world_), false);
  joined[0] = true;
  int arrived = 1;
  while (arrived < world_) {
    // With the most strangers held, the listener is not watched: newcomers wait in the kernel's queue.
    const bool room = strangers.size() < limits_.max_strangers;
    std::vector<pollfd> fds{{listener_.get(), static_cast<short>(room ? POLLIN : 0), 0}};
    auto wake = end;
    for (const auto& s : strangers) {
      fds.push_back({s.fd.get(), POLLIN, 0});
      wake = std::min(wake, s.until);
    }
    // Ranks that arrived are watched for a hang-up only (their next message is read later): one that dies
    // while the others are still coming ends the rendezvous at once, named, instead of at the timeout.
    const std::size_t first_arrived = fds.size();
    std::vector<int> arrived_ranks;
    for (int r = 1; r < world_; ++r) {
      if (peers_[static_cast<std::size_t>(r)].get() < 0) continue;
      fds.push_back({peers_[static_cast<std::size_t>(r)].get(), POLLRDHUP, 0});
      arrived_ranks.push_back(r);
    }
    int rc = ::poll(fds.data(), fds.size(), ms_left(wake));
    if (rc < 0 && errno != EINTR) MLBENCH_CHECK_SYS(rc);
    check_stop();
    for (std::size_t i = first_arrived; i < fds.size(); ++i) {
      if (fds[i].revents & (POLLRDHUP | POLLHUP | POLLERR)) {
        throw Error(fmt::format("rank {} closed the connection during the rendezvous (it probably died)",
                                arrived_ranks[i - first_arrived]));
      }
    }
    // Checked even when connections keep coming: a stream of strangers must not extend the rendezvous.
    if (Clock::now() >= end) {
      std::vector<int> missing;
      for (int r = 1; r < world_; ++r) {
        if (!joined[static_cast<std::size_t>(r)]) missing.push_back(r);
      }
      throw Error(fmt::format(
          "{} timed out after {} s: rank{} {} of {} never arrived "
          "(check that every rank was started with the same MASTER_ADDR/MASTER_PORT, WORLD_SIZE and job id, "
          "and that the port is reachable){}",
          here, timeout_s_, missing.size() == 1 ? "" : "s", rank_list(missing), world_,
          refused_ == 0 ? std::string()
                        : fmt::format("; {} connection{} refused meanwhile, the last: {}", refused_,
                                      refused_ == 1 ? " was" : "s were", last_refusal_)));
    }
    while (fds[0].revents & POLLIN && strangers.size() < limits_.max_strangers) {
      sockaddr_storage from{};
      socklen_t len = sizeof from;
      // Owned at once: whatever throws below (no random bytes for the nonce) closes it.
      OwnedFd c(::accept4(listener_.get(), reinterpret_cast<sockaddr*>(&from), &len, SOCK_NONBLOCK));
      if (c.get() < 0) break;  // nothing more queued, or a connection that was reset while queued
      int one = 1;
      ::setsockopt(c.get(), IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
      // The challenge goes out at once; a fresh socket's buffer takes it whole.
      std::string nonce = new_nonce();
      try_send_message(c.get(), format_challenge(nonce));
      strangers.push_back({std::move(c), FrameDecoder(kMaxIntroduction), Clock::now() + intro_wait,
                           peer_name(from), std::move(nonce)});
    }
    for (std::size_t i = 0; i < strangers.size();) {
      Stranger& s = strangers[i];
      bool leave = false;
      try {
        pump(s.fd.get(), s.intro, s.from);
      } catch (const Error& e) {
        leave = true;
        // One that closes before sending a byte is a port check, not worth a warning.
        if (s.intro.started())
          refuse(fmt::format("{} dropped a connection from {}: {}", here, s.from, e.what()));
      }
      if (!leave && s.intro.done()) {
        leave = true;
        std::string why;
        auto intro = parse_introduction(s.intro.body(), why);
        std::string reason = intro ? judge_introduction(*intro, job_, token_, s.nonce, joined) : why;
        if (!intro) {
          try_send_message(s.fd.get(), format_answer({false, why}));
          refuse(fmt::format("{} dropped a connection from {}: {}", here, s.from, why));
        } else if (!reason.empty()) {
          try_send_message(s.fd.get(), format_answer({false, reason}));
          refuse(fmt::format("{} refused a connection from {} claiming rank {} of job '{}': {}", here, s.from,
                             intro->rank, intro->job_id, reason));
        } else {
          try {
            send_message(s.fd.get(), format_answer({true, {}, root_proof(token_, s.nonce, *intro)}),
                         std::min(end, Clock::now() + intro_wait), s.from);
            peers_[static_cast<std::size_t>(intro->rank)] = std::move(s.fd);
            joined[static_cast<std::size_t>(intro->rank)] = true;
            ++arrived;
          } catch (const Interrupted&) {
            throw;
          } catch (const Error& e) {
            refuse(fmt::format("{} dropped {} (rank {}): {}", here, s.from, intro->rank, e.what()));
          }
        }
      }
      if (!leave && Clock::now() >= s.until) {
        leave = true;
        refuse(fmt::format("{} dropped a connection from {}: no complete introduction within {} s", here,
                           s.from, limits_.introduction_wait_s));
      }
      if (leave) {
        strangers.erase(strangers.begin() + static_cast<std::ptrdiff_t>(i));
      } else {
        ++i;
      }
    }
  }
}

void TcpBootstrap::connect_to_root() {
  auto end = deadline();
  const std::string root = fmt::format("rank 0 at {}:{}", addr_, port_);
  std::string last_error = "no answer";
  while (Clock::now() < end) {
    AddrInfo ai(addr_, port_);
    for (addrinfo* a = ai.list; a != nullptr; a = a->ai_next) {
      OwnedFd s(::socket(a->ai_family, a->ai_socktype, a->ai_protocol));
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
      // The exchange's own failures (a timeout, a closed connection) name the introduction that went
      // unanswered; its verdicts are thrown as they are.
      const auto exchange = [&](const std::string* send) {
        try {
          if (send != nullptr) send_message(s.get(), *send, end, root);
          return receive_message(s.get(), end, root, timeout_s_, kMaxIntroduction);
        } catch (const Interrupted&) {
          throw;
        } catch (const Error& e) {
          if (send != nullptr)
            throw Error(fmt::format("no answer to rank {}'s introduction: {}", rank_, e.what()));
          // An mlbench of the previous protocol waits for the introduction first and drops a silent peer.
          throw Error(fmt::format(
              "no challenge from {} to rank {}: {} (is every rank the same mlbench version? an older rank 0 "
              "sends none)",
              root, rank_, e.what()));
        }
      };
      const auto not_rank_zero = [&](std::string_view what) {
        return Error(fmt::format(
            "the program at {}:{} is not an mlbench rank 0 of this version (its {} is not '{} ...'); check "
            "MASTER_ADDR/MASTER_PORT",
            addr_, port_, what, kMagic));
      };
      auto root_nonce = parse_challenge(exchange(nullptr));
      if (!root_nonce) throw not_rank_zero("first message");
      Introduction intro{rank_, world_, job_.value, new_nonce(), {}};
      intro.proof = rank_proof(token_, *root_nonce, intro);
      const std::string introduction = format_introduction(intro);
      auto answer = parse_answer(exchange(&introduction));
      if (!answer) throw not_rank_zero("answer");
      if (!answer->admitted) {
        throw UsageError(
            fmt::format("{} refused rank {} of job '{}': {}", root, rank_, job_.value, answer->reason));
      }
      if (!same_proof(answer->proof, root_proof(token_, *root_nonce, intro))) {
        throw UsageError(fmt::format(
            "{} admitted rank {} without proving that it holds this job's MLBENCH_JOB_TOKEN: rank 0 "
            "was given another token, or another program answers on MASTER_ADDR/MASTER_PORT; this "
            "rank sends it nothing more",
            root, rank_));
      }
      peers_[0] = std::move(s);
      return;
    }
    check_stop();
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
  std::vector<FrameDecoder> readers(static_cast<std::size_t>(world_), FrameDecoder(kMaxMessage));
  std::vector<bool> settled(static_cast<std::size_t>(world_), false);  // received, or vanished
  std::vector<std::string> vanished;
  for (int r = 1; r < world_; ++r) {
    if (peers_[static_cast<std::size_t>(r)].get() >= 0) continue;
    vanished.push_back(fmt::format("rank {} had vanished before", r));
    settled[static_cast<std::size_t>(r)] = true;
  }
  while (true) {
    std::vector<pollfd> fds;
    std::vector<int> ranks;
    for (int r = 1; r < world_; ++r) {
      if (settled[static_cast<std::size_t>(r)]) continue;
      fds.push_back({peers_[static_cast<std::size_t>(r)].get(), POLLIN, 0});
      ranks.push_back(r);
    }
    if (fds.empty()) break;
    int rc = ::poll(fds.data(), fds.size(), ms_left(end));
    if (rc < 0 && errno != EINTR) MLBENCH_CHECK_SYS(rc);
    check_stop();
    if (rc <= 0 && Clock::now() >= end) {
      auto hung = fmt::format(
          "timed out after {} s waiting for the results of rank{} {} of {} "
          "(hung or too slow; raise --timeout if they are still measuring)",
          timeout_s_, ranks.size() == 1 ? "" : "s", rank_list(ranks), world_);
      vanished.insert(vanished.begin(), std::move(hung));
      break;
    }
    for (std::size_t i = 0; i < fds.size(); ++i) {
      if (fds[i].revents == 0) continue;
      auto r = static_cast<std::size_t>(ranks[i]);
      try {
        pump(fds[i].fd, readers[r], fmt::format("rank {}", ranks[i]));
      } catch (const Error& e) {
        // Closed here so that finish() skips it; the others' results are still collected.
        vanished.emplace_back(e.what());
        peers_[r] = OwnedFd();
        settled[r] = true;
        continue;
      }
      if (readers[r].done()) {
        out[r] = std::move(readers[r].body());
        settled[r] = true;
      }
    }
  }
  if (!vanished.empty()) {
    std::vector<std::optional<std::string>> received(out.size());
    for (std::size_t r = 0; r < out.size(); ++r) {
      if (r == 0 || (settled[r] && peers_[r].get() >= 0)) received[r] = std::move(out[r]);
    }
    throw RanksVanished(join_bounded(vanished, kMaxText), std::move(received));
  }
  return out;
}

std::string TcpBootstrap::finish(const std::string& status) {
  if (rank_ == 0) {
    auto end = deadline();
    for (int r = 1; r < world_; ++r) {
      const int fd = peers_[static_cast<std::size_t>(r)].get();
      if (fd < 0) continue;
      try {
        send_message(fd, status, end, fmt::format("rank {}", r));
      } catch (const Error&) {
        // It died after sending its results (it has nobody left to tell), or this run is being interrupted:
        // the status is a few bytes that a live rank's socket takes at once, and the others are not waited
        // for.
      }
    }
    return status;
  }
  // Rank 0 answers once every rank's results are in, which it waits for at most the timeout after its own
  // measurement ended; the ranks measure together (the collectives synchronise them), hence twice the
  // timeout from here.
  const double wait_s = 2 * timeout_s_;
  try {
    return receive_message(peers_[0].get(), after(wait_s), "rank 0", wait_s);
  } catch (const Interrupted&) {
    throw;
  } catch (const Error& e) {
    throw Error(fmt::format("no final status from rank 0 (it died or failed; see its output): {}", e.what()));
  }
}

}  // namespace mlbench::net
