// The output writer (report/report.hpp write_text_atomic, check_writable): what -o names is replaced only
// when it is a file, keeping its mode and owner; a character device, a FIFO and stdout are written through;
// a link to a file, a folder and a block device are refused; a folder gone during the run is a fault.
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>

#include "base/error.hpp"
#include "report/report.hpp"
#include "tests/common/files.hpp"

namespace mlbench {
namespace {

namespace fs = std::filesystem;

struct stat lstat_of(const fs::path& p) {
  struct stat st {};
  EXPECT_EQ(::lstat(p.c_str(), &st), 0) << p;
  return st;
}

// Everything readable now from a non-blocking descriptor.
std::string drain(int fd) {
  std::string out;
  char buf[4096];
  for (ssize_t n; (n = ::read(fd, buf, sizeof buf)) > 0;) out.append(buf, static_cast<std::size_t>(n));
  return out;
}

TEST(Writer, AnExistingFileKeepsItsModeAndOwner) {
  test::TempDir dir;
  const fs::path out = dir / "r.json";
  std::ofstream(out) << "old";
  ASSERT_EQ(::chmod(out.c_str(), 0600), 0);
  const bool root = ::geteuid() == 0;
  if (root) {
    ASSERT_EQ(::chown(out.c_str(), 4321, 8765), 0);
  }
  write_text_atomic(out, "new\n");
  const struct stat st = lstat_of(out);
  EXPECT_TRUE(S_ISREG(st.st_mode));
  EXPECT_EQ(st.st_mode & 07777, 0600u);
  if (root) {
    EXPECT_EQ(st.st_uid, 4321u);
    EXPECT_EQ(st.st_gid, 8765u);
  }
  EXPECT_EQ(test::slurp(out), "new\n");
  const fs::path fresh = dir / "new.json";
  write_text_atomic(fresh, "x");
  EXPECT_EQ(lstat_of(fresh).st_mode & 07777, 0644u);
  std::size_t files = 0;
  for ([[maybe_unused]] const auto& e : fs::directory_iterator(dir.path())) ++files;
  EXPECT_EQ(files, 2u);  // no temp file left
}

TEST(Writer, AFifoIsWrittenThroughAndStaysAFifo) {
  test::TempDir dir;
  const fs::path fifo = dir / "report.fifo";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  // No reader: a fault of the run, at once, not a wait; the FIFO stays.
  try {
    write_text_atomic(fifo, "x");
    FAIL() << "wrote into a FIFO without a reader";
  } catch (const UsageError& e) {
    FAIL() << "a FIFO without a reader is not bad input: " << e.what();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("without a reader"), std::string::npos) << e.what();
  }
  const int reader = ::open(fifo.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  ASSERT_GE(reader, 0);
  EXPECT_EQ(check_writable(fifo), OutputKind::stream);
  write_text_atomic(fifo, "{\"a\": 1}\n");
  EXPECT_EQ(drain(reader), "{\"a\": 1}\n");
  ::close(reader);
  EXPECT_TRUE(S_ISFIFO(lstat_of(fifo).st_mode));
  std::size_t files = 0;
  for ([[maybe_unused]] const auto& e : fs::directory_iterator(dir.path())) ++files;
  EXPECT_EQ(files, 1u);  // no temp file made for it
}

// A node of the null device in a temp folder stands for /dev/null, which the test never touches.
TEST(Writer, ACharacterDeviceStaysOneAndKeepsItsMode) {
  test::TempDir dir;
  const fs::path null = dir / "null";
  if (::mknod(null.c_str(), S_IFCHR | 0620, ::makedev(1, 3)) != 0)
    GTEST_SKIP() << "mknod needs root (CAP_MKNOD): " << std::strerror(errno);
  const int probe = ::open(null.c_str(), O_WRONLY | O_CLOEXEC);
  if (probe < 0) GTEST_SKIP() << "the temp folder's filesystem allows no devices (nodev)";
  ::close(probe);
  ASSERT_EQ(::chmod(null.c_str(), 0620), 0);  // not the umask's
  EXPECT_EQ(check_writable(null), OutputKind::stream);
  write_text_atomic(null, "a report\n");
  const struct stat st = lstat_of(null);
  EXPECT_TRUE(S_ISCHR(st.st_mode));
  EXPECT_EQ(st.st_rdev, ::makedev(1, 3));
  EXPECT_EQ(st.st_mode & 07777, 0620u);
}

TEST(Writer, ALinkToAFileIsRefusedAndBothStayAsTheyWere) {
  test::TempDir dir;
  const fs::path target = dir / "elsewhere.json", link = dir / "r.json";
  std::ofstream(target) << "theirs";
  fs::create_symlink(target, link);
  EXPECT_THROW(check_writable(link), UsageError);
  try {
    write_text_atomic(link, "mine");
    FAIL();
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("is a symbolic link"), std::string::npos) << e.what();
  }
  EXPECT_TRUE(fs::is_symlink(link));
  EXPECT_EQ(test::slurp(target), "theirs");
  const fs::path dangling = dir / "dangling.json";
  fs::create_symlink(dir / "nothing", dangling);
  EXPECT_THROW(write_text_atomic(dangling, "mine"), UsageError);
  EXPECT_FALSE(fs::exists(dir / "nothing"));
}

// /dev/stdout and /dev/fd/N are links to a pipe or a terminal: followed once, written through.
TEST(Writer, ALinkToAFifoIsFollowedOnce) {
  test::TempDir dir;
  const fs::path fifo = dir / "p", link = dir / "stdout";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  fs::create_symlink(fifo, link);
  const int reader = ::open(fifo.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  ASSERT_GE(reader, 0);
  write_text_atomic(link, "through\n");
  EXPECT_EQ(drain(reader), "through\n");
  ::close(reader);
  EXPECT_TRUE(fs::is_symlink(link));
  EXPECT_TRUE(S_ISFIFO(lstat_of(fifo).st_mode));
}

TEST(Writer, DashIsStdout) {
  test::TempDir dir;
  const fs::path captured = dir / "stdout";
  const int file = ::open(captured.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
  ASSERT_GE(file, 0);
  const int saved = ::dup(STDOUT_FILENO);
  ::dup2(file, STDOUT_FILENO);
  EXPECT_EQ(check_writable("-"), OutputKind::stream);
  write_text_atomic("-", "to stdout\n");
  ::dup2(saved, STDOUT_FILENO);
  ::close(saved);
  ::close(file);
  EXPECT_EQ(test::slurp(captured), "to stdout\n");
  EXPECT_FALSE(fs::exists("-"));
}

TEST(Writer, AFolderAndASocketAreRefused) {
  test::TempDir dir;
  EXPECT_THROW(check_writable(dir.path()), UsageError);
  EXPECT_THROW(check_writable(dir.path() / ""), UsageError);
  EXPECT_THROW(write_text_atomic(dir.path(), "x"), UsageError);
  const fs::path sock = dir / "s";
  ASSERT_EQ(::mknod(sock.c_str(), S_IFSOCK | 0600, 0), 0);
  try {
    check_writable(sock);
    FAIL();
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("is a socket"), std::string::npos) << e.what();
  }
}

// The temp file's name is the file's and 8 characters more: a name the folder takes but its temp file's it
// does not is refused before the run, not after it.
TEST(Writer, ANameTooLongForItsTempFileIsRefusedBeforeTheRun) {
  test::TempDir dir;
  const long name_max = ::pathconf(dir.path().c_str(), _PC_NAME_MAX);
  ASSERT_GT(name_max, 8);
  const fs::path longest = dir / std::string(static_cast<std::size_t>(name_max) - 8, 'r');
  EXPECT_EQ(check_writable(longest), OutputKind::file);
  write_text_atomic(longest, "x");
  const fs::path too_long = dir / std::string(static_cast<std::size_t>(name_max) - 7, 'r');
  try {
    check_writable(too_long);
    FAIL();
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("choose a shorter -o name"), std::string::npos) << e.what();
  }
}

// The folder was checked before the run; gone when the report is written, it is a fault of the run (exit 1)
// naming the path, not bad input (exit 2).
TEST(Writer, AFolderRemovedDuringTheRunIsAFaultNamingThePath) {
  auto dir = std::make_unique<test::TempDir>();
  const fs::path out = *dir / "r.json";
  EXPECT_EQ(check_writable(out), OutputKind::file);
  dir.reset();
  try {
    write_text_atomic(out, "x");
    FAIL();
  } catch (const UsageError& e) {
    FAIL() << "bad input: " << e.what();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(out.string()), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("removed during the run"), std::string::npos) << e.what();
  }
}

// The last step of replacing an existing file, with the name taken meanwhile by another file and by a FIFO
// (as a user of a shared folder could): what took the inspected file's place is kept as it is, and the new
// content stays in the temp file for the writer to remove and look again.
TEST(Writer, TheExchangeKeepsWhatTookTheInspectedFilesPlace) {
  for (const bool fifo : {false, true}) {
    test::TempDir dir;
    const fs::path out = dir / "report.json", tmp = dir / ".report.json.abcdef";
    std::ofstream(out) << "inspected";
    const struct stat inspected = lstat_of(out);
    fs::rename(out, dir / "kept-alive");  // its inode stays in use: the one taking its place has another
    if (fifo)
      ASSERT_EQ(::mkfifo(out.c_str(), 0600), 0);
    else
      std::ofstream(out) << "theirs";
    std::ofstream(tmp) << "new";
    const int dirfd = ::open(dir.path().c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    ASSERT_GE(dirfd, 0);
    EXPECT_FALSE(detail::replace_inspected(dirfd, tmp.filename(), out.filename(), inspected.st_dev,
                                           inspected.st_ino, out));
    ::close(dirfd);
    if (fifo)
      EXPECT_TRUE(S_ISFIFO(lstat_of(out).st_mode));
    else
      EXPECT_EQ(test::slurp(out), "theirs");
    EXPECT_EQ(test::slurp(tmp), "new");
  }
}

TEST(Writer, TheExchangeReplacesTheInspectedFileAndRemovesIt) {
  test::TempDir dir;
  const fs::path out = dir / "report.json", tmp = dir / ".report.json.abcdef";
  std::ofstream(out) << "inspected";
  const struct stat inspected = lstat_of(out);
  std::ofstream(tmp) << "new";
  const int dirfd = ::open(dir.path().c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  ASSERT_GE(dirfd, 0);
  EXPECT_TRUE(detail::replace_inspected(dirfd, tmp.filename(), out.filename(), inspected.st_dev,
                                        inspected.st_ino, out));
  ::close(dirfd);
  EXPECT_EQ(test::slurp(out), "new");
  std::size_t files = 0;
  for ([[maybe_unused]] const auto& e : fs::directory_iterator(dir.path())) ++files;
  EXPECT_EQ(files, 1u);  // the old file, exchanged to the temp name, is gone
}

}  // namespace
}  // namespace mlbench
