// A shared object with one symbol, for the dlopen checks in cudnn_libs_test.cpp (loaded by path from its
// folder).
extern "C" int mlbench_dlopen_fixture() { return 42; }
