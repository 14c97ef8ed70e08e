#include "sizing/model_cv_training.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <optional>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "base/units.hpp"
#include "sizing/model_terms.hpp"

namespace mlbench::sizing {

using namespace terms;

CvStep cv_step(const CvTraining& w, const NodeFacts& node, const Calibration& cal, int gpus) {
  CvStep st;
  double peak = node.gpu->peak_for(peak_precision(w.precision)).value_or(0);
  double compute = st.batch_per_gpu * 3 * w.flops_per_image / (peak * cal.conv.value);
  if (gpus > 1) {
    Layout l{1, 1, gpus};
    double busbw = dp_busbw(node, cal, l, std::max(1, (gpus + node.gpus - 1) / node.gpus));
    st.t_dp = w.params * 4 * 2 * (gpus - 1) / gpus / busbw +
              assumption::kCollectiveLatency.value * 2 * std::log2(gpus);
    double window = (2.0 / 3.0) * compute;
    double overlapped = std::min(st.t_dp, window);
    st.t_dp_exposed = (st.t_dp - overlapped) + (1 - assumption::kOverlapHidden.value) * overlapped;
  }
  st.step_s = compute + st.t_dp_exposed;
  st.comm_share = st.t_dp_exposed / st.step_s;
  st.flops_per_image = w.flops_per_image;
  st.peak = peak;
  st.eta = cal.conv.value;
  st.images_per_s_gpu = cv_images_per_s_gpu<double>(st);
  return st;
}

template <typename Num>
Num cv_images_per_s_gpu(const CvStep& st) {
  Num batch = named<Num>("batch", st.batch_per_gpu, count_shown("batch"));
  Num compute =
      3 * batch * named<Num>("flops_per_image", st.flops_per_image, flops_shown("per image")) /
      (named<Num>("peak", st.peak, [](double v) { return fmt::format("peak {:.0f} TFLOPS", v / 1e12); }) *
       named<Num>("eta_cnn", st.eta, fraction_shown("eta_CNN")));
  return batch / (compute + named<Num>("t_dp_exposed", st.t_dp_exposed, seconds_shown("exposed DP", 4)));
}
template double cv_images_per_s_gpu<double>(const CvStep&);
template Formula cv_images_per_s_gpu<Formula>(const CvStep&);

}  // namespace mlbench::sizing
