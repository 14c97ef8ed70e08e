// The I/O engine seam: one engine per job thread, driven by the job loop in storage/io/job.cpp.
//
// The loop queues I/Os into numbered slots (slot i always uses buffer i), then calls submit_and_reap(), which
// hands everything queued to the kernel and returns at least `min_complete` completions in one step — for
// io_uring a single io_uring_submit_and_wait() system call per batch, for psync the synchronous calls, for
// the null engine nothing at all (it measures mlbench's own loop). submit() hands the queue over without
// waiting (sequential jobs call it after every I/O so that adjacent requests are not merged). Engines are
// move-only RAII owners of their kernel objects; files belong to the caller and outlive the engine.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/names.hpp"

namespace mlbench::storage {

enum class EngineKind { uring, psync, null };
inline constexpr EnumName<EngineKind> kEngineNames[] = {
    {EngineKind::uring, "uring"}, {EngineKind::psync, "psync"}, {EngineKind::null, "null"}};
static_assert(names_cover(kEngineNames));
std::string_view to_string(EngineKind k);
EngineKind engine_from_string(std::string_view s);  // throws UsageError

struct EngineConfig;
class Engine;

// How storage.dataload reads a file through an engine (run_dataload, storage/dataload/reader.cpp): io_uring's
// linked open/read/close on direct descriptors (the plain calls where the kernel lacks them), the plain
// open/pread/close, no file at all (mlbench's own loop), or none: dataload does not offer the engine, and
// its --engine refuses it.
enum class FileReader { none, uring_chain, plain, null };

// What each engine can do, one row per engine (engine.cpp): the job loop, the job spec's checks and the probe
// ask these instead of naming engines, so that a new engine (cuFile/GPUDirect Storage, a file-per-sample
// reader) is a row here, a row in kEngineNames, its EngineKind value and its Engine class.
struct EngineTraits {
  EngineKind kind;
  std::string_view label;   // what messages call it (the --engine value is in kEngineNames)
  bool queue_depth;         // keeps --iodepth I/Os in flight (else one at a time, whatever --iodepth says)
  bool submission_queue;    // queued I/Os reach the kernel apart from the wait: --submission, the trial
  bool touches_disk;        // reads and writes the target (else a write job leaves it as it is)
  bool sqpoll;              // can hand submission to a kernel thread (--sqpoll)
  bool iopoll;              // can poll for completions on NVMe poll queues
  bool registered_buffers;  // can register the slot buffers with the kernel (--fixed-bufs)
  // Why the engine cannot be set up on this machine ("" when it can); null for an engine that always can.
  std::string (*unavailable)();
  EngineKind fallback;  // run instead when unavailable() says why not; the engine itself when it has none
  std::unique_ptr<Engine> (*make)(const EngineConfig& cfg);
  FileReader dataload;  // storage.dataload's reader for this engine
  // Why that reader cannot run here although the engine can ("" when it can; null for a reader that always
  // can): storage.dataload then runs `fallback` as the job loop does when unavailable() says why not.
  std::string (*dataload_unavailable)();
};
std::span<const EngineTraits> engine_table();
const EngineTraits& traits(EngineKind k);
// The --engine values of the engines that have `trait`, as a user reads them ("uring", "uring or psync").
std::string engines_with(bool EngineTraits::*trait);
// The --engine choices of a probe that needs `trait` (storage.checkpoint: touches_disk), in kEngineNames'
// order.
std::vector<std::string_view> engine_choices(bool EngineTraits::*trait);
// The --engine choices of storage.dataload: the engines with a reader, in kEngineNames' order.
std::vector<std::string_view> dataload_engine_names();
// The help of --engine where the job loop runs (storage.io, storage.checkpoint), each engine's fallback read
// from its row: "I/O engine (psync when io_uring is refused)".
std::string_view engine_option_help();

// What a run uses the engine for: the job loop (storage.io, storage.checkpoint, the burn-in's storage phase)
// or storage.dataload's file reader, which needs the engine and its reader (EngineTraits::dataload).
enum class EngineUse { job, dataload };

// The engine a run uses when `asked` is asked for: the engine itself, or its fallback where unavailable() —
// for EngineUse::dataload then dataload_unavailable() — says why it cannot run here; `why` and `warning`
// empty when it can. Every caller records a fallback alike: `why` in the result's info.engine_fallback,
// `warning` among its warnings. Throws Error for EngineUse::dataload and an engine without a reader, which
// storage.dataload's --engine refuses first.
struct ResolvedEngine {
  EngineKind kind;
  std::string why;
  std::string warning;
};
ResolvedEngine resolve_engine(const EngineTraits& asked, EngineUse use = EngineUse::job);
ResolvedEngine resolve_engine(EngineKind asked, EngineUse use = EngineUse::job);

struct EngineConfig {
  unsigned depth = 1;
  std::vector<int> fds;                       // one per target, indexed by Io::file
  std::vector<std::span<std::byte>> buffers;  // one per slot, aligned for O_DIRECT
  bool sqpoll = false;
  bool fixed_bufs = true;
  bool iopoll = false;  // only when the NVMe driver has poll queues and the files use O_DIRECT
};

struct Io {
  std::uint32_t slot;
  std::uint32_t file;
  std::uint32_t len;
  bool write;
  std::uint64_t offset;
};

struct Completion {
  std::uint32_t slot;
  std::int64_t res;  // bytes transferred, or -errno
};

class Engine {
 public:
  virtual ~Engine() = default;
  virtual EngineKind kind() const = 0;
  // How many I/Os may be in flight (psync runs one at a time whatever the iodepth).
  virtual unsigned depth() const = 0;
  // The features actually in use (ring flags, registered files/buffers, sqpoll) and fallbacks taken.
  virtual nlohmann::json features() const = 0;
  virtual std::vector<std::string> warnings() const { return {}; }
  virtual void queue(const Io& io) = 0;
  // Hands what was queued to the kernel without waiting (psync and null run their I/O in submit_and_reap).
  virtual void submit() {}
  // Submits what was queued and waits for at least min_complete completions (fewer only when nothing is in
  // flight); returns the number written to `out` (at most out.size()). -EINTR is retried by the caller.
  virtual std::size_t submit_and_reap(unsigned min_complete, std::span<Completion> out) = 0;
};

// Creates the engine; throws Error when it cannot be set up (io_uring refused by the kernel, seccomp,
// sysctl kernel.io_uring_disabled). MLBENCH_FORCE_URING_FAILURE=1 in the environment makes io_uring setup
// fail on purpose, to exercise the psync fallback.
std::unique_ptr<Engine> make_engine(EngineKind kind, const EngineConfig& cfg);

// Whether io_uring can be set up here at all, or why not.
std::string uring_unavailable_reason();

}  // namespace mlbench::storage
