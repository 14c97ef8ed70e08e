// The explicit probe registry: builtin_probes.cpp adds every probe this build has, guarded by MLBENCH_HAS_*.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "bench/probe.hpp"

namespace mlbench {

class Registry {
 public:
  void add(std::unique_ptr<Probe> probe);  // throws Error on a duplicate id
  Probe* find(std::string_view id) const;
  const std::vector<std::unique_ptr<Probe>>& all() const { return probes_; }
  std::vector<std::string> ids() const;

 private:
  std::vector<std::unique_ptr<Probe>> probes_;
};

// Every probe built into this binary, in the order `run` executes them.
Registry builtin_registry();
// This machine's inventory with the GPU provider this build has (bench/sysinfo.hpp).
Json builtin_host_info();

}  // namespace mlbench
