// The tuning file (MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE, plugin/config.h):
// topoa2a's rules from it, and what MPICH gets instead (the file, a private
// copy without topoa2a's algorithms, deleted at the end, or nothing).
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "plugin/config.h"
#include "plugin/config_env.h"

namespace topoa2a {
namespace {

// Private files still to delete, also at exit (a static's destructor).
struct PrivateFiles {
  std::vector<std::string> paths;
  void remove(const std::string& path) {
    ::unlink(path.c_str());
    paths.erase(std::remove(paths.begin(), paths.end(), path), paths.end());
  }
  ~PrivateFiles() {
    for (const std::string& p : paths) ::unlink(p.c_str());
  }
};
PrivateFiles& private_files() {
  static PrivateFiles files;
  return files;
}

// Writes `text` to a new private file (mode 0600) in $TMPDIR or /tmp.
bool write_private_copy(const std::string& text, std::string* path, std::string* error) {
  const char* tmp = std::getenv("TMPDIR");
  std::string dir = tmp && *tmp ? tmp : "/tmp";
  std::string name = dir + "/topoa2a-tuning-XXXXXX";
  std::vector<char> buf(name.begin(), name.end());
  buf.push_back('\0');
  const int fd = ::mkstemp(buf.data());
  if (fd < 0) {
    *error = "cannot create a private copy for MPICH in " + dir + ": " + std::strerror(errno) +
             " (set TMPDIR to a writable directory)";
    return false;
  }
  name = buf.data();
  size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      *error = "cannot write " + name + ": " + std::strerror(errno);
      ::close(fd);
      ::unlink(name.c_str());
      return false;
    }
    done += static_cast<size_t>(n);
  }
  if (::close(fd) != 0) {
    *error = "cannot write " + name + ": " + std::strerror(errno);
    ::unlink(name.c_str());
    return false;
  }
  private_files().paths.push_back(name);
  *path = name;
  return true;
}

}  // namespace

namespace config_detail {

// MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE. With topo_auto topoa2a applies
// its alltoall rules (a malformed file is an error). MPICH gets the file
// itself; or, when it names topoa2a's algorithms (which stock MPICH aborts
// on), a private copy with those leaves naming MPICH's algorithms, so that
// every other collective keeps the user's rules; or, when it has rules for
// alltoall only (MPICH aborts on a collective without rules), nothing.
bool load_tuning_file(Config* c, std::string* error) {
  std::string var = "MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE";
  const std::string path = read_var("COLL_SELECTION_TUNING_JSON_FILE", &var);
  if (path.empty()) return true;
  const bool ours = c->alltoall.topo_auto || c->ialltoall.topo_auto;
  std::string text, why;
  if (!read_text_file(path, &text, &why)) {
    if (!ours) return true;  // not ours to use: MPICH reads it, as without topoa2a
    *error = var + ": " + why;
    return false;
  }
  auto rules = std::make_shared<Rules>();
  if (!parse_rules(text, path, rules.get(), &why)) {
    if (!ours) return true;
    *error = var + ": " + why;
    return false;
  }
  if (ours) c->rules = rules;
  TuningForMpich mpich;
  if (!filter_tuning_for_mpich(text, path, &mpich, &why)) {
    *error = var + ": " + why;
    return false;
  }
  if (mpich.other_collectives == 0 && (ours || mpich.replaced > 0)) {
    // Rules for alltoall only: MPICH, which needs rules for every collective
    // it runs, keeps its built-in ones.
    set_everywhere("COLL_SELECTION_TUNING_JSON_FILE", "");
    return true;
  }
  if (mpich.replaced == 0) return true;
  std::string copy;
  if (!write_private_copy(mpich.text, &copy, &why)) {
    *error = var + "=" + path + ": " + why;
    return false;
  }
  c->tuning_copy = copy;
  set_everywhere("COLL_SELECTION_TUNING_JSON_FILE", copy.c_str());
  return true;
}

}  // namespace config_detail

void remove_private_files(Config* c) {
  if (c->tuning_copy.empty()) return;
  private_files().remove(c->tuning_copy);
  c->tuning_copy.clear();
}

}  // namespace topoa2a
