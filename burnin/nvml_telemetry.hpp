// The pieces of the real telemetry reader (nvml_telemetry.cpp) that are tested without a GPU: the kernel log
// reader (a /dev/kmsg record is "PRIORITY,SEQ,USEC,FLAGS[,...];message" with " KEY=value" continuation lines,
// one record per read(); a regular file given in its place is read in chunks, so records are split on '\n'),
// the XID lines it yields as events, and the deduplication of an XID seen both as an NVML event and as a
// kernel log line.
#pragma once

#include <deque>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "burnin/telemetry.hpp"

namespace mlbench::burnin::detail {

// Opens `path` O_RDONLY|O_NONBLOCK at its end (SEEK_END), so that only records written afterwards count;
// throws Error naming the path and the reason when it cannot be opened (no root or CAP_SYSLOG).
class KmsgReader {
 public:
  explicit KmsgReader(const std::filesystem::path& path);
  ~KmsgReader();
  KmsgReader(const KmsgReader&) = delete;
  KmsgReader& operator=(const KmsgReader&) = delete;

  // The messages (the text after the header's ';') of the records written since the last call, read until
  // EAGAIN or end of file; continuation lines are left out, an unfinished last line waits for its end.
  std::vector<std::string> read_messages();

 private:
  int fd_ = -1;
  std::string pending_;
};

// The "NVRM: Xid" lines among the reader's new messages as events (kind "xid", code the XID, text the line),
// the device named by the GPU whose PCI address the line gives, or the address when no listed GPU has it.
std::vector<burnin_report::Event> kmsg_xid_events(KmsgReader& kmsg, const std::vector<GpuId>& gpus);

// True when two PCI addresses name the same device: "00000000:01:00.0" (NVML) and "0000:01:00" (the kernel
// log) do; the function number is ignored.
bool same_pci_device(std::string_view a, std::string_view b);

// One XID reaches the sampler through NVML's event set and the kernel log, not always in the same second.
// admit() says whether an XID is new: an XID of the same device and number seen through the other source
// less than kWindowS seconds before (and not already paired) is the same event.
class XidDedup {
 public:
  enum class Source { nvml, kmsg };
  static constexpr double kWindowS = 2;
  bool admit(const std::string& device, int xid, Source source, double time_s);

 private:
  struct Seen {
    std::string device;
    int xid;
    Source source;
    double time_s;
    bool paired;
  };
  std::deque<Seen> recent_;  // bounded: entries older than the window are dropped
};

}  // namespace mlbench::burnin::detail
