#include "storage/engine.hpp"

#include <unistd.h>

#include <cerrno>

#include <fmt/format.h>

#include "base/error.hpp"
#include "mlbench_config.hpp"
#include "storage/dataload/reader_engine.hpp"

namespace mlbench::storage {

#if MLBENCH_HAS_URING
std::unique_ptr<Engine> make_uring_engine(const EngineConfig& cfg);  // storage/uring_engine.cpp
std::string uring_probe();
#endif

namespace {

// Completes every I/O at once without touching a file: what is left is mlbench's own per-I/O cost.
class NullEngine final : public Engine {
 public:
  explicit NullEngine(unsigned depth) : pending_(depth), depth_(depth) {}
  EngineKind kind() const override { return EngineKind::null; }
  unsigned depth() const override { return depth_; }
  nlohmann::json features() const override { return nlohmann::json::object(); }
  void queue(const Io& io) override { pending_[queued_++] = {io.slot, io.len}; }
  std::size_t submit_and_reap(unsigned, std::span<Completion> out) override {
    std::size_t n = std::min<std::size_t>(queued_, out.size());
    for (std::size_t i = 0; i < n; ++i) out[i] = pending_[--queued_];
    return n;
  }

 private:
  std::vector<Completion> pending_;
  std::size_t queued_ = 0;
  unsigned depth_;
};

// pread/pwrite, one I/O at a time: the baseline every kernel has, and the fallback when io_uring is refused.
class PsyncEngine final : public Engine {
 public:
  PsyncEngine(const EngineConfig& cfg) : fds_(cfg.fds), buffers_(cfg.buffers) {}
  EngineKind kind() const override { return EngineKind::psync; }
  unsigned depth() const override { return 1; }
  nlohmann::json features() const override { return nlohmann::json{{"sync", true}}; }
  void queue(const Io& io) override { pending_ = io; }
  std::size_t submit_and_reap(unsigned, std::span<Completion> out) override {
    if (!pending_ || out.empty()) return 0;
    const Io& io = *pending_;
    void* buf = buffers_[io.slot].data();
    ssize_t rc;
    do {
      rc = io.write ? ::pwrite(fds_[io.file], buf, io.len, static_cast<off_t>(io.offset))
                    : ::pread(fds_[io.file], buf, io.len, static_cast<off_t>(io.offset));
    } while (rc < 0 && errno == EINTR);
    out[0] = {io.slot, rc < 0 ? -static_cast<std::int64_t>(errno) : static_cast<std::int64_t>(rc)};
    pending_.reset();
    return 1;
  }

 private:
  std::vector<int> fds_;
  std::vector<std::span<std::byte>> buffers_;
  std::optional<Io> pending_;
};

std::unique_ptr<Engine> make_null(const EngineConfig& cfg) { return std::make_unique<NullEngine>(cfg.depth); }
std::unique_ptr<Engine> make_psync(const EngineConfig& cfg) { return std::make_unique<PsyncEngine>(cfg); }
std::unique_ptr<Engine> make_uring(const EngineConfig& cfg) {
#if MLBENCH_HAS_URING
  return make_uring_engine(cfg);
#else
  (void)cfg;
  throw Error("this mlbench was built without liburing");
#endif
}

constexpr EngineTraits kEngines[] = {
    {.kind = EngineKind::uring,
     .label = "io_uring",
     .queue_depth = true,
     .submission_queue = true,
     .touches_disk = true,
     .sqpoll = true,
     .iopoll = true,
     .registered_buffers = true,
     .unavailable = uring_unavailable_reason,
     .fallback = EngineKind::psync,
     .make = make_uring,
     .dataload = FileReader::uring_chain,
     .dataload_unavailable = uring_chain_unavailable},
    {.kind = EngineKind::psync,
     .label = "psync",
     .queue_depth = false,
     .submission_queue = false,
     .touches_disk = true,
     .sqpoll = false,
     .iopoll = false,
     .registered_buffers = false,
     .unavailable = nullptr,
     .fallback = EngineKind::psync,
     .make = make_psync,
     .dataload = FileReader::plain,
     .dataload_unavailable = nullptr},
    {.kind = EngineKind::null,
     .label = "null",
     .queue_depth = true,
     .submission_queue = false,
     .touches_disk = false,
     .sqpoll = false,
     .iopoll = false,
     .registered_buffers = false,
     .unavailable = nullptr,
     .fallback = EngineKind::null,
     .make = make_null,
     .dataload = FileReader::null,
     .dataload_unavailable = nullptr},
};

// "a", "a or b", "a, b or c": the engines a message offers.
template <typename Pred>
std::string names_where(Pred pred) {
  std::vector<std::string_view> names;
  for (const auto& t : kEngines) {
    if (pred(t)) names.push_back(to_string(t.kind));
  }
  std::string out;
  for (std::size_t i = 0; i < names.size(); ++i)
    out += fmt::format("{}{}", i == 0 ? "" : i + 1 == names.size() ? " or " : ", ", names[i]);
  return out;
}

}  // namespace

std::span<const EngineTraits> engine_table() { return kEngines; }

const EngineTraits& traits(EngineKind k) {
  for (const auto& t : kEngines) {
    if (t.kind == k) return t;
  }
  throw Error("an engine without a row in kEngines");
}

std::string engines_with(bool EngineTraits::*trait) {
  return names_where([&](const EngineTraits& t) { return t.*trait; });
}

std::vector<std::string_view> engine_choices(bool EngineTraits::*trait) {
  std::vector<std::string_view> out;
  for (const auto& [kind, name] : kEngineNames) {
    if (traits(kind).*trait) out.push_back(name);
  }
  return out;
}

std::string_view engine_option_help() {
  static const std::string help = [] {
    std::string fallbacks;
    for (const auto& t : kEngines) {
      if (t.fallback != t.kind)
        fallbacks += fmt::format("{}{} when {} is refused", fallbacks.empty() ? "" : "; ",
                                 to_string(t.fallback), t.label);
    }
    return fallbacks.empty() ? std::string("I/O engine") : fmt::format("I/O engine ({})", fallbacks);
  }();
  return help;
}

std::vector<std::string_view> dataload_engine_names() {
  std::vector<std::string_view> out;
  for (const auto& [kind, name] : kEngineNames) {
    if (traits(kind).dataload != FileReader::none) out.push_back(name);
  }
  return out;
}

ResolvedEngine resolve_engine(const EngineTraits& asked, EngineUse use) {
  if (use == EngineUse::dataload && asked.dataload == FileReader::none)
    throw Error(fmt::format("storage.dataload has no reader for the {} engine", asked.label));
  std::string why = asked.unavailable != nullptr ? asked.unavailable() : std::string();
  if (why.empty() && use == EngineUse::dataload && asked.dataload_unavailable != nullptr)
    why = asked.dataload_unavailable();
  if (why.empty()) return {asked.kind, {}, {}};
  return {asked.fallback, why,
          fmt::format("{} unavailable ({}); fell back to the {} engine", asked.label, why,
                      to_string(asked.fallback))};
}

ResolvedEngine resolve_engine(EngineKind asked, EngineUse use) { return resolve_engine(traits(asked), use); }

std::string_view to_string(EngineKind k) { return name_of(kEngineNames, k); }

EngineKind engine_from_string(std::string_view s) {
  return parse_name(kEngineNames, s, "--engine: unknown engine");
}

std::unique_ptr<Engine> make_engine(EngineKind kind, const EngineConfig& cfg) {
  return traits(kind).make(cfg);
}

std::string uring_unavailable_reason() {
#if MLBENCH_HAS_URING
  return uring_probe();
#else
  return "this mlbench was built without liburing";
#endif
}

}  // namespace mlbench::storage
