// storage.io's submission trial: how a uring job thread hands its queued I/Os to the kernel, and the warm-up
// the trial needs. Pure; unit-tested (tests/storage/job_test.cpp).
#pragma once

#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>

#include "storage/io/job_spec.hpp"

namespace mlbench::storage {

// How a uring job thread hands its queued I/Os to the kernel: per I/O (each at once, as fio does by default)
// or batched (everything queued since the last wait, together with the next wait: one io_uring_enter). Under
// --submission auto, sequential jobs submit per I/O: a batch of adjacent I/Os would be merged by the block
// layer's plug into larger requests (a virtio disk saw several --bs at once: docs/NOTES.md), and the device
// would no longer see --bs. Random jobs try both in the ramp. Its second half is cut into four slices run
// batched, per-I/O, per-I/O, batched, so that a linear drift in the device's speed cancels, and the mode that
// completed more I/Os runs the measured part. A time-bound random job whose --ramp is under kMinRamp (fio's
// default is none) gets a ramp of kTrialRamp for the trial, excluded from the results like a ramp and
// reported with the trial (warmup_s): running batched without one fell well below fio's IOPS on a disk where
// per-I/O was faster (docs/NOTES.md). A count-bound job (--io-size, --number-ios) gets none, since a ramp
// would spend I/Os of its count, and runs batched below kMinRamp. At depth 1 every job runs batched: one I/O
// cannot merge, and its submission rides on the wait's system call. Batched saves system calls; per-I/O
// hands each request to the device sooner, and which wins depends on the device and the direction
// (docs/NOTES.md has a disk where each won by a similar margin). Pure; unit-tested.
class SubmissionTrial {
 public:
  static constexpr double kMinRamp = 0.2;    // seconds: four slices of ≥ 25 ms
  static constexpr double kTrialRamp = 0.4;  // seconds: 0.2 s to fill the queue, then four slices of 50 ms
  // The completions per slice, shared by a job's threads: they try the modes together and the first thread
  // past the trial decides for all.
  struct Tally {
    std::array<std::atomic<std::uint64_t>, 4> counts{};
    std::atomic<int> decision{-1};  // -1 open, 0 batched, 1 per-I/O
  };
  SubmissionTrial(Submission mode, bool random, unsigned depth, std::uint64_t t0_ns, double ramp_s,
                  Tally& tally);
  bool per_io(std::uint64_t now_ns);                    // how to submit what is queued at `now_ns`
  void completed(std::uint64_t now_ns, std::size_t n);  // `n` I/Os reaped at `now_ns`
  bool trial() const { return slice_ns_ > 0; }
  // The job's completion rates in the trial's batched and per-I/O slices (I/Os per second).
  double batched_iops() const { return rate(0, 3); }
  double per_io_iops() const { return rate(1, 2); }

 private:
  double rate(std::size_t a, std::size_t b) const;
  int mode_ = 0;  // 1 = per-I/O; without a trial fixed, with one set when it ends
  bool decided_ = false;
  std::uint64_t start_ns_ = 0, slice_ns_ = 0;
  Tally& tally_;
};

// The seconds before the measured window: --ramp, or SubmissionTrial::kTrialRamp when the submission trial
// needs a ramp that --ramp does not give (see SubmissionTrial). `queued`: the engine has a submission queue.
double warmup_s(const JobSpec& s, bool queued);
// Whether the job runs the submission trial (--submission auto, a random job at depth > 1, an engine with a
// submission queue: `queued`).
bool tries_submission(const JobSpec& s, bool queued);

}  // namespace mlbench::storage
