// The reader engine's io_uring reader: each file one linked chain in the reader thread's own ring — open into
// a direct descriptor, the reads on it, close — see storage/dataload/reader.hpp. Files with more than
// kChainReads reads (a resnet50 tfrecord of 1,251 records) go in several chains on the still-open descriptor,
// the last one ending with the close. The ring takes SINGLE_ISSUER|DEFER_TASKRUN where the kernel has them.
#include <liburing.h>

#include <fcntl.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <optional>

#include <fmt/format.h>

#include "base/error.hpp"
#include "storage/buffer.hpp"
#include "storage/dataload/reader_engine.hpp"

namespace mlbench::storage {
namespace {

using Clock = std::chrono::steady_clock;
constexpr unsigned kChainReads = 32;
enum : std::uint64_t { kOpen = 0, kRead = 1, kClose = 2 };

std::uint64_t ns_between(Clock::time_point a, Clock::time_point b) {
  return static_cast<std::uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(b - a).count());
}

bool forced_failure() {
  const char* v = std::getenv("MLBENCH_FORCE_URING_FAILURE");
  return v != nullptr && v[0] != '\0' && std::strcmp(v, "0") != 0;
}

unsigned pow2_at_least(unsigned v) {
  unsigned p = 1;
  while (p < v) p <<= 1;
  return p;
}

class Ring {
 public:
  explicit Ring(unsigned entries) {
    constexpr unsigned kLadder[] = {IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_DEFER_TASKRUN,
                                    IORING_SETUP_COOP_TASKRUN, 0};
    int rc = -EINVAL;
    for (unsigned flags : kLadder) {
      io_uring_params p{};
      p.flags = flags | IORING_SETUP_SUBMIT_ALL;
      rc = io_uring_queue_init_params(entries, &ring_, &p);
      if (rc != -EINVAL) break;
    }
    if (rc < 0) throw Error(fmt::format("io_uring_queue_init({}): {}", entries, std::strerror(-rc)));
  }
  ~Ring() { io_uring_queue_exit(&ring_); }
  Ring(const Ring&) = delete;
  Ring& operator=(const Ring&) = delete;
  io_uring* get() { return &ring_; }
  io_uring_sqe* sqe() {
    io_uring_sqe* s = io_uring_get_sqe(&ring_);
    if (s == nullptr) {
      io_uring_submit(&ring_);
      s = io_uring_get_sqe(&ring_);
    }
    if (s == nullptr) throw Error("io_uring: the submission queue stays full");
    return s;
  }

 private:
  io_uring ring_{};
};

struct Slot {
  FileJob job;
  std::uint64_t size = 0;
  std::size_t next_read = 0;
  unsigned pending = 0;
  bool active = false;
  std::string error;
  Clock::time_point submitted, opened, read;
  AlignedBuffer buf;
};

}  // namespace

std::string uring_chain_unavailable() {
  if (forced_failure()) return "io_uring setup refused: MLBENCH_FORCE_URING_FAILURE is set";
  io_uring ring{};
  int rc = io_uring_queue_init(4, &ring, 0);
  if (rc < 0) return fmt::format("io_uring_queue_init: {}", std::strerror(-rc));
  std::string why;
  io_uring_probe* p = io_uring_get_probe_ring(&ring);
  if (p == nullptr || !io_uring_opcode_supported(p, IORING_OP_OPENAT) ||
      !io_uring_opcode_supported(p, IORING_OP_CLOSE) || !io_uring_opcode_supported(p, IORING_OP_READ)) {
    why = "the kernel's io_uring has no OPENAT/CLOSE/READ";
  } else if ((rc = io_uring_register_files_sparse(&ring, 1)) < 0) {
    why = fmt::format("no direct descriptors (io_uring_register_files_sparse: {})", std::strerror(-rc));
  }
  if (p != nullptr) io_uring_free_probe(p);
  io_uring_queue_exit(&ring);
  return why;
}

void run_uring_reader(ReaderFeed& feed, unsigned depth, bool direct, std::size_t buf_bytes,
                      const std::vector<DataFile>& files, ReaderStats& st) {
  // Slots before the ring: the ring is torn down first, while the buffers are still mapped.
  std::vector<Slot> slots(depth);
  for (auto& s : slots) s.buf = AlignedBuffer(buf_bytes);
  Ring ring(pow2_at_least(depth * (kChainReads + 2)));
  int rc = io_uring_register_files_sparse(ring.get(), depth);
  if (rc < 0) throw Error(fmt::format("io_uring_register_files_sparse({}): {}", depth, std::strerror(-rc)));
  const int flags = O_RDONLY | O_NOFOLLOW | (direct ? O_DIRECT : 0);

  // Queues the next chain of slot i: the open (first chain), up to kChainReads reads, the close (last chain).
  auto queue_chain = [&](unsigned i) {
    Slot& s = slots[i];
    const std::uint64_t tag = std::uint64_t{i} << 2;
    if (s.next_read == 0) {
      io_uring_sqe* e = ring.sqe();
      io_uring_prep_openat_direct(e, AT_FDCWD, s.job.path, flags, 0, i);
      e->flags |= IOSQE_IO_LINK;
      io_uring_sqe_set_data64(e, tag | kOpen);
      ++s.pending;
      s.submitted = Clock::now();
    }
    const std::size_t end = std::min(s.job.reads.size(), s.next_read + kChainReads);
    const bool last = end == s.job.reads.size();
    for (std::size_t k = s.next_read; k < end; ++k) {
      const ReadOp& op = s.job.reads[k];
      io_uring_sqe* e = ring.sqe();
      io_uring_prep_read(e, static_cast<int>(i), s.buf.data(), op.len, op.offset);
      e->flags |= IOSQE_FIXED_FILE;
      if (k + 1 < end || last) e->flags |= IOSQE_IO_HARDLINK;
      io_uring_sqe_set_data64(e, (std::uint64_t{k} << 32) | tag | kRead);
      ++s.pending;
    }
    s.next_read = end;
    if (last) {
      io_uring_sqe* e = ring.sqe();
      io_uring_prep_close_direct(e, i);
      io_uring_sqe_set_data64(e, tag | kClose);
      ++s.pending;
    }
  };

  unsigned inflight = 0;
  bool more = true;
  std::string failure;
  while (true) {
    if (more && failure.empty()) {
      for (unsigned i = 0; i < depth; ++i) {
        if (slots[i].active) continue;
        Slot& s = slots[i];
        if (!feed.next(s.job, inflight == 0)) {
          if (inflight == 0) more = false;
          break;
        }
        s.size = files[s.job.file].size;
        s.next_read = 0;
        s.pending = 0;
        s.error.clear();
        s.active = true;
        ++inflight;
        queue_chain(i);
      }
    }
    if (inflight == 0) break;
    rc = io_uring_submit_and_wait(ring.get(), 1);
    if (rc < 0 && rc != -EINTR && rc != -EAGAIN && rc != -EBUSY && rc != -ETIME)
      throw Error(fmt::format("io_uring_submit_and_wait: {}", std::strerror(-rc)));
    unsigned head, seen = 0;
    io_uring_cqe* cqe;
    const auto now = Clock::now();
    io_uring_for_each_cqe(ring.get(), head, cqe) {
      ++seen;
      const std::uint64_t d = io_uring_cqe_get_data64(cqe);
      const unsigned i = static_cast<unsigned>((d & 0xffffffffu) >> 2);
      Slot& s = slots[i];
      const int res = cqe->res;
      --s.pending;
      switch (d & 3) {
        case kOpen:
          if (res < 0) s.error = fmt::format("open {}: {}", s.job.path, std::strerror(-res));
          s.opened = now;
          break;
        case kRead: {
          const ReadOp& op = s.job.reads[d >> 32];
          if (res == -ECANCELED && !s.error.empty()) break;
          if (res < 0) {
            if (s.error.empty()) s.error = fmt::format("read {}: {}", s.job.path, std::strerror(-res));
          } else if (static_cast<std::uint64_t>(res) != expected_bytes(op, s.size)) {
            if (s.error.empty())
              s.error = fmt::format("read {} at {}: {} of {} bytes (the file changed size?)", s.job.path,
                                    op.offset, res, expected_bytes(op, s.size));
          } else {
            st.io_bytes += static_cast<std::uint64_t>(res);
            st.bytes += op.logical;
            if (op.samples > 0) feed.deliver(op.samples);
          }
          s.read = now;
          break;
        }
        default:
          if (res < 0 && res != -ECANCELED && s.error.empty())
            s.error = fmt::format("close {}: {}", s.job.path, std::strerror(-res));
          if (res >= 0) {
            st.open.record(ns_between(s.submitted, s.opened));
            st.read.record(ns_between(s.opened, s.read));
            st.close.record(ns_between(s.read, now));
          }
          break;
      }
      if (s.pending > 0) continue;
      if (!s.error.empty()) {
        if (failure.empty()) failure = s.error;
        s.active = false;
        --inflight;
      } else if (s.next_read < s.job.reads.size()) {
        queue_chain(i);
      } else {
        ++st.files;
        feed.file_done(s.job.file);
        s.active = false;
        --inflight;
      }
    }
    io_uring_cq_advance(ring.get(), seen);
  }
  if (!failure.empty()) feed.fail(failure);
}

}  // namespace mlbench::storage
