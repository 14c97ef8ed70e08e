// How the ranks of a multi-process run find each other before NCCL exists: exchange of the NCCL unique id
// (rank 0 → all), the gather of every rank's inventory and results (all → rank 0), and rank 0's final status
// (rank 0 → all), so that a rank that dies during the measurement fails every surviving rank, not only
// rank 0.
//
// TcpBootstrap: rank 0 listens on MASTER_ADDR:MASTER_PORT; every other rank connects (retrying while rank 0
// is not up yet), introduces itself and waits for rank 0's answer. Every message is a frame: an 8-byte
// little-endian length, then that many bytes. Every wait is bounded by the timeout: rank 0's error names the
// ranks that never arrived (or never sent), the others' error names the address that never answered; a
// connection closed early (a rank died) ends the wait at once.
//
// Who gets in. A connection that has not introduced itself yet is a stranger: rank 0 sends it a challenge (a
// fresh random nonce) at once; its introduction may be at most kMaxIntroduction bytes and must be complete
// within kIntroductionWaitS of its acceptance, and rank 0 holds at most kMaxStrangers of them (the others
// wait in the kernel's listen queue until one leaves). The introduction is "mlbench-bootstrap-3 RANK
// WORLD_SIZE JOB_ID NONCE PROOF": the joining rank's own nonce, and its proof that it holds the job token,
// HMAC-SHA256(token, "rank", rank 0's nonce, its nonce, rank, world size, job id). Rank 0 judges the proof
// first, over the job id the peer claims: a wrong proof (another token, or a stranger who guessed the job id)
// is told only that, never rank 0's job id or its source. A peer that holds the token but was started for
// another job id is refused naming both ids (two jobs on one port, or ranks given different ids); so are one
// started with another world size, a rank out of range and a rank that has already joined. Rank 0 answers
// the peer why (which the peer turns into its one-line error, exit 2), warns on its own stderr, and goes on
// waiting for its real ranks. Garbage, oversized and silent strangers are dropped with a warning.
// Refusals never end the rendezvous. Rank 0 admits a rank with its own proof, HMAC-SHA256(token, "root", the
// rank's nonce, ...), which the rank checks: a program that does not hold the token cannot pose as rank 0 and
// collect the ranks' results. Both nonces are fresh, so a proof seen on the wire is worth nothing later; the
// token itself never crosses the wire. The rank proves itself first on purpose: whichever side proves first
// hands the other an HMAC over a message it chose, which a weak token would let it guess offline; proving
// first to whoever answers on MASTER_ADDR:MASTER_PORT (a program must hold rank 0's address and port) is
// safer than to whoever connects there (anyone who reaches the port), and rank 0 proves nothing to a peer
// whose proof is wrong. The token's minimum length (launch_env.hpp) makes the guess hopeless either way. (The
// traffic is not encrypted: a machine that can stand between two ranks can read it; the token keeps strangers
// out, it is not a secure channel.)
//
// Every wait honours the stop flag (bench/runner.hpp stop_flag(), set by SIGINT/SIGTERM under a SignalGuard):
// it throws Interrupted within kStopCheckMs.
//
// MpiBootstrap (network/mpi_bootstrap.hpp, only when built with MPI) does the same over MPI_COMM_WORLD.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/error.hpp"
#include "base/owned_fd.hpp"
#include "network/launch_env.hpp"

namespace mlbench::net {

// Rank 0's gather when ranks vanished (closed the connection, or sent nothing in time): what() names every
// one of them, received() holds the message of each rank that did send (indexed by rank; nullopt for a
// vanished one), so that the survivors' results still reach the report.
class RanksVanished : public Error {
 public:
  RanksVanished(const std::string& what, std::vector<std::optional<std::string>> received)
      : Error(what), received_(std::move(received)) {}
  const std::vector<std::optional<std::string>>& received() const { return received_; }

 private:
  std::vector<std::optional<std::string>> received_;
};

class Bootstrap {
 public:
  virtual ~Bootstrap() = default;
  virtual int rank() const = 0;
  virtual int world_size() const = 0;
  virtual std::string describe() const = 0;  // "tcp 10.0.0.1:29500", "mpi"
  // Every rank returns rank 0's `blob` (other ranks' argument is ignored).
  virtual std::string broadcast(const std::string& blob) = 0;
  // Rank 0 returns every rank's message, indexed by rank; the others return an empty vector. When ranks
  // vanish, rank 0 still collects the others' messages, then throws RanksVanished naming every vanished rank
  // and holding the messages that arrived.
  virtual std::vector<std::string> gather(const std::string& mine) = 0;
  // The last exchange. Rank 0 sends `status` to every rank still connected (one that vanished is skipped)
  // and returns it; every other rank returns rank 0's status, or throws Error naming rank 0 when the
  // connection closes or nothing comes in time (rank 0 died or failed).
  virtual std::string finish(const std::string& status) = 0;
};

// ---- The wire format, as pure functions over bytes (the bootstrap fuzz target feeds them directly).

inline constexpr std::uint64_t kMaxMessage = std::uint64_t{1} << 30;  // a joined rank's results
inline constexpr std::size_t kMaxIntroduction = 4096;  // a stranger's introduction, and rank 0's answer
inline constexpr std::size_t kMaxStrangers = 64;
inline constexpr double kIntroductionWaitS = 5;  // a real rank sends its introduction as soon as it connects
// The longest --timeout (one day): far beyond any collective, and twice it still fits a steady_clock time
// point.
inline constexpr double kMaxTimeoutS = 86400;
inline constexpr int kStopCheckMs = 250;            // how long a wait may go without looking at the stop flag
inline constexpr std::size_t kNonceHexDigits = 32;  // 128 random bits
inline constexpr std::size_t kProofHexDigits = 64;  // an HMAC-SHA256

// How many strangers rank 0 holds and how long each may take (tests shrink them to see them act).
struct StrangerLimits {
  std::size_t max_strangers = kMaxStrangers;
  double introduction_wait_s = kIntroductionWaitS;
};

// The frame of `body`: its length (8 bytes, little-endian), then the body.
std::string encode_frame(std::string_view body);

// Decodes one frame from bytes as they arrive, never reading past it (the next frame stays in the socket).
class FrameDecoder {
 public:
  explicit FrameDecoder(std::uint64_t max_body) : max_body_(max_body) {}
  // How many bytes feed() takes at most now; 0 once the frame is complete.
  std::size_t wanted() const;
  // Takes the first min(bytes.size(), wanted()) bytes and returns how many it took. Throws Error when the
  // length announces more than max_body (before anything of the body is buffered).
  std::size_t feed(std::string_view bytes);
  bool done() const { return header_.size() == 8 && body_.size() == length_; }
  bool started() const { return !header_.empty(); }
  std::string& body() { return body_; }

 private:
  std::uint64_t max_body_;
  std::string header_, body_;
  std::uint64_t length_ = 0;
};

// Rank 0's first message to every connection: a fresh nonce (kNonceHexDigits lowercase hex digits).
std::string format_challenge(std::string_view nonce);
// The nonce, or nullopt when `body` is not a challenge of this protocol version. Exact.
std::optional<std::string> parse_challenge(std::string_view body);
// kNonceHexDigits hex digits from the kernel's random source (getrandom).
std::string new_nonce();

struct Introduction {
  int rank = 0;
  int world_size = 0;
  std::string job_id;  // valid_job_id()
  std::string nonce;   // the joining rank's challenge to rank 0
  std::string proof;   // rank_proof()
};
std::string format_introduction(const Introduction& intro);
// The introduction `body` holds, or nullopt with `why` set. Accepts exactly what format_introduction writes
// (decimal numbers without sign or leading zero, lowercase hex), so that
// format_introduction(*parse_introduction(b)) == b.
std::optional<Introduction> parse_introduction(std::string_view body, std::string& why);

// The proofs of the job token, as lowercase hex: HMAC-SHA256 keyed with the token over the role ("rank" or
// "root"), rank 0's nonce, the rank's nonce, the rank, the world size and the job id, so that neither side's
// proof answers the other's challenge and no proof fits another connection.
std::string rank_proof(std::string_view token, std::string_view root_nonce, const Introduction& intro);
std::string root_proof(std::string_view token, std::string_view root_nonce, const Introduction& intro);
// Compares two proofs in constant time (the time does not tell how many leading digits match).
bool same_proof(std::string_view a, std::string_view b);

// Rank 0's answer to an introduction: admitted with rank 0's proof, or refused with the reason (printable
// ASCII, one line).
struct Answer {
  bool admitted = false;
  std::string reason;  // refused
  std::string proof;   // admitted: root_proof()
};
std::string format_answer(const Answer& answer);
// nullopt: not an answer of this protocol version. Exact, like parse_introduction.
std::optional<Answer> parse_answer(std::string_view body);

// Rank 0's verdict on an introduction answering the challenge `root_nonce`: "" to admit it, else the reason
// to refuse it. `joined[r]`: rank r has joined (joined.size() == world_size). The proof is judged first (it
// covers the job id the peer claims), so that a peer without the token learns nothing of rank 0's job, world
// or ranks; only a peer with the right proof of another job id is told both ids. Pure.
std::string judge_introduction(const Introduction& intro, const JobId& job, std::string_view token,
                               std::string_view root_nonce, const std::vector<bool>& joined);

// Bytes a peer sent, safe to print in one line: printable ASCII stays, every other byte (control characters,
// 0x7f, non-ASCII) becomes \xHH. Idempotent, so a text that passes several ranks is escaped once.
std::string escape_peer_text(std::string_view text);

// The job id this rank meets the others under: the launcher's (LaunchInfo::job). Without one, rank 0 makes a
// random id and prints it with how to pass it on (a warning on stderr); any other rank throws UsageError
// asking for MLBENCH_JOB_ID, since without an id it could join another job's rank 0.
JobId rendezvous_job_id(int rank, const std::optional<JobId>& from_launcher);
// The job token (LaunchInfo::token); without one, UsageError on every rank naming MLBENCH_JOB_TOKEN and how
// to make one: a TCP rendezvous never runs without a secret.
std::string rendezvous_token(int rank, const std::optional<std::string>& from_launcher);

class TcpBootstrap : public Bootstrap {
 public:
  // Connects the world (see the file comment); throws Error when the rendezvous does not complete in time,
  // UsageError when rank 0 refuses this rank, rank 0 does not prove it holds `token` or timeout_s is not in
  // (0, kMaxTimeoutS], Interrupted when the stop flag is set.
  TcpBootstrap(int rank, int world_size, const std::string& addr, int port, double timeout_s, JobId job,
               std::string token, StrangerLimits limits = {});

  int rank() const override { return rank_; }
  int world_size() const override { return world_; }
  std::string describe() const override;
  std::string broadcast(const std::string& blob) override;
  std::vector<std::string> gather(const std::string& mine) override;
  std::string finish(const std::string& status) override;

  const JobId& job() const { return job_; }
  // Rank 0: the warnings about refused or dropped connections, the first kMaxKeptRefusals of them.
  const std::vector<std::string>& refusals() const { return refusals_; }
  static constexpr std::size_t kMaxKeptRefusals = 16;

 private:
  using Clock = std::chrono::steady_clock;
  Clock::time_point deadline() const;
  void accept_all();
  void connect_to_root();
  void refuse(const std::string& warning);

  int rank_, world_;
  std::string addr_;
  int port_;
  double timeout_s_;
  JobId job_;
  std::string token_;
  StrangerLimits limits_;
  OwnedFd listener_;
  std::vector<OwnedFd> peers_;  // rank 0: one per rank (index 0 empty; closed once it vanished); others: [0]
  std::vector<std::string> refusals_;
  std::size_t refused_ = 0;
  std::string last_refusal_;
};

}  // namespace mlbench::net
