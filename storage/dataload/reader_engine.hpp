// Between the reader engine's loop (reader.cpp) and its io_uring reader (uring_reader.cpp): what a
// reader thread asks of its accelerator's feed and what it counts. Internal to storage.dataload.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "storage/dataload/reader.hpp"

namespace mlbench::storage {

struct FileJob {
  std::uint32_t file = 0;
  const char* path = nullptr;
  std::vector<ReadOp> reads;
};

class ReaderFeed {
 public:
  virtual ~ReaderFeed() = default;
  // The next file to read; false when none is due now (wait = false) or ever (wait = true).
  virtual bool next(FileJob& job, bool wait) = 0;
  virtual void deliver(std::uint32_t samples) = 0;  // samples completed, into the prefetch queue
  virtual void file_done(std::uint32_t file) = 0;
  virtual void fail(std::string why) = 0;  // ends the run with this error
};

struct ReaderStats {
  LatencyHistogram open, read, close;
  std::uint64_t files = 0, bytes = 0, io_bytes = 0;
  double cpu_s = 0;  // the reader thread's own user + sys CPU
};

// Bytes a read of `op` must return: the span, cut at the end of a file of `size` bytes.
inline std::uint64_t expected_bytes(const ReadOp& op, std::uint64_t size) {
  if (op.offset >= size) return 0;
  return std::min<std::uint64_t>(op.len, size - op.offset);
}

// Why the linked chain with direct descriptors cannot run here ("" when it can).
std::string uring_chain_unavailable();
// Reads files through the linked chain until feed.next(…, true) says there are no more; `buf_bytes` is the
// largest read.
void run_uring_reader(ReaderFeed& feed, unsigned depth, bool direct, std::size_t buf_bytes,
                      const std::vector<DataFile>& files, ReaderStats& stats);

}  // namespace mlbench::storage
