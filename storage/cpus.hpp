// Which CPU each storage job thread runs on (`--cpus auto|none|LIST`).
//
// Pinning keeps a job thread, its ring and its completions on one CPU for the whole run: no migrations in the
// middle of a measurement. `auto` puts the first threads on the CPUs that take the drive's completion
// interrupts (no inter-processor wake-up per completion), then on the other CPUs of the drive's NUMA node (a
// drive on the second socket is not measured across the inter-socket link). NVMe spreads one queue and one
// interrupt per CPU, so there every CPU of the node qualifies; a single-queue disk has one interrupt CPU.
// Pinned on the interrupt CPU, a job measured more IOPS than on another CPU, unpinned runs in between
// (docs/NOTES.md). fio pins with cpus_allowed (+ split).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "bench/sysinfo_reader.hpp"

namespace mlbench::storage {

// The CPUs job threads are pinned to: thread i runs on result[i % size()]; empty = not pinned.
// `option`: "none" = empty; a CPU list ("0,2,4-7") = those CPUs, each of which must be in `allowed`; "auto" =
// the CPUs of `node_cpus` this process may use (every CPU it may use when the node is unknown or none of its
// CPUs is allowed), those in `irq_cpus` first. Throws UsageError with the fix.
std::vector<int> pin_cpus(std::string_view option, const std::vector<int>& allowed,
                          const std::vector<int>& node_cpus, const std::vector<int>& irq_cpus);

// Checks the syntax of a --cpus value (what does not depend on this machine); throws UsageError.
void check_cpus_option(std::string_view option);

// The CPUs this process may run on (sched_getaffinity), ascending.
std::vector<int> allowed_cpus();

// The CPUs of the NUMA node /sys/block/<disk> hangs off; empty when unknown.
std::vector<int> disk_node_cpus(const std::string& disk, const SysReader& sys);

// Of `irqs` (a device's MSI vectors), those that fired at least 1 % as often as the busiest: the I/O queues,
// not the configuration or admin vectors. Ascending. `counts`: parse_interrupt_counts (bench/sysinfo.hpp).
std::vector<int> busy_irqs(const std::vector<int>& irqs, const std::map<int, std::uint64_t>& counts);

// The CPUs that take the completion interrupts of /sys/block/<disk> (effective affinity of its PCI
// function's busy MSI vectors), ascending; empty when unknown (no PCI parent, no MSI, nothing fired yet).
std::vector<int> disk_irq_cpus(const std::string& disk, const SysReader& sys);

// Pins the calling thread to `cpu`; "" on success, else why not.
std::string pin_this_thread(int cpu);

}  // namespace mlbench::storage
