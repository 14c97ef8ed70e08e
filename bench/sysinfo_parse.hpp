// The pure parsers of the host inventory: text (or bytes) of one /proc, /sys or firmware file in, values out.
// No file access, so that each is unit-tested on literal text and fuzzed (fuzz/targets.cpp, sysinfo); the
// collectors (bench/sysinfo_*.cpp) and the probes that look at the machine (storage, host.membw) read a file
// through SysReader and hand its text to these.
#pragma once

#include <charconv>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace mlbench {

// Per-direction bandwidth (B/s) of a PCIe link of `width` lanes at `gts` GT/s per lane, after line encoding
// (8b/10b at 2.5 and 5 GT/s, 128b/130b at 8-32 GT/s, 242B/256B FLIT at 64 GT/s); nullopt for another rate.
std::optional<double> pcie_bandwidth(double gts, int width);
// "16.0 GT/s PCIe" / "8 GT/s" → GT/s; nullopt for "Unknown" or garbage.
std::optional<double> parse_pcie_speed(std::string_view text);
// "0-3,8,10-11" → {0,1,2,3,8,10,11}; an empty list for an empty or malformed string, or one naming CPU 65536
// or more CPUs.
std::vector<int> parse_cpu_list(std::string_view text);
// /proc/interrupts → interrupts serviced so far per IRQ number, summed over the CPU columns (named rows such
// as NMI: are left out).
std::map<int, std::uint64_t> parse_interrupt_counts(std::string_view text);
// /proc/PID/smaps → the AnonHugePages of the mapping holding address `addr`, in bytes; nullopt when no
// mapping holds it or its block has no such line (huge pages off in the kernel).
std::optional<std::uint64_t> parse_smaps_anon_huge(std::string_view smaps, std::uint64_t addr);
// sysfs cache sizes: "48K", "1024K", "32M", "512" → bytes.
std::optional<std::uint64_t> parse_cache_size(std::string_view text);
// DIMMs (SMBIOS type 17, populated slots only) of a raw SMBIOS/DMI table as /sys/firmware/dmi/tables/DMI
// holds it: [{locator, size_bytes, speed_mts (configured, else rated), type}]. Truncated input ends the walk.
nlohmann::json parse_smbios_memory_devices(std::string_view table);

// One array line of /proc/mdstat, "md0 : active raid0 nvme1n1[1] nvme0n1[0]": members in the order listed
// (spares and failed members too), the level when the line names one.
struct MdstatArray {
  std::string name;
  std::optional<std::string> state, level;
  std::vector<std::string> members;
  std::string line;  // as mdstat has it
};
std::vector<MdstatArray> parse_mdstat(std::string_view text);

// One line of /proc/PID/mountinfo, "36 35 259:1 / /data rw,relatime shared:1 - xfs /dev/nvme0n1p1 rw": the
// device number as written ("259:1"), the mount point and the source, without octal-escape decoding.
struct MountEntry {
  std::string dev, mount_point, source;
};
// Lines with fewer fields, or no " - " separator, are left out.
std::vector<MountEntry> parse_mountinfo(std::string_view text);

// The text helpers the parsers and collectors share.
namespace sysparse {

std::string_view trim(std::string_view s);
std::vector<std::string> split_lines(std::string_view text);
std::vector<std::string> split_words(std::string_view text);

// A whole number or decimal, surrounding blanks allowed, anything after it ignored.
template <typename T>
std::optional<T> parse_number(std::string_view s) {
  s = trim(s);
  T v{};
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || ptr == s.data()) return std::nullopt;
  return v;
}

// "cpu12" with prefix "cpu": true, and suffix_number gives 12 (-1 when it is not a number).
bool starts_with_digits(std::string_view s, std::string_view prefix);
int suffix_number(std::string_view s, std::string_view prefix);
// "key : value" blocks (/proc/cpuinfo, /proc/meminfo, os-release with '='): first occurrence wins.
std::map<std::string, std::string> parse_key_values(std::string_view text, char sep);
// "/proc/meminfo"-style "12345 kB" → bytes.
std::optional<std::uint64_t> parse_kb(const std::string& value);

}  // namespace sysparse
}  // namespace mlbench
