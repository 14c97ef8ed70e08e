#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <barrier>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <system_error>
#include <thread>

#include <fmt/format.h>

#include "storage/buffer.hpp"
#include "storage/checkpoint/checkpoint.hpp"
#include "storage/fd.hpp"
#include "storage/pattern.hpp"

namespace mlbench::storage {

std::string checkpoint_file_name(unsigned rank) { return fmt::format("rank-{:04}.ckpt", rank); }

bool is_checkpoint_file_name(std::string_view name) {
  constexpr std::string_view kHead = "rank-", kTail = ".ckpt";
  if (name.size() != kHead.size() + 4 + kTail.size() || !name.starts_with(kHead) || !name.ends_with(kTail))
    return false;
  const auto digits = name.substr(kHead.size(), 4);
  return std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; });
}

namespace {

using Clock = std::chrono::steady_clock;

double since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

// Streams `size` bytes to or from fd with `depth` I/Os in flight; returns "" or the error.
std::string stream(Engine& e, int fd, std::span<AlignedBuffer> bufs, std::uint64_t size, std::uint64_t bs,
                   bool write, const std::atomic<bool>& stop, std::uint64_t& done, const std::string& path) {
  std::vector<std::uint32_t> free_slots;
  std::vector<std::uint32_t> lens(bufs.size());
  std::vector<std::uint64_t> offs(bufs.size());
  // psync runs one I/O at a time whatever the depth: never queue more than the engine keeps in flight.
  const std::uint32_t slots = std::min<std::uint32_t>(static_cast<std::uint32_t>(bufs.size()), e.depth());
  for (std::uint32_t i = 0; i < slots; ++i) free_slots.push_back(i);
  std::vector<Completion> comps(bufs.size());
  std::uint64_t off = 0;
  unsigned inflight = 0;
  while (done < size) {
    if (stop.load(std::memory_order_relaxed) && inflight == 0) return "stopped";
    while (!stop.load(std::memory_order_relaxed) && !free_slots.empty() && off < size) {
      std::uint32_t slot = free_slots.back();
      free_slots.pop_back();
      std::uint32_t len = static_cast<std::uint32_t>(std::min(bs, size - off));
      if (write) {
        // Every 4 KiB block carries its offset: no two blocks of a checkpoint are alike.
        for (std::uint64_t b = 0; b < len; b += kCheckpointBlock) std::memcpy(bufs[slot].data() + b, &off, 8);
      }
      lens[slot] = len;
      offs[slot] = off;
      e.queue({slot, 0, len, write, off});
      off += len;
      ++inflight;
    }
    std::size_t n = e.submit_and_reap(1, comps);
    for (std::size_t i = 0; i < n; ++i) {
      --inflight;
      const auto& c = comps[i];
      if (c.res == -EINTR) return "interrupted";
      if (c.res < 0) {
        return fmt::format("{} {}: {}{}", write ? "writing" : "reading", path,
                           std::strerror(static_cast<int>(-c.res)),
                           c.res == -ENOSPC ? " (the filesystem is full)" : "");
      }
      std::uint64_t moved = static_cast<std::uint64_t>(c.res);
      if (write && moved < lens[c.slot]) {
        // A short write: writing the rest says why (ENOSPC, EIO), or completes it.
        ssize_t w = ::pwrite(fd, bufs[c.slot].data() + moved, lens[c.slot] - moved,
                             static_cast<off_t>(offs[c.slot] + moved));
        if (w < 0)
          return fmt::format("writing {}: {}{}", path, std::strerror(errno),
                             errno == ENOSPC ? " (the filesystem is full)" : "");
        moved += static_cast<std::uint64_t>(w);
      }
      if (moved != lens[c.slot])
        return fmt::format("{} {}: {} of {} bytes", write ? "short write to" : "short read of", path, moved,
                           lens[c.slot]);
      done += moved;
      free_slots.push_back(c.slot);
    }
  }
  return "";
}

void rank_main(const CheckpointConfig& cfg, unsigned r, RankOutcome& o, std::string& err,
               const std::atomic<bool>& stop, std::barrier<>& between) {
  const std::string name = checkpoint_file_name(r);
  const std::string path = (cfg.folder / name).string();
  std::vector<AlignedBuffer> bufs;
  std::vector<std::span<std::byte>> spans;
  const int dflag = cfg.direct ? O_DIRECT : 0;
  auto phase = [&](bool write) -> std::string {
    // Relative to the folder's descriptor, never through a link: the folder's path is not walked again.
    Fd fd(write ? ::openat(cfg.folder_fd, name.c_str(),
                           O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC | dflag, 0644)
                : ::openat(cfg.folder_fd, name.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC | dflag));
    if (!fd) return fmt::format("open {}: {}", path, std::strerror(errno));
    EngineConfig ec;
    ec.depth = cfg.depth;
    ec.fds = {fd.get()};
    ec.buffers = spans;
    std::unique_ptr<Engine> e = make_engine(cfg.engine, ec);
    const auto t0 = Clock::now();
    std::string why =
        stream(*e, fd.get(), bufs, cfg.shard, cfg.bs, write, stop, write ? o.written : o.read, path);
    if (why.empty() && write) {
      const auto t1 = Clock::now();
      if (::fsync(fd.get()) != 0) why = fmt::format("fsync {}: {}", path, std::strerror(errno));
      o.fsynced = why.empty();
      o.fsync_s = since(t1);
      o.write_s = since(t0);
      // mlbench's own file's pages only: the read-back must come from the storage.
      o.dropped = ::posix_fadvise(fd.get(), 0, 0, POSIX_FADV_DONTNEED) == 0;
    } else if (why.empty()) {
      o.read_s = since(t0);
    }
    return why;
  };
  // Whatever fails in this thread (the buffers' mmap, the engine's setup) is this rank's error: an exception
  // must neither escape the thread (std::terminate) nor skip the barrier the other ranks wait at.
  auto guarded = [&](auto&& step) {
    try {
      step();
    } catch (const std::exception& ex) {
      if (err.empty()) err = fmt::format("rank {}: {}", r, ex.what());
    }
  };
  guarded([&] {
    for (unsigned i = 0; i < cfg.depth; ++i) {
      bufs.emplace_back(cfg.bs);
      fill_pattern(bufs.back().span(), mix64(r * 7919u + i), 0);
      spans.push_back(bufs.back().span());
    }
  });
  if (err.empty()) guarded([&] { err = phase(true); });
  between.arrive_and_wait();
  if (err.empty() && cfg.read_back && !stop.load()) guarded([&] { err = phase(false); });
}

}  // namespace

CheckpointOutcome run_checkpoint(const CheckpointConfig& cfg, const std::atomic<bool>& stop) {
  CheckpointOutcome out;
  out.ranks.resize(cfg.ranks);
  std::vector<std::string> errors(cfg.ranks);
  for (unsigned r = 0; r < cfg.ranks; ++r)
    out.files.push_back((cfg.folder / checkpoint_file_name(r)).string());
  std::barrier<> between(static_cast<std::ptrdiff_t>(cfg.ranks));
  std::vector<std::thread> threads;
  for (unsigned r = 0; r < cfg.ranks; ++r) {
    try {
      threads.emplace_back([&cfg, &out, &errors, &stop, &between, r] {
        rank_main(cfg, r, out.ranks[r], errors[r], stop, between);
      });
    } catch (const std::system_error& e) {
      // No thread (the address space or the task limit is reached, e.g. by the started ranks' buffers): the
      // ranks that never start leave the barrier, so the started ones finish and are joined, and the run
      // ends with this error rather than std::terminate.
      errors[r] = fmt::format("rank {}: starting its thread: {}", r, e.what());
      for (unsigned k = r; k < cfg.ranks; ++k) between.arrive_and_drop();
      break;
    }
  }
  for (auto& t : threads) t.join();
  out.stopped = stop.load();
  for (const auto& e : errors) {
    if (!e.empty() && e != "stopped" && out.error.empty()) out.error = e;
  }
  return out;
}

}  // namespace mlbench::storage
