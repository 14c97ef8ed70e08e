#include "sizing/plan_context.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "base/error.hpp"
#include "base/units.hpp"

namespace mlbench::sizing::planning {
namespace {

nlohmann::json layout_json(const Layout& l) {
  return {{"t", l.t},
          {"p", l.p},
          {"d", l.d},
          {"c", l.c},
          {"ep", l.e},
          {"etp", l.expert_t()},
          {"v", l.v},
          {"zero", l.zero},
          {"micro_batch", l.micro_batch},
          {"recompute", std::string(to_string(l.recompute))}};
}

std::string fixed_layout_text(const LlmTraining& w) {
  const auto& f = w.layout;
  std::vector<std::string> given;
  auto add = [&](const char* k, const std::optional<int>& v) {
    if (v) given.push_back(fmt::format("{} {}", k, *v));
  };
  add("tp", f.tp);
  add("pp", f.pp);
  add("dp", f.dp);
  add("cp", f.cp);
  add("ep", f.ep);
  add("etp", f.etp);
  add("vp", f.vp);
  add("micro_batch", f.micro_batch);
  if (w.recompute != "auto") given.push_back("recompute " + w.recompute);
  std::string searched =
      "fastest layout that fits HBM less the runtime's reserve, ties to less recomputation, then tensor "
      "within the NVLink domain, then pipeline, then data";
  if (given.empty()) return searched;
  return fmt::format("{} fixed by the workload; {}", fmt::join(given, ", "), searched);
}

// The operands of the step's stage imbalance, empty without a pipeline.
std::string stage_text(const TrainingStep& st) {
  const StageLoad& s = st.stages;
  if (st.layout.p <= 1) return {};
  return fmt::format(
      "stage imbalance {:.3f} = busiest / mean stage - 1 over p {} stages: {} {} layers of {:.4f} s + {}the "
      "output layer's GEMMs and cross-entropy {:.4f} s{}; ",
      s.imbalance, st.layout.p, s.ends > 1 ? "the first and the last each run" : "the last runs",
      s.last_layers, s.layer, s.ends > 1 ? fmt::format("1/{} of ", s.ends) : std::string(), s.out,
      s.ends < st.layout.p ? fmt::format(", the others up to {} layers", s.other_layers) : std::string());
}

}  // namespace

Planner::TrainEval Planner::eval_llm(const LlmTraining& w, int nodes) {
  TrainEval e;
  e.choice = choose_layout(w.model, w, facts_, cal_, nodes * facts_.gpus);
  if (!e.choice.layout) return e;
  e.step = training_step(w.model, w, facts_, cal_, *e.choice.layout);
  e.time_s = time_to_train<double>("tokens", w.tokens, "tokens", e.step.tokens_per_s, goodput(w.checkpoint));
  return e;
}

int Planner::find_nodes_llm(const LlmTraining& w, bool* inverse) {
  const auto& wl = req_.workload;
  std::optional<int> fixed = req_.nodes ? req_.nodes : wl.nodes;
  // A layout whose tp, pp, dp and cp are all given runs on their product of GPUs: the nodes that hold them,
  // the last one in part where the product is not a whole number of nodes (64 GPUs of a 72-GPU NVL72 rack),
  // its other GPUs idle (the planner says how many).
  if (auto need = w.layout.gpus()) {
    const auto& f = w.layout;
    long long holding = (*need + facts_.gpus - 1) / facts_.gpus;
    if (fixed && *fixed != holding)
      throw UsageError(
          fmt::format("{}: layout tp x pp x dp x cp = {} x {} x {} x {} = {} GPUs, but {} nodes of {} GPUs "
                      "(allowed: nodes "
                      "{}, the {}-GPU {} nodes that hold them, or no node count)",
                      wl.name, *f.tp, *f.pp, *f.dp, *f.cp, *need, *fixed, facts_.gpus, holding, facts_.gpus,
                      node_->name));
    if (!fixed) fixed = static_cast<int>(holding);
  }
  if (fixed) {
    *inverse = false;
    auto e = eval_llm(w, *fixed);
    if (!e.choice.layout)
      throw UsageError(
          fmt::format("{} fits no layout on {} x {}: {}", wl.name, *fixed, node_->name, e.choice.why_not));
    return *fixed;
  }
  *inverse = true;
  double deadline = *wl.deadline_s;
  auto n = smallest_nodes([&](int nodes) {
    auto e = eval_llm(w, nodes);
    return e.choice.layout && meets_deadline(e.time_s, deadline, h_);
  });
  if (!n) {
    // Explain: nothing fits at any scale, or the batch caps data parallelism before the deadline is met.
    auto e = eval_llm(w, kMaxNodes);
    if (!e.choice.layout) {
      auto one = eval_llm(w, 1);
      throw UsageError(fmt::format("{} fits no layout on {}: {}", wl.name, node_->name,
                                   one.choice.layout ? e.choice.why_not : one.choice.why_not));
    }
    double best = 0;
    int best_n = 0;
    for (int nodes = 1; nodes <= kMaxNodes; nodes *= 2) {
      auto f = eval_llm(w, nodes);
      if (f.choice.layout && (best == 0 || f.time_s < best)) {
        best = f.time_s;
        best_n = nodes;
      }
    }
    throw UsageError(fmt::format(
        "{}: the deadline of {} cannot be met with headroom {:.2f}: the fastest plan "
        "takes {} on {} nodes (the global batch of {:.0f} tokens limits data "
        "parallelism); extend the deadline or raise global_batch_tokens",
        wl.name, duration(deadline), h_, duration(with_headroom(best, h_)), best_n, w.global_batch_tokens));
  }
  return *n;
}

void Planner::plan_llm_training(const LlmTraining& given) {
  // Plan the batch Megatron-LM can run with the workload's fixed layout fields (the nearest one when the
  // workload's does not divide), and say so.
  LlmTraining w = given;
  w.global_batch_tokens = runnable_batch_tokens(given);
  std::string rounded;
  if (w.global_batch_tokens != given.global_batch_tokens) {
    rounded = fmt::format(
        "global batch rounded from {:.0f} to {:.0f} tokens ({:.0f} sequences of {}): the nearest that the "
        "workload's layout splits into whole micro-batches per replica",
        given.global_batch_tokens, w.global_batch_tokens, w.global_batch_tokens / w.seq_len, w.seq_len);
    sheet_.warnings.push_back(rounded);
  }
  const auto& m = w.model;
  double pk = peak(w.precision);
  calibrate_for(w.precision, training_gemm_shapes(m, w.layout.micro_batch.value_or(1) * w.seq_len, 1));
  bool inverse = false;
  int nodes = find_nodes_llm(w, &inverse);
  // Recalibrate at the chosen layout's GEMM shapes, then plan again with them.
  auto first = *eval_llm(w, nodes).choice.layout;
  calibrate_for(w.precision, training_gemm_shapes(m, first.micro_batch * w.seq_len / first.c, first.t));
  nodes = find_nodes_llm(w, &inverse);
  auto e = eval_llm(w, nodes);
  const auto& st = e.step;
  const auto& l = *e.choice.layout;
  int gpus = nodes * facts_.gpus;
  // The rest idle: t p c does not divide the node count's GPUs, or a fixed layout holds part of the last.
  int active = l.gpus();
  if (active < gpus)
    sheet_.warnings.push_back(fmt::format(
        "{} of {} GPUs idle: the layout ({}) uses {}; {}", gpus - active, gpus, l.describe(), active,
        active > gpus - facts_.gpus
            ? fmt::format("the last node runs {} of its {}", active - (gpus - facts_.gpus), facts_.gpus)
            : "plan fewer nodes or one whose GPU count the layout divides"));
  auto flops = training_flops_per_token(m, w.seq_len, w.finetune);
  double total_flops = w.tokens * flops.total();
  double gpu_hours = gpus * e.time_s / 3600;
  sheet_.title = fmt::format("Sizing sheet: {}", req_.workload.name);
  sheet_.mode = planning_text(nodes, e.time_s, inverse);

  std::string shape = m.derived_shape ? " (shape derived from the parameter count)" : "";
  line({.section = "Compute",
        .item = "Nodes",
        .quantity = nodes,
        .unit = "nodes",
        .spec = node_->name,
        .driver = inverse ? "smallest N with " +
                                deadline_rule("T", h_, e.time_s, *req_.workload.deadline_s, duration)
                          : "given by " + nodes_given(),
        .headroom = inverse ? headroom_shown(h_) + " on time" : "-",
        .source = inverse || !req_.nodes ? "workload" : "--nodes"});
  gpus_line(nodes, fmt::format("{} ({:.0f} TFLOPS {} dense peak, {} HBM)", facts_.gpu->name, pk / 1e12,
                               w.precision, format_bytes(facts_.gpu->memory_bytes)));
  line({.section = "Compute",
        .item = "Training compute",
        .quantity = total_flops,
        .unit = "FLOP",
        .spec = fmt::format("{:.3g} params{}, {:.3g} tokens", m.params, shape, w.tokens),
        .driver = fmt::format(
            "D x ({} + 6 L a (d_qk + d_v) s{}) = {:.3g} x ({:.3g} + {:.3g}) FLOP/token (6ND = {:.3g}){}",
            w.finetune.lora() ? fmt::format("4 {} frozen + 6 N_adapters", m.multiplied_params_symbol())
                              : fmt::format("6 {}", m.multiplied_params_symbol()),
            m.local_layers() > 0 ? fmt::format(" x local share {:.3f}", m.attended_share(0, w.seq_len)) : "",
            w.tokens, flops.gemm, flops.attention, 6 * m.active_params * w.tokens,
            m.local_layers() > 0
                ? "; local attention: " + m.local_attention_text(m.attended_share(0, w.seq_len))
                : ""),
        .source = "workload"});
  bool dualpipe = w.schedule == "dualpipe" && l.p > 1;
  std::vector<std::string> fused;
  for (const auto& [kernel, name] : kFusedKernelNames)
    if (w.fused.has(kernel)) fused.push_back(name);
  std::string ran = fmt::format(
      "recompute {}{}, {} attention, sequence parallel {}, {} schedule, {}", to_string(l.recompute),
      w.recompute == "auto" ? " (auto)" : "", w.attention, w.sequence_parallel ? "on" : "off",
      dualpipe  ? "DualPipe"
      : l.v > 1 ? "interleaved"
                : "1F1B",
      fused.empty()
          ? std::string("elementwise passes as PyTorch's reference kernels (the workload's fused: none)")
          : fmt::format("fused {} (the workload's fused)", fmt::join(fused, ", ")));
  if (l.v > 1 && !dualpipe)
    ran += w.overlap_p2p_comm ? ", pipeline sends under compute (overlap_p2p_comm)"
                              : ", pipeline sends waited on (overlap_p2p_comm false)";
  if (l.c > 1)
    ran += w.cp_comm == "p2p" ? ", ring attention merging each step's output (cp_comm p2p)"
           : w.cp_comm == "a2a"
               ? ", Q, K, V and the output exchanged all-to-all around attention, exposed (cp_comm a2a)"
               : ", K and V all-gathered before attention, exposed (cp_comm all_gather)";
  if (w.precision == "fp8") ran += fmt::format(", FP8 {} scaling (fp8_recipe)", w.fp8_recipe);
  if (w.fp8_params) ran += ", weights held in FP8 (fp8_params)";
  if (w.fp8_activation_input) ran += ", the activation's input kept in FP8 (fp8_activation_input)";
  auto mfu = model_flops_utilisation<Formula>(st);
  const TrainingAttentionRate training_attention =
      training_attention_rate(*facts_.gpu, w, st.layout.c, cal_.sustained);
  const AttentionRate& attention = training_attention.rate;
  std::string attention_peak;
  if (attention.precision != w.precision)
    attention_peak =
        fmt::format(" of the {} peak {:.0f} TFLOPS ({})", attention.precision, attention.peak / 1e12,
                    w.fp8_attention ? "fp8_attention: " + training_attention.basis
                                    : fmt::format("a {} recipe's attention multiplies in {} unless "
                                                  "fp8_attention",
                                                  w.precision, attention.precision));
  line({.section = "Compute",
        .item = "Predicted MFU",
        .quantity = mfu,
        .unit = "fraction",
        .spec = "model FLOPs (6ND-style, no recomputation) / (GPU peak x step time)",
        .driver = fmt::format(
            "{}: {} = {:.3f}; {}bubble {}; eta_GEMM {:.3f} (by shape) x training derate {:.2f}, {}{}", ran,
            mfu.shown(), mfu.value(), stage_text(st),
            dualpipe
                ? std::string("2 (p/2 - 1) / (3 m), DualPipe's (p/2 - 1)(F&B + B - 3W) with B = 2F, W = F")
                : fmt::format("(p-1)/(v m) with v = {}", st.virtual_stages),
            st.gemm.eta, assumption::kTrainingGemmDerate.value,
            w.attention == "standard"
                ? fmt::format("standard attention as batched GEMMs at the asymptote {:.3f} x the derate",
                              cal_.gemm.value)
                : fmt::format("flash attention at {:.2f} x the asymptote",
                              assumption::kAttentionRelative.value),
            attention_peak),
        .source = src(cal_.gemm)});
  bool measured = cal_.gemm.source != Source::assumed;  // its shapes' quantization is in the measurement
  line({.section = "Compute",
        .item = "GEMM efficiency",
        .quantity = st.gemm.eta,
        .unit = "fraction",
        .spec = fmt::format("the micro-batch's GEMMs (forward, input and weight gradients) at {} {:.3f}: {}; "
                            "measure them: {}",
                            measured ? "the measured efficiency" : "asymptote", cal_.gemm.value,
                            cal_.gemm.basis, gemm_probe_command(st.gemm, w.precision)),
        .driver = fmt::format(
            "FLOP-weighted over the GEMM classes, each max(compute at {}, A + B + C bytes / HBM): {}",
            measured ? "the measured efficiency" : "asymptote x tile/wave quantization", describe(st.gemm)),
        .source = src(cal_.gemm)});
  // Megatron-LM's papers and logs count the recomputed forward in their "achieved TFLOP/s per GPU"
  // (Narayanan et al. 2021, eq. 3: 96 B s l h^2 (1 + s / 6h + V / 16 l h) with recomputation): HFU x peak.
  line({.section = "Compute",
        .item = "Predicted HFU",
        .quantity = st.hfu,
        .unit = "fraction",
        .spec = fmt::format(
            "hardware FLOPs (model + recomputed forward) / (GPU peak x step time) = {:.1f} TFLOP/s "
            "per GPU, the figure Megatron-LM reports (model FLOPs: {:.1f})",
            st.hfu * pk / 1e12, st.mfu * pk / 1e12),
        .driver =
            fmt::format("{}: recomputation {:.3f} s of {:.3f} s compute per step; HFU = MFU when nothing is "
                        "recomputed",
                        ran, st.t_recompute, st.t_gemm + st.t_attention + st.t_recompute),
        .source = src(cal_.gemm)});
  auto ttt = time_to_train<Formula>("tokens", w.tokens, "tokens", st.tokens_per_s, goodput(w.checkpoint));
  line({.section = "Compute",
        .item = "Time to train",
        .quantity = ttt,
        .per = 86400,
        .unit = "days",
        .spec = fmt::format("{:.0f} GPU-hours", gpu_hours),
        .driver = fmt::format(
            "{} = {:.0f} s; = C / (G x peak x MFU) / goodput with C {:.3g} FLOP, G {}, {:.0f} TFLOPS, "
            "MFU {:.3f}",
            ttt.shown(), ttt.value(), total_flops, active, pk / 1e12, st.mfu),
        .headroom = planned_time_shown(e.time_s, h_, duration),
        .source = src(cal_.gemm)});
  line({.section = "Compute",
        .item = "Throughput",
        .quantity = st.tokens_per_s,
        .unit = "tokens/s",
        .spec = fmt::format("{:.0f} tokens/s per working GPU", st.tokens_per_s / active),
        .driver = fmt::format("global batch {:.0f} tokens / step {:.3f} s", w.global_batch_tokens, st.step_s),
        .source = src(cal_.gemm)});
  auto step = step_time<Formula>(st);
  line({.section = "Compute",
        .item = "Step time",
        .quantity = step,
        .unit = "s",
        .spec = fmt::format("per optimizer step of {:.0f} tokens", w.global_batch_tokens),
        .driver = fmt::format("{} = {:.3f} s", step.shown(), step.value()),
        .source = src(cal_.gemm)});
  line({.section = "Compute",
        .item = "Parallel layout",
        .quantity = active,
        .unit = "GPUs",
        .spec = l.describe(),
        .driver = fmt::format(
            "{}; {:.0f} micro-batches of {} x {} per replica per step (global batch / (micro-batch x "
            "dp), whole{}, as Megatron-LM requires){}{}",
            fixed_layout_text(w), st.micro_batches, l.micro_batch, w.seq_len,
            l.v > 1 ? fmt::format(" and a multiple of pp {} for the interleaved schedule", l.p) : "",
            active < gpus ? fmt::format("; {} of {} GPUs idle", gpus - active, gpus) : "",
            rounded.empty() ? "" : "; " + rounded),
        .source = "model"});
  if (e.choice.fitting > 1) {
    std::string ranked;
    for (std::size_t i = 0; i < e.choice.compared.size(); ++i)
      ranked += fmt::format("{}{}. {}: {:.3f} s", i ? "; " : "", i + 1,
                            e.choice.compared[i].layout.describe(), e.choice.compared[i].step_s);
    line({.section = "Compute",
          .item = "Layouts compared",
          .quantity = e.choice.fitting,
          .unit = "layouts",
          .spec = "the fastest 3 that fit, step time each",
          .driver = ranked,
          .source = "model"});
  }
  line({.section = "Memory",
        .item = "HBM per GPU (modelled)",
        .quantity = memory_total<Formula>(st.memory),
        .per = kGiB,
        .unit = "GiB",
        .spec = fmt::format(
            "{} of {} {}; with the runtime's reserve: CUDA context, cuBLAS workspace, NCCL buffers "
            "per communicator (one per parallel dimension split), fragmentation {:.0f} % of the tensors "
            "(each with its basis under assumptions)",
            format_bytes(st.memory.total()), format_bytes(facts_.gpu->memory_bytes), facts_.gpu->memory_type,
            100 * assumption::kFragmentation.value),
        .driver = st.memory.describe(),
        .headroom = fmt::format("<= HBM {}: the reserve is in the total, the headroom applies to time",
                                format_bytes(facts_.gpu->memory_bytes)),
        .source = "model"});
  if (w.finetune.lora()) {
    auto adapters = lora_params(m, w.finetune);
    line({.section = "Compute",
          .item = "LoRA fine-tuning",
          .quantity = adapters.total,
          .unit = "trainable params",
          .spec = fmt::format("rank {} on {} of every layer; base {:.3g} params frozen", w.finetune.rank,
                              fmt::join(w.finetune.targets, ", "), m.params),
          .driver = fmt::format(
              "r (d_in + d_out) per targeted matrix x {} layers = {:.3g} params ({:.4f} of the base): "
              "gradients, optimizer state, gradient sync and checkpoints cover these only; the frozen "
              "GEMMs run forward + input gradient (4 FLOPs per weight and token, no weight gradient)",
              m.layers, adapters.total, adapters.total / m.params),
          .source = "workload"});
  }
  if (m.moe()) {
    auto split = params_per_gpu(m, l);
    line({.section = "Compute",
          .item = "Mixture of experts",
          .quantity = m.active_params,
          .unit = "active params",
          .spec =
              fmt::format("{} routed experts, top-{}{}; {:.3g} of {:.3g} params active per token", m.experts,
                          m.top_k, m.shared_experts ? fmt::format(", {} shared", m.shared_experts) : "",
                          m.active_params, m.params),
          .driver = fmt::format(
              "FLOPs from the active params ({} x (attention + router + {} FFNs of {:.3g}){} + {}); "
              "memory and optimizer state from all {:.3g}: per GPU {:.3g} dense / (t p) + {:.3g} "
              "routed-expert / ({} p ep) params, ep {}; expert gradients reduced over {} = {:.0f} ranks, "
              "dense over dp x cp = {}",
              m.dense_layers > 0 ? fmt::format("{} MoE layers", m.moe_layers()) : std::string("L"),
              m.ffns_per_token(), m.ffn_params(),
              m.dense_layers > 0 ? fmt::format(" + {} dense layers x (attention + a dense FFN of {:.3g})",
                                               m.dense_layers, m.dense_ffn_params())
                                 : std::string(),
              m.tied_embeddings ? "V h (tied)" : "2 V h", m.params, split.dense, split.expert,
              l.expert_t() != l.t ? fmt::format("expert t {}", l.expert_t()) : std::string("t"), l.e,
              l.expert_t() != l.t ? "t x cp x dp / (expert t x ep)" : "dp x cp / ep", expert_data_ranks(l),
              l.d * l.c),
          .source = "workload"});
  }
  if (l.e > 1)
    line({.section = "Network",
          .item = "Expert-parallel all-to-all",
          .quantity = st.t_ep,
          .unit = "s/step",
          .spec = st.ep_in_domain ? fmt::format("alltoall busbw {} (NVLink)", gbs(st.ep_busbw))
                                  : fmt::format("alltoall busbw {} (network), {} (NVLink)", gbs(st.ep_busbw),
                                                gbs(st.ep_nvlink_busbw)),
          .driver = fmt::format(
              "{} all-to-alls (dispatch, combine; forward and backward) x (tokens/{} x h x {} B x {} + "
              "latency) per MoE layer per micro-batch, ep {} over {} x ep = {} GPUs {} the {}-GPU "
              "NVLink domain; {}",
              l.recompute == Recompute::full ? 6 : 4, w.sequence_parallel ? "t" : "1",
              w.ep_dispatch == "fp8" ? "(1 for the forward dispatch in FP8, else 2)" : "2",
              st.ep_in_domain
                  ? fmt::format("top_k {} x (ep-1)/ep / busbw", m.top_k)
                  : fmt::format(
                        "max(top_k {} x ({:.0f}-1)/ep / NVLink busbw, {} x (ep-{:.0f})/ep / network busbw), "
                        "{:.0f} of the ep ranks in the worst-placed GPU's domain, both at once",
                        m.top_k, st.ep_local,
                        st.ep_copies < m.top_k
                            ? fmt::format("{:.0f} nodes (node-limited routing: top-{} of {} expert groups)",
                                          st.ep_copies, m.group_top_k, m.expert_groups)
                            : fmt::format("top_k {}", m.top_k),
                        st.ep_local, st.ep_local),
              l.e, l.expert_t() != l.t ? "expert t" : "t", l.expert_t() * l.e,
              st.ep_in_domain ? "within" : "beyond", facts_.domain,
              w.schedule == "dualpipe"
                  ? fmt::format("{:.3f} s exposed per step: DualPipe runs it under other micro-batches' "
                                "compute, hidden x {:.2f}",
                                st.t_ep_exposed, assumption::kOverlapHidden.value)
                  : std::string("not overlapped")),
          .source = st.ep_in_domain ? src(cal_.alltoall_nvlink) : src(cal_.alltoall_network)});
  if (l.t > 1)
    line(
        {.section = "Network",
         .item = "Tensor-parallel traffic",
         .quantity = st.t_tp,
         .unit = "s/step",
         .spec = fmt::format("NVLink busbw {}", gbs(st.tp_busbw)),
         .driver = fmt::format(
             "(4 all-reduces{}) x {}2 b s/cp h (t-1)/t x 2 B / busbw + {:.0f} calls x latency, per layer "
             "per micro-batch; {:.3f} s exposed per step: the backward's column-parallel collectives ({:.0f} "
             "of "
             "the reductions) overlap their GEMMs as Megatron-LM runs them, hidden x {:.2f}",
             l.recompute == Recompute::full ? " + 2 recomputed"
             : w.sequence_parallel          ? " + 1 re-gather, as all-gather/reduce-scatter"
                                            : "",
             st.tp_ffn_volume < 1
                 ? fmt::format(
                       "(1/2 + 1/2 x {:.3f}: the MoE layers' FFN collectives within expert TP {} only) x ",
                       st.tp_ffn_volume, l.expert_t())
                 : std::string(),
             st.tp_calls, st.t_tp_exposed, st.tp_overlapped_reductions, assumption::kOverlapHidden.value),
         .source = src(cal_.nvlink)});
  if (l.c > 1)
    line(
        {.section = "Network",
         .item = w.cp_comm == "a2a" ? "Context-parallel all-to-all" : "Context-parallel K/V ring",
         .quantity = st.t_cp,
         .unit = "s/step",
         .spec = fmt::format("busbw {} ({})", gbs(st.cp_busbw),
                             l.t * l.c <= facts_.domain ? "NVLink" : "network"),
         .driver =
             w.cp_comm == "a2a"
                 ? fmt::format("(Q, K, V and the output per forward; Q, K, V and twice the output "
                               "backward) of s/cp tokens x {:.0f} B / tp x (cp - 1)/cp / busbw + (4 per "
                               "forward + 5) x latency per layer per micro-batch, one all-to-all per "
                               "tensor; {:.3f} s exposed",
                               w.fp8_attention ? 1.0 : 2.0, st.t_cp_exposed)
                 : fmt::format("3 x (cp - 1) x (K, V of s/cp tokens / busbw + latency) per layer per "
                               "micro-batch; {:.3f} s exposed after overlap with the chunk's attention",
                               st.t_cp_exposed),
         .source = w.cp_comm == "a2a"
                       ? (l.t * l.c <= facts_.domain ? src(cal_.alltoall_nvlink) : src(cal_.alltoall_network))
                       : (l.t * l.c <= facts_.domain ? src(cal_.nvlink) : src(cal_.network))});
  std::string grads = fmt::format("{:.0f} B ({} gradients, optimizer {})", grad_bytes(w),
                                  grad_bytes(w) == 4 ? "fp32" : "bf16", w.optimizer);
  const char* fp8_gather = gathered_weight_bytes(w) < 2 ? ", fp8_params" : "";
  if (l.d * l.c > 1 || expert_data_ranks(l) > 1)
    line(
        {.section = "Network",
         .item = "Data-parallel gradient sync",
         .quantity = st.t_dp,
         .unit = "s/step",
         .spec = fmt::format("all_reduce busbw {} per DP group", gbs(st.dp_busbw)),
         .driver =
             l.zero >= 3
                 ? fmt::format(
                       "ZeRO-3 gathers and reduce-scatters: {} x (N/(t p) x {} x 2(r-1)/r / busbw + 2 log2 r "
                       "latency) x {:.1f} micro-batches, r = dp x cp = {} ranks = {:.3f} s; {:.3f} s exposed "
                       "after overlap with the whole forward and backward",
                       assumption::kZero3Traffic.value, grads, st.micro_batches, l.d * l.c, st.t_dp,
                       st.t_dp_exposed)
                 : fmt::format(
                       "{} x (r-1)/r / busbw + 2 log2 r latency each, r = dp x cp = {} ranks = {:.3f} s; "
                       "{:.3f} s exposed after overlap with {}",
                       l.zero == 0 ? fmt::format("N/(t p) x 2 x {} (all-reduce)", grads)
                       : l.zero == 1
                           ? fmt::format("(N/(t p) x {} reduce-scattered + N/(t p) x {:.0f} B weights "
                                         "all-gathered{})",
                                         grads, gathered_weight_bytes(w), fp8_gather)
                           : fmt::format("({:.1f} micro-batches x N/(t p) x {} reduce-scattered, the "
                                         "gradients sharded (ZeRO-2), + N/(t p) x {:.0f} B weights "
                                         "all-gathered{})",
                                         st.micro_batches, grads, gathered_weight_bytes(w), fp8_gather),
                       l.d * l.c, st.t_dp, st.t_dp_exposed,
                       fmt::format("{}{:.3f} of the {} ({})",
                                   l.zero == 2 ? "the whole backward (reductions) and " : "",
                                   dp_sync_reach(l, st.micro_batches),
                                   l.zero == 0   ? "backward"
                                   : l.zero == 1 ? "backward (reduction) and forward (gather)"
                                                 : "forward (gather)",
                                   l.v > 1 ? "chunk by chunk under the interleaved schedule: (v - 1)/v x "
                                             "min(1, p/m) + 1/(m v), the last chunk's share under its own "
                                             "1/(m v)"
                                   : l.zero == 0 ? "the last micro-batch's backward: 1/m"
                                   : l.zero == 1 ? "the last micro-batch's backward, the next step's first "
                                                   "forward: 1/m"
                                                 : "the next step's first forward: 1/m")),
         .source = nodes > 1 ? src(cal_.network) : src(cal_.nvlink)});

  nlohmann::json compared = nlohmann::json::array();
  for (const auto& c : e.choice.compared)
    compared.push_back({{"layout", layout_json(c.layout)}, {"step_s", c.step_s}});
  // A LoRA run checkpoints its adapters and their optimizer state; the frozen base is already stored.
  double ckpt = assumption::kCheckpointBytesPerParam.value * m.params * trainable_share(m, w.finetune);
  add_storage(ckpt, w.checkpoint, w.dataset_bytes, st.tokens_per_s * w.dataset_bytes / w.tokens, nodes);
  add_network(nodes, st.comm_share, nodes > 1);
  double run_s = e.time_s;
  add_power_host_cost(nodes, run_s, ckpt, fmt::format("per training run ({})", duration(run_s)), 0);

  sheet_.figures.update({{"nodes", nodes},
                         {"gpus", gpus},
                         {"time_s", e.time_s},
                         {"gpu_hours", gpu_hours},
                         {"mfu", st.mfu},
                         {"model_tflops_per_gpu", st.mfu * pk / 1e12},
                         {"hardware_tflops_per_gpu", st.hfu * pk / 1e12},
                         {"hfu", st.hfu},
                         {"step_s", st.step_s},
                         {"tokens_per_s", st.tokens_per_s},
                         {"tokens_per_s_gpu", st.tokens_per_s / active},
                         {"layout", layout_json(l)},
                         {"layouts_compared", compared},
                         {"hbm_bytes", st.memory.total()},
                         {"gemm_efficiency", st.gemm.eta},
                         {"gemm_asymptote", cal_.gemm.value},
                         {"gemm_source", src(cal_.gemm)}});
}

}  // namespace mlbench::sizing::planning
