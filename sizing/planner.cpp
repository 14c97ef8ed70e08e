#include "sizing/planner.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "base/error.hpp"
#include "base/units.hpp"
#include "sizing/calibration.hpp"
#include "sizing/models.hpp"

namespace mlbench::sizing {
namespace {

constexpr int kMaxNodes = 1 << 17;
constexpr double kSecondsPerYear = 365 * 86400.0;

std::string gbs(double v) { return fmt::format("{:.2f} GB/s", v / 1e9); }
std::string plus_h(double h) { return fmt::format("+{:.0f} % (x{:.2f})", 100 * h, 1 + h); }
std::string days(double s) { return fmt::format("{:.2f} days", s / 86400); }

// Everything one sizing needs while it builds the sheet.
class Planner {
 public:
  Planner(const PlanRequest& req, const HardwareCatalog& cat) : req_(req), cat_(cat), h_(req.headroom) {
    prices_ = req.prices ? *req.prices : cat.prices;
    sheet_.headroom = h_;
    sheet_.workload = fmt::format("{} ({}, {})", req.workload.name, req.workload.kind, req.workload.source);
    pick_node();
  }

  Sheet run() {
    const auto& w = req_.workload;
    if (const auto* t = std::get_if<LlmTraining>(&w.spec)) {
      plan_llm_training(*t);
    } else if (const auto* c = std::get_if<CvTraining>(&w.spec)) {
      plan_cv_training(*c);
    } else {
      plan_inference(std::get<LlmInference>(w.spec));
    }
    add_assumptions();
    return std::move(sheet_);
  }

 private:
  const PlanRequest& req_;
  const HardwareCatalog& cat_;
  double h_;
  Prices prices_;
  const NodeTemplate* node_ = nullptr;
  NodeFacts facts_;
  bool node_is_measured_ = false;
  Calibration cal_;
  Sheet sheet_;

  void line(std::string section, std::string item, double q, std::string unit, std::string spec,
            std::string driver, std::string headroom, std::string source) {
    sheet_.lines.push_back({std::move(section), std::move(item), q, std::move(unit), std::move(spec),
                            std::move(driver), std::move(headroom), std::move(source)});
  }
  // A line whose quantity is a computed formula: quantity = f / per, the driver shows f with its numbers.
  void line(std::string section, std::string item, const Formula& f, double per, std::string unit,
            std::string spec, std::string driver, std::string headroom, std::string source) {
    line(std::move(section), std::move(item), f.value() / per, std::move(unit), std::move(spec),
         std::move(driver), std::move(headroom), std::move(source));
    sheet_.lines.back().formula = f.symbolic();
    sheet_.lines.back().terms = f.terms();
    sheet_.lines.back().formula_per = per;
  }
  void total(std::string item, double q, std::string unit, std::string driver) {
    sheet_.totals.push_back({"Total", std::move(item), q, std::move(unit), "", std::move(driver), "", ""});
  }
  std::string src(const Figure& f) const { return std::string(to_string(f.source)); }

  void pick_node() {
    const auto& w = req_.workload;
    std::string fallback = w.hardware.empty() ? cat_.default_node : w.hardware;
    if (!req_.hardware.empty()) {
      node_ = &cat_.node(req_.hardware);
      sheet_.hardware = fmt::format("{} (--hardware): {}", node_->name, node_->description);
    } else if (!req_.reports.empty()) {
      const Report& r = req_.reports.front();
      const GpuSpec* g = report_gpu(r, cat_);
      int count = r.host.contains("gpus") ? static_cast<int>(r.host["gpus"].size()) : 0;
      if (g) {
        for (const auto& n : cat_.nodes)
          if (n.gpu == g->name && (!node_ || (n.gpus == count && node_->gpus != count))) node_ = &n;
      }
      if (node_) {
        node_is_measured_ = true;
        sheet_.hardware = fmt::format("{}: the node measured ({} x {}), template {}", node_->name, count,
                                      g->name, node_->description);
      } else {
        node_ = &cat_.node(fallback);
        std::string why = count == 0 ? "the measured node has no GPU"
                                     : fmt::format("no node template holds the measured GPU ({})",
                                                   r.host["gpus"][0].value("name", "unknown"));
        sheet_.hardware =
            fmt::format("{}: {}, so the default template is sized: {}", node_->name, why, node_->description);
        sheet_.warnings.push_back(
            fmt::format("{}: sizing the {} template; its GPU figures are transferred from "
                        "another measured GPU or assumed (METHODS defaults)",
                        why, node_->name));
      }
    } else {
      node_ = &cat_.node(fallback);
      sheet_.hardware = fmt::format("{}: {}", node_->name, node_->description);
    }
    facts_.gpu = &cat_.gpu(node_->gpu);
    facts_.gpus = node_->gpus;
    facts_.domain = node_->gpu_domain;
    facts_.nic_bytes_per_s = node_->nics * cat_.nic(node_->nic).bytes_per_s();
  }

  void calibrate_for(const std::string& precision, std::vector<GemmShape> shapes) {
    CalibrationInput in{facts_.gpu, precision, std::move(shapes), node_is_measured_};
    cal_ = calibrate(req_.reports, cat_, in);
  }

  double peak(const std::string& precision) const {
    auto p = facts_.gpu->peak_for(precision);
    if (!p)
      throw UsageError(fmt::format("{} has no {} peak in the catalog: choose another precision or --hardware",
                                   facts_.gpu->name, precision));
    return *p;
  }

  // Smallest N in [1, kMaxNodes] whose evaluation meets the target: doubling, then bisection.
  template <typename Meets>
  std::optional<int> smallest_nodes(Meets meets) {
    int hi = 1;
    while (hi <= kMaxNodes && !meets(hi)) hi *= 2;
    if (hi > kMaxNodes) return std::nullopt;
    int lo = hi / 2;  // fails (or 0)
    while (hi - lo > 1) {
      int mid = lo + (hi - lo) / 2;
      if (meets(mid))
        hi = mid;
      else
        lo = mid;
    }
    return hi;
  }

  std::string planning_text(int nodes, double time_s, bool inverse) const {
    const auto& w = req_.workload;
    if (inverse)
      return fmt::format("inverse: smallest node count with time x (1 + {:.2f}) <= deadline {}", h_,
                         days(*w.deadline_s));
    return fmt::format("forward: {} nodes given{}", nodes,
                       w.deadline_s ? fmt::format(" (deadline {} {})", days(*w.deadline_s),
                                                  time_s * (1 + h_) <= *w.deadline_s ? "met" : "NOT met")
                                    : "");
  }

  // ----- LLM training
  // ---------------------------------------------------------------------------------------
  struct TrainEval {
    LayoutChoice choice;
    TrainingStep step;
    double time_s = 0;
  };

  TrainEval eval_llm(const LlmTraining& w, int nodes) {
    TrainEval e;
    e.choice = choose_layout(w.model, w, facts_, cal_, nodes * facts_.gpus, h_);
    if (!e.choice.layout) return e;
    e.step = training_step(w.model, w, facts_, cal_, *e.choice.layout);
    e.time_s = w.tokens / e.step.tokens_per_s / assumption::kGoodput.value;
    return e;
  }

  int find_nodes_llm(const LlmTraining& w, bool* inverse) {
    const auto& wl = req_.workload;
    std::optional<int> fixed = req_.nodes ? req_.nodes : wl.nodes;
    // A layout whose tp, pp, dp and cp are all given needs exactly their product of GPUs.
    if (auto need = w.layout.gpus()) {
      const auto& f = w.layout;
      std::string product = fmt::format("layout tp x pp x dp x cp = {} x {} x {} x {} = {} GPUs", *f.tp,
                                        *f.pp, *f.dp, *f.cp, *need);
      if (fixed && static_cast<long long>(*fixed) * facts_.gpus != *need)
        throw UsageError(
            fmt::format("{}: {}, but {} nodes x {} GPUs = {} (allowed: a layout whose product is "
                        "the GPU count, or no node count)",
                        wl.name, product, *fixed, facts_.gpus, *fixed * facts_.gpus));
      if (!fixed && *need % facts_.gpus != 0)
        throw UsageError(
            fmt::format("{}: {}, not a whole number of {}-GPU {} nodes (allowed: multiples of {})", wl.name,
                        product, facts_.gpus, node_->name, facts_.gpus));
      if (!fixed) fixed = *need / facts_.gpus;
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
      return e.choice.layout && e.time_s * (1 + h_) <= deadline;
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
      throw UsageError(
          fmt::format("{}: the deadline of {} cannot be met with headroom {:.2f}: the fastest plan "
                      "takes {} on {} nodes (the global batch of {:.0f} tokens limits data "
                      "parallelism); extend the deadline or raise global_batch_tokens",
                      wl.name, days(deadline), h_, days(best * (1 + h_)), best_n, w.global_batch_tokens));
    }
    return *n;
  }

  static nlohmann::json layout_json(const Layout& l) {
    return {{"t", l.t},
            {"p", l.p},
            {"d", l.d},
            {"c", l.c},
            {"v", l.v},
            {"zero", l.zero},
            {"micro_batch", l.micro_batch},
            {"recompute", std::string(to_string(l.recompute))}};
  }

  static std::string fixed_layout_text(const LlmTraining& w) {
    const auto& f = w.layout;
    std::vector<std::string> given;
    auto add = [&](const char* k, const std::optional<int>& v) {
      if (v) given.push_back(fmt::format("{} {}", k, *v));
    };
    add("tp", f.tp);
    add("pp", f.pp);
    add("dp", f.dp);
    add("cp", f.cp);
    add("vp", f.vp);
    add("micro_batch", f.micro_batch);
    if (w.recompute != "auto") given.push_back("recompute " + w.recompute);
    std::string searched =
        "fastest layout that fits (1 - headroom) x HBM, ties to less recomputation, then tensor "
        "within the NVLink domain, then pipeline, then data";
    if (given.empty()) return searched;
    return fmt::format("{} fixed by the workload; {}", fmt::join(given, ", "), searched);
  }

  void plan_llm_training(const LlmTraining& w) {
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
    int active = l.gpus();  // the rest idle: t p c does not divide the node count's GPUs
    auto flops = training_flops_per_token(m, w.seq_len);
    double total_flops = w.tokens * flops.total();
    double gpu_hours = gpus * e.time_s / 3600;
    sheet_.title = fmt::format("Sizing sheet: {}", req_.workload.name);
    sheet_.mode = planning_text(nodes, e.time_s, inverse);

    std::string shape = m.derived_shape ? " (shape derived from the parameter count)" : "";
    line("Compute", "Nodes", nodes, "nodes", node_->name,
         inverse ? fmt::format("smallest N with T x (1 + {:.2f}) = {} <= deadline {}", h_,
                               days(e.time_s * (1 + h_)), days(*req_.workload.deadline_s))
                 : "given",
         inverse ? plus_h(h_) + " on time" : "-", "workload");
    line("Compute", "GPUs", gpus, "GPUs",
         fmt::format("{} ({:.0f} TFLOPS {} dense peak, {} HBM)", facts_.gpu->name, pk / 1e12, w.precision,
                     format_bytes(facts_.gpu->memory_bytes)),
         fmt::format("{} nodes x {} GPUs", nodes, facts_.gpus), "-", "catalog");
    line(
        "Compute", "Training compute", total_flops, "FLOP",
        fmt::format("{:.3g} params{}, {:.3g} tokens", m.params, shape, w.tokens),
        fmt::format("D x (6 (N_act - V h) + 12 L h s) = {:.3g} x ({:.3g} + {:.3g}) FLOP/token (6ND = {:.3g})",
                    w.tokens, flops.gemm, flops.attention, 6 * m.active_params * w.tokens),
        "-", "workload");
    std::string ran = fmt::format("recompute {}{}, {} attention, sequence parallel {}, {} schedule",
                                  to_string(l.recompute), w.recompute == "auto" ? " (auto)" : "", w.attention,
                                  w.sequence_parallel ? "on" : "off", l.v > 1 ? "interleaved" : "1F1B");
    auto mfu = model_flops_utilisation<Formula>(st);
    line("Compute", "Predicted MFU", mfu, 1, "fraction",
         "model FLOPs (6ND-style, no recomputation) / (GPU peak x step time)",
         fmt::format(
             "{}: {} = {:.3f}; bubble (p-1)/(v m) with v = {}; eta_GEMM {:.3f} x training derate {:.2f}, "
             "flash attention at {:.2f} x that",
             ran, mfu.shown(), mfu.value(), st.virtual_stages, cal_.gemm.value,
             assumption::kTrainingGemmDerate.value, assumption::kAttentionRelative.value),
         "-", src(cal_.gemm));
    line("Compute", "Predicted HFU", st.hfu, "fraction",
         "hardware FLOPs (model + recomputed forward) / (GPU peak x step time)",
         fmt::format("{}: recomputation {:.3f} s of {:.3f} s compute per step; HFU = MFU when nothing is "
                     "recomputed",
                     ran, st.t_recompute, st.t_gemm + st.t_attention + st.t_recompute),
         "-", src(cal_.gemm));
    line("Compute", "Time to train", e.time_s / 86400, "days", fmt::format("{:.0f} GPU-hours", gpu_hours),
         fmt::format("C / (G x peak x MFU) / goodput = {:.3g} / ({} x {:.0f} TFLOPS x {:.3f}) / {:.2f}",
                     total_flops, active, pk / 1e12, st.mfu, assumption::kGoodput.value),
         fmt::format("planned {} with {}", days(e.time_s * (1 + h_)), plus_h(h_)), src(cal_.gemm));
    line("Compute", "Throughput", st.tokens_per_s, "tokens/s",
         fmt::format("{:.0f} tokens/s per working GPU", st.tokens_per_s / active),
         fmt::format("global batch {:.0f} tokens / step {:.3f} s", w.global_batch_tokens, st.step_s), "-",
         src(cal_.gemm));
    auto step = step_time<Formula>(st);
    line("Compute", "Step time", step, 1, "s",
         fmt::format("per optimizer step of {:.0f} tokens", w.global_batch_tokens),
         fmt::format("{} = {:.3f} s", step.shown(), step.value()), "-", src(cal_.gemm));
    line("Compute", "Parallel layout", active, "GPUs", l.describe(),
         fmt::format("{}; {:.1f} micro-batches of {} x {} per replica per step{}", fixed_layout_text(w),
                     st.micro_batches, l.micro_batch, w.seq_len,
                     active < gpus ? fmt::format("; {} of {} GPUs idle", gpus - active, gpus) : ""),
         "-", "model");
    if (e.choice.fitting > 1) {
      std::string ranked;
      for (std::size_t i = 0; i < e.choice.compared.size(); ++i)
        ranked += fmt::format("{}{}. {}: {:.3f} s", i ? "; " : "", i + 1,
                              e.choice.compared[i].layout.describe(), e.choice.compared[i].step_s);
      line("Compute", "Layouts compared", e.choice.fitting, "layouts",
           "the fastest 3 that fit, step time each", ranked, "-", "model");
    }
    if (e.choice.over_headroom)
      sheet_.warnings.push_back(
          fmt::format("the workload's layout needs {} per GPU, above (1 - headroom {:.2f}) x HBM = {} (it "
                      "fits the {} HBM)",
                      format_bytes(st.memory.total()), h_, format_bytes((1 - h_) * facts_.gpu->memory_bytes),
                      format_bytes(facts_.gpu->memory_bytes)));
    line("Memory", "HBM per GPU (modelled)", memory_total<Formula>(st.memory), 1e9, "GB",
         fmt::format("{} of {} {}", format_bytes(st.memory.total()), format_bytes(facts_.gpu->memory_bytes),
                     facts_.gpu->memory_type),
         st.memory.describe(),
         fmt::format("<= (1 - {:.2f}) x HBM = {}", h_, format_bytes((1 - h_) * facts_.gpu->memory_bytes)),
         "model");
    if (l.t > 1)
      line(
          "Network", "Tensor-parallel traffic", st.t_tp, "s/step",
          fmt::format("NVLink busbw {}", gbs(st.tp_busbw)),
          fmt::format("(4 all-reduces{}) x 2 b s h (t-1)/t x 2 B per layer per micro-batch / busbw; {:.3f} s "
                      "exposed per step",
                      l.recompute == Recompute::full ? " + 2 recomputed"
                      : w.sequence_parallel          ? " + 1 re-gather, as all-gather/reduce-scatter"
                                                     : "",
                      st.t_tp),
          "-", src(cal_.nvlink));
    if (l.c > 1)
      line("Network", "Context-parallel K/V ring", st.t_cp, "s/step",
           fmt::format("busbw {} ({})", gbs(st.cp_busbw), l.t * l.c <= facts_.domain ? "NVLink" : "network"),
           fmt::format("3 x (cp - 1) x K, V of s/cp tokens per layer per micro-batch; {:.3f} s exposed after "
                       "overlap with the chunk's attention",
                       st.t_cp_exposed),
           "-", l.t * l.c <= facts_.domain ? src(cal_.nvlink) : src(cal_.network));
    if (l.d * l.c > 1)
      line("Network", "Data-parallel gradient sync", st.t_dp, "s/step",
           fmt::format("all_reduce busbw {} per DP group", gbs(st.dp_busbw)),
           l.zero >= 3
               ? fmt::format(
                     "ZeRO-3 gathers and reduce-scatters: 1.5 x (N/(t p) x 4 B x 2(r-1)/r / busbw + 2 log2 r "
                     "latency) x {:.1f} micro-batches, r = dp x cp = {} ranks = {:.3f} s; {:.3f} s exposed "
                     "after overlap with the whole forward and backward",
                     st.micro_batches, l.d * l.c, st.t_dp, st.t_dp_exposed)
               : fmt::format(
                     "N/(t p) x 4 B x 2(r-1)/r / busbw + 2 log2 r latency, r = dp x cp = {} ranks = {:.3f} "
                     "s; {:.3f} s exposed after overlap with the last backward",
                     l.d * l.c, st.t_dp, st.t_dp_exposed),
           "-", nodes > 1 ? src(cal_.network) : src(cal_.nvlink));

    nlohmann::json compared = nlohmann::json::array();
    for (const auto& c : e.choice.compared)
      compared.push_back({{"layout", layout_json(c.layout)}, {"step_s", c.step_s}});
    double ckpt = assumption::kCheckpointBytesPerParam.value * m.params;
    add_storage(ckpt, w.checkpoint, w.dataset_bytes, st.tokens_per_s * w.dataset_bytes / w.tokens, nodes);
    add_network(nodes, st.comm_share);
    double run_s = e.time_s;
    add_power_host_cost(nodes, run_s, ckpt, fmt::format("per training run ({})", days(run_s)), 0);

    sheet_.figures.update({{"nodes", nodes},
                           {"gpus", gpus},
                           {"time_s", e.time_s},
                           {"gpu_hours", gpu_hours},
                           {"mfu", st.mfu},
                           {"hfu", st.hfu},
                           {"step_s", st.step_s},
                           {"tokens_per_s", st.tokens_per_s},
                           {"layout", layout_json(l)},
                           {"layouts_compared", compared},
                           {"hbm_bytes", st.memory.total()},
                           {"gemm_efficiency", cal_.gemm.value},
                           {"gemm_source", src(cal_.gemm)}});
  }

  // ----- CV training
  // ----------------------------------------------------------------------------------------
  void plan_cv_training(const CvTraining& w) {
    double pk = peak(w.precision);
    calibrate_for(w.precision, {});
    for (const auto& r : req_.reports)
      for (const auto& res : r.results)
        if (res.probe == "gpu.conv" && res.status == Status::ok) {
          if (const Metric* tf = res.metric("tflops"); tf && facts_.gpu->peak_for(w.precision)) {
            double eff = assumption::kConvShareOfNetwork.value * tf->value / pk;
            if (eff > cal_.conv.value || cal_.conv.source == Source::assumed)
              cal_.conv = {eff, report_gpu(r, cat_) == facts_.gpu ? Source::measured : Source::transferred,
                           fmt::format("gpu.conv {:.0f} TFLOPS x {} (non-convolution layers)",
                                       tf->value / 1e12, assumption::kConvShareOfNetwork.value)};
          }
        }
    const auto& wl = req_.workload;
    double images = w.dataset_images * w.epochs;
    auto eval = [&](int nodes) {
      auto st = cv_step(w, facts_, cal_, nodes * facts_.gpus);
      return std::pair{st, images / (st.images_per_s_gpu * nodes * facts_.gpus) / assumption::kGoodput.value};
    };
    bool inverse = !(req_.nodes || wl.nodes);
    int nodes = req_.nodes ? *req_.nodes : wl.nodes ? *wl.nodes : 0;
    if (inverse) {
      auto n = smallest_nodes([&](int k) { return eval(k).second * (1 + h_) <= *wl.deadline_s; });
      if (!n)
        throw UsageError(fmt::format("{}: the deadline of {} cannot be met at any node count", wl.name,
                                     days(*wl.deadline_s)));
      nodes = *n;
    }
    auto [st, time_s] = eval(nodes);
    int gpus = nodes * facts_.gpus;
    sheet_.title = fmt::format("Sizing sheet: {}", wl.name);
    sheet_.mode = planning_text(nodes, time_s, inverse);
    line("Compute", "Nodes", nodes, "nodes", node_->name,
         inverse ? fmt::format("smallest N with T x (1 + {:.2f}) = {:.2f} h <= deadline {:.2f} h", h_,
                               time_s * (1 + h_) / 3600, *wl.deadline_s / 3600)
                 : "given",
         inverse ? plus_h(h_) + " on time" : "-", "workload");
    line("Compute", "GPUs", gpus, "GPUs",
         fmt::format("{} ({:.0f} TFLOPS {})", facts_.gpu->name, pk / 1e12, w.precision),
         fmt::format("{} nodes x {} GPUs", nodes, facts_.gpus), "-", "catalog");
    line("Compute", "Images per second per GPU", st.images_per_s_gpu, "images/s",
         fmt::format("batch {:.0f} per GPU", st.batch_per_gpu),
         fmt::format(
             "{:.0f} TFLOPS x eta_CNN {:.3f} / (3 x {:.3g} FLOP) x (1 - {:.1f} % exposed gradient sync) "
             "= {:.0f}",
             pk / 1e12, cal_.conv.value, w.flops_per_image, 100 * st.comm_share, st.images_per_s_gpu),
         "-", src(cal_.conv));
    line("Compute", "Time to train", time_s / 3600, "hours",
         fmt::format("{:.0f} GPU-hours", gpus * time_s / 3600),
         fmt::format("{:.3g} images x {:.0f} epochs / ({} GPUs x {:.0f} images/s) / goodput {:.2f}",
                     w.dataset_images, w.epochs, gpus, st.images_per_s_gpu, assumption::kGoodput.value),
         fmt::format("planned {:.2f} h with {}", time_s * (1 + h_) / 3600, plus_h(h_)), src(cal_.conv));
    double bytes_per_image = w.dataset_bytes / w.dataset_images;
    double read = st.images_per_s_gpu * gpus * bytes_per_image;
    add_storage(assumption::kCheckpointBytesPerParam.value * w.params, w.checkpoint, w.dataset_bytes, read,
                nodes);
    add_network(nodes, st.comm_share);
    add_power_host_cost(nodes, time_s, assumption::kCheckpointBytesPerParam.value * w.params,
                        fmt::format("per training run ({:.2f} h)", time_s / 3600), 0);
    sheet_.figures.update({{"nodes", nodes},
                           {"gpus", gpus},
                           {"time_s", time_s},
                           {"gpu_hours", gpus * time_s / 3600},
                           {"images_per_s_gpu", st.images_per_s_gpu},
                           {"read_bytes_per_s", read}});
  }

  // ----- LLM inference
  // ----------------------------------------------------------------------------------------
  void plan_inference(const LlmInference& w) {
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
         inverse ? fmt::format("ceil(demand {:.0f} tokens/s x (1 + {:.2f}) / {:.0f} tokens/s per node)",
                               demand, h_, sp->tokens_per_s_node)
                 : "given",
         inverse ? plus_h(h_) + " on throughput" : "-", "workload");
    line("Compute", "GPUs", gpus, "GPUs",
         fmt::format("{} ({:.0f} TFLOPS {})", facts_.gpu->name, pk / 1e12, w.precision),
         fmt::format("{} nodes x {} GPUs", nodes, facts_.gpus), "-", "catalog");
    line("Compute", "Serving layout", facts_.gpus / sp->t, "instances/node",
         fmt::format("TP {} x batch {:.0f} (decode {}-bound)", sp->t, sp->batch, sp->bound),
         "the tensor-parallel degree with the most output tokens/s per node that meets the targets", "-",
         "model");
    line("Compute", "Throughput per node", sp->tokens_per_s_node, "tokens/s",
         fmt::format("{:.0f} output tokens/s per instance", sp->tokens_per_s_instance),
         fmt::format(
             "out / (out x step / batch + prefill) = {:.0f} / ({:.0f} x {:.4f} / {:.0f} + {:.4f}) x {} "
             "instances",
             w.output_tokens, w.output_tokens, sp->step_s, sp->batch, sp->prefill_s, facts_.gpus / sp->t),
         "-", src(cal_.hbm) + "/" + src(cal_.gemm));
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
         fmt::format("{:.0f} % of HBM reserved by the serving engine",
                     100 * assumption::kServingReserve.value),
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

  // ----- Shared sections
  // ------------------------------------------------------------------------------------
  double local_bw(bool write) const {
    const Figure& f = write ? cal_.storage_write : cal_.storage_read;
    if (f.value > 0) return f.value;
    const auto& d = cat_.drive(node_->drive);
    return node_->drives * (write ? d.write_bw : d.read_bw) * assumption::kDriveEfficiency.value;
  }

  std::string tier(double read, double write) const {
    if (read <= 4e9 && write <= 2e9) return "good tier (4/2 GB/s per node) suffices";
    if (read <= 8e9 && write <= 4e9) return "needs the better tier (8/4 GB/s per node)";
    return "needs the best tier (40/20 GB/s per node)";
  }

  void add_storage(double ckpt, const Checkpointing& c, double dataset_bytes, double read_rate, int nodes) {
    const auto& drive = cat_.drive(node_->drive);
    line("Storage", "Checkpoint size", ckpt / 1e9, "GB", "bf16 weights + fp32 master + Adam m, v",
         fmt::format("{:.0f} B/param x {:.3g} params", assumption::kCheckpointBytesPerParam.value,
                     ckpt / assumption::kCheckpointBytesPerParam.value),
         "-", "model");
    double write_need = ckpt / c.allowed_stall_s;
    line("Storage", "Shared write bandwidth", write_need * (1 + h_) / 1e9, "GB/s",
         "parallel file system, aggregate",
         fmt::format("checkpoint {} / allowed stall {:.0f} s = {}", format_bytes(ckpt), c.allowed_stall_s,
                     gbs(write_need)),
         plus_h(h_), "workload");
    double mtbf_h = assumption::kNodeMtbfHours.value / nodes;
    double young = std::sqrt(2 * c.allowed_stall_s * mtbf_h * 3600);
    line("Storage", "Checkpoint interval", c.interval_s / 3600, "hours",
         fmt::format("retention {} checkpoints", c.retention),
         fmt::format("Young/Daly optimum sqrt(2 x {:.0f} s x MTBF {:.1f} h) = {:.2f} h", c.allowed_stall_s,
                     mtbf_h, young / 3600),
         "-", "workload");
    double capacity = ckpt * c.retention + dataset_bytes;
    line("Storage", "Shared capacity", capacity * (1 + h_) / 1e12, "TB", "usable, after RAID/erasure coding",
         fmt::format("{} checkpoints x {} + dataset {}", c.retention, format_bytes(ckpt),
                     format_bytes(dataset_bytes)),
         plus_h(h_), "workload");
    line("Storage", "Shared read bandwidth", read_rate * (1 + h_) / 1e9, "GB/s",
         "aggregate training-data read",
         fmt::format("{} for the whole cluster = {:.3f} GB/s per GPU", gbs(read_rate),
                     read_rate / (nodes * facts_.gpus) / 1e9),
         plus_h(h_), "model");
    // Local NVMe stages this node's checkpoint shard (two copies) and caches its share of the data; RAID-0
    // stripes for bandwidth because everything on it can be re-fetched from shared storage.
    double node_write = ckpt / nodes / c.allowed_stall_s * (1 + h_);
    double node_read = read_rate / nodes * (1 + h_);
    double node_capacity = (2 * ckpt / nodes + std::min(dataset_bytes, dataset_bytes / nodes * 2)) * (1 + h_);
    double per_drive_w = drive.write_bw * assumption::kDriveEfficiency.value;
    double per_drive_r = drive.read_bw * assumption::kDriveEfficiency.value;
    int drives_needed = static_cast<int>(
        std::max({1.0, std::ceil(node_write / per_drive_w), std::ceil(node_read / per_drive_r),
                  std::ceil(node_capacity / drive.capacity_bytes)}));
    line("Storage", "Local NVMe per node", drives_needed, "drives",
         fmt::format("{} ({}, {:.1f}/{:.1f} GB/s) in RAID-0; template has {}", drive.name, drive.interface,
                     drive.read_bw / 1e9, drive.write_bw / 1e9, node_->drives),
         fmt::format("max(write {} / {}, read {} / {}, capacity {} / {}) ; node storage {} ({} GB/s local "
                     "read/write available: {:.1f}/{:.1f})",
                     gbs(node_write), gbs(per_drive_w), gbs(node_read), gbs(per_drive_r),
                     format_bytes(node_capacity), format_bytes(drive.capacity_bytes),
                     tier(node_read, node_write), src(cal_.storage_read), local_bw(false) / 1e9,
                     local_bw(true) / 1e9),
         plus_h(h_), src(cal_.storage_write));
    if (drives_needed > node_->drives)
      sheet_.warnings.push_back(fmt::format("{} needs {} local drives per node but the {} template holds {}",
                                            req_.workload.name, drives_needed, node_->name, node_->drives));
    // As the table shows them: planned figures include the headroom.
    sheet_.figures["storage"] = {{"checkpoint_bytes", ckpt},
                                 {"write_bytes_per_s", write_need * (1 + h_)},
                                 {"capacity_bytes", capacity * (1 + h_)},
                                 {"local_drives", drives_needed}};
  }

  void add_storage_inference(double weights, int nodes) {
    const auto& drive = cat_.drive(node_->drive);
    double load_s = weights / local_bw(false);
    line("Storage", "Model weights", weights / 1e9, "GB", "per model version", "N x bytes per parameter", "-",
         "workload");
    line("Storage", "Shared capacity", 3 * weights * (1 + h_) / 1e12, "TB", "model registry: 3 versions",
         fmt::format("3 x {}", format_bytes(weights)), plus_h(h_), "assumed");
    line("Storage", "Local NVMe per node", node_->drives, "drives", fmt::format("{} in RAID-0", drive.name),
         fmt::format(
             "cold start: weights {} / local read {} = {:.1f} s; {} nodes pull {} from shared storage",
             format_bytes(weights), gbs(local_bw(false)), load_s, nodes, format_bytes(weights * nodes)),
         "-", src(cal_.storage_read));
    sheet_.figures["storage"] = {{"weights_bytes", weights},
                                 {"capacity_bytes", 3 * weights * (1 + h_)},
                                 {"local_drives", node_->drives}};
  }

  int fabric_switches_ = 0;
  int fabric_cables_ = 0;

  void add_network(int nodes, double comm_share) {
    const auto& nic = cat_.nic(node_->nic);
    const auto& sw = cat_.switch_spec(node_->switch_name);
    line("Network", "Compute-fabric NICs", nodes * node_->nics, "NICs",
         fmt::format("{} {} ({:.0f} Gb/s)", nic.name, nic.kind, nic.bits_per_s / 1e9),
         fmt::format("{} per node = {:.2f} per GPU ({:.0f} Gb/s per GPU)", node_->nics,
                     static_cast<double>(node_->nics) / node_->gpus,
                     nic.bits_per_s * node_->nics / node_->gpus / 1e9),
         "-", "catalog");
    int ports_for = static_cast<int>(std::ceil(nodes * (1 + h_)));
    auto f = rail_optimised_fabric(nodes <= 1 ? 1 : ports_for, node_->nics, sw.radix);
    std::string drive =
        fmt::format("{} rails x ceil({} nodes / {} ports down per leaf)", f.rails, ports_for, sw.radix / 2);
    line("Network", "Leaf switches", f.leaves, "switches", fmt::format("{} radix {}", sw.name, sw.radix),
         nodes <= 1 ? "one node: no fabric" : drive, nodes <= 1 ? "-" : plus_h(h_) + " ports", "catalog");
    line("Network", "Spine switches", f.spines, "switches", fmt::format("{} radix {}", sw.name, sw.radix),
         nodes <= 1 ? "one node: no fabric"
                    : fmt::format("ceil({} leaves x {} uplinks / {})", f.leaves, sw.radix / 2, sw.radix),
         nodes <= 1 ? "-" : plus_h(h_) + " ports", "catalog");
    line("Network", "Cables/transceivers", f.cables, "links", "node-leaf + leaf-spine",
         fmt::format("{} node ports + {} uplinks", f.node_ports, f.leaves * (sw.radix / 2)), "-", "catalog");
    line("Network", "Exposed communication", comm_share, "fraction",
         fmt::format("budget {:.2f}", assumption::kCommBudget.value),
         "exposed communication time / step time", "-", src(cal_.network));
    if (comm_share > assumption::kCommBudget.value)
      sheet_.warnings.push_back(
          fmt::format("exposed communication is {:.0f} % of the step (budget {:.0f} %): "
                      "consider a faster fabric or a larger global batch",
                      100 * comm_share, 100 * assumption::kCommBudget.value));
    fabric_switches_ = f.leaves + f.spines;
    fabric_cables_ = f.cables;
    sheet_.figures["network"] = {{"leaves", f.leaves}, {"spines", f.spines}, {"nics", nodes * node_->nics}};
  }

  void add_power_host_cost(int nodes, double run_s, double ckpt, const std::string& per, double tokens) {
    const auto& cool = cat_.cooling_spec(node_->cooling);
    const auto& cpu = cat_.cpu(node_->cpu);
    const auto& sw = cat_.switch_spec(node_->switch_name);
    double node_w = node_nameplate_w(*node_, cat_);
    double switch_w = fabric_switches_ * sw.power_w;
    double it_w = nodes * node_w + switch_w;
    int per_rack = std::max(1, static_cast<int>(cool.rack_w / node_w));
    int racks = (nodes + per_rack - 1) / per_rack;
    double avg_w = nodes * node_w * assumption::kAveragePowerShare.value + switch_w;
    double mwh = avg_w * run_s / 3600 / 1e6 * cool.pue;
    line("Power", "Node power (nameplate)", node_w / 1e3, "kW",
         fmt::format("{} cooling, GPU power x {:.2f}", cool.name, cool.gpu_power_factor),
         fmt::format(
             "{} GPUs x {:.0f} W x {:.2f} + {} CPUs x {:.0f} W + DRAM {:.0f} GB x {} W + NICs + drives + "
             "{:.0f} W other",
             node_->gpus, facts_.gpu->tdp_w, cool.gpu_power_factor, node_->sockets, cpu.tdp_w,
             node_->ram_bytes / 1e9, assumption::kDramWattsPerGb.value, node_->other_w),
         "nameplate", "catalog");
    line("Power", "IT power", it_w / 1e3, "kW", "nodes + fabric switches",
         fmt::format("{} x {:.2f} kW + {} switches x {:.0f} W", nodes, node_w / 1e3, fabric_switches_,
                     sw.power_w),
         "nameplate", "catalog");
    line("Power", "Racks", racks, "racks",
         fmt::format("{:.0f} kW per rack ({})", cool.rack_w / 1e3, cool.name),
         fmt::format("ceil({} nodes / {} per rack)", nodes, per_rack), "nameplate per rack", "catalog");
    line("Power", "Energy", mwh, "MWh", per,
         fmt::format("{:.0f} kW average ({:.0f} % of nodes' nameplate) x {:.0f} h x PUE {:.2f}", avg_w / 1e3,
                     100 * assumption::kAveragePowerShare.value, run_s / 3600, cool.pue),
         "-", "assumed");

    double cores_needed = node_->gpus * cores_per_gpu(req_.workload.kind).value * (1 + h_);
    double cores_have = node_->sockets * cpu.cores;
    double ram_have = node_->ram_bytes;
    std::string ram_src = "catalog";
    if (node_is_measured_ && !req_.reports.empty()) {
      const auto& host = req_.reports.front().host;
      if (host.contains("memory") && host["memory"].contains("total_bytes")) {
        ram_have = host["memory"]["total_bytes"].get<double>();
        ram_src = "measured";
      }
    }
    line("Host", "CPU cores per node", cores_needed, "cores",
         fmt::format("{} x {} = {:.0f} cores", node_->sockets, cpu.name, cores_have),
         fmt::format("{} GPUs x {:.0f} cores per GPU ({})", node_->gpus,
                     cores_per_gpu(req_.workload.kind).value, req_.workload.kind),
         plus_h(h_), "assumed");
    if (cores_needed > cores_have)
      sheet_.warnings.push_back(
          fmt::format("{:.0f} CPU cores per node needed, the template has {:.0f}", cores_needed, cores_have));
    double ram_need = std::max(assumption::kHostRamPerHbm.value * node_->gpus * facts_.gpu->memory_bytes,
                               ckpt / nodes * 2) *
                      (1 + h_);
    line("Host", "Host RAM per node", ram_need / 1e9, "GB",
         fmt::format("{} installed", format_bytes(ram_have)),
         fmt::format("max({:.0f} x HBM of the node, 2 x checkpoint shard)", assumption::kHostRamPerHbm.value),
         plus_h(h_), ram_src);
    if (ram_need > ram_have)
      sheet_.warnings.push_back(fmt::format("host RAM: {} needed per node, {} installed",
                                            format_bytes(ram_need), format_bytes(ram_have)));
    double membw = node_->sockets * cpu.memory_bandwidth() * cal_.host_mem.value;
    line("Host", "Host memory bandwidth", membw / 1e9, "GB/s",
         fmt::format("{} sockets x {} ch x {:.0f} MT/s x 8 B", node_->sockets, cpu.memory_channels,
                     cpu.memory_mts),
         fmt::format("theoretical x {:.2f}", cal_.host_mem.value), "-", src(cal_.host_mem));

    add_cost(nodes, run_s, mwh, per, tokens);
    total("Nodes", nodes, "nodes", node_->name);
    total("GPUs", nodes * node_->gpus, "GPUs", facts_.gpu->name);
    total("IT power", it_w / 1e3, "kW", "nameplate");
    total("Racks", racks, "racks", cool.name);
    total("Energy", mwh, "MWh", per);
    sheet_.figures["power"] = {{"node_w", node_w}, {"it_w", it_w}, {"racks", racks}, {"mwh", mwh}};
  }

  void add_cost(int nodes, double run_s, double mwh, const std::string& per, double tokens) {
    std::string label = prices_.example ? "example price" : "prices file";
    auto node_price = prices_.item(node_->name);
    if (!node_price) {
      sheet_.warnings.push_back(
          fmt::format("no price for {}: cost lines left out (give --prices FILE)", node_->name));
      return;
    }
    const auto& sw = cat_.switch_spec(node_->switch_name);
    double switch_price = prices_.item(sw.name).value_or(0);
    double cable_price = prices_.item("cable").value_or(0);
    double storage_tb = 0;
    for (const auto& l : sheet_.lines)
      if (l.section == "Storage" && l.item == "Shared capacity") storage_tb = l.quantity;
    double capital = nodes * *node_price + fabric_switches_ * switch_price + fabric_cables_ * cable_price +
                     storage_tb * prices_.storage_per_tb;
    line("Cost", "Capital", capital, prices_.currency, label,
         fmt::format("{} nodes x {:.0f} + {} switches x {:.0f} + {} cables x {:.0f} + {:.1f} TB x {:.0f}",
                     nodes, *node_price, fabric_switches_, switch_price, fabric_cables_, cable_price,
                     storage_tb, prices_.storage_per_tb),
         "-", label);
    double energy_cost = mwh * 1000 * prices_.energy_per_kwh;
    line("Cost", "Energy cost", energy_cost, prices_.currency, per,
         fmt::format("{:.1f} MWh x {:.3f} {}/kWh", mwh, prices_.energy_per_kwh, prices_.currency), "-",
         label);
    double amortised = capital * run_s / (prices_.amortisation_years * kSecondsPerYear);
    line("Cost", tokens > 0 ? "Cost per year" : "Cost per run", amortised + energy_cost, prices_.currency,
         per,
         fmt::format("capital over {:.0f} years x {:.2f} years + energy", prices_.amortisation_years,
                     run_s / kSecondsPerYear),
         "-", label);
    if (tokens > 0)
      line("Cost", "Cost per million tokens", (amortised + energy_cost) / (tokens / 1e6), prices_.currency,
           "output tokens at the planned load",
           fmt::format("({:.0f} + {:.0f}) / {:.3g} M tokens", amortised, energy_cost, tokens / 1e6), "-",
           label);
    total("Capital", capital, prices_.currency, label);
    if (prices_.example)
      sheet_.warnings.push_back(
          "prices are the shipped EXAMPLES (configs/hardware/prices.yaml), not quotes: pass "
          "--prices FILE with real ones");
  }

  void add_assumptions() {
    auto fig = [&](std::string_view name, const Figure& f, bool fraction = true) {
      sheet_.assumptions.push_back(
          {std::string(name), fraction ? fmt::format("{:.3f}", f.value) : gbs(f.value), src(f), f.basis});
    };
    fig(assumption::kGemm16.name, cal_.gemm);
    fig(assumption::kHbm.name, cal_.hbm);
    fig(assumption::kNvlink.name, cal_.nvlink);
    fig(assumption::kNetwork.name, cal_.network);
    if (req_.workload.kind == "cv-training") fig(assumption::kConvModel.name, cal_.conv);
    if (cal_.storage_read.value > 0) fig("Local storage read", cal_.storage_read, false);
    if (cal_.storage_write.value > 0) fig("Local storage write", cal_.storage_write, false);
    fig(assumption::kHostMem.name, cal_.host_mem);
    for (const Assumption* a : engine_assumptions())
      if (a->kind.empty() || a->kind == req_.workload.kind)
        sheet_.assumptions.push_back(
            {std::string(a->name), format_quantity(a->listed()), "assumed", std::string(a->basis)});
    sheet_.assumptions.push_back(
        {"Headroom", format_quantity(h_), "assumed", "per resource, shown on each line"});
    sheet_.warnings.insert(sheet_.warnings.begin(), cal_.warnings.begin(), cal_.warnings.end());
  }
};

}  // namespace

std::string check_headroom(double headroom) {
  if (!(headroom >= 0 && headroom <= 0.5))
    throw UsageError(fmt::format(
        "--headroom {} is out of range: give a fraction between 0 and 0.5 (0.25 = 25 %)", headroom));
  if (headroom < 0.2 || headroom > 0.3)
    return fmt::format("headroom {:.2f} is outside the recommended 0.20-0.30 per resource", headroom);
  return "";
}

Sheet plan(const PlanRequest& req, const HardwareCatalog& catalog) {
  std::string warning = check_headroom(req.headroom);
  if (req.nodes && *req.nodes <= 0) throw UsageError("--nodes must be a positive whole number");
  Sheet s = Planner(req, catalog).run();
  if (!warning.empty()) s.warnings.insert(s.warnings.begin(), warning);
  return s;
}

}  // namespace mlbench::sizing
