// The CNN training model (sizing/model_cv_training.cpp; METHODS.md "Training step"): images per second per
// GPU from the convolution efficiency and the exposed gradient sync.
//
// The formulas are written once as templates over the number type (sizing/formula.hpp): Num = double computes
// the value the search and the planner use, Num = Formula the same value with the sheet's text. Instantiated
// for double and Formula.
#pragma once

#include "sizing/calibration.hpp"
#include "sizing/formula.hpp"
#include "sizing/model_node.hpp"
#include "sizing/workload.hpp"

namespace mlbench::sizing {

struct CvStep {
  double images_per_s_gpu = 0, step_s = 0, t_dp = 0, t_dp_exposed = 0, comm_share = 0;
  double batch_per_gpu = 256;
  double flops_per_image = 0, peak = 0,
         eta = 0;  // the compute: batch x 3 x FLOP per image / (peak x eta_CNN)
};
CvStep cv_step(const CvTraining& w, const NodeFacts& node, const Calibration& cal, int gpus);
// batch / (batch x 3 x FLOP per image / (peak x eta_CNN) + exposed DP): images per second per GPU.
template <typename Num>
Num cv_images_per_s_gpu(const CvStep& st);

}  // namespace mlbench::sizing
