// Which CPU each storage job thread runs on (`--cpus auto|none|LIST`).
//
// Pinning keeps a job thread, its ring's completions and its buffers on one CPU for the whole run: no
// migrations in the middle of a measurement, and — with `auto` — the CPUs of the drive's own NUMA node, so a
// drive on the second socket is not measured across the inter-socket link. On this project's 2-vCPU VM an
// unpinned 128 KiB sequential-read thread that migrated between the CPUs left its requests waiting in the I/O
// scheduler for kblockd, where they merged into ~670 KiB requests at ~12k IOPS; pinned to either CPU the disk
// saw 128 KiB requests at 16-20k IOPS. fio does the same with cpus_allowed + cpus_allowed_policy=split.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace mlbench::storage {

// The CPUs job threads are pinned to: thread i runs on result[i % size()]; empty = not pinned.
// `option`: "auto" = the CPUs of `node_cpus` (the targets' NUMA node) this process may use, or every CPU it
// may use when the node is unknown or none of its CPUs is allowed; "none" = empty; otherwise a CPU list
// ("0,2,4-7") whose CPUs must all be in `allowed`. Throws UsageError with the fix.
std::vector<int> pin_cpus(std::string_view option, const std::vector<int>& allowed,
                          const std::vector<int>& node_cpus);

// Checks the syntax of a --cpus value (what does not depend on this machine); throws UsageError.
void check_cpus_option(std::string_view option);

// The CPUs this process may run on (sched_getaffinity), ascending.
std::vector<int> allowed_cpus();

// The CPUs of the NUMA node /sys/block/<disk> hangs off; empty when unknown (no NUMA information, a
// virtual disk without a PCI parent, an empty name).
std::vector<int> disk_node_cpus(const std::string& disk);

// Pins the calling thread to `cpu`; "" on success, else why not.
std::string pin_this_thread(int cpu);

}  // namespace mlbench::storage
