#include "storage/io/submission_trial.hpp"

namespace mlbench::storage {
namespace {

std::uint64_t to_ns(double s) { return static_cast<std::uint64_t>(s * 1e9); }

}  // namespace

bool tries_submission(const JobSpec& s, bool queued) {
  return queued && s.submission == Submission::automatic && is_random(s.rw) && s.iodepth > 1;
}

double warmup_s(const JobSpec& s, bool queued) {
  if (tries_submission(s, queued) && s.runtime_s > 0 && s.ramp_s < SubmissionTrial::kMinRamp)
    return SubmissionTrial::kTrialRamp;
  return s.ramp_s;
}

SubmissionTrial::SubmissionTrial(Submission mode, bool random, unsigned depth, std::uint64_t t0_ns,
                                 double ramp_s, Tally& tally)
    : mode_(mode == Submission::per_io || (mode == Submission::automatic && !random && depth > 1) ? 1 : 0),
      tally_(tally) {
  if (mode == Submission::automatic && random && depth > 1 && ramp_s >= kMinRamp) {
    start_ns_ = t0_ns + to_ns(ramp_s / 2);
    slice_ns_ = to_ns(ramp_s / 8);
  }
}

bool SubmissionTrial::per_io(std::uint64_t now_ns) {
  if (slice_ns_ == 0 || decided_ || now_ns < start_ns_) return mode_ == 1;
  const std::uint64_t k = (now_ns - start_ns_) / slice_ns_;
  if (k < tally_.counts.size()) return k == 1 || k == 2;  // batched, per-I/O, per-I/O, batched
  int open = -1;
  tally_.decision.compare_exchange_strong(open, per_io_iops() > batched_iops() ? 1 : 0);
  mode_ = tally_.decision.load();
  decided_ = true;
  return mode_ == 1;
}

void SubmissionTrial::completed(std::uint64_t now_ns, std::size_t n) {
  if (slice_ns_ == 0 || decided_ || now_ns < start_ns_) return;
  const std::uint64_t k = (now_ns - start_ns_) / slice_ns_;
  if (k < tally_.counts.size()) tally_.counts[k].fetch_add(n, std::memory_order_relaxed);
}

double SubmissionTrial::rate(std::size_t a, std::size_t b) const {
  if (slice_ns_ == 0) return 0;
  const auto ios =
      tally_.counts[a].load(std::memory_order_relaxed) + tally_.counts[b].load(std::memory_order_relaxed);
  return static_cast<double>(ios) / (2e-9 * static_cast<double>(slice_ns_));  // two slices
}

}  // namespace mlbench::storage
