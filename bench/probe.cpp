#include "bench/probe.hpp"

#include <fmt/format.h>

#include "base/names.hpp"
#include "bench/host_view.hpp"

namespace mlbench {

namespace {

constexpr EnumName<Profile> kProfileNames[] = {
    {Profile::quick, "quick"}, {Profile::standard, "default"}, {Profile::full, "full"}};
static_assert(names_cover(kProfileNames));

class UnavailableProbe final : public Probe {
 public:
  UnavailableProbe(ProbeInfo info, std::string reason) : info_(std::move(info)), reason_(std::move(reason)) {}
  ProbeInfo info() const override { return info_; }
  std::optional<std::string> unavailable(const Json& /*host*/) const override { return reason_; }
  // The runner never plans or runs a probe that says it is unavailable; these answer the same if asked.
  std::vector<Case> plan(const PlanContext& /*ctx*/) const override { throw Skipped(reason_); }
  std::vector<Result> run(const Case& /*c*/, RunContext& /*ctx*/) override { throw Skipped(reason_); }

 private:
  ProbeInfo info_;
  std::string reason_;
};

}  // namespace

std::string_view to_string(Profile p) { return name_of(kProfileNames, p); }

std::unique_ptr<Probe> make_unavailable_probe(ProbeInfo info, std::string reason) {
  return std::make_unique<UnavailableProbe>(std::move(info), std::move(reason));
}

Profile profile_from_string(std::string_view s) { return parse_name(kProfileNames, s, "unknown profile"); }

std::optional<double> available_memory(const Json& host) { return HostView(host).memory_available_bytes; }

double RunContext::seconds_left() const {
  return std::chrono::duration<double>(deadline - std::chrono::steady_clock::now()).count();
}

std::vector<Result> Probe::run_round(const Case& c, RunContext& /*ctx*/, unsigned /*round*/) {
  throw Error(fmt::format("{}: case '{}' has {} rounds but the probe measures none apart", info().id, c.label,
                          c.rounds));
}

Result RunContext::make_result(std::string_view probe, const Case& c) const {
  Result r;
  r.probe = std::string(probe);
  r.params = c.params;
  return r;
}

}  // namespace mlbench
