// The per-subsystem collectors of the host inventory, one file each (bench/sysinfo_<subsystem>.cpp), which
// collect_host_info (bench/sysinfo.cpp) calls in turn. Each reads its files through SysReader, parses them
// with bench/sysinfo_parse.hpp, fills its part of the `host` block and adds a line to `notes` for every field
// it had to leave out. Internal to the inventory: the public face is bench/sysinfo.hpp.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "bench/host_view.hpp"
#include "bench/sysinfo_reader.hpp"

namespace mlbench {

inline void note(nlohmann::json& notes, std::string text) { notes.push_back(std::move(text)); }

void collect_os(const SysReader& reader, nlohmann::json& host, nlohmann::json& notes);
// CPU identity, topology and caches (sysinfo_cpu.cpp).
void collect_cpu(const SysReader& reader, nlohmann::json& cpu, nlohmann::json& notes);
// NUMA nodes; a kernel without NUMA gets one node of every CPU and all memory (sysinfo_cpu.cpp).
void collect_numa(const SysReader& reader, nlohmann::json& host, nlohmann::json& notes);
// /proc/meminfo, transparent huge pages and the SMBIOS DIMMs (sysinfo_memory.cpp).
void collect_memory(const SysReader& reader, nlohmann::json& mem, nlohmann::json& notes);
// Block devices and md arrays (sysinfo_storage.cpp).
void collect_block(const SysReader& reader, nlohmann::json& host, nlohmann::json& notes);
void collect_raid(const SysReader& reader, nlohmann::json& host, nlohmann::json& notes);
// Network interfaces and InfiniBand ports (sysinfo_net.cpp).
void collect_nics(const SysReader& reader, nlohmann::json& host, nlohmann::json& notes);

}  // namespace mlbench
