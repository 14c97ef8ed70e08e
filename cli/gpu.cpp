// `mlbench gemm|hbm|copy|conv`: one GPU probe with its options as flags (kernels/gpu/plan.hpp). Options are
// validated here before anything runs, also on a machine without a GPU (where the probe itself is skipped):
// unknown values and a --devices index this machine does not have exit 2 with one line.
#include <memory>

#include <fmt/format.h>

#include "bench/registry.hpp"
#include "cli/commands.hpp"
#include "cli/common.hpp"
#include "kernels/gpu/plan.hpp"
#include "mlbench_config.hpp"

namespace mlbench::cli {
namespace {

struct Flag {
  const char* name;  // option key; the flag is --name
  const char* help;
};

struct Family {
  const char* command;
  const char* probe;
  const char* description;
  std::vector<Flag> flags;
  void (*validate)(const nlohmann::json&);
};

const std::vector<Family>& families() {
  static const std::vector<Family> list = {
      {"gemm",
       "gpu.gemm",
       "GEMM TFLOPS through cuBLASLt per precision, verified (gpu.gemm)",
       {{"precisions", "fp32,tf32,fp16,bf16,fp8,int8 (default: all; quick: bf16,fp8)"},
        {"sizes", "Square sizes, e.g. 4096,8192 (default: 1024..16384)"},
        {"shapes", "square, transformer and/or MxNxK (default: square,transformer; quick: square)"},
        {"tokens", "Tokens (M) of the transformer-layer GEMMs (default 8192)"},
        {"algos", "cuBLASLt heuristic candidates timed per case (default 8)"},
        {"devices", "all or GPU indices, e.g. 0,2 (default: all; quick: GPU 0)"}},
       gpu::validate_gemm_options},
      {"hbm",
       "gpu.hbm",
       "GPU memory bandwidth: STREAM kernels and cudaMemcpy D2D (gpu.hbm)",
       {{"kernels", "copy,scale,add,triad,dot,nstream,read,write,memcpy (default: all)"},
        {"size", "Bytes per array, e.g. 2G (default: free/8 within [4x L2, 2 GiB])"},
        {"devices", "all or GPU indices, e.g. 0,2 (default: all; quick: GPU 0)"}},
       gpu::validate_hbm_options},
      {"copy",
       "gpu.copy",
       "Host-device and peer-to-peer copy bandwidth (gpu.copy)",
       {{"directions", "h2d,d2h,bidir (default: all)"},
        {"memory", "pinned,pageable (default: both)"},
        {"paths", "ce (copy engine), sm (SM kernel) (default: both)"},
        {"size", "Bytes per copy, e.g. 256M (default 256 MiB; full 1 GiB)"},
        {"devices", "all or GPU indices, e.g. 0,2 (default: all; quick: GPU 0)"}},
       gpu::validate_copy_options},
      {"conv",
       "gpu.conv",
       "cuDNN convolution TFLOPS on ResNet-50 layers and an images/s estimate (gpu.conv)",
       {{"precisions", "fp16,bf16 (default: both; quick: bf16)"},
        {"batch", "Batch size (default 256; quick 64)"},
        {"layers", "ResNet-50 layer names, e.g. conv1,s3.conv3x3 (default: all)"},
        {"devices", "all or GPU indices, e.g. 0,2 (default: all; quick: GPU 0)"}},
       gpu::validate_conv_options},
  };
  return list;
}

int run_family(const Family& f, const nlohmann::json& options, const CommonRunFlags& common) {
  if (!MLBENCH_HAS_CUDA) {
    throw UsageError(fmt::format("{}: {}", f.probe, kBuiltWithoutCuda));
  }
  f.validate(options);
  auto host = builtin_host_info();
  int count = host.contains("gpus") ? static_cast<int>(host["gpus"].size()) : 0;
  gpu::select_devices(options, profile_from_string(common.profile), count);
  return execute_family(f.probe, options, common);
}

}  // namespace

void add_gpu_commands(CLI::App& app, Action& action) {
  for (const auto& family : families()) {
    const Family* f = &family;
    auto* cmd = app.add_subcommand(f->command, f->description);
    auto common = std::make_shared<CommonRunFlags>();
    auto values = std::make_shared<std::vector<std::string>>(f->flags.size());
    add_common_run_flags(*cmd, *common);
    for (std::size_t i = 0; i < f->flags.size(); ++i) {
      cmd->add_option(fmt::format("--{}", f->flags[i].name), (*values)[i], f->flags[i].help);
    }
    cmd->callback([&action, f, cmd, common, values] {
      action = [f, cmd, common, values] {
        nlohmann::json options = nlohmann::json::object();
        for (std::size_t i = 0; i < f->flags.size(); ++i) {
          if (cmd->count(fmt::format("--{}", f->flags[i].name)) > 0) options[f->flags[i].name] = (*values)[i];
        }
        return run_family(*f, options, *common);
      };
    });
  }
}

}  // namespace mlbench::cli
