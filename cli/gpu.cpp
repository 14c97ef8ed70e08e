// `mlbench gemm|hbm|copy|conv`: one GPU probe with its option table as flags (kernels/gpu/plan.hpp). Options
// are validated here before anything runs, also on a machine without a GPU (where the probe itself is
// skipped): unknown values and a --devices index this machine does not have exit 2 with one line.
#include <memory>

#include <fmt/format.h>

#include "bench/host_view.hpp"
#include "bench/registry.hpp"
#include "cli/commands.hpp"
#include "cli/common.hpp"
#include "kernels/gpu/conv_plan.hpp"
#include "kernels/gpu/copy_plan.hpp"
#include "kernels/gpu/gemm_plan.hpp"
#include "kernels/gpu/hbm_plan.hpp"
#include "mlbench_config.hpp"

namespace mlbench::cli {
namespace {

struct Family {
  const char* command;
  const char* probe;
  const char* description;
  std::span<const OptionSpec> (*options)();
  void (*validate)(const Json&, const OptionSource&);
};

constexpr Family kFamilies[] = {
    {"gemm", "gpu.gemm", "GEMM TFLOPS through cuBLASLt per precision, verified (gpu.gemm)", gpu::gemm_options,
     gpu::validate_gemm_options},
    {"hbm", "gpu.hbm", "GPU memory bandwidth: STREAM kernels and cudaMemcpy D2D (gpu.hbm)", gpu::hbm_options,
     gpu::validate_hbm_options},
    {"copy", "gpu.copy", "Host-device and peer-to-peer copy bandwidth (gpu.copy)", gpu::copy_options,
     gpu::validate_copy_options},
    {"conv", "gpu.conv", "cuDNN convolution TFLOPS on ResNet-50 layers and an images/s estimate (gpu.conv)",
     gpu::conv_options, gpu::validate_conv_options},
};

int run_family(const Family& f, const Json& options, const CommonRunFlags& common) {
  if (!MLBENCH_HAS_CUDA) {
    throw UsageError(fmt::format("{}: {}", f.probe, kBuiltWithoutCuda));
  }
  f.validate(options, {});
  auto host = builtin_host_info();
  int count = static_cast<int>(HostView(host).gpus.size());
  gpu::select_devices(options, profile_from_string(common.profile), count);
  return execute_family(f.probe, options, common);
}

}  // namespace

void add_gpu_commands(CLI::App& app, Action& action) {
  for (const auto& family : kFamilies) {
    const Family* f = &family;
    auto* cmd = app.add_subcommand(f->command, f->description);
    auto common = std::make_shared<CommonRunFlags>();
    add_common_run_flags(*cmd, *common);
    auto options = add_option_flags(*cmd, f->options());
    cmd->callback([&action, f, common, options] {
      action = [f, common, options] { return run_family(*f, options(), *common); };
    });
  }
}

}  // namespace mlbench::cli
