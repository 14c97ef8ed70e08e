#include "sizing/plan_context.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "base/error.hpp"
#include "base/units.hpp"
#include "sizing/assumptions.hpp"

namespace mlbench::sizing::planning {

void Planner::plan_inference(const LlmInference& w) {
  const auto& wl = req_.workload;
  double pk = peak(w.precision);
  calibrate_for(w.precision, {});
  std::string why;
  auto sp = serving_point(w, facts_, cal_, h_, &why);
  if (!sp) throw UsageError(fmt::format("{} fits no layout on {}: {}", wl.name, node_->name, why));
  if (!sp->meets_targets)
    sheet_.warnings.push_back(
        fmt::format("latency targets not met on {} even at batch 1-{:.0f}: TTFT {:.3f} s (target {:.3f} "
                    "s), TPOT {:.4f} s "
                    "(target {:.4f} s), each with headroom {:.2f}",
                    node_->name, sp->batch, sp->ttft_s, w.ttft_s, sp->step_s, w.tpot_s, h_));
  double demand = w.request_rate * w.output_tokens;
  bool inverse = !(req_.nodes || wl.nodes);
  int nodes = req_.nodes ? *req_.nodes : wl.nodes ? *wl.nodes : 0;
  if (inverse) nodes = std::max(1, static_cast<int>(std::ceil(demand * (1 + h_) / sp->tokens_per_s_node)));
  int gpus = nodes * facts_.gpus;
  sheet_.title = fmt::format("Sizing sheet: {}", wl.name);
  sheet_.mode = inverse ? fmt::format(
                              "inverse: smallest node count serving {:.1f} req/s x {:.0f} output tokens "
                              "with +{:.0f} % capacity",
                              w.request_rate, w.output_tokens, 100 * h_)
                        : fmt::format("forward: {} nodes given", nodes);
  line("Compute", "Nodes", nodes, "nodes", node_->name,
       inverse ? fmt::format("ceil(demand {:.0f} tokens/s x (1 + {:.2f}) / {:.0f} tokens/s per node)", demand,
                             h_, sp->tokens_per_s_node)
               : "given",
       inverse ? plus_h(h_) + " on throughput" : "-", "workload");
  line("Compute", "GPUs", gpus, "GPUs",
       fmt::format("{} ({:.0f} TFLOPS {})", facts_.gpu->name, pk / 1e12, w.precision),
       fmt::format("{} nodes x {} GPUs", nodes, facts_.gpus), "-", "catalog");
  line("Compute", "Serving layout", facts_.gpus / sp->t, "instances/node",
       fmt::format("TP {} x batch {:.0f} (decode {}-bound)", sp->t, sp->batch, sp->bound),
       "the tensor-parallel degree with the most output tokens/s per node that meets the targets", "-",
       "model");
  auto thr = serving_tokens_per_s_node<Formula>(*sp);
  line("Compute", "Throughput per node", thr, 1, "tokens/s",
       fmt::format("{:.0f} output tokens/s per instance", sp->tokens_per_s_instance),
       fmt::format("{} = {:.0f}", thr.shown(), thr.value()), "-", src(cal_.hbm) + "/" + src(cal_.gemm));
  auto decode = decode_step_time<Formula>(sp->decode);
  line("Compute", "Decode step (TPOT)", decode, 1, "s",
       fmt::format("{}-bound at batch {:.0f}", sp->bound, sp->batch),
       fmt::format("{} = {:.4f} s", decode.shown(), decode.value()),
       w.tpot_s > 0 ? fmt::format("<= (1 - {:.2f}) x {:.3f} s target", h_, w.tpot_s) : "-", src(cal_.hbm));
  auto ttft = time_to_first_token<Formula>(sp->prefill, sp->step_s);
  line("Compute", "Time to first token", ttft, 1, "s", fmt::format("{:.0f}-token prompt", w.input_tokens),
       fmt::format("prefill {} = {:.4f} s", ttft.shown(), ttft.value()),
       w.ttft_s > 0 ? fmt::format("<= (1 - {:.2f}) x {:.2f} s target", h_, w.ttft_s) : "-", src(cal_.gemm));
  // The KV cache takes what the weights leave of the usable HBM; the batch uses most of it.
  auto hbm = serving_hbm_per_gpu<Formula>(*sp);
  double ctx = w.input_tokens + w.output_tokens / 2;
  line("Memory", "HBM per GPU", hbm, 1e9, "GB",
       fmt::format("{} {}", format_bytes(facts_.gpu->memory_bytes), facts_.gpu->memory_type),
       fmt::format("{} = {}: (1 - {:.2f} reserve) x {} - runtime {}; batch {:.0f} x {:.0f} tokens x {} per "
                   "token / t = {} of the KV cache in use",
                   hbm.shown(), format_bytes(hbm.value()), assumption::kServingReserve.value,
                   format_bytes(facts_.gpu->memory_bytes), format_bytes(assumption::kRuntimeOverhead.value),
                   sp->batch, ctx, format_bytes(sp->kv_per_token),
                   format_bytes(sp->batch * ctx * sp->kv_per_token / sp->t)),
       fmt::format("{:.0f} % of HBM reserved by the serving engine", 100 * assumption::kServingReserve.value),
       "model");
  double weights = w.model.params * bytes_per_element(w.precision);
  add_storage_inference(weights, nodes);
  add_network(nodes, 0);
  double year = kSecondsPerYear;
  double tokens_year =
      std::min(demand > 0 ? demand : nodes * sp->tokens_per_s_node, nodes * sp->tokens_per_s_node) * year;
  add_power_host_cost(nodes, year, weights, "per year of service", tokens_year);
  sheet_.figures.update({{"nodes", nodes},
                         {"gpus", gpus},
                         {"tokens_per_s_node", sp->tokens_per_s_node},
                         {"tp", sp->t},
                         {"batch", sp->batch},
                         {"tpot_s", sp->step_s},
                         {"ttft_s", sp->ttft_s}});
}

void Planner::add_storage_inference(double weights, int nodes) {
  const auto& drive = cat_.drive(node_->drive);
  double load_s = weights / local_bw(false);
  line("Storage", "Model weights", weights / 1e9, "GB", "per model version", "N x bytes per parameter", "-",
       "workload");
  double versions = assumption::kModelVersions.value;
  line("Storage", "Shared capacity", versions * weights * (1 + h_) / 1e12, "TB",
       fmt::format("model registry: {} versions", versions),
       fmt::format("{} x {}", versions, format_bytes(weights)), plus_h(h_), "assumed");
  line("Storage", "Local NVMe per node", node_->drives, "drives", fmt::format("{} in RAID-0", drive.name),
       fmt::format("cold start: weights {} / local read {} = {:.1f} s; {} nodes pull {} from shared storage",
                   format_bytes(weights), gbs(local_bw(false)), load_s, nodes, format_bytes(weights * nodes)),
       "-", src(cal_.storage_read));
  sheet_.figures["storage"] = {{"weights_bytes", weights},
                               {"capacity_bytes", versions * weights * (1 + h_)},
                               {"local_drives", node_->drives}};
}

}  // namespace mlbench::sizing::planning
