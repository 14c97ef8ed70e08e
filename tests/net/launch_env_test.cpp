// Launcher environments (torchrun/Kubernetes, Open MPI, PMI, Slurm), MASTER_ADDR checks, GPU choice and the
// NCCL settings that can be known.
#include "network/launch_env.hpp"

#include <gtest/gtest.h>

#include "base/error.hpp"
#include "network/nccl_options.hpp"

namespace mlbench::net {
namespace {

TEST(LaunchEnv, NoLauncherIsOneProcess) {
  auto li = parse_launch_env({{"PATH", "/usr/bin"}});
  EXPECT_EQ(li.launcher, Launcher::none);
  EXPECT_EQ(li.world_size, 1);
  EXPECT_FALSE(li.multi_process());
  EXPECT_EQ(li.master_port, 29500);
}

TEST(LaunchEnv, TorchrunAndKubernetes) {
  auto li = parse_launch_env({{"RANK", "5"},
                              {"WORLD_SIZE", "16"},
                              {"LOCAL_RANK", "1"},
                              {"LOCAL_WORLD_SIZE", "8"},
                              {"MASTER_ADDR", "mlbench-nccl-0.mlbench-nccl"},
                              {"MASTER_PORT", "29511"}});
  EXPECT_EQ(li.launcher, Launcher::torchrun);
  EXPECT_EQ(li.rank, 5);
  EXPECT_EQ(li.world_size, 16);
  EXPECT_EQ(li.local_rank, 1);
  EXPECT_EQ(li.local_world_size, 8);
  EXPECT_EQ(li.master_addr, "mlbench-nccl-0.mlbench-nccl");
  EXPECT_EQ(li.master_port, 29511);
  EXPECT_TRUE(li.multi_process());
  EXPECT_FALSE(li.mpi_launched());
}

TEST(LaunchEnv, OpenMpiAndPmi) {
  auto ompi = parse_launch_env({{"OMPI_COMM_WORLD_RANK", "3"},
                                {"OMPI_COMM_WORLD_SIZE", "4"},
                                {"OMPI_COMM_WORLD_LOCAL_RANK", "1"},
                                {"OMPI_COMM_WORLD_LOCAL_SIZE", "2"}});
  EXPECT_EQ(ompi.launcher, Launcher::openmpi);
  EXPECT_EQ(ompi.rank, 3);
  EXPECT_EQ(ompi.local_rank, 1);
  EXPECT_TRUE(ompi.mpi_launched());
  auto pmi = parse_launch_env({{"PMI_RANK", "2"}, {"PMI_SIZE", "3"}, {"MPI_LOCALRANKID", "0"}});
  EXPECT_EQ(pmi.launcher, Launcher::pmi);
  EXPECT_EQ(pmi.rank, 2);
  EXPECT_EQ(pmi.local_rank, 0);
}

TEST(LaunchEnv, SlurmStepButNotTheBatchScript) {
  auto step = parse_launch_env({{"SLURM_PROCID", "9"},
                                {"SLURM_STEP_NUM_TASKS", "16"},
                                {"SLURM_NTASKS", "16"},
                                {"SLURM_LOCALID", "1"},
                                {"SLURM_STEP_TASKS_PER_NODE", "8(x2)"},
                                {"MASTER_ADDR", "10.1.2.3"}});
  EXPECT_EQ(step.launcher, Launcher::slurm);
  EXPECT_EQ(step.rank, 9);
  EXPECT_EQ(step.world_size, 16);
  EXPECT_EQ(step.local_rank, 1);
  EXPECT_FALSE(step.local_world_size.has_value());
  // sbatch's own shell has SLURM_PROCID=0 and SLURM_NTASKS but is one process.
  auto batch = parse_launch_env({{"SLURM_PROCID", "0"}, {"SLURM_NTASKS", "16"}});
  EXPECT_EQ(batch.launcher, Launcher::none);
  EXPECT_EQ(batch.world_size, 1);
}

TEST(LaunchEnv, TorchrunVariablesWinOverMpiOnes) {
  auto li = parse_launch_env(
      {{"RANK", "1"}, {"WORLD_SIZE", "2"}, {"OMPI_COMM_WORLD_RANK", "0"}, {"OMPI_COMM_WORLD_SIZE", "2"}});
  EXPECT_EQ(li.launcher, Launcher::torchrun);
  EXPECT_EQ(li.rank, 1);
}

TEST(LaunchEnv, MalformedValuesAreUsageErrors) {
  EXPECT_THROW(parse_launch_env({{"RANK", "abc"}, {"WORLD_SIZE", "2"}}), UsageError);
  EXPECT_THROW(parse_launch_env({{"RANK", "2"}, {"WORLD_SIZE", "2"}}), UsageError);
  EXPECT_THROW(parse_launch_env({{"RANK", "0"}, {"WORLD_SIZE", "0"}}), UsageError);
  EXPECT_THROW(parse_launch_env({{"RANK", "-1"}, {"WORLD_SIZE", "2"}}), UsageError);
  EXPECT_THROW(
      parse_launch_env({{"RANK", "0"}, {"WORLD_SIZE", "2"}, {"LOCAL_RANK", "4"}, {"LOCAL_WORLD_SIZE", "4"}}),
      UsageError);
  EXPECT_THROW(parse_launch_env({{"MASTER_PORT", "70000"}}), UsageError);
  EXPECT_THROW(parse_launch_env({{"MASTER_PORT", "http"}}), UsageError);
  try {
    parse_launch_env({{"MASTER_ADDR", "10.0.0.300"}});
    FAIL() << "no throw";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("MASTER_ADDR"), std::string::npos);
  }
}

TEST(LaunchEnv, MasterAddrForms) {
  for (const char* ok : {"127.0.0.1", "10.0.0.1", "::1", "[fe80::1]", "node-01", "gpu7.cluster.local",
                         "mlbench-nccl-0.mlbench-nccl.default.svc"}) {
    EXPECT_TRUE(valid_master_addr(ok)) << ok;
  }
  for (const char* bad : {"", "10.0.0.300", "1.2.3", "bad host", "-node", "node-", "a..b", "host:29500",
                          "http://host", "[node1]", "node_1"}) {
    EXPECT_FALSE(valid_master_addr(bad)) << bad;
  }
}

TEST(LaunchEnv, JobIdFromTheLauncherFirstMatchWins) {
  const EnvMap torchrun{{"RANK", "1"}, {"WORLD_SIZE", "2"}};
  auto with = [&torchrun](EnvMap extra) {
    extra.insert(torchrun.begin(), torchrun.end());
    return parse_launch_env(extra).job;
  };
  EXPECT_FALSE(with({}).has_value());
  auto slurm = with({{"SLURM_JOB_ID", "4242"}, {"SLURM_STEP_ID", "3"}});
  ASSERT_TRUE(slurm);
  EXPECT_EQ(slurm->value, "4242.3");
  EXPECT_EQ(slurm->source, "SLURM_JOB_ID.SLURM_STEP_ID");
  EXPECT_EQ(with({{"SLURM_JOB_ID", "4242"}})->value, "4242");
  EXPECT_EQ(with({{"SLURM_JOB_ID", "4242"}, {"OMPI_MCA_orte_ess_jobid", "77"}})->source,
            "OMPI_MCA_orte_ess_jobid");
  EXPECT_EQ(with({{"OMPI_MCA_orte_ess_jobid", "77"}, {"OMPI_MCA_ess_base_jobid", "1141964801"}})->value,
            "1141964801");
  auto pmix = with({{"OMPI_MCA_ess_base_jobid", "1141964801"}, {"PMIX_NAMESPACE", "prterun-node1-1234@1"}});
  EXPECT_EQ(pmix->value, "prterun-node1-1234@1");
  EXPECT_EQ(pmix->source, "PMIX_NAMESPACE");
  EXPECT_EQ(with({{"PMIX_NAMESPACE", "ns"}, {"TORCHELASTIC_RUN_ID", "run-7"}})->value, "run-7");
  auto mine = with({{"TORCHELASTIC_RUN_ID", "run-7"}, {"MLBENCH_JOB_ID", "bench-1"}});
  EXPECT_EQ(mine->value, "bench-1");
  EXPECT_EQ(mine->source, "MLBENCH_JOB_ID");
  // An empty variable is not an id (the next source counts).
  EXPECT_EQ(with({{"MLBENCH_JOB_ID", ""}, {"SLURM_JOB_ID", "9"}})->value, "9");
}

TEST(LaunchEnv, AJobIdThatCannotTravelIsAUsageErrorNamingTheVariable) {
  for (const char* bad : {"two words", "tab\there", "\x7f"}) {
    try {
      parse_launch_env({{"RANK", "1"}, {"WORLD_SIZE", "2"}, {"TORCHELASTIC_RUN_ID", bad}});
      FAIL() << bad;
    } catch (const UsageError& e) {
      const std::string msg = e.what();
      EXPECT_NE(msg.find("TORCHELASTIC_RUN_ID is not a usable job id"), std::string::npos) << msg;
      EXPECT_NE(msg.find("MLBENCH_JOB_ID"), std::string::npos) << msg;
    }
  }
  const EnvMap two{{"RANK", "0"}, {"WORLD_SIZE", "2"}};
  auto job = [&two](const std::string& id) {
    EnvMap env = two;
    env["MLBENCH_JOB_ID"] = id;
    return parse_launch_env(env).job;
  };
  EXPECT_THROW(job(std::string(kMaxJobIdLength + 1, 'j')), UsageError);
  EXPECT_TRUE(job(std::string(kMaxJobIdLength, 'j')));
  // One process has no rendezvous: its environment's ids are not read.
  EXPECT_FALSE(parse_launch_env({{"TORCHELASTIC_RUN_ID", "two words"}}).job);
  EXPECT_TRUE(valid_job_id("prterun-node1-1234@1"));
  EXPECT_FALSE(valid_job_id(""));
}

TEST(LaunchEnv, TheJobTokenIsReadForARendezvousAndNeverShownWhenRefused) {
  const EnvMap two{{"RANK", "1"}, {"WORLD_SIZE", "2"}, {"MLBENCH_JOB_ID", "j"}};
  auto token = [&two](const std::string& t) {
    EnvMap env = two;
    env["MLBENCH_JOB_TOKEN"] = t;
    return parse_launch_env(env).token;
  };
  EXPECT_EQ(token("0123456789abcdef0123456789abcdef"), "0123456789abcdef0123456789abcdef");
  EXPECT_EQ(token(""), std::nullopt);  // unset: the rendezvous refuses to start (bootstrap.hpp)
  EXPECT_EQ(token(std::string(kMaxJobTokenLength, 't')), std::string(kMaxJobTokenLength, 't'));
  for (const std::string& bad :
       {std::string(kMinJobTokenLength - 1, 's'), std::string(kMaxJobTokenLength + 1, 's'),
        std::string("secret with spaces"), std::string("secret\nsecret\nsecret"),
        std::string("secret\xffsecret\xffsec")}) {
    try {
      token(bad);
      FAIL() << bad;
    } catch (const UsageError& e) {
      const std::string msg = e.what();
      EXPECT_NE(msg.find("MLBENCH_JOB_TOKEN is not a usable job token"), std::string::npos) << msg;
      EXPECT_EQ(msg.find("secret"), std::string::npos) << "the token was shown: " << msg;
    }
  }
  // One process has no rendezvous: its token is not read.
  EXPECT_FALSE(parse_launch_env({{"MLBENCH_JOB_TOKEN", "x"}}).token);
}

TEST(LaunchEnv, AJobTokenShorterThan128BitsAsHexIsRefusedNamingTheMinimum) {
  const EnvMap two{{"RANK", "1"}, {"WORLD_SIZE", "2"}, {"MLBENCH_JOB_ID", "j"}};
  auto token = [&two](const std::string& t) {
    EnvMap env = two;
    env["MLBENCH_JOB_TOKEN"] = t;
    return parse_launch_env(env).token;
  };
  // What kMakeJobToken prints: 16 random bytes as 32 hex digits.
  EXPECT_TRUE(token("8f14e45fceea167a5a36dedd4bea2543"));
  // A word a person would pick, and 124 bits as hex: guessable from one proof offline.
  for (const std::string& weak :
       {std::string("password12345678"), std::string("8f14e45fceea167a5a36dedd4bea254")}) {
    try {
      token(weak);
      FAIL() << weak;
    } catch (const UsageError& e) {
      const std::string msg = e.what();
      EXPECT_NE(msg.find("it needs 32 to 256 printable characters without space"), std::string::npos) << msg;
      EXPECT_EQ(msg.find(weak), std::string::npos) << "the token was shown: " << msg;
    }
  }
}

TEST(LaunchEnv, GpuChoice) {
  LaunchInfo li;
  li.rank = 3;
  li.world_size = 8;
  li.local_rank = 3;
  auto none = choose_gpu(li, 0, "hostA");
  EXPECT_FALSE(none.device.has_value());
  EXPECT_NE(none.skip_reason.find("no CUDA GPU"), std::string::npos);
  EXPECT_EQ(choose_gpu(li, 8, "hostA").device, 3);
  // The launcher gave each process its own single GPU (CUDA_VISIBLE_DEVICES per task).
  EXPECT_EQ(choose_gpu(li, 1, "hostA").device, 0);
  EXPECT_THROW(choose_gpu(li, 2, "hostA"), UsageError);
}

TEST(LaunchEnv, NcclSettingsInEffect) {
  auto env = nccl_env({{"NCCL_DEBUG", "INFO"}, {"NCCL_ALGO", "Ring"}, {"PATH", "/bin"}, {"XNCCL_FOO", "1"}});
  EXPECT_EQ(env.size(), 2u);
  EXPECT_EQ(env.at("NCCL_ALGO"), "Ring");
}

TEST(LaunchEnv, AlgorithmIsKnownOnlyWhenForced) {
  auto unknown = nccl_algorithm_info({});
  EXPECT_EQ(unknown["in_network_reduction"], "unknown");
  EXPECT_NE(unknown["algorithm"].get<std::string>().find("not report"), std::string::npos);
  EXPECT_EQ(nccl_algorithm_info({{"NCCL_ALGO", "Ring"}})["in_network_reduction"], false);
  EXPECT_EQ(nccl_algorithm_info({{"NCCL_ALGO", "NVLS"}})["in_network_reduction"], true);
  EXPECT_EQ(nccl_algorithm_info({{"NCCL_ALGO", "Ring,CollNetDirect"}})["in_network_reduction"], true);
  EXPECT_EQ(nccl_algorithm_info({{"NCCL_ALGO", "^NVLS"}})["in_network_reduction"], false);
  EXPECT_EQ(nccl_algorithm_info({{"NCCL_ALGO", "allreduce:nvls,ring"}})["in_network_reduction"], true);
  EXPECT_EQ(nccl_algorithm_info({{"NCCL_PROTO", "Simple"}})["protocol"], "Simple (NCCL_PROTO)");
}

}  // namespace
}  // namespace mlbench::net
