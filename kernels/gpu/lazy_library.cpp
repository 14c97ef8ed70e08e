#include "kernels/gpu/lazy_library.hpp"

#include <dlfcn.h>

#include <fmt/format.h>

#include "base/error.hpp"

namespace mlbench::gpu {

LazyLibrary::LazyLibrary(std::string soname, std::string what)
    : soname_(std::move(soname)), what_(std::move(what)) {}

std::optional<std::string> LazyLibrary::problem() {
  std::call_once(once_, [&] {
    handle_ = dlopen(soname_.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!handle_) {
      const char* why = dlerror();
      error_ = fmt::format(
          "{} is not loaded: {}; put the folder that holds {} (a {} installation or its Python wheel's "
          "site-packages/nvidia/*/lib) on LD_LIBRARY_PATH",
          what_, why ? why : soname_ + " not found", soname_, what_);
    }
  });
  if (handle_) return std::nullopt;
  return error_;
}

void* LazyLibrary::symbol(const char* name) {
  if (auto why = problem()) throw Error(*why);
  dlerror();
  void* p = dlsym(handle_, name);
  if (!p) throw Error(fmt::format("{} ({}) has no {}: a different major version?", what_, soname_, name));
  return p;
}

}  // namespace mlbench::gpu
