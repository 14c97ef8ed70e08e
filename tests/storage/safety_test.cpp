// Nothing is lost: refusals on existing files and devices (contents checked unchanged), ENOSPC cleanup, and
// targets that change between planning and opening (a run plans every case before the first starts).
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <sys/mount.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <atomic>
#include <filesystem>
#include <functional>
#include <memory>

#include "mlbench_config.hpp"
#include "storage/fd.hpp"
#include "storage/target.hpp"
#include "tests/storage/storage_test_util.hpp"

namespace mlbench::storage {
namespace {

using nlohmann::json;
namespace fs = std::filesystem;

// The message of the E that planning and running `options` throw, or "" when none; `between` runs after
// planning (a change to the file system while a run plans the rest of its cases).
template <typename E>
std::string error_of(const json& options, const std::function<void()>& between = {}) {
  try {
    test::run_probe(options, Profile::standard, between);
  } catch (const E& e) {
    return e.what();
  }
  return "";
}

std::string usage_error_of(const json& options) { return error_of<UsageError>(options); }
std::string run_error_after(const json& options, const std::function<void()>& between) {
  return error_of<Error>(options, between);
}

TEST(Safety, WritingAnExistingFileNeedsAllowDestructive) {
  test::TempDir dir;
  auto file = dir.path() / "precious";
  const std::string data = test::random_bytes(1 << 20, 3);
  test::write_file(file, data);
  auto err = usage_error_of(json{{"target", file.string()}, {"rw", "write"}, {"number_ios", 10}});
  EXPECT_NE(err.find("--allow-destructive"), std::string::npos) << err;
  EXPECT_EQ(test::slurp(file), data);
  // Reads are fine and leave it alone.
  auto results = test::run_probe(json{{"target", file.string()}, {"rw", "randread"}, {"number_ios", 100}});
  EXPECT_EQ(results[0].status, Status::ok) << results[0].reason;
  EXPECT_EQ(test::slurp(file), data);
  EXPECT_TRUE(fs::exists(file));
}

TEST(Safety, AFileCreatedBetweenPlanningAndTheStartIsNotOverwritten) {
  test::TempDir dir;
  auto path = dir.path() / "new.dat";
  const std::string data = test::random_bytes(1 << 20, 11);
  auto err =
      run_error_after(json{{"target", path.string()}, {"rw", "write"}, {"size", "1M"}, {"number_ios", 64}},
                      [&] { test::write_file(path, data); });
  EXPECT_NE(err.find("appeared after the run was planned"), std::string::npos) << err;
  EXPECT_TRUE(test::slurp(path) == data) << "the user's file was overwritten";
}

TEST(Safety, ASymlinkSwappedInAfterPlanningIsNotFollowed) {
  test::TempDir dir;
  auto precious = dir.path() / "precious";
  const std::string data = test::random_bytes(1 << 20, 12);
  test::write_file(precious, data);
  // An existing file planned for a destructive write, then replaced by a link to another file.
  auto target = dir.path() / "scratch.img";
  test::write_file(target, test::random_bytes(1 << 20, 13));
  auto err = run_error_after(
      json{{"target", target.string()}, {"rw", "write"}, {"number_ios", 64}, {"allow_destructive", true}},
      [&] {
        fs::remove(target);
        fs::create_symlink(precious, target);
      });
  EXPECT_NE(err.find("changed after the run was planned"), std::string::npos) << err;
  EXPECT_NE(err.find("symbolic link"), std::string::npos) << err;
  EXPECT_TRUE(test::slurp(precious) == data);
  // A new file's path planned, then a link planted there: neither followed nor created through.
  auto fresh = dir.path() / "fresh.dat";
  err = run_error_after(json{{"target", fresh.string()}, {"rw", "write"}, {"size", "1M"}, {"number_ios", 64}},
                        [&] { fs::create_symlink(precious, fresh); });
  EXPECT_NE(err.find("appeared after the run was planned"), std::string::npos) << err;
  EXPECT_TRUE(test::slurp(precious) == data);
  // Another file put in the planned one's place (same type, another inode) is refused the same way.
  auto other = dir.path() / "other.img";
  test::write_file(other, test::random_bytes(1 << 20, 14));
  err = run_error_after(
      json{{"target", other.string()}, {"rw", "write"}, {"number_ios", 64}, {"allow_destructive", true}},
      [&] {
        fs::rename(other, dir.path() / "other.old");  // kept, so that its inode number is not reused
        test::write_file(other, data);
      });
  EXPECT_NE(err.find("its inode differs"), std::string::npos) << err;
  EXPECT_TRUE(test::slurp(other) == data);
}

TEST(Safety, AFolderSwappedAfterPlanningGetsNoFile) {
  test::TempDir dir;
  auto folder = dir.path() / "scratch";
  auto elsewhere = dir.path() / "elsewhere";
  fs::create_directory(folder);
  fs::create_directory(elsewhere);
  auto err = run_error_after(
      json{{"target", folder.string()}, {"rw", "write"}, {"size", "1M"}, {"number_ios", 8}}, [&] {
        fs::rename(folder, dir.path() / "scratch.old");
        fs::create_directory_symlink(elsewhere, folder);
      });
  EXPECT_NE(err.find("folder " + folder.string() + " changed after the run was planned"), std::string::npos)
      << err;
  EXPECT_TRUE(fs::is_empty(elsewhere));
  EXPECT_TRUE(fs::is_empty(dir.path() / "scratch.old"));
}

TEST(Safety, TheTestFileIsRemovedOnlyWhileItsNameHoldsIt) {
  test::TempDir dir;
  auto path = dir.path() / "test.bin";
  const std::string theirs = test::random_bytes(4096, 19);
  std::atomic<bool> stop{false};
  {
    auto file = OpenTarget::create_at(inspect_target(path.string()), 1 << 20, 1, false, false, stop);
    // Someone moves mlbench's file away and puts their own under its name before the run ends.
    fs::rename(path, dir.path() / "moved.bin");
    test::write_file(path, theirs);
  }
  EXPECT_TRUE(fs::exists(path) && test::slurp(path) == theirs) << "their file was removed";
  EXPECT_TRUE(fs::exists(dir.path() / "moved.bin"));
}

TEST(Safety, ASymlinkTargetIsResolvedOnceAtPlanning) {
  test::TempDir dir;
  auto file = dir.path() / "data.img";
  const std::string data = test::random_bytes(1 << 20, 15);
  test::write_file(file, data);
  auto link = dir.path() / "by-id";
  fs::create_symlink(file, link);
  // A link to an existing file (as /dev/disk/by-id names a device) reads what it leads to.
  auto results = test::run_probe(json{{"target", link.string()}, {"rw", "randread"}, {"number_ios", 100}});
  EXPECT_EQ(results[0].status, Status::ok) << results[0].reason;
  // Repointed after planning: the run reads the file the plan resolved, never the link's new end.
  auto elsewhere = dir.path() / "elsewhere";
  test::write_file(elsewhere, data);
  auto err = run_error_after(json{{"target", link.string()}, {"rw", "randread"}, {"number_ios", 100}}, [&] {
    fs::remove(link);
    fs::create_symlink(elsewhere, link);
  });
  EXPECT_EQ(err, "");
  EXPECT_TRUE(test::slurp(file) == data);
}

TEST(Safety, ADanglingSymlinkIsRefusedAtPlanning) {
  test::TempDir dir;
  auto link = dir.path() / "link";
  fs::create_symlink(dir.path() / "nowhere", link);
  auto err =
      usage_error_of(json{{"target", link.string()}, {"rw", "write"}, {"size", "1M"}, {"number_ios", 8}});
  EXPECT_NE(err.find("dangling"), std::string::npos) << err;
  EXPECT_FALSE(fs::exists(dir.path() / "nowhere")) << "a file was created through the link";
  EXPECT_NE(usage_error_of(json{{"target", ""}, {"rw", "read"}}).find("empty path"), std::string::npos);
}

TEST(Safety, TwoPathsToOneFileAreOneTarget) {
  test::TempDir dir;
  auto file = dir.path() / "data.img";
  test::write_file(file, test::random_bytes(1 << 20, 18));
  auto link = dir.path() / "hard";
  fs::create_hard_link(file, link);
  auto err = usage_error_of(
      json{{"target", json::array({file.string(), link.string()})}, {"rw", "randread"}, {"number_ios", 8}});
  EXPECT_NE(err.find(file.string() + " and " + link.string() + " are the same file"), std::string::npos)
      << err;
}

TEST(Safety, AllowDestructiveWritesAnExistingFileWithoutSignatures) {
  test::TempDir dir;
  auto file = dir.path() / "scratch";
  test::write_file(file, test::random_bytes(1 << 20, 5));
  auto results = test::run_probe(json{{"target", file.string()},
                                      {"rw", "randwrite"},
                                      {"number_ios", 100},
                                      {"allow_destructive", true},
                                      {"verify", true}});
  EXPECT_EQ(results[0].status, Status::ok) << results[0].reason;
  EXPECT_TRUE(fs::exists(file)) << "an existing file is never removed";
}

TEST(Safety, RefusesAFileHoldingAFilesystemEvenWithAllowDestructive) {
  if (!MLBENCH_HAS_BLKID) GTEST_SKIP() << "built without libblkid";
  test::TempDir dir;
  auto image = dir.path() / "ext4.img";
  test::write_file(image, std::string(16 << 20, '\0'));
  if (test::sh("mkfs.ext4 -q -F " + image.string()) != 0) GTEST_SKIP() << "mkfs.ext4 is not available";
  const std::string before = test::slurp(image);
  auto err = usage_error_of(
      json{{"target", image.string()}, {"rw", "write"}, {"number_ios", 10}, {"allow_destructive", true}});
  EXPECT_NE(err.find("ext4 filesystem signature"), std::string::npos) << err;
  EXPECT_EQ(test::slurp(image), before);
}

class LoopSafety : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!test::is_root()) GTEST_SKIP() << "needs root for loop devices";
    image_ = dir_.path() / "disk.img";
  }
  test::TempDir dir_;
  fs::path image_;
};

TEST_F(LoopSafety, RefusesALoopDeviceHoldingExt4) {
  if (!MLBENCH_HAS_BLKID) GTEST_SKIP() << "built without libblkid";
  test::write_file(image_, std::string(32 << 20, '\0'));
  if (test::sh("mkfs.ext4 -q -F " + image_.string()) != 0) GTEST_SKIP() << "mkfs.ext4 is not available";
  auto loop = test::LoopDevice::attach(image_);
  if (!loop) GTEST_SKIP() << "no free loop device (losetup failed)";
  const std::string before = test::slurp(image_);
  auto err = usage_error_of(
      json{{"target", loop->path()}, {"rw", "randwrite"}, {"number_ios", 10}, {"allow_destructive", true}});
  EXPECT_NE(err.find("refusing to write to " + loop->path()), std::string::npos) << err;
  EXPECT_NE(err.find("ext4"), std::string::npos) << err;
  // Without the flag, the refusal asks for it first.
  err = usage_error_of(json{{"target", loop->path()}, {"rw", "write"}, {"number_ios", 10}});
  EXPECT_NE(err.find("--allow-destructive"), std::string::npos) << err;
  // Reads of a block device are allowed (opened read-only).
  auto results = test::run_probe(json{{"target", loop->path()}, {"rw", "randread"}, {"number_ios", 200}});
  EXPECT_EQ(results[0].status, Status::ok) << results[0].reason;
  EXPECT_EQ(test::slurp(image_), before);
}

TEST_F(LoopSafety, RefusesAMountedDevice) {
  test::write_file(image_, std::string(32 << 20, '\0'));
  if (test::sh("mkfs.ext4 -q -F " + image_.string()) != 0) GTEST_SKIP() << "mkfs.ext4 is not available";
  auto loop = test::LoopDevice::attach(image_);
  if (!loop) GTEST_SKIP() << "no free loop device (losetup failed)";
  fs::path mnt = dir_.path() / "mnt";
  fs::create_directory(mnt);
  if (test::sh("mount " + loop->path() + " " + mnt.string()) != 0) GTEST_SKIP() << "cannot mount ext4 here";
  auto err = usage_error_of(
      json{{"target", loop->path()}, {"rw", "write"}, {"number_ios", 10}, {"allow_destructive", true}});
  test::sh("umount " + mnt.string());
  EXPECT_NE(err.find("is mounted at " + mnt.string()), std::string::npos) << err;
  // The backing file of a loop device is refused too, naming the device.
  err = usage_error_of(
      json{{"target", image_.string()}, {"rw", "write"}, {"number_ios", 10}, {"allow_destructive", true}});
  EXPECT_NE(err.find("backs loop device " + loop->path()), std::string::npos) << err;
}

// A child process that mounts `dev` on `dir` in a mount namespace of its own (as a container would) and holds
// it there until the destructor kills it, which ends the namespace and the mount.
class MountElsewhere {
 public:
  MountElsewhere(const std::string& dev, const fs::path& dir) {
    int fds[2];
    if (::pipe(fds) != 0) return;
    pid_ = ::fork();
    if (pid_ == 0) {
      ::close(fds[0]);
      const char ok = ::unshare(CLONE_NEWNS) == 0 &&
                              ::mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr) == 0 &&
                              ::mount(dev.c_str(), dir.c_str(), "ext4", 0, nullptr) == 0
                          ? '1'
                          : '0';
      if (::write(fds[1], &ok, 1) != 1) ::_exit(1);
      ::pause();
      ::_exit(0);
    }
    ::close(fds[1]);
    char ok = '0';
    mounted_ = pid_ > 0 && ::read(fds[0], &ok, 1) == 1 && ok == '1';
    ::close(fds[0]);
  }
  MountElsewhere(const MountElsewhere&) = delete;
  MountElsewhere& operator=(const MountElsewhere&) = delete;
  ~MountElsewhere() {
    if (pid_ <= 0) return;
    ::kill(pid_, SIGKILL);
    ::waitpid(pid_, nullptr, 0);
  }
  bool mounted() const { return mounted_; }

 private:
  pid_t pid_ = -1;
  bool mounted_ = false;
};

TEST_F(LoopSafety, ADeviceMountedInAnotherMountNamespaceIsRefused) {
  test::write_file(image_, std::string(32 << 20, '\0'));
  if (test::sh("mkfs.ext4 -q -F " + image_.string()) != 0) GTEST_SKIP() << "mkfs.ext4 is not available";
  auto loop = test::LoopDevice::attach(image_);
  if (!loop) GTEST_SKIP() << "no free loop device (losetup failed)";
  fs::path mnt = dir_.path() / "mnt";
  fs::create_directory(mnt);
  {
    // This process's /proc/self/mountinfo does not list it; the kernel's exclusive open (O_EXCL) knows.
    MountElsewhere elsewhere(loop->path(), mnt);
    if (!elsewhere.mounted()) GTEST_SKIP() << "cannot mount ext4 in a new mount namespace here";
    auto err = usage_error_of(
        json{{"target", loop->path()}, {"rw", "write"}, {"number_ios", 10}, {"allow_destructive", true}});
    EXPECT_NE(err.find("the kernel reports it in use"), std::string::npos) << err;
    EXPECT_EQ(err.find("is mounted at"), std::string::npos) << "this namespace sees no mount: " << err;
  }
}

TEST_F(LoopSafety, AHardLinkToALoopBackingFileIsRefused) {
  test::write_file(image_, test::random_bytes(8 << 20, 16));
  auto loop = test::LoopDevice::attach(image_);
  if (!loop) GTEST_SKIP() << "no free loop device (losetup failed)";
  auto link = dir_.path() / "same-inode.img";
  fs::create_hard_link(image_, link);
  const std::string before = test::slurp(image_);
  auto err = usage_error_of(
      json{{"target", link.string()}, {"rw", "write"}, {"number_ios", 10}, {"allow_destructive", true}});
  EXPECT_NE(err.find("backs loop device " + loop->path()), std::string::npos) << err;
  // The backing file's first name gone ("(deleted)" in sysfs): the device still names its inode.
  fs::remove(image_);
  err = usage_error_of(
      json{{"target", link.string()}, {"rw", "write"}, {"number_ios", 10}, {"allow_destructive", true}});
  EXPECT_NE(err.find("backs loop device " + loop->path()), std::string::npos) << err;
  EXPECT_TRUE(test::slurp(link) == before);
}

TEST_F(LoopSafety, AFileThatBecomesALoopBackingFileAfterPlanningIsNotWritten) {
  test::write_file(image_, test::random_bytes(8 << 20, 17));
  std::unique_ptr<test::LoopDevice> loop;  // attached between planning and the run
  const std::string before = test::slurp(image_);
  auto err = run_error_after(
      json{{"target", image_.string()}, {"rw", "write"}, {"number_ios", 10}, {"allow_destructive", true}},
      [&] {
        if (auto l = test::LoopDevice::attach(image_))
          loop = std::make_unique<test::LoopDevice>(std::move(*l));
      });
  if (!loop) GTEST_SKIP() << "no free loop device (losetup failed)";
  EXPECT_NE(err.find("refusing to write to " + image_.string()), std::string::npos) << err;
  EXPECT_NE(err.find("backs loop device " + loop->path()), std::string::npos) << err;
  EXPECT_TRUE(test::slurp(image_) == before);
}

TEST_F(LoopSafety, WritesABlankLoopDeviceWithAllowDestructive) {
  test::write_file(image_, test::random_bytes(8 << 20, 9));
  auto loop = test::LoopDevice::attach(image_);
  if (!loop) GTEST_SKIP() << "no free loop device (losetup failed)";
  auto results = test::run_probe(json{{"target", loop->path()},
                                      {"rw", "randwrite"},
                                      {"iodepth", 8},
                                      {"number_ios", 500},
                                      {"allow_destructive", true},
                                      {"verify", true}});
  EXPECT_EQ(results[0].status, Status::ok) << results[0].reason;
  EXPECT_EQ(results[0].work["writes"], 500u);
}

TEST(Safety, SizeBeyondTheFreeSpaceIsRefusedBeforeCreatingAFile) {
  if (!test::is_root()) GTEST_SKIP() << "needs root to mount a small tmpfs";
  test::TempDir dir;
  auto mount = test::TmpfsMount::mount(dir.path(), "4m");
  if (!mount) GTEST_SKIP() << "cannot mount tmpfs here";
  auto err = usage_error_of(
      json{{"target", dir.path().string()}, {"rw", "write"}, {"size", "64M"}, {"number_ios", 10}});
  EXPECT_NE(err.find("does not fit in the"), std::string::npos) << err;
  EXPECT_NE(err.find("free on " + dir.path().string()), std::string::npos) << err;
  EXPECT_TRUE(dir.mlbench_files().empty());
}

TEST(Safety, NoSpaceWhileFillingEndsWithENOSPCAndRemovesTheFile) {
  if (!test::is_root()) GTEST_SKIP() << "needs root to mount a small tmpfs";
  test::TempDir dir;
  auto mount = test::TmpfsMount::mount(dir.path(), "4m");
  if (!mount) GTEST_SKIP() << "cannot mount tmpfs here";
  // The space went away between plan() and the fill (another writer): the fill itself hits ENOSPC.
  std::atomic<bool> stop{false};
  try {
    OpenTarget::create_in(inspect_target(dir.path().string()), 64u << 20, 1, false, false, stop);
    FAIL() << "no error on a full filesystem";
  } catch (const UsageError& e) {
    FAIL() << "a full disk is a run-time error, not bad usage: " << e.what();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("ENOSPC"), std::string::npos) << e.what();
  }
  EXPECT_TRUE(dir.mlbench_files().empty());
}

TEST(Safety, NoSpaceDuringAWriteJobEndsWithENOSPCAndKeepsTheTarget) {
  if (!test::is_root()) GTEST_SKIP() << "needs root to mount a small tmpfs";
  test::TempDir dir;
  auto mount = test::TmpfsMount::mount(dir.path(), "4m");
  if (!mount) GTEST_SKIP() << "cannot mount tmpfs here";
  // A sparse file larger than its filesystem (thin provisioning): writes into its holes run out of space.
  auto sparse = dir.path() / "thin.img";
  test::write_file(sparse, "");
  fs::resize_file(sparse, 64u << 20);
  try {
    auto results = test::run_probe(json{{"target", sparse.string()},
                                        {"rw", "write"},
                                        {"bs", "1M"},
                                        {"direct", false},
                                        {"number_ios", 64},
                                        {"allow_destructive", true}});
    FAIL() << "no error on a full filesystem: " << results[0].reason;
  } catch (const UsageError& e) {
    FAIL() << "a full disk is a run-time error, not bad usage: " << e.what();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("ENOSPC"), std::string::npos) << e.what();
  }
  EXPECT_TRUE(fs::exists(sparse)) << "an existing target is never removed";
}

TEST(Safety, WriteRefusalsOfAPlainFolderAreEmpty) {
  test::TempDir dir;
  EXPECT_TRUE(write_refusals(inspect_target(dir.path().string())).empty());
}

// The refusals that need a real RAID member, device-mapper volume or mounted disk, on the fixture tree of a
// machine that has each (tests/data/sysfs/make_fixtures.py): no root, no devices.
using V = std::vector<std::string>;
const SysReader kFixture{fs::path(MLBENCH_TEST_DATA_DIR) / "sysfs/two_socket"};

TEST(FixtureRefusals, ARaidMemberIsRefusedByItsHolderAndByMdstat) {
  EXPECT_EQ(block_device_refusals("/dev/nvme1n1", makedev(259, 1), kFixture),
            (V{"/dev/nvme1n1 is a RAID member (of md0)",
               "it is listed as a RAID member in /proc/mdstat: md0 : active raid0 nvme2n1[1] nvme1n1[0]"}));
  // A path that is a link elsewhere (/dev/disk/by-id/...) is still found in mdstat by its kernel name.
  EXPECT_EQ(block_device_refusals("/dev/disk/by-id/nvme-KIOXIA", makedev(259, 2), kFixture).size(), 2u);
}

TEST(FixtureRefusals, ADeviceHeldByDeviceMapperIsRefused) {
  EXPECT_EQ(block_device_refusals("/dev/sdb", makedev(8, 16), kFixture),
            (V{"/dev/sdb is held by dm-0 (device-mapper or md)"}));
}

TEST(FixtureRefusals, AMountedPartitionRefusesItsDiskAndItself) {
  EXPECT_EQ(block_device_refusals("/dev/nvme0n1", makedev(259, 0), kFixture),
            (V{"its partition nvme0n1p1 is mounted at /data"}));
  EXPECT_EQ(block_device_refusals("/dev/nvme0n1p1", makedev(259, 4), kFixture),
            (V{"/dev/nvme0n1p1 is mounted at /data"}));
}

TEST(FixtureRefusals, AMountedDiskIsRefusedAndAnUnknownDeviceHasNoFindings) {
  EXPECT_EQ(block_device_refusals("/dev/sda", makedev(8, 0), kFixture),
            (V{"/dev/sda is mounted at /backup"}));
  EXPECT_TRUE(block_device_refusals("/dev/sdz", makedev(65, 240), kFixture).empty());
}

TEST(FixtureRefusals, APartitionWalksUpToItsDisk) {
  EXPECT_EQ(disk_of_dev(makedev(259, 4), kFixture), "nvme0n1");
  EXPECT_EQ(disk_of_dev(makedev(259, 1), kFixture), "nvme1n1");
  EXPECT_EQ(disk_of_dev(makedev(65, 240), kFixture), "");
  EXPECT_EQ(disk_of_dev(makedev(0, 22), kFixture), "");  // procfs, tmpfs: no block device
}

// The folder walkers' descriptor owner: a descriptor moved over another closes the one it held (a swap
// would leave it open until the moved-from owner dies: a folder held, a lock not let go).
TEST(StorageFd, MoveAssignClosesTheDescriptorItHeld) {
  Fd a(::open("/dev/null", O_RDONLY | O_CLOEXEC));
  Fd b(::open("/dev/null", O_RDONLY | O_CLOEXEC));
  const int old = a.get();
  a = std::move(b);
  EXPECT_EQ(::fcntl(old, F_GETFD), -1);
  EXPECT_FALSE(b);  // NOLINT(bugprone-use-after-move): the moved-from state is what this checks
}

}  // namespace
}  // namespace mlbench::storage
