// The performance models of the sizing engine, one header per planner (docs/METHODS.md, its sizing sections):
// this header includes them all, for the planner and the tests that use several.
#pragma once

#include "sizing/model_cv_training.hpp"
#include "sizing/model_gemm.hpp"
#include "sizing/model_llm_inference.hpp"
#include "sizing/model_llm_training.hpp"
#include "sizing/model_node.hpp"
