#include "sizing/plan_context.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "base/error.hpp"
#include "base/units.hpp"
#include "sizing/assumptions.hpp"

namespace mlbench::sizing::planning {

void Planner::plan_inference(const LlmInference& w) {
  const auto& wl = req_.workload;
  const auto& m = w.model;
  double pk = peak(w.precision);
  // Each phase at its own GEMM shapes: prefill at a batched chunk of prompt tokens, decode at the batch's
  // rows, on the tensor-parallel degree served. Calibrated (a report's measured shapes nearest them) and then
  // the shape model (tile and wave quantization of the assumed asymptote) per phase; the batch and degree
  // they give are planned again with their own phases until they settle. Quantization is not monotonic in
  // the rows, so the batches can cycle: then each batch of the cycle is planned at its own shapes and the
  // best kept.
  // The prefill chunk: the engine's max_num_batched_tokens at the degree being planned.
  auto chunk_at = [&](int t) { return serving_budget(w, *facts_.gpu, t).max_num_batched_tokens; };
  double chunk = chunk_at(w.tp.value_or(1));
  struct Evaluated {
    std::optional<ServingPoint> sp;
    GemmPhase prefill_gemm, decode_gemm;
    Figure eta_prefill, eta_decode;
  };
  std::string why;
  // The phase's GEMMs at `rows` rows: the routed experts' grouped GEMMs leave them where TensorRT-LLM's
  // measured MoE op runs the experts (published_serving_moe); a prompt chunk's output head runs on its
  // prompts' last tokens only, a few rows the chunk's efficiency leaves out.
  // A checkpoint's unquantized parts multiply at 16 bits: every layer's attention projections, the first
  // and last layers' FFNs (a MoE model's first layer dense, its last a MoE layer, as unquantized_params
  // counts them), split off their classes' layer counts.
  auto keep_unquantized_at_16_bits = [&](std::vector<NamedGemm>& gemms) {
    if (keeps_at_16_bits(w, "attention"))
      for (auto& g : gemms)
        if (g.name == "QKV" || g.name == "O") g.sixteen_bit = true;
    if (!keeps_at_16_bits(w, "first_last_layers")) return;
    auto split_off = [&](auto is_part, double layers) {
      std::vector<NamedGemm> edge;
      for (auto& g : gemms) {
        if (!is_part(g.name)) continue;
        if (g.count <= layers) {
          g.sixteen_bit = true;
          continue;
        }
        g.count -= layers;
        edge.push_back(g);
        edge.back().count = layers;
        edge.back().sixteen_bit = true;
      }
      gemms.insert(gemms.end(), edge.begin(), edge.end());
    };
    auto ffn = [](const std::string& n) { return n == "FFN up" || n == "FFN down"; };
    auto dense = [](const std::string& n) { return n.starts_with("dense FFN"); };
    auto moe = [](const std::string& n) { return n.starts_with("experts") || n.starts_with("shared FFN"); };
    if (!m.moe()) {
      split_off(ffn, 2);
    } else if (m.dense_layers > 0) {
      split_off(dense, 1);
      split_off(moe, 1);
    } else {
      split_off(moe, 2);
    }
  };
  // Under attention data parallelism a rank's GEMMs are whole (no tensor split) at its own rows, its
  // experts' at every rank's routed tokens (layer_gemms' expert parallelism).
  auto phase_gemms = [&](double rows, int t, bool prompts) {
    std::vector<NamedGemm> gemms =
        w.attention_dp ? layer_gemms(m, rows, 1, t, false) : layer_gemms(m, rows, t, 1, false);
    if (published_serving_moe(w, *facts_.gpu, t))
      std::erase_if(gemms, [](const NamedGemm& g) { return g.name.starts_with("experts"); });
    if (prompts) std::erase_if(gemms, [](const NamedGemm& g) { return g.name == "logits"; });
    keep_unquantized_at_16_bits(gemms);
    return gemms;
  };
  auto evaluate = [&](const LlmInference& load, int t, double batch) {
    Evaluated e;
    chunk = chunk_at(t);
    int gemm_t = w.attention_dp ? 1 : t;
    calibrate_for(w.precision, training_gemm_shapes(m, static_cast<int>(chunk), gemm_t), true);
    e.eta_prefill = cal_.gemm;
    e.prefill_gemm = gemm_phase(phase_gemms(chunk, t, true), gemm_rates(*facts_.gpu, w.precision, cal_));
    // The decode GEMMs at the batch's rows (a rank's, under attention data parallelism), padded to its CUDA
    // graph.
    double ranks = w.attention_dp ? t : 1;
    double rows = std::max(1.0, cuda_graph_rows(w, serving_budget(w, *facts_.gpu, t), batch / ranks));
    calibrate_for(w.precision, training_gemm_shapes(m, static_cast<int>(rows), gemm_t), true);
    e.eta_decode = cal_.gemm;
    e.decode_gemm = gemm_phase(phase_gemms(rows, t, false), gemm_rates(*facts_.gpu, w.precision, cal_));
    e.sp = serving_point(load, facts_, cal_, e.prefill_gemm.eta_compute, e.decode_gemm.eta_compute, h_, &why,
                         e.prefill_gemm.eta_own, e.decode_gemm.eta_own);
    if (!e.sp) throw UsageError(fmt::format("{} fits no layout on {}: {}", wl.name, node_->name, why));
    e.eta_prefill.value = e.prefill_gemm.eta_compute;
    e.eta_decode.value = e.decode_gemm.eta_compute;
    return e;
  };
  int t = w.tp.value_or(1);
  std::vector<double> batches{chunk};
  Evaluated ev = evaluate(w, t, chunk);
  // At most a few passes: the degree can change too (its shapes change), and the last pass stands.
  for (int pass = 0; pass < 8 && !(ev.sp->t == t && ev.sp->batch == batches.back()); ++pass) {
    if (ev.sp->t == t) {
      auto seen = std::find(batches.begin(), batches.end(), ev.sp->batch);
      if (seen != batches.end()) {  // a cycle: each of its batches at its own shapes
        std::string rule = ev.sp->batch_rule, cycle;
        std::optional<Evaluated> best;
        for (auto b = seen; b != batches.end(); ++b) {
          LlmInference fixed = w;
          fixed.tp = t;
          fixed.batch = static_cast<int>(*b);
          Evaluated at = evaluate(fixed, t, *b);
          cycle += fmt::format("{}{:.0f}", cycle.empty() ? "" : ", ", *b);
          if (!best || (at.sp->meets_targets && !best->sp->meets_targets) ||
              (at.sp->meets_targets == best->sp->meets_targets &&
               at.sp->tokens_per_s_node > best->sp->tokens_per_s_node))
            best = std::move(at);
        }
        ev = std::move(*best);
        ev.sp->batch_rule = fmt::format(
            "{}; at their own decode GEMM shapes the batches {} cycle, the best of "
            "them kept",
            rule, cycle);
        break;
      }
    }
    t = ev.sp->t;
    batches.push_back(ev.sp->batch);
    ev = evaluate(w, t, batches.back());
  }
  auto& sp = ev.sp;
  const GemmPhase& prefill_gemm = ev.prefill_gemm;
  const GemmPhase& decode_gemm = ev.decode_gemm;
  const Figure& eta_prefill = ev.eta_prefill;
  const Figure& eta_decode = ev.eta_decode;
  if (!sp->meets_targets)
    sheet_.warnings.push_back(
        fmt::format("latency targets not met on {} even at batch 1-{:.0f}: TTFT {:.3f} s (target {:.3f} "
                    "s), TPOT {:.4f} s "
                    "(target {:.4f} s), each with headroom {:.2f}",
                    node_->name, sp->batch, sp->ttft_s, w.ttft_s, sp->step_s, w.tpot_s, h_));
  // A serving measurement of this model at these lengths and targets replaces the model's tokens/s per node.
  const ServingMeasurement served =
      serving_measurement(req_.reports, cat_,
                          {w.served_model, w.input_tokens, w.output_tokens, w.ttft_s, w.tpot_s, facts_.gpu,
                           facts_.gpus, node_->name});
  if (!served.not_used.empty())
    sheet_.warnings.push_back(
        fmt::format("serve.llm measurement not used, the model's throughput sizes the nodes: {}",
                    fmt::join(served.not_used, "; ")));
  const double per_node = served.per_node ? served.per_node->value : sp->tokens_per_s_node;
  double demand = w.request_rate * w.output_tokens;
  bool inverse = !(req_.nodes || wl.nodes);
  int nodes = req_.nodes ? *req_.nodes : wl.nodes ? *wl.nodes : 0;
  if (inverse) nodes = std::max(1, static_cast<int>(std::ceil(with_headroom(demand, h_) / per_node)));
  int throughput_nodes = nodes;
  // The request queue at the rate: more nodes (fewer requests per instance) until it is stable, its TTFT
  // meets the target with the headroom and its TPOT (the decode step, chosen within the TPOT target with the
  // headroom, stretched by the prefills' share) the target itself.
  std::optional<RequestQueue> queue;
  // The decode step at the queue's occupancy: lambda x service sequences in flight (Little's law), not the
  // full batch; a fixed point, since the service time holds the step.
  auto queue_at = [&](int n) {
    double lambda = w.request_rate / (static_cast<double>(n) * sp->instances);
    double step = sp->step_s;
    RequestQueue q;
    for (int i = 0; i < 50; ++i) {
      q = request_queue(lambda, sp->batch, sp->prefill_s, step, w.output_tokens);
      if (!q.stable) break;
      DecodeStep at = sp->decode;
      at.batch = std::clamp(lambda * q.service_s, 1.0, sp->batch);
      at.kv_read *= at.batch / sp->batch;
      at.moe_bytes *= at.batch / sp->batch;
      at.rows = cuda_graph_rows(w, sp->budget, at.batch);
      at.elementwise = at.rows * sp->elementwise_per_row + at.batch * sp->sampler_per_sequence;
      at.tp_s = serving_tp_time(w, *facts_.gpu, cal_, sp->budget, sp->t, at.rows, at.rows);
      double next = decode_step_time<double>(at);
      if (std::abs(next - step) <= 1e-9 * step) break;
      step = next;
    }
    return q;
  };
  // The targets are p99s (MLPerf's): the queue's TTFT and TPOT at the 99th percentile of requests.
  auto queue_meets = [&](const RequestQueue& q) {
    return q.stable && (w.ttft_s <= 0 || ttft_p99<double>(q) <= within_headroom(w.ttft_s, h_)) &&
           (w.tpot_s <= 0 || q.tpot_p99_s <= w.tpot_s);
  };
  if (w.request_rate > 0 && !w.offline) {
    queue = queue_at(nodes);
    // A measurement at the targets already holds the queue's latency: the model's queue raises no nodes.
    if (inverse && !served.per_node)
      for (int n = nodes + 1; !queue_meets(*queue) && n <= 4 * throughput_nodes + 16; ++n) {
        nodes = n;
        queue = queue_at(n);
      }
    if (served.per_node) {
      if (nodes * per_node < demand)
        sheet_.warnings.push_back(fmt::format(
            "measured {:.0f} tokens/s per node x {} nodes = {:.0f} tokens/s is below the demand of {:.0f} "
            "tokens/s: plan more nodes",
            per_node, nodes, nodes * per_node, demand));
    } else if (!queue->stable)
      sheet_.warnings.push_back(
          fmt::format("the request queue is unstable on {} nodes: {:.2f} req/s per instance load the {:.0f} "
                      "slots to {:.2f} "
                      "(prefill share {:.2f}); plan more nodes",
                      nodes, queue->lambda, sp->batch, queue->load, queue->prefill_share));
    else if (!queue_meets(*queue))
      sheet_.warnings.push_back(fmt::format(
          "at {:.1f} req/s on {} nodes p99 TTFT {:.3f} s / TPOT {:.4f} s miss the targets with headroom",
          w.request_rate, nodes, ttft_p99<double>(*queue), queue->tpot_p99_s));
  }
  int gpus = nodes * facts_.gpus;
  sheet_.title = fmt::format("Sizing sheet: {}", wl.name);
  sheet_.mode = inverse ? fmt::format(
                              "inverse: smallest node count serving {:.1f} req/s x {:.0f} output tokens "
                              "with +{:.0f} % capacity{}",
                              w.request_rate, w.output_tokens, 100 * h_,
                              queue ? " and a request queue meeting the p99 latency targets" : "")
                        : fmt::format("forward: {} nodes given", nodes);
  if (!w.scenario.empty()) sheet_.mode += fmt::format(" (MLPerf {} scenario)", w.scenario);
  line({.section = "Compute",
        .item = "Nodes",
        .quantity = nodes,
        .unit = "nodes",
        .spec = node_->name,
        .driver = inverse
                      ? fmt::format("ceil({} / {:.0f} tokens/s per node{}) = {}{}",
                                    with_headroom_shown(fmt::format("demand {:.0f} tokens/s", demand), h_),
                                    per_node, served.per_node ? " measured" : "", throughput_nodes,
                                    nodes > throughput_nodes
                                        ? fmt::format(", raised to {} for the request queue's latency", nodes)
                                        : "")
                      : "given by " + nodes_given(),
        .headroom = inverse ? headroom_shown(h_) + " on throughput" : "-",
        .source = inverse || !req_.nodes ? "workload" : "--nodes"});
  gpus_line(nodes, fmt::format("{} ({:.0f} TFLOPS {})", facts_.gpu->name, pk / 1e12, w.precision));
  line({.section = "Compute",
        .item = "Serving layout",
        .quantity = facts_.gpus / sp->t,
        .unit = "instances/node",
        .spec =
            w.attention_dp
                ? fmt::format("TP {} attention data-parallel: {} ranks x batch {:.0f}, experts EP {} (decode "
                              "GEMMs {}-bound)",
                              sp->t, sp->t, sp->batch / sp->t, sp->t, sp->bound)
                : fmt::format("TP {} x batch {:.0f} (decode GEMMs {}-bound)", sp->t, sp->batch, sp->bound),
        .driver = fmt::format(
            "{}; batch: {}",
            w.tp ? "the workload's tensor-parallel degree"
                 : "the tensor-parallel degree with the most output tokens/s per node that meets the "
                   "targets",
            sp->batch_rule),
        .source = "model"});
  auto thr = serving_tokens_per_s_node<Formula>(*sp);
  line({.section = "Compute",
        .item = "Throughput per node",
        .quantity = thr,
        .unit = "tokens/s",
        .spec = fmt::format("{:.0f} output tokens/s per instance", sp->tokens_per_s_instance),
        .driver = fmt::format("{} = {:.0f}", thr.shown(), thr.value()),
        .source = src(cal_.hbm) + "/" + src(eta_decode)});
  if (served.per_node)
    line({.section = "Compute",
          .item = "Measured throughput per node",
          .quantity = served.per_node->value,
          .unit = "tokens/s",
          .spec = fmt::format("sizes the nodes instead of the model's {:.0f} tokens/s ({:+.0f} %)",
                              thr.value(), 100 * (served.per_node->value / thr.value() - 1)),
          .driver = served.per_node->basis,
          .source = src(*served.per_node)});
  // Where attention's rate comes from: the attention-vs-GEMM share, and the cache's precision where it is
  // not the GEMMs' (an FP8 cache beside NVFP4 weights, say).
  const AttentionRate attention = attention_rate(*facts_.gpu, w.precision, w.kv_precision, cal_.sustained);
  // The attention's eta is scaled from the phase's GEMMs at the workload's precision (eta_own), the 16-bit
  // ones (the output head, unquantized parts) left out.
  auto attention_at = [&](const GemmPhase& g) {
    return fmt::format(
        "; attention eta = eta_GEMM{} x {:.2f} (\"{}\"){}",
        g.eta_own != g.eta_compute
            ? fmt::format(" of the {} GEMMs {:.3f} (the 16-bit ones left out)", w.precision, g.eta_own)
            : "",
        assumption::kAttentionRelative.value, assumption::kAttentionRelative.name,
        attention.precision == w.precision
            ? std::string()
            : fmt::format(
                  " x the {} asymptote / the {} one {:.3f}, at the {} peak {:.0f} TFLOPS ({} KV cache)",
                  attention.precision, w.precision, attention.eta_scale, attention.precision,
                  attention.peak / 1e12, w.kv_precision));
  };
  std::string kv_basis;
  decode_attention_read_rate(*facts_.gpu, sp->decode.hbm, &kv_basis);
  std::string kv_read_at =
      kv_basis.empty()
          ? std::string()
          : fmt::format("; the KV cache read at {:.2f} GB/s, the published decode-attention rate: {}",
                        sp->decode.kv_rate / 1e9, kv_basis);
  std::string allreduce_basis;
  if (!w.attention_dp)
    serving_tp_time(w, *facts_.gpu, cal_, sp->budget, sp->t, sp->decode.rows, sp->decode.rows,
                    &allreduce_basis);
  std::string tp_at = allreduce_basis.empty() ? std::string() : "; TP all-reduces at " + allreduce_basis;
  if (w.attention_dp) {
    std::string measured;
    serving_ep_time(w, *facts_.gpu, cal_, sp->t, sp->decode.rows, sp->decode.rows, &measured);
    tp_at = fmt::format(
        "; the EP exchange per MoE layer: an all-gather of every rank's tokens ({}) and a reduce-scatter of "
        "the experts' bf16 outputs, {}",
        w.precision == "nvfp4" ? "NVFP4, 4.5 bits" : "bf16",
        measured.empty() ? "(t - 1) / t of them over each GPU's NVLink" : "at " + measured);
  }
  std::string moe_basis;
  if (sp->moe_op) published_moe_seconds(*sp->moe_op, sp->decode.rows, &moe_basis);
  std::string moe_at = sp->moe_op
                           ? fmt::format(
                                 "; the {} MoE layers at {} (their expert GEMMs, activation and permutation "
                                 "inside it)",
                                 w.model.moe_layers(), moe_basis)
                           : std::string();
  // Local attention's layers skip part of the context: the prompt's pairs and the decoded tokens' reads.
  auto local_at = [&](double from, double to) {
    std::string text = w.model.local_attention_text(w.model.attended_share(from, to));
    return text.empty() ? text : "; local attention: " + text;
  };
  auto prefill = prefill_time<Formula>(sp->prefill);
  line({.section = "Compute",
        .item = "Prefill phase",
        .quantity = prefill,
        .unit = "s",
        .spec = fmt::format(
            "{:.0f}-token prompt at eta_GEMM {:.3f} (prefill shapes), sharing its chunk's weight read{}{}",
            w.input_tokens, eta_prefill.value,
            w.attention_dp ? " (its rank's chunk; the MoE op and the exchange at the ranks' chunks together)"
                           : "",
            attention_at(prefill_gemm) + local_at(0, w.input_tokens)),
        .driver = fmt::format("{} = {:.4f} s", prefill.shown(), prefill.value()),
        .source = src(cal_.hbm) + "/" + src(eta_prefill)});
  auto phase_line = [&](const char* item, const char* phase, const GemmPhase& g, const Figure& f) {
    bool measured = f.source != Source::assumed;  // its shapes' quantization is in the measurement
    line({.section = "Compute",
          .item = item,
          .quantity = g.eta_compute,
          .unit = "fraction",
          .spec = fmt::format("{} GEMMs at {} {:.3f}: {}; measure them: {}", phase,
                              measured ? "the measured efficiency" : "asymptote", g.asymptote, f.basis,
                              gemm_probe_command(g, w.precision)),
          .driver = fmt::format(
              "compute FLOP-weighted over the GEMM classes at {} (memory enters the phase's GEMM time: "
              "max(weights / HBM, compute) + unhidden share x min): {}",
              measured ? "the measured efficiency" : "asymptote x tile/wave quantization", describe(g)),
          .source = src(f)});
  };
  phase_line("GEMM efficiency (prefill)", fmt::format("prefill ({:.0f}-token chunks)", chunk).c_str(),
             prefill_gemm, eta_prefill);
  phase_line("GEMM efficiency (decode)",
             fmt::format("decode ({:.0f}-row)", decode_gemm.classes.front().gemm.shape[0]).c_str(),
             decode_gemm, eta_decode);
  auto decode = decode_step_time<Formula>(sp->decode);
  line({.section = "Compute",
        .item = "Decode step (TPOT)",
        .quantity = decode,
        .unit = "s",
        .spec = fmt::format(
            "GEMMs {}-bound at batch {:.0f}{}, attention {}-bound; eta_GEMM {:.3f} (decode shapes){}",
            sp->bound, sp->batch,
            sp->decode.rows > sp->batch
                ? fmt::format(
                      " padded to the CUDA graph of {:.0f} rows{} (the engine captures the "
                      "workload's cuda_graph_batch_sizes, TensorRT-LLM up to its largest decode batch)",
                      sp->decode.rows / (w.attention_dp ? sp->t : 1),
                      w.attention_dp ? fmt::format(" on each of the {} ranks", sp->t) : "")
                : "",
            decode_attention_memory_bound(sp->decode) ? "memory" : "compute", eta_decode.value,
            attention_at(decode_gemm) + kv_read_at +
                local_at(w.input_tokens, w.input_tokens + w.output_tokens) + tp_at + moe_at),
        .driver = fmt::format("GEMMs max(weights / HBM, compute) + unhidden share x min(the two) + attention "
                              "max(KV / its read rate, compute) + elementwise passes / HBM: {} = {:.4f} s",
                              decode.shown(), decode.value()),
        .headroom =
            w.tpot_s > 0 ? "<= " + within_headroom_shown(fmt::format("{:.3f} s target", w.tpot_s), h_) : "-",
        .source = src(cal_.hbm)});
  // Under attention data parallelism a rank runs its own tokens' passes whole.
  int pass_t = w.attention_dp ? 1 : sp->t;
  double elementwise_token = serving_elementwise_bytes_per_token(w, pass_t, sp->moe_op != nullptr);
  line({.section = "Compute",
        .item = "Elementwise traffic per token",
        .quantity = elementwise_token + sampler_bytes_per_token(w.model),
        .unit = "bytes",
        .spec = fmt::format("the fused norm, rotary and activation passes between the GEMMs, {} per prompt "
                            "and output token, and the sampler's {} per token it samples",
                            format_bytes(elementwise_token), format_bytes(sampler_bytes_per_token(w.model))),
        .driver = serving_elementwise_basis(w, pass_t, sp->moe_op != nullptr),
        .source = "model"});
  auto crossover = decode_crossover_batch<Formula>(sp->decode);
  line({.section = "Compute",
        .item = "Decode compute-bound from batch",
        .quantity = crossover,
        .unit = "sequences",
        .spec = fmt::format("decode GEMMs memory-bound below, compute-bound above; batch {:.0f} is {}",
                            sp->batch, sp->batch < crossover.value() ? "below" : "above"),
        .driver = fmt::format("(weights read / HBM) / (2 {} / (t x peak x eta)): {} = {:.0f}",
                              m.multiplied_params_symbol(), crossover.shown(), crossover.value()),
        .source = src(cal_.hbm) + "/" + src(eta_decode)});
  if (queue && queue->stable) {
    auto ttft = ttft_at_rate<Formula>(*queue);
    line({.section = "Compute",
          .item = "Time to first token",
          .quantity = ttft,
          .unit = "s",
          .spec = fmt::format("mean, {:.0f}-token prompt at {:.3f} req/s per instance", w.input_tokens,
                              queue->lambda),
          .driver = fmt::format("queue wait + prefill + decode step / (1 - lambda x prefill): {} = {:.4f} s",
                                ttft.shown(), ttft.value()),
          .source = src(eta_prefill)});
    std::string scenario = w.scenario.empty() ? "" : fmt::format(", MLPerf {} scenario", w.scenario);
    auto ttft99 = ttft_p99<Formula>(*queue);
    line({.section = "Compute",
          .item = "Time to first token p99",
          .quantity = ttft99,
          .unit = "s",
          .spec = fmt::format("99th percentile of requests{}", scenario),
          .driver =
              fmt::format("p99 queue wait + prefill + decode step / (1 - lambda x prefill): {} = {:.4f} s",
                          ttft99.shown(), ttft99.value()),
          .headroom = w.ttft_s > 0
                          ? "<= " + within_headroom_shown(fmt::format("{:.2f} s p99 target", w.ttft_s), h_)
                          : "-",
          .source = src(eta_prefill)});
    auto tpot99 = tpot_p99<Formula>(*queue);
    line({.section = "Compute",
          .item = "Time per output token p99",
          .quantity = tpot99,
          .unit = "s",
          .spec = fmt::format("99th percentile of requests{}; mean {:.4f} s", scenario, queue->tpot_s),
          .driver = fmt::format(
              "(out x decode step + prefills p99 x prefill) / out, the prefills landing in one "
              "request's decode Poisson(lambda x out x TPOT = {:.2f}), its 99th percentile: {} = {:.4f} s",
              queue->lambda * w.output_tokens * queue->tpot_s, tpot99.shown(), tpot99.value()),
          .headroom = w.tpot_s > 0 ? fmt::format("<= {:.3f} s p99 target", w.tpot_s) : "-",
          .source = src(cal_.hbm)});
    auto wait = queue_wait<Formula>(*queue);
    line({.section = "Compute",
          .item = "Request queue wait",
          .quantity = wait,
          .unit = "s",
          .spec = fmt::format(
              "M/D/c per instance: c = {:.0f} batch slots, service {:.2f} s (prefill + {:.0f} x TPOT "
              "{:.4f} s at the rate: the decode step {:.4f} s at the {:.0f} sequences in flight, "
              "lambda x service)",
              sp->batch, queue->service_s, w.output_tokens, queue->tpot_s, queue->step_s,
              queue->lambda * queue->service_s),
          .driver = fmt::format(
              "Allen-Cunneen (1 + C_s^2)/2 x Erlang C wait, C_s = 0: {} = {:.4f} s; load {:.3f}, prefill "
              "share {:.3f}; p99 {} = {:.4f} s (the wait past P(wait) exponential, M/M/c's, its mean scaled "
              "as Allen-Cunneen scales the mean; Whitt 1993)",
              wait.shown(), wait.value(), queue->load, queue->prefill_share,
              queue_wait_p99<Formula>(*queue).shown(), queue->wait_p99_s),
          .source = "model"});
  } else {
    auto ttft = time_to_first_token<Formula>(sp->prefill, sp->step_s);
    line({.section = "Compute",
          .item = "Time to first token",
          .quantity = ttft,
          .unit = "s",
          .spec = fmt::format("{:.0f}-token prompt", w.input_tokens),
          .driver = fmt::format("prefill + one decode step, no queue{}: {} = {:.4f} s",
                                w.offline ? " (offline)" : " (no request rate)", ttft.shown(), ttft.value()),
          .headroom = w.ttft_s > 0
                          ? "<= " + within_headroom_shown(fmt::format("{:.2f} s target", w.ttft_s), h_)
                          : "-",
          .source = src(eta_prefill)});
  }
  auto kv = kv_cache_per_gpu<Formula>(sp->kv);
  double gib = 1024.0 * 1024 * 1024;
  line({.section = "Memory",
        .item = "KV cache per GPU",
        .quantity = kv,
        .per = gib,
        .unit = "GiB",
        .spec =
            fmt::format("{} per token ({}); holds {:.0f} sequences of {:.0f} tokens on the instance{}",
                        format_bytes(sp->kv_per_token),
                        m.mla() ? fmt::format("{} layers x (kv_lora_rank {} + rope {}) latent x {}", m.layers,
                                              m.kv_lora_rank, m.qk_rope_head_dim, w.kv_precision)
                                : fmt::format("{} layers x 2 x {} KV heads x head_dim {} x {}", m.layers,
                                              m.kv_heads, m.head_dim(), w.kv_precision),
                        sp->max_batch, sp->reserved_tokens,
                        w.attention_dp ? fmt::format(", each of its {} attention data-parallel ranks its own "
                                                     "sequences",
                                                     sp->t)
                        : sp->kv_shards == sp->t ? ""
                        : m.mla() ? fmt::format(", the latent whole on each of the TP {} GPUs", sp->t)
                                  : fmt::format(", split {} ways by KV head over TP {}, copies on the rest",
                                                sp->kv_shards, sp->t)),
        .driver =
            sp->budget.trtllm
                ? fmt::format(
                      "as TensorRT-LLM sizes it: (HBM - weights {} - activation peak of a warm-up pass of "
                      "max_num_tokens {:.0f} ({}) and max_batch_size {:.0f} (fp32 logits) - runtime (CUDA "
                      "context, cuBLAS workspace{})) x free_gpu_memory_fraction, CUDA graphs in the rest; {} "
                      "{:.0f} tokens: {} = {}",
                      w.attention_dp ? "per GPU (every non-expert weight, the routed experts / t; per rank)"
                                     : "/ t",
                      sp->budget.max_num_batched_tokens,
                      profile_activation_basis(m, sp->budget.max_num_batched_tokens), sp->budget.max_num_seqs,
                      sp->t > 1 ? ", NCCL" : "",
                      sp->budget.whole_sequences
                          ? "GUARANTEED_NO_EVICT admits a sequence for its input + output"
                          : "MAX_UTILIZATION allocates a sequence's blocks as they fill, on "
                            "average",
                      sp->reserved_tokens, kv.shown(), format_bytes(kv.value()))
                : fmt::format(
                      "as vLLM sizes it: HBM x gpu_memory_utilization - weights / t - activation peak "
                      "of a profile "
                      "pass of max_num_batched_tokens {:.0f} ({}) and max_num_seqs {:.0f} (fp32 logits) "
                      "- non-torch runtime (CUDA context, cuBLAS workspace{}) - CUDA graphs: {} = {}",
                      sp->budget.max_num_batched_tokens,
                      profile_activation_basis(m, sp->budget.max_num_batched_tokens), sp->budget.max_num_seqs,
                      sp->t > 1 ? ", NCCL" : "", kv.shown(), format_bytes(kv.value())),
        .source = sp->budget.utilisation_given || sp->budget.batched_tokens_given || sp->budget.seqs_given ||
                          sp->budget.graphs_given
                      ? "workload/model"
                      : "model"});
  // The HBM the instance fills: its weights and the KV cache.
  auto hbm = serving_hbm_per_gpu<Formula>(*sp);
  double ctx = w.input_tokens + w.output_tokens / 2;
  line({.section = "Memory",
        .item = "HBM per GPU",
        .quantity = hbm,
        .per = kGiB,
        .unit = "GiB",
        .spec = fmt::format("{} {}", format_bytes(facts_.gpu->memory_bytes), facts_.gpu->memory_type),
        .driver = fmt::format(
            "{} = {}; batch {:.0f} x {:.0f} tokens x {} per token / t = {} of the KV cache in use",
            hbm.shown(), format_bytes(hbm.value()), sp->batch, ctx, format_bytes(sp->kv_per_token),
            format_bytes(sp->batch * ctx * sp->kv_per_token / sp->kv_shards)),
        .headroom =
            sp->budget.trtllm
                ? fmt::format("free_gpu_memory_fraction {:.2f} of the memory left by the serving engine",
                              sp->budget.utilisation)
                : fmt::format("gpu_memory_utilization {:.2f} of HBM by the serving engine",
                              sp->budget.utilisation),
        .source = "model"});
  // The engine settings the KV cache was sized with, each the workload's or its engine's default.
  const auto& b = sp->budget;
  auto setting = [&](const char* name, double value, const char* unit, bool given, std::string_view basis) {
    sheet_.assumptions.push_back({fmt::format("Serving {}{}", name, *unit ? fmt::format(" ({})", unit) : ""),
                                  format_quantity(value), given ? "workload" : "assumed",
                                  given ? fmt::format("the workload's {}", name) : std::string(basis), value,
                                  *unit ? unit : "fraction"});
  };
  if (b.trtllm) {
    setting("free_gpu_memory_fraction", b.utilisation, "", b.utilisation_given,
            assumption::kTrtllmFreeGpuMemoryFraction.basis);
    setting("max_num_tokens", b.max_num_batched_tokens, "tokens", b.batched_tokens_given,
            assumption::kTrtllmBenchBasis);
    setting("max_batch_size", b.max_num_seqs, "sequences", b.seqs_given, assumption::kTrtllmBenchBasis);
    if (b.whole_sequences)
      setting("tokens reserved per sequence (GUARANTEED_NO_EVICT)", sp->reserved_tokens, "tokens", false,
              assumption::kTrtllmNoEvictBasis);
  } else {
    setting("gpu_memory_utilization", b.utilisation, "", b.utilisation_given,
            assumption::kGpuMemoryUtilization.basis);
    setting("max_num_batched_tokens", b.max_num_batched_tokens, "tokens", b.batched_tokens_given,
            assumption::kVllmBatchDefaultsBasis);
    setting("max_num_seqs", b.max_num_seqs, "sequences", b.seqs_given, assumption::kVllmBatchDefaultsBasis);
    setting("cuda_graph_bytes", b.cuda_graphs / kGiB, "GiB", b.graphs_given, assumption::kCudaGraphs.basis);
  }
  double weights = serving_weight_bytes(w);
  add_storage_inference(weights, nodes);
  // An instance's tensor-parallel group stays within one node (serving_point refuses a wider one).
  add_network(nodes, 0, false);
  double year = kSecondsPerYear;
  double tokens_year = std::min(demand > 0 ? demand : nodes * per_node, nodes * per_node) * year;
  add_power_host_cost(nodes, year, weights, "per year of service", tokens_year);
  double ttft_s = queue && queue->stable ? ttft_at_rate<double>(*queue) : sp->ttft_s;
  sheet_.figures.update({{"nodes", nodes},
                         {"gpus", gpus},
                         {"tokens_per_s_node", sp->tokens_per_s_node},
                         {"tokens_per_s_instance", sp->tokens_per_s_instance},
                         {"tokens_per_s_gpu", sp->tokens_per_s_instance / sp->t},
                         {"tp", sp->t},
                         {"batch", sp->batch},
                         {"max_batch", sp->max_batch},
                         {"tpot_s", sp->step_s},
                         {"ttft_s", ttft_s},
                         {"prefill_s", sp->prefill_s},
                         {"crossover_batch", sp->crossover},
                         {"eta_prefill", eta_prefill.value},
                         {"eta_decode", eta_decode.value},
                         {"kv_cache_gib_per_gpu", sp->kv_budget / sp->kv_shards / gib},
                         {"kv_cache_tokens", sp->kv_budget / sp->kv_per_token},
                         {"weights_gib_per_gpu", sp->weights_per_gpu / gib}});
  if (served.per_node) sheet_.figures["measured_tokens_per_s_node"] = served.per_node->value;
  if (queue)
    sheet_.figures["queue"] = {{"model", "M/D/c (Allen-Cunneen), c = batch slots"},
                               {"lambda_per_instance", queue->lambda},
                               {"load", queue->load},
                               {"p_wait", queue->p_wait},
                               {"wait_s", queue->wait_s},
                               {"wait_p99_s", queue->wait_p99_s},
                               {"tpot_at_rate_s", queue->tpot_s},
                               {"ttft_p99_s", ttft_p99<double>(*queue)},
                               {"tpot_p99_s", queue->tpot_p99_s},
                               {"stable", queue->stable}};
}

void Planner::add_storage_inference(double weights, int nodes) {
  const auto& drive = cat_.drive(node_->drive);
  double load_s = weights / local_bw(false);
  line({.section = "Storage",
        .item = "Model weights",
        .quantity = weights / 1e9,
        .unit = "GB",
        .spec = "per model version",
        .driver = "N x bytes per parameter, the embedding, output head and unquantized parts at 16 bits",
        .source = "workload"});
  double versions = assumption::kModelVersions.value;
  const double capacity_planned = line({.section = "Storage",
                                        .item = "Shared capacity",
                                        .quantity = versions * weights,
                                        .per = 1e12,
                                        .unit = "TB",
                                        .spec = fmt::format("model registry: {} versions", versions),
                                        .driver = fmt::format("{} x {}", versions, decimal_bytes(weights)),
                                        .planned = true,
                                        .source = "assumed"});
  line({.section = "Storage",
        .item = "Local NVMe per node",
        .quantity = node_->drives,
        .unit = "drives",
        .spec = fmt::format("{} in RAID-0", drive.name),
        .driver = fmt::format(
            "cold start: weights {} / local read {} = {:.1f} s; {} nodes pull {} from shared storage",
            decimal_bytes(weights), gbs(local_bw(false)), load_s, nodes, decimal_bytes(weights * nodes)),
        .source = src(cal_.storage_read)});
  sheet_.figures["storage"] = {
      {"weights_bytes", weights}, {"capacity_bytes", capacity_planned}, {"local_drives", node_->drives}};
}

}  // namespace mlbench::sizing::planning
