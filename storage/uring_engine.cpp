// The io_uring engine (liburing): one ring per job thread, created on that thread.
//
// Setup tries the ring flags best-first and drops one step each time the kernel answers EINVAL:
// SINGLE_ISSUER|DEFER_TASKRUN (completions are run only when we wait, on our thread: no IPIs, no wake-ups),
// then COOP_TASKRUN|TASKRUN_FLAG, then plain. SQPOLL, when asked, replaces those with a kernel submission
// thread. IOPOLL is added only when the caller says the NVMe driver has poll queues. The target files and
// the slot buffers are registered (fixed files skip the fd lookup, fixed buffers skip pinning pages on every
// I/O); a refused registration — usually the memlock limit for buffers — falls back with a warning. Each
// batch is one io_uring_submit_and_wait() system call; sequential jobs also submit each I/O as they queue it,
// with IORING_ENTER_GETEVENTS as fio does, so that completions waiting as deferred task work are posted on
// the way (that kept large reads unmerged more often than a plain submit: docs/NOTES.md).
// Completions are reaped straight from the CQ ring.
#include <liburing.h>

#include <sys/uio.h>

#include <cstdlib>
#include <cstring>
#include <memory>

#include <fmt/format.h>

#include "base/error.hpp"
#include "storage/engine.hpp"

namespace mlbench::storage {
namespace {

struct FlagSet {
  unsigned flags;
  const char* name;
};

constexpr FlagSet kFlagLadder[] = {
    {IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_DEFER_TASKRUN, "single_issuer+defer_taskrun"},
    {IORING_SETUP_COOP_TASKRUN | IORING_SETUP_TASKRUN_FLAG, "coop_taskrun"},
    {0, "plain"},
};
constexpr FlagSet kSqpollLadder[] = {
    {IORING_SETUP_SQPOLL | IORING_SETUP_SINGLE_ISSUER, "sqpoll+single_issuer"},
    {IORING_SETUP_SQPOLL, "sqpoll"},
};

bool forced_failure() {
  const char* v = std::getenv("MLBENCH_FORCE_URING_FAILURE");
  return v != nullptr && std::strcmp(v, "0") != 0 && v[0] != '\0';
}

class UringEngine final : public Engine {
 public:
  explicit UringEngine(const EngineConfig& cfg) : depth_(cfg.depth), fds_(cfg.fds) {
    if (forced_failure()) throw Error("io_uring setup refused: MLBENCH_FORCE_URING_FAILURE is set");
    const auto* ladder = cfg.sqpoll ? kSqpollLadder : kFlagLadder;
    std::size_t steps = cfg.sqpoll ? std::size(kSqpollLadder) : std::size(kFlagLadder);
    int rc = -EINVAL;
    for (std::size_t i = 0; i < steps; ++i) {
      io_uring_params p{};
      p.flags = ladder[i].flags | IORING_SETUP_SUBMIT_ALL | (cfg.iopoll ? IORING_SETUP_IOPOLL : 0u);
      if (cfg.sqpoll) p.sq_thread_idle = 1000;
      rc = io_uring_queue_init_params(depth_, &ring_, &p);
      if (rc == 0) {
        features_["ring_flags"] = ladder[i].name;
        break;
      }
      if (rc != -EINVAL) break;
    }
    if (rc < 0) {
      throw Error(fmt::format("io_uring_queue_init_params({}) failed: errno {} ({})", depth_, -rc,
                              std::strerror(-rc)));
    }
    features_["sqpoll"] = cfg.sqpoll;
    features_["iopoll"] = cfg.iopoll;
    // Registering the ring fd saves an fd lookup per io_uring_enter; older kernels refuse it harmlessly.
    features_["registered_ring"] = io_uring_register_ring_fd(&ring_) == 1;

    rc = io_uring_register_files(&ring_, fds_.data(), static_cast<unsigned>(fds_.size()));
    fixed_files_ = rc == 0;
    if (!fixed_files_)
      warnings_.push_back(
          fmt::format("io_uring: registering files failed ({}); using plain fds", std::strerror(-rc)));
    features_["fixed_files"] = fixed_files_;

    if (cfg.fixed_bufs) {
      std::vector<iovec> iov;
      for (auto b : cfg.buffers) iov.push_back({b.data(), b.size()});
      rc = io_uring_register_buffers(&ring_, iov.data(), static_cast<unsigned>(iov.size()));
      fixed_bufs_ = rc == 0;
      if (!fixed_bufs_) {
        warnings_.push_back(fmt::format(
            "io_uring: registering buffers failed ({}{}); using unregistered buffers", std::strerror(-rc),
            rc == -ENOMEM ? ", the memlock limit (ulimit -l) is too low" : ""));
      }
    }
    features_["fixed_bufs"] = fixed_bufs_;
    buffers_ = cfg.buffers;
  }
  ~UringEngine() override { io_uring_queue_exit(&ring_); }
  UringEngine(const UringEngine&) = delete;
  UringEngine& operator=(const UringEngine&) = delete;

  EngineKind kind() const override { return EngineKind::uring; }
  unsigned depth() const override { return depth_; }
  nlohmann::json features() const override { return features_; }
  std::vector<std::string> warnings() const override { return warnings_; }

  void queue(const Io& io) override {
    io_uring_sqe* sqe = io_uring_get_sqe(&ring_);
    // The caller never has more than depth I/Os outstanding and submits every batch, so the SQ has room.
    int fd = fixed_files_ ? static_cast<int>(io.file) : fds_[io.file];
    void* buf = buffers_[io.slot].data();
    if (fixed_bufs_) {
      if (io.write) {
        io_uring_prep_write_fixed(sqe, fd, buf, io.len, io.offset, static_cast<int>(io.slot));
      } else {
        io_uring_prep_read_fixed(sqe, fd, buf, io.len, io.offset, static_cast<int>(io.slot));
      }
    } else if (io.write) {
      io_uring_prep_write(sqe, fd, buf, io.len, io.offset);
    } else {
      io_uring_prep_read(sqe, fd, buf, io.len, io.offset);
    }
    if (fixed_files_) sqe->flags |= IOSQE_FIXED_FILE;
    io_uring_sqe_set_data64(sqe, io.slot);
  }

  void submit() override {
    int rc = io_uring_submit_and_get_events(&ring_);
    if (rc < 0 && rc != -EINTR && rc != -EAGAIN && rc != -EBUSY) {
      throw Error(
          fmt::format("io_uring_submit_and_get_events failed: errno {} ({})", -rc, std::strerror(-rc)));
    }
  }

  std::size_t submit_and_reap(unsigned min_complete, std::span<Completion> out) override {
    int rc = io_uring_submit_and_wait(&ring_, min_complete);
    if (rc < 0 && rc != -EINTR && rc != -EAGAIN && rc != -EBUSY && rc != -ETIME) {
      throw Error(fmt::format("io_uring_submit_and_wait failed: errno {} ({})", -rc, std::strerror(-rc)));
    }
    std::size_t n = 0;
    unsigned head;
    io_uring_cqe* cqe;
    io_uring_for_each_cqe(&ring_, head, cqe) {
      if (n == out.size()) break;
      out[n++] = {static_cast<std::uint32_t>(io_uring_cqe_get_data64(cqe)), cqe->res};
    }
    io_uring_cq_advance(&ring_, static_cast<unsigned>(n));
    return n;
  }

 private:
  io_uring ring_{};
  unsigned depth_;
  std::vector<int> fds_;
  std::vector<std::span<std::byte>> buffers_;
  bool fixed_files_ = false, fixed_bufs_ = false;
  nlohmann::json features_ = nlohmann::json::object();
  std::vector<std::string> warnings_;
};

}  // namespace

std::unique_ptr<Engine> make_uring_engine(const EngineConfig& cfg) {
  return std::make_unique<UringEngine>(cfg);
}

std::string uring_probe() {
  if (forced_failure()) return "io_uring setup refused: MLBENCH_FORCE_URING_FAILURE is set";
  io_uring ring{};
  int rc = io_uring_queue_init(2, &ring, 0);
  if (rc < 0) {
    return fmt::format(
        "io_uring_queue_init failed: errno {} ({}){}", -rc, std::strerror(-rc),
        rc == -EPERM ? " — disabled by sysctl kernel.io_uring_disabled or a seccomp filter" : "");
  }
  io_uring_queue_exit(&ring);
  return "";
}

}  // namespace mlbench::storage
