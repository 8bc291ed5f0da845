#include "plugin/config.h"

#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <cstring>

namespace topoa2a {
namespace {

const char* const kPrefixes[] = {"MPICH_", "MPIR_PARAM_", "MPIR_CVAR_"};  // MPICH's read order

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

// The effective value of MPICH variable `name` (without prefix): the last
// one MPICH would read wins. Empty when unset.
std::string read_var(const std::string& name, std::string* full_name) {
  std::string value;
  for (const char* prefix : kPrefixes) {
    if (const char* v = std::getenv((prefix + name).c_str())) {
      value = v;
      *full_name = prefix + name;
    }
  }
  return value;
}

void set_everywhere(const std::string& name, const char* value) {
  for (const char* prefix : kPrefixes)
    if (std::getenv((prefix + name).c_str())) setenv((prefix + name).c_str(), value, 1);
}

void unset_everywhere(const std::string& name) {
  for (const char* prefix : kPrefixes) unsetenv((prefix + name).c_str());
}

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

bool contains(const std::vector<std::string>& v, const std::string& s) {
  return std::find(v.begin(), v.end(), s) != v.end();
}

bool load_selection(const std::string& var, Coll coll, Selection* sel, std::string* error) {
  std::string full = "MPIR_CVAR_" + var;
  const std::string raw = read_var(var, &full);
  if (raw.empty()) return true;
  if (!parse_selection(raw, coll, sel)) {
    *error = full + "=" + raw + " is not a valid value; valid values: " + valid_values(coll);
    return false;
  }
  // MPICH 4.0.2 aborts on values it does not know.
  if (sel->active()) set_everywhere(var, "auto");
  return true;
}

bool load_bool(const char* var, bool* out, std::string* error) {
  const char* v = std::getenv(var);
  if (!v || !*v) return true;
  const std::string s = lower(v);
  if (s == "1" || s == "yes" || s == "true" || s == "on")
    *out = true;
  else if (s == "0" || s == "no" || s == "false" || s == "off")
    *out = false;
  else {
    *error = std::string(var) + "=" + v + " is not a valid value; valid values: 0, 1";
    return false;
  }
  return true;
}

// A count from 0 to 65536 (leaders per node; 0: the default).
bool load_count(const char* var, int* out, const char* valid, std::string* error) {
  const char* v = std::getenv(var);
  if (!v || !*v) return true;
  const std::string s = v;
  long long n = 0;
  bool ok = s.size() <= 6;  // more digits are out of range whatever they are
  for (size_t i = 0; ok && i < s.size(); ++i) {
    ok = s[i] >= '0' && s[i] <= '9';
    n = n * 10 + (s[i] - '0');
  }
  if (!ok || n > 65536) {
    *error = std::string(var) + "=" + v + " is not a valid value; valid values: " + valid;
    return false;
  }
  *out = static_cast<int>(n);
  return true;
}

}  // namespace

const std::vector<std::string>& mpich_alltoall_values() {
  static const std::vector<std::string> v = {
      "auto", "brucks", "nb", "pairwise", "pairwise_sendrecv_replace", "scattered"};
  return v;
}

const std::vector<std::string>& mpich_alltoallv_values() {
  static const std::vector<std::string> v = {"auto", "nb", "pairwise_sendrecv_replace",
                                             "scattered"};
  return v;
}

const std::vector<std::string>& mpich_ialltoall_values() {
  static const std::vector<std::string> v = {
      "auto",          "sched_auto",     "sched_brucks",
      "sched_inplace", "sched_pairwise", "sched_permuted_sendrecv",
      "tsp_ring",      "tsp_brucks",     "tsp_scattered"};
  return v;
}

const std::vector<std::string>& mpich_ialltoallv_values() {
  static const std::vector<std::string> v = {"auto",          "sched_auto",    "sched_blocked",
                                             "sched_inplace", "tsp_scattered", "tsp_blocked",
                                             "tsp_inplace"};
  return v;
}

namespace {
const std::vector<std::string>& mpich_values(Coll coll) {
  switch (coll) {
    case Coll::kAlltoall:
      return mpich_alltoall_values();
    case Coll::kAlltoallv:
      return mpich_alltoallv_values();
    case Coll::kIalltoall:
      return mpich_ialltoall_values();
    case Coll::kIalltoallv:
      break;
  }
  return mpich_ialltoallv_values();
}
bool v_only(Coll coll) { return coll == Coll::kAlltoallv || coll == Coll::kIalltoallv; }
}  // namespace

bool parse_selection(const std::string& value, bool alltoallv, Selection* sel) {
  return parse_selection(value, alltoallv ? Coll::kAlltoallv : Coll::kAlltoall, sel);
}

std::string valid_values(bool alltoallv) {
  return valid_values(alltoallv ? Coll::kAlltoallv : Coll::kAlltoall);
}

bool parse_selection(const std::string& value, Coll coll, Selection* sel) {
  const bool alltoallv = v_only(coll);
  Selection out;
  out.value = lower(value);
  const auto& mpich = mpich_values(coll);
  if (out.value == "topo_auto") {
    out.topo_auto = true;
  } else if (const Algorithm* a = find_algorithm(out.value);
             a != nullptr && (!alltoallv || a->alltoallv)) {
    out.ours = a;
  } else if (!contains(mpich, out.value)) {
    return false;
  }
  *sel = out;
  return true;
}

std::string valid_values(Coll coll) {
  std::string out;
  for (const auto& v : mpich_values(coll)) out += v + ", ";
  return out + algorithm_names(v_only(coll)) + ", topo_auto";
}

bool load_config(Config* c, std::string* error) {
  if (!load_selection("ALLTOALL_INTRA_ALGORITHM", Coll::kAlltoall, &c->alltoall, error))
    return false;
  if (!load_selection("ALLTOALLV_INTRA_ALGORITHM", Coll::kAlltoallv, &c->alltoallv, error))
    return false;
  if (!load_selection("IALLTOALL_INTRA_ALGORITHM", Coll::kIalltoall, &c->ialltoall, error))
    return false;
  if (!load_selection("IALLTOALLV_INTRA_ALGORITHM", Coll::kIalltoallv, &c->ialltoallv, error))
    return false;

  std::string full = "MPIR_CVAR_COLLECTIVE_FALLBACK";
  const std::string fb = lower(read_var("COLLECTIVE_FALLBACK", &full));
  if (fb.empty() || fb == "silent")
    c->fallback = Fallback::kSilent;
  else if (fb == "print")
    c->fallback = Fallback::kPrint;
  else if (fb == "error")
    c->fallback = Fallback::kError;
  else {
    *error = full + "=" + fb + " is not a valid value; valid values: error, print, silent";
    return false;
  }
  bool topo_default = false;
  if (!load_bool("MPIR_CVAR_TOPOA2A_AUTO", &topo_default, error)) return false;
  if (topo_default) {
    for (Selection* sel : {&c->alltoall, &c->alltoallv, &c->ialltoall, &c->ialltoallv})
      if (sel->value == "auto") sel->topo_auto = true;
  }
  if (!load_options(c, error)) return false;
  return load_tuning_file(c, error);
}

void remove_private_files(Config* c) {
  if (c->tuning_copy.empty()) return;
  private_files().remove(c->tuning_copy);
  c->tuning_copy.clear();
}

void clear_mpich_variables() {
  for (const char* name :
       {"ALLTOALL_INTRA_ALGORITHM", "ALLTOALLV_INTRA_ALGORITHM", "IALLTOALL_INTRA_ALGORITHM",
        "IALLTOALLV_INTRA_ALGORITHM", "COLLECTIVE_FALLBACK", "COLL_SELECTION_TUNING_JSON_FILE"})
    unset_everywhere(name);
}

// MPIR_CVAR_TOPOA2A_WINDOW: a decimal count of messages, 0 .. kMaxWindow.
static bool load_window(Config* c, std::string* error) {
  const char* w = std::getenv("MPIR_CVAR_TOPOA2A_WINDOW");
  if (!w || !*w) return true;
  const std::string text(w);
  const bool digits = text.size() <= 9 && text.find_first_not_of("0123456789") == std::string::npos;
  if (!digits || std::stol(text) > kMaxWindow) {
    *error = "MPIR_CVAR_TOPOA2A_WINDOW=" + text +
             " is not a valid value: valid values are 0 (the default for the algorithm) and 1 "
             "to " +
             std::to_string(kMaxWindow) + " (messages in flight per rank; 1: round by round)";
    return false;
  }
  c->window = static_cast<int>(std::stol(text));
  return true;
}

bool load_options(Config* c, std::string* error) {
  if (!load_bool("MPIR_CVAR_TOPOA2A_VERBOSE", &c->verbose, error)) return false;
  if (!load_bool("MPIR_CVAR_TOPOA2A_STATS", &c->stats, error)) return false;
  if (!load_bool("MPIR_CVAR_TOPOA2A_AUTO_AGREE", &c->auto_agree, error)) return false;
  if (!load_count("MPIR_CVAR_TOPOA2A_LEADERS", &c->leaders,
                  "0 (every rank of a node leads) or 1..65536 leaders per node", error))
    return false;
  if (const char* g = std::getenv("MPIR_CVAR_TOPOA2A_MESH_GRID"); g && *g) {
    std::string why;
    if (!parse_grid(g, &c->mesh_grid, &why)) {
      *error = std::string("MPIR_CVAR_TOPOA2A_MESH_GRID=") + g + " is not a valid value: " + why;
      return false;
    }
  }
  if (const char* d = std::getenv("MPIR_CVAR_TOPOA2A_TORUS_DIMS"); d && *d) {
    std::string why;
    if (!parse_extents(d, &c->torus_dims, &why)) {
      *error = std::string("MPIR_CVAR_TOPOA2A_TORUS_DIMS=") + d + " is not a valid value: " + why;
      return false;
    }
  }
  if (!load_window(c, error)) return false;
  return load_user_descriptions(&c->descriptions, error);
}

}  // namespace topoa2a
