// Reading an input file (network file, rules / tuning JSON file) safely:
// a regular file only, never past a size limit (topology/topology.h
// read_text_file).
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>

#include "topology/topology.h"

namespace topoa2a {

bool read_text_file(const std::string& path, std::string* text, std::string* error,
                    long long max_bytes) {
  // O_NONBLOCK: opening a FIFO must not wait for a writer.
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) {
    *error = path + ": cannot open: " + std::strerror(errno);
    return false;
  }
  struct Closer {
    int fd;
    ~Closer() { ::close(fd); }
  } closer{fd};
  struct stat st {};
  if (::fstat(fd, &st) != 0) {
    *error = path + ": cannot stat: " + std::strerror(errno);
    return false;
  }
  const std::string limit = "the limit is " + std::to_string(max_bytes) + " bytes (" +
                            std::to_string(max_bytes >> 20) + " MiB)";
  if (!S_ISREG(st.st_mode)) {
    const char* what = S_ISDIR(st.st_mode)                          ? "a directory"
                       : S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode) ? "a device"
                       : S_ISFIFO(st.st_mode)                       ? "a pipe"
                       : S_ISSOCK(st.st_mode)                       ? "a socket"
                                                                    : "not a plain file";
    *error = path + ": is " + std::string(what) + ", expected a regular file";
    return false;
  }
  if (st.st_size > max_bytes) {
    *error = path + ": is " + std::to_string(static_cast<long long>(st.st_size)) +
             " bytes, too large; " + limit;
    return false;
  }
  // Read to the end, but never past the limit (the file may grow meanwhile).
  std::string out;
  out.reserve(static_cast<size_t>(st.st_size));
  char buf[1 << 16];
  while (true) {
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0) {
      if (errno == EINTR) continue;
      *error = path + ": read error: " + std::strerror(errno);
      return false;
    }
    if (n == 0) break;
    if (static_cast<long long>(out.size()) + n > max_bytes) {
      *error = path + ": grew past the size limit while being read; " + limit;
      return false;
    }
    out.append(buf, static_cast<size_t>(n));
  }
  *text = std::move(out);
  return true;
}

}  // namespace topoa2a
