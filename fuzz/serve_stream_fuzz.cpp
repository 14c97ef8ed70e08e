// libFuzzer entry point of the serve_stream target (fuzz/targets.hpp says what it feeds and what counts as a
// finding).
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "fuzz/targets.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  mlbench::fuzz::serve_stream(std::string_view(reinterpret_cast<const char*>(data), size));
  return 0;
}
