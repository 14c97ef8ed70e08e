#include "sizing/plan_context.hpp"

#include <fmt/format.h>

#include "base/error.hpp"

namespace mlbench::sizing::planning {
namespace {

// A CNN's training time in hours, as its sheet prints each duration.
std::string hours(double s) { return fmt::format("{:.2f} h", s / 3600); }

}  // namespace

void Planner::plan_cv_training(const CvTraining& w) {
  double pk = peak(w.precision);
  calibrate_for(w.precision, {});
  for (const auto& r : req_.reports)
    for (const auto& res : r.results)
      if (res.probe == "gpu.conv" && res.status == Status::ok) {
        if (const Metric* tf = res.metric("tflops");
            tf && facts_.gpu->peak_for(peak_precision(w.precision))) {
          double eff = assumption::kConvShareOfNetwork.value * tf->value / pk;
          if (eff > cal_.conv.value || cal_.conv.source == Source::assumed)
            cal_.conv = {eff, report_gpu(r, cat_) == facts_.gpu ? Source::measured : Source::transferred,
                         fmt::format("gpu.conv {:.0f} TFLOPS x {} (non-convolution layers)", tf->value / 1e12,
                                     assumption::kConvShareOfNetwork.value)};
        }
      }
  const auto& wl = req_.workload;
  double images = w.dataset_images * w.epochs;
  auto eval = [&](int nodes) {
    auto st = cv_step(w, facts_, cal_, nodes * facts_.gpus);
    return std::pair{
        st, time_to_train<double>("images", images, "images", st.images_per_s_gpu * nodes * facts_.gpus,
                                  goodput(w.checkpoint))};
  };
  bool inverse = !(req_.nodes || wl.nodes);
  int nodes = req_.nodes ? *req_.nodes : wl.nodes ? *wl.nodes : 0;
  if (inverse) {
    auto n = smallest_nodes([&](int k) { return meets_deadline(eval(k).second, *wl.deadline_s, h_); });
    if (!n)
      throw UsageError(fmt::format("{}: the deadline of {} cannot be met at any node count", wl.name,
                                   duration(*wl.deadline_s)));
    nodes = *n;
  }
  auto [st, time_s] = eval(nodes);
  int gpus = nodes * facts_.gpus;
  sheet_.title = fmt::format("Sizing sheet: {}", wl.name);
  sheet_.mode = planning_text(nodes, time_s, inverse);
  line({.section = "Compute",
        .item = "Nodes",
        .quantity = nodes,
        .unit = "nodes",
        .spec = node_->name,
        .driver = inverse ? "smallest N with " + deadline_rule("T", h_, time_s, *wl.deadline_s, hours)
                          : "given by " + nodes_given(),
        .headroom = inverse ? headroom_shown(h_) + " on time" : "-",
        .source = inverse || !req_.nodes ? "workload" : "--nodes"});
  gpus_line(nodes, fmt::format("{} ({:.0f} TFLOPS {})", facts_.gpu->name, pk / 1e12, w.precision));
  auto ips = cv_images_per_s_gpu<Formula>(st);
  line({.section = "Compute",
        .item = "Images per second per GPU",
        .quantity = ips,
        .unit = "images/s",
        .spec = fmt::format("batch {:.0f} per GPU", st.batch_per_gpu),
        .driver = fmt::format("{} = {:.0f} ({:.1f} % exposed gradient sync)", ips.shown(), ips.value(),
                              100 * st.comm_share),
        .source = src(cal_.conv)});
  auto ttt =
      time_to_train<Formula>("images", images, "images", st.images_per_s_gpu * gpus, goodput(w.checkpoint));
  line({.section = "Compute",
        .item = "Time to train",
        .quantity = ttt,
        .per = 3600,
        .unit = "hours",
        .spec = fmt::format("{:.0f} GPU-hours", gpus * time_s / 3600),
        .driver = fmt::format("{} ({:.3g} images x {:.0f} epochs, {} GPUs) = {:.0f} s", ttt.shown(),
                              w.dataset_images, w.epochs, gpus, ttt.value()),
        .headroom = planned_time_shown(time_s, h_, hours),
        .source = src(cal_.conv)});
  double bytes_per_image = w.dataset_bytes / w.dataset_images;
  double read = st.images_per_s_gpu * gpus * bytes_per_image;
  add_storage(assumption::kCheckpointBytesPerParam.value * w.params, w.checkpoint, w.dataset_bytes, read,
              nodes);
  add_network(nodes, st.comm_share, nodes > 1);
  add_power_host_cost(nodes, time_s, assumption::kCheckpointBytesPerParam.value * w.params,
                      fmt::format("per training run ({})", duration(time_s)), 0);
  sheet_.figures.update({{"nodes", nodes},
                         {"gpus", gpus},
                         {"time_s", time_s},
                         {"gpu_hours", gpus * time_s / 3600},
                         {"images_per_s_gpu", st.images_per_s_gpu},
                         {"read_bytes_per_s", read}});
}

}  // namespace mlbench::sizing::planning
