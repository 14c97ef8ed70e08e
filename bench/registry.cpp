#include "bench/registry.hpp"

#include <fmt/format.h>

namespace mlbench {

void Registry::add(std::unique_ptr<Probe> probe) {
  auto id = probe->info().id;
  if (find(id) != nullptr) throw Error(fmt::format("probe '{}' registered twice", id));
  probes_.push_back(std::move(probe));
}

Probe* Registry::find(std::string_view id) const {
  for (const auto& p : probes_) {
    if (p->info().id == id) return p.get();
  }
  return nullptr;
}

std::vector<std::string> Registry::ids() const {
  std::vector<std::string> out;
  for (const auto& p : probes_) out.push_back(p->info().id);
  return out;
}

}  // namespace mlbench
