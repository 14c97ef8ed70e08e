// The reader engine of storage.dataload: MLPerf Storage's training loop with the accelerators simulated and
// the data loading real.
//
// Each simulated accelerator owns `read_threads` reader threads and its share of every epoch's files (the
// epoch's seeded shuffle, file i to accelerator i mod n). A reader keeps `depth` files in flight; through
// io_uring each file is one chain in the thread's own ring — IORING_OP_OPENAT into a direct descriptor
// (file_index = the slot), the reads on that descriptor (IOSQE_FIXED_FILE), IORING_OP_CLOSE — linked with
// IOSQE_IO_LINK after the open (a failed open cancels the rest) and IOSQE_IO_HARDLINK after each read (a
// short read at EOF must not skip the close): one system call per batch of chains, no file descriptor in the
// process. Where the kernel lacks direct descriptors (or --engine psync), plain open/pread/close; the
// result's info says which. One-sample files are read whole (reads of at most --max-read); multi-sample files
// record by record, in a seeded order when sample_shuffle is on. Delivered samples fill the accelerator's
// prefetch queue (at most `prefetch` batches per reader thread ahead, as PyTorch's prefetch_factor per
// worker); the accelerator takes a batch, then "computes" until the step's deadline, the batch's arrival +
// the step time: it sleeps (clock_nanosleep, absolute, timer slack 1 ns) until kStepSpin before the deadline
// and spins the rest, so a step ends on time where a plain sleep ends late by the timer slack and the
// scheduler's wake-up latency (on a busy host, a millisecond and more), and the spin costs a core for at
// most kStepSpin a step. Each step's lateness past its deadline is recorded (LoadOutcome::step_overrun).
//
// AU = compute time / wall time per accelerator, wall time counted from the end of the first batch's wait
// (MLPerf excludes the first step's I/O) to the end of its last step or the end of the window while it
// waited. The compute time is the nominal one, steps × step time, as MLPerf Storage's rule states it
// (Rules.md, trainingAcceleratorUtilizationCheck: total_compute_time = samples / accelerators / batch_size ×
// computation_time × epochs; AU = total_compute_time / total_benchmark_running_time), so an emulated step
// that ends late counts its lateness as time without compute, never as compute: a late sleep can lower AU,
// never lift it. Overall AU = Σ compute / Σ wall. Latencies per file:
// open = submission → open completion, read = open completion → last read completion, close = last read →
// close completion (completion times as the reader reaps them).
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "storage/dataload/data.hpp"
#include "storage/engine.hpp"
#include "storage/histogram.hpp"

namespace mlbench::storage {

struct LoadConfig {
  const std::vector<DataFile>* files = nullptr;
  std::uint64_t samples_per_file = 1;
  std::uint64_t batch_size = 1;
  unsigned read_threads = 1;
  double step_s = 0;
  unsigned accelerators = 1;
  unsigned prefetch = 2;  // batches ahead per reader thread (PyTorch's prefetch_factor)
  unsigned depth = 2;     // files in flight per reader thread
  bool direct = true;
  std::uint64_t max_read = 4u << 20;
  EngineKind engine = EngineKind::uring;
  double null_rate = 0;  // null engine: files/s for all readers together (0: as fast as the loop goes)
  bool file_shuffle = true, sample_shuffle = true;
  std::uint64_t seed = 1;
  std::uint64_t epochs = 0;  // 0: as many as the window holds
  double runtime_s = 0;      // 0: bound by epochs
  bool count_reads = false;  // fill LoadOutcome::file_reads (tests)
  // How an accelerator sleeps until a time short of its step's deadline (the spin does the rest); empty:
  // clock_nanosleep. Tests inject one that oversleeps.
  std::function<void(std::chrono::steady_clock::time_point)> sleep_until;
};

// How long before a step's deadline the accelerator stops sleeping and spins: more than a woken thread's
// usual lateness with a 1 ns timer slack (tens of µs), little enough that the spin is a few percent of a core
// per accelerator at the shortest shipped step (3.5 ms).
inline constexpr std::chrono::microseconds kStepSpin{100};

struct AcceleratorOutcome {
  // compute_s: the nominal compute, the step time × the steps (a step cut short by a stop: the part done).
  double compute_s = 0, wall_s = 0, wait_s = 0;
  std::uint64_t steps = 0, samples = 0;
  // Sums over the timed steps (every step after the first, whose wait MLPerf leaves out) for the spreads of
  // storage/dataload/probe.hpp: the waits' squares, and each step's duration (its wait and its compute) and
  // that duration's square.
  double wait_sq_s2 = 0, step_sum_s = 0, step_sq_s2 = 0;
  double au() const { return wall_s > 0 ? compute_s / wall_s : 0; }
};

// One reader thread's figures: the per-reader samples whose spread the CPU per file of a window carries
// (storage/dataload/probe.hpp).
struct ReaderOutcome {
  std::uint64_t files = 0;
  double cpu_s = 0;  // the thread's own user + sys CPU (RUSAGE_THREAD)
};

struct LoadOutcome {
  std::vector<AcceleratorOutcome> accelerators;
  std::vector<ReaderOutcome> readers;  // accelerator-major
  LatencyHistogram open, read, close, batch_wait;
  double step_s = 0;              // the nominal step (LoadConfig::step_s)
  LatencyHistogram step_overrun;  // ns each emulated step ended past its deadline
  std::uint64_t files = 0, samples = 0, bytes = 0, io_bytes = 0;
  double seconds = 0;             // first reader start → last accelerator end
  double cpu_s = 0;               // process user + sys CPU in that time
  std::uint64_t epochs_done = 0;  // epochs every accelerator finished
  std::string method;             // "io_uring linked open/read/close, direct descriptors" or the plain calls
  std::string fallback_reason;    // why not the linked chain, when not
  std::vector<std::uint32_t> file_reads;  // count_reads: times each file was read
  std::string error;                      // the first I/O error, which ended the run
  bool stopped = false;                   // SIGINT/SIGTERM
  double au() const;
  double au_min() const;
};

// The reader run_dataload uses for `engine` (its FileReader row, storage/engine.hpp), what the result calls
// it (`method`) and why it is not the engine's linked chain when it is not (`fallback_reason`: the kernel
// lacks the chain, or the engine asked reads with the plain calls). Throws Error for an engine without a
// dataload reader, which storage.dataload's --engine refuses first.
struct ReaderChoice {
  FileReader reader;
  std::string method;
  std::string fallback_reason;
};
ReaderChoice choose_reader(const EngineTraits& engine);

// Runs the loop until the epochs are done, the window ends, `stop` is set or an I/O fails.
LoadOutcome run_dataload(const LoadConfig& cfg, const std::atomic<bool>& stop);

// The file order of one epoch: 0..n-1, shuffled from (seed, epoch) when `shuffle`.
std::vector<std::uint32_t> epoch_order(std::uint32_t n, std::uint64_t seed, std::uint64_t epoch,
                                       bool shuffle);

// accelerators_supported: the largest n in [1, max] whose trial passes, assuming passing is monotone —
// doubling from 1 until a trial fails (or max passes), then bisecting between the last pass and the first
// failure. Every trial is appended to `trials` in the order run. 0 when n = 1 fails.
struct Trial {
  unsigned accelerators = 0;
  bool passed = false;
  nlohmann::json detail;
};
unsigned find_supported(unsigned max, const std::function<Trial(unsigned)>& trial,
                        std::vector<Trial>& trials);

// One reader's reads of one file: offset, length and the samples it completes.
struct ReadOp {
  std::uint64_t offset;
  std::uint32_t len;
  std::uint32_t samples;
  std::uint64_t logical;  // bytes of samples in it (the record, or the file's share)
};
// The reads of a file of `size` bytes holding `samples` records: whole-file reads of at most max_read, or one
// read per record (record order shuffled from `seed` when `shuffle`). Under O_DIRECT offsets and lengths are
// widened to 4 KiB blocks.
std::vector<ReadOp> plan_reads(std::uint64_t size, std::uint64_t samples, bool direct, std::uint64_t max_read,
                               bool shuffle, std::uint64_t seed);

}  // namespace mlbench::storage
