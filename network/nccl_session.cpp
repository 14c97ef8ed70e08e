#include "network/nccl_session.hpp"

#include <atomic>
#include <chrono>
#include <cstring>

#include <fmt/format.h>

#include "network/nccl_check.hpp"
#include "network/nccl_kernels.hpp"
#include "network/pattern.hpp"

namespace mlbench::net {
namespace {

using Clock = std::chrono::steady_clock;

static_assert(static_cast<int>(PatternOp::sendrecv) == static_cast<int>(Collective::sendrecv) &&
                  static_cast<int>(PatternOp::all_gather) == static_cast<int>(Collective::all_gather) &&
                  static_cast<int>(PatternOp::alltoall) == static_cast<int>(Collective::alltoall),
              "PatternOp mirrors Collective");

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

// Move-only device allocation; freed on its device.
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  DeviceBuffer(int device, std::uint64_t bytes) : device_(device) {
    MLBENCH_NET_CUDA_CHECK(cudaSetDevice(device));
    MLBENCH_NET_CUDA_CHECK(cudaMalloc(&ptr_, bytes == 0 ? 1 : bytes));
  }
  ~DeviceBuffer() { reset(); }
  DeviceBuffer(DeviceBuffer&& o) noexcept : ptr_(std::exchange(o.ptr_, nullptr)), device_(o.device_) {}
  DeviceBuffer& operator=(DeviceBuffer&& o) noexcept {
    if (this != &o) {
      reset();
      ptr_ = std::exchange(o.ptr_, nullptr);
      device_ = o.device_;
    }
    return *this;
  }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  char* get() const { return static_cast<char*>(ptr_); }

 private:
  void reset() {
    if (ptr_ != nullptr) {
      cudaSetDevice(device_);
      cudaFree(ptr_);
      ptr_ = nullptr;
    }
  }
  void* ptr_ = nullptr;
  int device_ = 0;
};

// Move-only CUDA stream.
class Stream {
 public:
  explicit Stream(int device) {
    MLBENCH_NET_CUDA_CHECK(cudaSetDevice(device));
    MLBENCH_NET_CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
  }
  ~Stream() {
    if (stream_ != nullptr) cudaStreamDestroy(stream_);
  }
  Stream(Stream&& o) noexcept : stream_(std::exchange(o.stream_, nullptr)) {}
  Stream& operator=(Stream&&) = delete;
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;
  cudaStream_t get() const { return stream_; }

 private:
  cudaStream_t stream_ = nullptr;
};

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
  if (st != cudaSuccess) {
    why = fmt::format("no CUDA GPU usable: cudaGetDeviceCount: {} ({})", cudaGetErrorName(st),
                      cudaGetErrorString(st));
    return 0;
  }
  if (n == 0) why = "no CUDA GPU visible";
  return n;
}

std::uint64_t device_free_bytes(int device) {
  MLBENCH_NET_CUDA_CHECK(cudaSetDevice(device));
  std::size_t free_b = 0, total_b = 0;
  MLBENCH_NET_CUDA_CHECK(cudaMemGetInfo(&free_b, &total_b));
  return free_b;
}

std::string device_bus_id(int device) {
  char buf[32] = {};
  MLBENCH_NET_CUDA_CHECK(cudaDeviceGetPCIBusId(buf, sizeof buf, device));
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

// --- Watchdog ----------------------------------------------------------------------------------------------

Watchdog::Watchdog() : thread_([this] { loop(); }) {}

Watchdog::~Watchdog() { stop(); }

void Watchdog::stop() {
  {
    std::lock_guard lock(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void Watchdog::watch(std::vector<ncclComm_t> comms) {
  std::lock_guard lock(mu_);
  comms_ = std::move(comms);
}

void Watchdog::arm(std::string what, double timeout_s) {
  std::lock_guard lock(mu_);
  what_ = std::move(what);
  timeout_s_ = timeout_s;
  deadline_ =
      Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(timeout_s));
  armed_ = true;
}

void Watchdog::disarm() {
  std::lock_guard lock(mu_);
  armed_ = false;
}

void Watchdog::throw_message() const {
  std::lock_guard lock(mu_);
  throw Error(message_);
}

void Watchdog::loop() {
  while (true) {
    std::string message;
    std::vector<ncclComm_t> comms;
    {
      std::unique_lock lock(mu_);
      cv_.wait_for(lock, std::chrono::milliseconds(10));
      if (stop_) return;
      if (tripped_ || comms_.empty()) continue;
      // ncclCommGetAsyncError is meant to be polled from another thread while the owner uses the comm.
      for (ncclComm_t c : comms_) {
        ncclResult_t async = ncclSuccess;
        ncclResult_t st = ncclCommGetAsyncError(c, &async);
        if (st != ncclSuccess) async = st;
        if (async != ncclSuccess && async != ncclInProgress) {
          message = fmt::format("NCCL reported an error during {}: {} ({}); aborted the communicator",
                                armed_ ? what_ : std::string("idle time"), ncclGetErrorString(async),
                                ncclGetLastError(c));
          break;
        }
      }
      if (message.empty() && armed_ && Clock::now() > deadline_) {
        message = fmt::format(
            "{} did not complete within --timeout {} s; aborted the NCCL communicator (a peer rank died or "
            "hung, "
            "or a link broke)",
            what_, timeout_s_);
      }
      if (message.empty()) continue;
      comms = std::move(comms_);
      comms_.clear();
    }
    {
      std::lock_guard use(use_mu_);
      for (ncclComm_t c : comms) ncclCommAbort(c);
    }
    std::lock_guard lock(mu_);
    message_ = std::move(message);
    tripped_.store(true, std::memory_order_release);
  }
}

// --- NcclSession -------------------------------------------------------------------------------------------

NcclSession::NcclSession(SessionSetup setup) : setup_(std::move(setup)) {
  ncclUniqueId id;
  if (setup_.unique_id.empty()) {
    MLBENCH_NCCL_CHECK(ncclGetUniqueId(&id));
  } else {
    if (setup_.unique_id.size() != sizeof id.internal)
      throw Error("the NCCL unique id from rank 0 is malformed");
    std::memcpy(id.internal, setup_.unique_id.data(), sizeof id.internal);
  }
  locals_.reserve(setup_.devices.size());
  for (std::size_t i = 0; i < setup_.devices.size(); ++i) {
    locals_.emplace_back(setup_.devices[i], setup_.first_rank + static_cast<int>(i));
  }
  ncclConfig_t config = NCCL_CONFIG_INITIALIZER;
  config.blocking = 0;  // every call returns at once, so a dead peer cannot block this thread
  MLBENCH_NCCL_CHECK(ncclGroupStart());
  for (auto& l : locals_) {
    MLBENCH_NET_CUDA_CHECK(cudaSetDevice(l.device));
    MLBENCH_NCCL_CHECK(ncclCommInitRankConfig(&l.comm, setup_.world_size, id, l.rank, &config));
  }
  MLBENCH_NCCL_CHECK(ncclGroupEnd());
  std::vector<ncclComm_t> comms;
  for (auto& l : locals_) comms.push_back(l.comm);
  watchdog_.watch(comms);
  wait_comms(fmt::format("ncclCommInitRankConfig of a world of {} ranks", setup_.world_size));
  for (auto& l : locals_) {
    l.scratch = DeviceBuffer(
        l.device, 2 * sizeof(std::uint64_t) + static_cast<std::uint64_t>(setup_.world_size) * sizeof(double));
  }
}

NcclSession::~NcclSession() {
  watchdog_.stop();
  if (watchdog_.tripped()) return;  // the watchdog aborted (and freed) the communicators
  for (auto& l : locals_) {
    if (l.comm == nullptr) continue;
    ncclCommFinalize(l.comm);
    auto end = Clock::now() + std::chrono::seconds(10);
    ncclResult_t st = ncclInProgress;
    while (st == ncclInProgress && Clock::now() < end) ncclCommGetAsyncError(l.comm, &st);
    if (st == ncclSuccess) {
      ncclCommDestroy(l.comm);
    } else {
      ncclCommAbort(l.comm);
    }
  }
}

std::string NcclSession::ranks_text() const {
  int last = setup_.first_rank + static_cast<int>(locals_.size()) - 1;
  if (locals_.size() == 1) return fmt::format("rank {} ({})", setup_.first_rank, setup_.host);
  return fmt::format("ranks {}-{} ({})", setup_.first_rank, last, setup_.host);
}

void NcclSession::wait_comms(const std::string& what) {
  watchdog_.arm(fmt::format("{} on {}", what, ranks_text()), setup_.timeout_s);
  for (auto& l : locals_) {
    while (true) {
      ncclResult_t async = ncclSuccess;
      {
        auto hold = watchdog_.hold();
        watchdog_.check();
        MLBENCH_NCCL_CHECK(ncclCommGetAsyncError(l.comm, &async));
      }
      if (async == ncclSuccess) break;
      if (async != ncclInProgress) {
        throw Error(fmt::format("{} on {} failed: {} ({})", what, ranks_text(), ncclGetErrorString(async),
                                ncclGetLastError(l.comm)));
      }
      std::this_thread::yield();
    }
  }
  watchdog_.disarm();
}

void NcclSession::wait_streams(const std::string& what) {
  watchdog_.arm(fmt::format("{} on {}", what, ranks_text()), setup_.timeout_s);
  for (auto& l : locals_) {
    // Spin like nccl-tests: a sleeping wait would add its wake-up latency to small-message times.
    while (true) {
      cudaError_t st = cudaStreamQuery(l.stream.get());
      if (st == cudaSuccess) break;
      if (st != cudaErrorNotReady) MLBENCH_NET_CUDA_CHECK(st);
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
    l.send = DeviceBuffer(l.device, send_bytes);
    l.recv = DeviceBuffer(l.device, recv_bytes);
  }
}

void NcclSession::enqueue(Collective op, DataType dtype, const CallSize& size, bool in_place) {
  const int n = setup_.world_size;
  const std::size_t ts = spec(dtype).size;
  const auto type = nccl_type(dtype);
  const std::size_t c = size.count;
  auto hold = watchdog_.hold();
  watchdog_.check();
  MLBENCH_NCCL_CHECK(ncclGroupStart());
  for (auto& l : locals_) {
    char* sendp = l.send.get();
    char* recvp = l.recv.get();
    if (in_place) {
      sendp = recvp;
      if (op == Collective::all_gather) sendp = recvp + static_cast<std::size_t>(l.rank) * c * ts;
      if (op == Collective::reduce_scatter) recvp = sendp + static_cast<std::size_t>(l.rank) * c * ts;
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
  ncclResult_t end = ncclGroupEnd();
  hold.unlock();
  MLBENCH_NCCL_CHECK(end);
  if (end == ncclInProgress) wait_comms(fmt::format("enqueueing {}", spec(op).name));
}

Measurement NcclSession::run(Collective op, DataType dtype, const CallSize& size, bool in_place, int warmup,
                             int iters) {
  watchdog_.check();
  const int n = setup_.world_size;
  const auto pop = static_cast<PatternOp>(static_cast<int>(op));
  const std::int64_t modulus = pattern_modulus(n, spec(dtype).exact_limit);
  const std::size_t ts = spec(dtype).size;
  const std::string what = fmt::format("{} of {} B ({}, {})", spec(op).name, size.bytes, spec(dtype).name,
                                       in_place ? "in-place" : "out-of-place");

  // Correctness: one call on fresh inputs, checked on the device.
  std::uint64_t in_elems = input_elements(pop, size.count, n);
  std::uint64_t out_elems = output_elements(pop, size.count, n);
  for (auto& l : locals_) {
    MLBENCH_NET_CUDA_CHECK(cudaSetDevice(l.device));
    // Synchronous, before any work of this size is queued: [wrong = 0, checked elements of this rank].
    std::uint64_t init[2] = {0, (op == Collective::reduce && l.rank != 0) ? 0 : out_elems};
    MLBENCH_NET_CUDA_CHECK(cudaMemcpy(l.scratch.get(), init, sizeof init, cudaMemcpyHostToDevice));
    cudaStream_t s = l.stream.get();
    std::uint64_t recv_elems = in_place ? std::max(in_elems, out_elems) : out_elems;
    fill_sentinel(dtype, l.recv.get(), recv_elems, s);
    char* sendp = in_place ? l.recv.get() : l.send.get();
    if (in_place && op == Collective::all_gather) sendp += static_cast<std::size_t>(l.rank) * size.count * ts;
    fill_input(dtype, sendp, in_elems, l.rank, n, modulus, s);
  }
  enqueue(op, dtype, size, in_place);
  for (auto& l : locals_) {
    MLBENCH_NET_CUDA_CHECK(cudaSetDevice(l.device));
    const char* recvp = l.recv.get();
    if (in_place && op == Collective::reduce_scatter)
      recvp += static_cast<std::size_t>(l.rank) * size.count * ts;
    auto* counters = reinterpret_cast<unsigned long long*>(l.scratch.get());
    count_wrong(dtype, recvp, out_elems, pop, size.count, l.rank, n, modulus, counters, l.stream.get());
  }
  wait_streams("the correctness call of " + what);

  for (int i = 0; i < warmup; ++i) enqueue(op, dtype, size, in_place);
  wait_streams("the warm-up of " + what);

  auto t0 = Clock::now();
  for (int i = 0; i < iters; ++i) enqueue(op, dtype, size, in_place);
  wait_streams(fmt::format("{} timed calls of {}", iters, what));
  double seconds = std::chrono::duration<double>(Clock::now() - t0).count() / iters;

  // Every rank's time and the counters, exchanged over the same communicators.
  for (auto& l : locals_) {
    auto* times = reinterpret_cast<double*>(l.scratch.get() + 2 * sizeof(std::uint64_t));
    MLBENCH_NET_CUDA_CHECK(cudaSetDevice(l.device));
    MLBENCH_NET_CUDA_CHECK(cudaMemcpy(times + l.rank, &seconds, sizeof seconds, cudaMemcpyHostToDevice));
  }
  auto hold = watchdog_.hold();
  watchdog_.check();
  MLBENCH_NCCL_CHECK(ncclGroupStart());
  for (auto& l : locals_) {
    auto* counters = l.scratch.get();
    auto* times = reinterpret_cast<double*>(l.scratch.get() + 2 * sizeof(std::uint64_t));
    MLBENCH_NCCL_CHECK(ncclAllReduce(counters, counters, 2, ncclUint64, ncclSum, l.comm, l.stream.get()));
    MLBENCH_NCCL_CHECK(ncclAllGather(times + l.rank, times, 1, ncclFloat64, l.comm, l.stream.get()));
  }
  ncclResult_t end = ncclGroupEnd();
  hold.unlock();
  MLBENCH_NCCL_CHECK(end);
  if (end == ncclInProgress) wait_comms("exchanging the timings of " + what);
  wait_streams("exchanging the timings of " + what);

  Measurement m;
  std::uint64_t counters[2] = {};
  m.seconds_per_rank.resize(static_cast<std::size_t>(n));
  const auto& l0 = locals_.front();
  MLBENCH_NET_CUDA_CHECK(cudaSetDevice(l0.device));
  MLBENCH_NET_CUDA_CHECK(cudaMemcpy(counters, l0.scratch.get(), sizeof counters, cudaMemcpyDeviceToHost));
  MLBENCH_NET_CUDA_CHECK(cudaMemcpy(m.seconds_per_rank.data(), l0.scratch.get() + sizeof counters,
                                    sizeof(double) * static_cast<std::size_t>(n), cudaMemcpyDeviceToHost));
  m.wrong_elements = counters[0];
  m.checked_elements = counters[1];
  return m;
}

}  // namespace mlbench::net
