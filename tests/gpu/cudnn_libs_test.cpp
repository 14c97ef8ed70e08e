#include "kernels/gpu/cudnn_libs.hpp"
#include "kernels/gpu/lazy_library.hpp"

#include <gtest/gtest.h>

#include <filesystem>

#include "base/error.hpp"

namespace mlbench::gpu {
namespace {

TEST(CudnnLibs, NamesTheSubLibrariesOfTheConvolutionApi) {
  const auto names = cudnn_sublibraries(9);
  const std::vector<std::string> expected = {"libcudnn_graph.so.9",
                                             "libcudnn_ops.so.9",
                                             "libcudnn_cnn.so.9",
                                             "libcudnn_engines_precompiled.so.9",
                                             "libcudnn_engines_runtime_compiled.so.9",
                                             "libcudnn_heuristic.so.9"};
  EXPECT_EQ(names, expected);
  EXPECT_EQ(cudnn_sublibraries(10).front(), "libcudnn_graph.so.10");
}

TEST(CudnnLibs, FindsALibraryByBareNameOrInAGivenFolder) {
  EXPECT_EQ(first_unloadable({"libm.so.6"}, {}), std::nullopt);
  const std::filesystem::path fixture = MLBENCH_DLOPEN_FIXTURE;
  const std::string name = fixture.filename();
  // Not on any search path by its bare name, so only the folder finds it.
  const auto bare = first_unloadable({name}, {});
  ASSERT_TRUE(bare);
  EXPECT_EQ(bare->name, name);
  EXPECT_EQ(first_unloadable({name}, {"/nonexistent", fixture.parent_path()}), std::nullopt);
}

TEST(CudnnLibs, ReportsTheFirstMissingLibraryWithDlerror) {
  const auto failure =
      first_unloadable({"libm.so.6", "libmlbench_absent.so.9", "libmlbench_other.so.9"}, {"/nonexistent"});
  ASSERT_TRUE(failure);
  EXPECT_EQ(failure->name, "libmlbench_absent.so.9");
  EXPECT_NE(failure->error.find("libmlbench_absent.so.9"), std::string::npos) << failure->error;
}

TEST(CudnnLibs, ReasonNamesTheLibraryAndTheFix) {
  const auto reason = cudnn_sublibrary_reason(
      {"libcudnn_cnn.so.9", "libcudnn_cnn.so.9: cannot open shared object file: No such file or directory"},
      "libcudnn.so.9", "/opt/wheels/nvidia/cudnn/lib");
  EXPECT_NE(reason.find("libcudnn_cnn.so.9 cannot be loaded"), std::string::npos) << reason;
  EXPECT_NE(reason.find("No such file"), std::string::npos) << reason;
  EXPECT_NE(reason.find("LD_LIBRARY_PATH=/opt/wheels/nvidia/cudnn/lib "), std::string::npos) << reason;
}

TEST(CudnnLibs, AShimThatCannotBeLoadedIsTheProblem) {
  const auto problem = cudnn_load_problem(999);
  ASSERT_TRUE(problem);
  EXPECT_EQ(problem->rfind("libcudnn.so.999 cannot be loaded: ", 0), 0u) << *problem;
}

// cuDNN and NCCL are loaded at their first use: a host without them gets a skip reason naming the library and
// the fix, not a program that cannot start.
TEST(LazyLibrary, AMissingLibraryIsAReasonNamingItAndTheFix) {
  LazyLibrary lib("libmlbench_absent.so.9", "cuDNN 9");
  const auto why = lib.problem();
  ASSERT_TRUE(why);
  EXPECT_NE(why->find("cuDNN 9 is not loaded"), std::string::npos) << *why;
  EXPECT_NE(why->find("libmlbench_absent.so.9"), std::string::npos) << *why;
  EXPECT_NE(why->find("LD_LIBRARY_PATH"), std::string::npos) << *why;
  EXPECT_EQ(lib.problem(), why);  // tried once, the same answer after
  try {
    lib.symbol("cudnnCreate");
    ADD_FAILURE() << "symbol() of an unloadable library returned";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()), *why);
  }
}

TEST(LazyLibrary, ResolvesSymbolsOfALoadedLibrary) {
  LazyLibrary lib(MLBENCH_DLOPEN_FIXTURE, "the fixture");
  EXPECT_EQ(lib.problem(), std::nullopt);
  auto* fn = reinterpret_cast<int (*)()>(lib.symbol("mlbench_dlopen_fixture"));
  EXPECT_EQ(fn(), 42);
  EXPECT_THROW(lib.symbol("mlbench_no_such_symbol"), Error);
}

}  // namespace
}  // namespace mlbench::gpu
