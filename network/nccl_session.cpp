#include "network/nccl_session.hpp"

#include <algorithm>
#include <array>
#include <chrono>
#include <cstring>
#include <thread>

#include <fmt/format.h>

#include "kernels/gpu/cuda_util.hpp"
#include "kernels/gpu/driver_check.hpp"
#include "network/nccl_check.hpp"
#include "network/nccl_kernels.hpp"
#include "network/pattern.hpp"

namespace mlbench::net {
namespace {

using Clock = std::chrono::steady_clock;

ncclDataType_t nccl_type(DataType t) {
  switch (t) {
    case DataType::float32:
      return ncclFloat32;
    case DataType::bf16:
      return ncclBfloat16;
    case DataType::half:
      return ncclFloat16;
    case DataType::int8:
      return ncclInt8;
  }
  return ncclFloat32;
}

using gpu::DeviceBuffer;
using gpu::Stream;

// Gives up when the communicators' own finalisation (no peer involved once the streams are idle) takes this
// long.
constexpr double kFinalizeTimeout_s = 60;

}  // namespace

struct NcclSession::Local {
  int device = 0;
  int rank = 0;
  Stream stream;
  ncclComm_t comm = nullptr;
  DeviceBuffer send, recv;
  DeviceBuffer scratch;  // [wrong, checked] as u64, then world_size doubles of times

  Local(int dev, int r) : device(dev), rank(r), stream(dev) {}
};

int cuda_device_count(std::string& why) {
  int n = 0;
  cudaError_t st = cudaGetDeviceCount(&n);
  // Worded as the GPU probes word it (kernels/gpu no_gpu_reason), so the summary prints it once for all.
  if (st != cudaSuccess) {
    cudaGetLastError();
    // Without any driver the runtime still says cudaErrorInsufficientDriver: say that there is none.
    auto missing = gpu::missing_driver_reason();
    why = missing ? fmt::format("no CUDA GPU on this machine: {}", *missing)
                  : fmt::format("no CUDA GPU on this machine: cudaGetDeviceCount: {} ({})",
                                cudaGetErrorName(st), cudaGetErrorString(st));
    return 0;
  }
  if (n == 0) why = "no CUDA GPU on this machine: the CUDA runtime sees no device";
  return n;
}

std::uint64_t device_free_bytes(int device) {
  MLBENCH_CHECK_CUDA(cudaSetDevice(device));
  std::size_t free_b = 0, total_b = 0;
  MLBENCH_CHECK_CUDA(cudaMemGetInfo(&free_b, &total_b));
  return free_b;
}

std::string device_bus_id(int device) {
  char buf[32] = {};
  MLBENCH_CHECK_CUDA(cudaDeviceGetPCIBusId(buf, sizeof buf, device));
  return buf;
}

std::string make_unique_id() {
  ncclUniqueId id;
  MLBENCH_NCCL_CHECK(ncclGetUniqueId(&id));
  return std::string(id.internal, sizeof id.internal);
}

std::string nccl_version_string() {
  int v = 0;
  MLBENCH_NCCL_CHECK(ncclGetVersion(&v));
  // NCCL >= 2.9 encodes major*10000 + minor*100 + patch; older releases major*1000 + minor*100 + patch.
  if (v >= 10000) return fmt::format("{}.{}.{}", v / 10000, v / 100 % 100, v % 100);
  return fmt::format("{}.{}.{}", v / 1000, v / 100 % 10, v % 100);
}

// The watchdog's view of this session's communicators (called with the use lock held).
class NcclSession::Control final : public CommControl {
 public:
  explicit Control(std::vector<Local>& locals) : locals_(locals) {}

  std::optional<std::string> async_error() override {
    for (auto& l : locals_) {
      if (l.comm == nullptr) continue;
      ncclResult_t async = ncclSuccess;
      ncclResult_t st = ncclCommGetAsyncError(l.comm, &async);
      if (st != ncclSuccess) async = st;
      if (async != ncclSuccess && async != ncclInProgress) {
        return fmt::format("rank {}: {} ({})", l.rank, ncclGetErrorString(async), ncclGetLastError(l.comm));
      }
    }
    return std::nullopt;
  }

  void abort_all() override {
    for (auto& l : locals_) {
      if (l.comm != nullptr) ncclCommAbort(l.comm);
      l.comm = nullptr;
    }
  }

 private:
  std::vector<Local>& locals_;
};

NcclSession::NcclSession(SessionSetup setup) : setup_(std::move(setup)) {
  int last = setup_.first_rank + static_cast<int>(setup_.devices.size()) - 1;
  ranks_ = setup_.devices.size() == 1 ? fmt::format("rank {} ({})", setup_.first_rank, setup_.host)
                                      : fmt::format("ranks {}-{} ({})", setup_.first_rank, last, setup_.host);
  locals_.reserve(setup_.devices.size());
  for (std::size_t i = 0; i < setup_.devices.size(); ++i) {
    locals_.emplace_back(setup_.devices[i], setup_.first_rank + static_cast<int>(i));
  }
  control_ = std::make_unique<Control>(locals_);
  try {
    init_comms();
  } catch (...) {
    // The destructor does not run for a half-built session: free what NCCL made.
    watchdog_.stop();
    if (!watchdog_.tripped()) control_->abort_all();
    throw;
  }
  for (auto& l : locals_) {
    l.scratch = DeviceBuffer(
        2 * sizeof(std::uint64_t) + static_cast<std::uint64_t>(setup_.world_size) * sizeof(double), l.device);
  }
}

void NcclSession::init_comms() {
  ncclUniqueId id;
  if (setup_.unique_id.empty()) {
    MLBENCH_NCCL_CHECK(ncclGetUniqueId(&id));
  } else {
    if (setup_.unique_id.size() != sizeof id.internal) {
      throw Error("the NCCL unique id from rank 0 is malformed");
    }
    std::memcpy(id.internal, setup_.unique_id.data(), sizeof id.internal);
  }
  ncclConfig_t config = NCCL_CONFIG_INITIALIZER;
  config.blocking = setup_.blocking ? 1 : 0;
  const std::string what =
      fmt::format("ncclCommInitRankConfig of a world of {} ranks on {}", setup_.world_size, ranks_);
  // A blocking initialisation returns only when every rank has joined: the watchdog cannot abort
  // communicators whose handles are not out yet, so a rank that never joins ends in its last resort.
  watchdog_.watch(control_.get());
  watchdog_.arm(what, setup_.timeout_s);
  ncclResult_t end = watchdog_.guarded([&] {
    MLBENCH_NCCL_CHECK(ncclGroupStart());
    for (auto& l : locals_) {
      gpu::DeviceGuard device(l.device);
      MLBENCH_NCCL_CHECK(ncclCommInitRankConfig(&l.comm, setup_.world_size, id, l.rank, &config));
    }
    return ncclGroupEnd();
  });
  watchdog_.disarm();
  MLBENCH_NCCL_CHECK(end);
  if (!setup_.blocking) wait_comms(what);
}

NcclSession::~NcclSession() {
  try {
    finalize_comms();
  } catch (const Error&) {
    // The watchdog aborted what was left; nothing more to free.
  }
  watchdog_.stop();
}

void NcclSession::finalize_comms() {
  if (watchdog_.tripped()) return;  // the watchdog aborted (and freed) the communicators
  watchdog_.arm("finalizing the NCCL communicators on " + ranks_,
                std::min(setup_.timeout_s, kFinalizeTimeout_s));
  for (auto& l : locals_) {
    ncclResult_t st =
        watchdog_.guarded([&] { return l.comm == nullptr ? ncclSuccess : ncclCommFinalize(l.comm); });
    while (st == ncclInProgress) {
      std::this_thread::yield();
      watchdog_.guarded([&] { ncclCommGetAsyncError(l.comm, &st); });
    }
    watchdog_.guarded([&] {
      if (l.comm == nullptr) return;
      if (st == ncclSuccess) {
        ncclCommDestroy(l.comm);
      } else {
        ncclCommAbort(l.comm);
      }
      l.comm = nullptr;
    });
  }
  watchdog_.disarm();
}

void NcclSession::wait_comms(std::string_view what) {
  watchdog_.arm(what, setup_.timeout_s);
  for (auto& l : locals_) {
    while (true) {
      ncclResult_t async = ncclSuccess;
      watchdog_.guarded([&] { MLBENCH_NCCL_CHECK(ncclCommGetAsyncError(l.comm, &async)); });
      if (async == ncclSuccess) break;
      if (async != ncclInProgress) {
        throw Error(
            fmt::format("{} failed: {} ({})", what, ncclGetErrorString(async), ncclGetLastError(l.comm)));
      }
      std::this_thread::yield();
    }
  }
  watchdog_.disarm();
}

void NcclSession::wait_streams(std::string_view what) {
  watchdog_.arm(what, setup_.timeout_s);
  for (auto& l : locals_) {
    // Spin like nccl-tests: a sleeping wait would add its wake-up latency to small-message times.
    while (true) {
      cudaError_t st = cudaStreamQuery(l.stream.get());
      if (st == cudaSuccess) break;
      if (st != cudaErrorNotReady) MLBENCH_CHECK_CUDA(st);
      watchdog_.check();
    }
  }
  watchdog_.disarm();
  watchdog_.check();
}

void NcclSession::reserve(std::uint64_t send_bytes, std::uint64_t recv_bytes) {
  watchdog_.check();
  for (auto& l : locals_) {
    l.send = DeviceBuffer();
    l.recv = DeviceBuffer();
    l.send = DeviceBuffer(send_bytes, l.device);
    l.recv = DeviceBuffer(recv_bytes, l.device);
  }
}

void NcclSession::release() {
  for (auto& l : locals_) {
    l.send = DeviceBuffer();
    l.recv = DeviceBuffer();
  }
}

void NcclSession::enqueue(Collective op, DataType dtype, const CallSize& size, bool in_place,
                          std::string_view what) {
  const int n = setup_.world_size;
  const std::size_t ts = spec(dtype).size;
  const auto type = nccl_type(dtype);
  const std::size_t c = size.count;
  ncclResult_t end = watchdog_.guarded([&] {
    MLBENCH_NCCL_CHECK(ncclGroupStart());
    for (auto& l : locals_) {
      char* sendp = l.send.as<char>();
      char* recvp = l.recv.as<char>();
      if (in_place) {
        sendp = recvp + in_place_send_offset(op, c, l.rank) * ts;
        recvp += in_place_recv_offset(op, c, l.rank) * ts;
      }
      cudaStream_t s = l.stream.get();
      switch (op) {
        case Collective::all_reduce:
          MLBENCH_NCCL_CHECK(ncclAllReduce(sendp, recvp, c, type, ncclSum, l.comm, s));
          break;
        case Collective::all_gather:
          MLBENCH_NCCL_CHECK(ncclAllGather(sendp, recvp, c, type, l.comm, s));
          break;
        case Collective::reduce_scatter:
          MLBENCH_NCCL_CHECK(ncclReduceScatter(sendp, recvp, c, type, ncclSum, l.comm, s));
          break;
        case Collective::broadcast:
          MLBENCH_NCCL_CHECK(ncclBroadcast(sendp, recvp, c, type, 0, l.comm, s));
          break;
        case Collective::reduce:
          MLBENCH_NCCL_CHECK(ncclReduce(sendp, recvp, c, type, ncclSum, 0, l.comm, s));
          break;
        case Collective::alltoall:
          // Grouped point-to-point, as nccl-tests does (portable to NCCL releases without ncclAlltoAll).
          for (int p = 0; p < n; ++p) {
            auto off = static_cast<std::size_t>(p) * c * ts;
            MLBENCH_NCCL_CHECK(ncclSend(sendp + off, c, type, p, l.comm, s));
            MLBENCH_NCCL_CHECK(ncclRecv(recvp + off, c, type, p, l.comm, s));
          }
          break;
        case Collective::sendrecv:
          MLBENCH_NCCL_CHECK(ncclSend(sendp, c, type, (l.rank + 1) % n, l.comm, s));
          MLBENCH_NCCL_CHECK(ncclRecv(recvp, c, type, (l.rank + n - 1) % n, l.comm, s));
          break;
      }
    }
    return ncclGroupEnd();
  });
  MLBENCH_NCCL_CHECK(end);
  if (end == ncclInProgress) wait_comms(what);
}

Measurement NcclSession::run(Collective op, DataType dtype, const CallSize& size, bool in_place, int warmup,
                             int iters, const TimedWindow& window) {
  watchdog_.check();
  const int n = setup_.world_size;
  const std::int64_t modulus = pattern_modulus(n, spec(dtype).exact_limit);
  const std::size_t ts = spec(dtype).size;
  // Every name a wait may need, made once per size: nothing is formatted inside the timed loop.
  const std::string what = fmt::format("{} of {} B ({}, {}) on {}", spec(op).name, size.bytes,
                                       spec(dtype).name, in_place ? "in-place" : "out-of-place", ranks_);
  const std::string enqueue_what = "enqueueing " + what;

  // Correctness: one call on fresh inputs, checked on the device. The host values copied to the device live
  // until the stream that reads them has finished.
  const std::uint64_t in_elems = input_elements(op, size.count, n);
  const std::uint64_t out_elems = output_elements(op, size.count, n);
  std::vector<std::array<std::uint64_t, 2>> init(locals_.size());
  for (std::size_t i = 0; i < locals_.size(); ++i) {
    auto& l = locals_[i];
    gpu::DeviceGuard device(l.device);
    cudaStream_t s = l.stream.get();
    // [wrong = 0, elements this rank checks]
    init[i] = {0, (facts(op).has_root && facts(op).reduces && l.rank != 0) ? 0 : out_elems};
    MLBENCH_CHECK_CUDA(
        cudaMemcpyAsync(l.scratch.get(), init[i].data(), sizeof init[i], cudaMemcpyHostToDevice, s));
    const std::uint64_t recv_elems = in_place ? std::max(in_elems, out_elems) : out_elems;
    fill_sentinel(dtype, l.recv.get(), recv_elems, s);
    char* sendp =
        in_place ? l.recv.as<char>() + in_place_send_offset(op, size.count, l.rank) * ts : l.send.as<char>();
    fill_input(dtype, sendp, in_elems, l.rank, n, modulus, s);
  }
  enqueue(op, dtype, size, in_place, enqueue_what);
  for (auto& l : locals_) {
    gpu::DeviceGuard device(l.device);
    const char* recvp =
        l.recv.as<char>() + (in_place ? in_place_recv_offset(op, size.count, l.rank) * ts : 0);
    auto* counters = l.scratch.as<unsigned long long>();
    count_wrong(dtype, recvp, out_elems, op, size.count, l.rank, n, modulus, counters, l.stream.get());
  }
  wait_streams("the correctness call of " + what);

  // The window opens before the warm-up: its collectives absorb the time `begin` takes on this rank, so the
  // timed loop starts in step with the other ranks.
  if (window.begin) window.begin();
  for (int i = 0; i < warmup; ++i) enqueue(op, dtype, size, in_place, enqueue_what);
  wait_streams("the warm-up of " + what);

  const std::string timed_what = fmt::format("{} timed calls of {}", iters, what);
  // Chunk marks on the first GPU's stream: recorded between enqueues, read after the loop's one wait.
  auto& first = locals_.front();
  const int chunks = std::clamp(iters, 1, kTimedChunks);
  std::vector<gpu::Event> marks;
  std::vector<int> chunk_calls;
  {
    gpu::DeviceGuard device(first.device);
    for (int c = 0; c <= chunks; ++c) marks.emplace_back();
  }
  auto mark = [&](int c) {
    gpu::DeviceGuard device(first.device);
    marks[static_cast<std::size_t>(c)].record(first.stream.get());
  };
  auto t0 = Clock::now();
  mark(0);
  for (int c = 0; c < chunks; ++c) {
    const int calls = iters / chunks + (c < iters % chunks ? 1 : 0);
    for (int i = 0; i < calls; ++i) enqueue(op, dtype, size, in_place, enqueue_what);
    chunk_calls.push_back(calls);
    mark(c + 1);
  }
  wait_streams(timed_what);
  const double seconds = std::chrono::duration<double>(Clock::now() - t0).count() / iters;
  if (window.end) window.end();
  std::vector<double> chunk_seconds;
  {
    gpu::DeviceGuard device(first.device);
    for (int c = 0; c < chunks; ++c) {
      const auto i = static_cast<std::size_t>(c);
      chunk_seconds.push_back(gpu::elapsed_s(marks[i], marks[i + 1]) / chunk_calls[i]);
    }
  }

  // Every rank's time and the counters, exchanged over the same communicators.
  for (auto& l : locals_) {
    gpu::DeviceGuard device(l.device);
    auto* times = reinterpret_cast<double*>(l.scratch.as<char>() + 2 * sizeof(std::uint64_t));
    MLBENCH_CHECK_CUDA(
        cudaMemcpyAsync(times + l.rank, &seconds, sizeof seconds, cudaMemcpyHostToDevice, l.stream.get()));
  }
  ncclResult_t end = watchdog_.guarded([&] {
    MLBENCH_NCCL_CHECK(ncclGroupStart());
    for (auto& l : locals_) {
      auto* counters = l.scratch.get();
      auto* times = reinterpret_cast<double*>(l.scratch.as<char>() + 2 * sizeof(std::uint64_t));
      MLBENCH_NCCL_CHECK(ncclAllReduce(counters, counters, 2, ncclUint64, ncclSum, l.comm, l.stream.get()));
      MLBENCH_NCCL_CHECK(ncclAllGather(times + l.rank, times, 1, ncclFloat64, l.comm, l.stream.get()));
    }
    return ncclGroupEnd();
  });
  MLBENCH_NCCL_CHECK(end);
  if (end == ncclInProgress) wait_comms("exchanging the timings of " + what);
  wait_streams("exchanging the timings of " + what);

  // The stream is idle now, so these copies return at once (a copy to pageable memory waits for its stream).
  Measurement m;
  std::uint64_t counters[2] = {};
  m.seconds_per_rank.resize(static_cast<std::size_t>(n));
  auto& l0 = locals_.front();
  {
    gpu::DeviceGuard device(l0.device);
    MLBENCH_CHECK_CUDA(cudaMemcpyAsync(counters, l0.scratch.get(), sizeof counters, cudaMemcpyDeviceToHost,
                                       l0.stream.get()));
    MLBENCH_CHECK_CUDA(cudaMemcpyAsync(m.seconds_per_rank.data(), l0.scratch.as<char>() + sizeof counters,
                                       sizeof(double) * static_cast<std::size_t>(n), cudaMemcpyDeviceToHost,
                                       l0.stream.get()));
  }
  wait_streams("reading back the timings of " + what);
  m.wrong_elements = counters[0];
  m.checked_elements = counters[1];
  m.chunk_seconds = std::move(chunk_seconds);
  return m;
}

}  // namespace mlbench::net
