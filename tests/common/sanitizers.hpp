// Whether the test runs in a build with AddressSanitizer (the asan preset, UndefinedBehaviorSanitizer beside
// it): gcc says so with __SANITIZE_ADDRESS__, clang through __has_feature.
#pragma once

namespace mlbench::test {

#if defined(__SANITIZE_ADDRESS__)
inline constexpr bool kSanitized = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
inline constexpr bool kSanitized = true;
#else
inline constexpr bool kSanitized = false;
#endif
#else
inline constexpr bool kSanitized = false;
#endif

}  // namespace mlbench::test
