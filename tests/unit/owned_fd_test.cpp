// The one owner of a file descriptor and the reopen of a looked-at inode (base/owned_fd.hpp).
#include "base/owned_fd.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <string>

#include "tests/common/files.hpp"

namespace mlbench {
namespace {

namespace fs = std::filesystem;
using test::TempDir;

bool is_open(int fd) { return ::fcntl(fd, F_GETFD) != -1; }

std::string read_all(int fd) {
  std::string out(64, '\0');
  const ssize_t n = ::read(fd, out.data(), out.size());
  out.resize(n > 0 ? static_cast<std::size_t>(n) : 0);
  return out;
}

TEST(OwnedFd, MoveAssignClosesTheDescriptorItHeld) {
  OwnedFd a(::open("/dev/null", O_RDONLY | O_CLOEXEC));
  OwnedFd b(::open("/dev/null", O_RDONLY | O_CLOEXEC));
  const int old = a.get(), moved = b.get();
  a = std::move(b);
  EXPECT_FALSE(is_open(old));
  EXPECT_EQ(a.get(), moved);
  EXPECT_FALSE(b);  // NOLINT(bugprone-use-after-move): the moved-from state is what this checks
  EXPECT_TRUE(is_open(moved));
}

// The seam every "look, then open" goes through: the name is swapped between the look (O_PATH) and the
// open, to a link to a FIFO (which an open by name would hang on or read), and the file looked at is read.
TEST(Reopen, OpensTheLookedAtFileWhenItsNameNowLeadsElsewhere) {
  TempDir dir("mlbench-reopen");
  const fs::path name = dir.path() / "input", fifo = dir.path() / "fifo";
  std::ofstream(name) << "looked at";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  OwnedFd probe(::open(name.c_str(), O_PATH | O_CLOEXEC));
  ASSERT_TRUE(probe);
  fs::rename(name, dir.path() / "moved");
  fs::create_symlink(fifo, name);

  OwnedFd in = reopen(probe.get(), O_RDONLY | O_NOCTTY | O_NONBLOCK);
  ASSERT_TRUE(in) << std::strerror(errno);
  struct stat st {};
  ASSERT_EQ(::fstat(in.get(), &st), 0);
  EXPECT_TRUE(S_ISREG(st.st_mode));
  EXPECT_EQ(read_all(in.get()), "looked at");
}

// A FIFO reopened for writing keeps the FIFO's own rule: without a reader, ENXIO at once (no wait).
TEST(Reopen, AFifoWithoutAReaderFailsWithEnxioAtOnce) {
  TempDir dir("mlbench-reopen");
  const fs::path fifo = dir.path() / "fifo";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  OwnedFd probe(::open(fifo.c_str(), O_PATH | O_CLOEXEC));
  ASSERT_TRUE(probe);
  errno = 0;
  EXPECT_FALSE(reopen(probe.get(), O_WRONLY | O_NOCTTY | O_NONBLOCK));
  EXPECT_EQ(errno, ENXIO);
}

// A reopen that /proc let down says so: missing (ENOENT) or not procfs (EXDEV); other errors need no hint.
TEST(Reopen, TheHintNamesWhatProcLacks) {
  EXPECT_NE(reopen_hint(ENOENT).find("/proc mounted"), std::string_view::npos);
  EXPECT_NE(reopen_hint(EXDEV).find("procfs"), std::string_view::npos);
  EXPECT_EQ(reopen_hint(ENXIO), "");
}

TEST(FileTypeName, NamesEveryKindOfFile) {
  EXPECT_EQ(file_type_name(S_IFREG | 0644), "a regular file");
  EXPECT_EQ(file_type_name(S_IFDIR), "a folder");
  EXPECT_EQ(file_type_name(S_IFLNK), "a symbolic link");
  EXPECT_EQ(file_type_name(S_IFCHR), "a character device");
  EXPECT_EQ(file_type_name(S_IFBLK), "a block device");
  EXPECT_EQ(file_type_name(S_IFIFO), "a FIFO");
  EXPECT_EQ(file_type_name(S_IFSOCK), "a socket");
}

}  // namespace
}  // namespace mlbench
