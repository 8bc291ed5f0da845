#include "bench/candidates.h"

#include <dlfcn.h>

#include <vector>

#include "coll/algorithms.h"

namespace bench {
namespace {

using topoa2a::kMpichAlltoallValues;
using topoa2a::kMpichAlltoallvValues;
using topoa2a::kMpichFallbackValues;

bool is_mpich_value(const std::string& v) {
  for (const auto& m : kMpichAlltoallValues)
    if (m == v) return true;
  return false;
}

template <class Fn>
Fn lookup(const char* symbol) {
  return reinterpret_cast<Fn>(dlsym(RTLD_DEFAULT, symbol));
}

// Runs an in-place all-to-all of one int; returns its error code.
int in_place_call(bool alltoallv, int p) {
  std::vector<int> buf(static_cast<std::size_t>(p)), counts(buf.size(), 1), displs(buf.size());
  for (int i = 0; i < p; ++i) displs[static_cast<std::size_t>(i)] = i;
  if (alltoallv)
    return MPI_Alltoallv(MPI_IN_PLACE, nullptr, nullptr, MPI_INT, buf.data(), counts.data(),
                         displs.data(), MPI_INT, MPI_COMM_WORLD);
  return MPI_Alltoall(MPI_IN_PLACE, 1, MPI_INT, buf.data(), 1, MPI_INT, MPI_COMM_WORLD);
}

}  // namespace

std::vector<std::string> default_candidates() {
  std::vector<std::string> out;
  for (const auto& a : topoa2a::algorithms()) out.push_back(a.name);
  out.insert(out.end(),
             {"topo_auto", "mpich:brucks", "mpich:pairwise", "mpich:scattered", "mpich:auto"});
  return out;
}

bool make_candidate(const std::string& spec, Candidate* out) {
  // "NAME@W": one of ours with a window of W messages in flight.
  std::string name = spec;
  int window = 0;
  if (const size_t at = spec.find('@'); at != std::string::npos) {
    name = spec.substr(0, at);
    const std::string w = spec.substr(at + 1);
    if (w.empty() || w.size() > 7 || w.find_first_not_of("0123456789") != std::string::npos ||
        !topoa2a::find_algorithm(name))
      return false;
    window = std::stoi(w);
  }
  if (window > 0) {
    *out = {spec, name, "auto", window};
    return true;
  }
  const std::string mpich = name.rfind("mpich:", 0) == 0 ? name.substr(6) : name;
  if (is_mpich_value(mpich)) {
    *out = {"mpich:" + mpich, "auto", mpich};
    return true;
  }
  if (name == "topo_auto" || topoa2a::find_algorithm(name)) {
    *out = {name, name, "auto"};
    return true;
  }
  return false;
}

Switcher::Switcher(const MpiT& mpit, bool alltoallv)
    : alltoallv_(alltoallv),
      select_(lookup<SelectFn>("topoa2a_select")),
      set_window_(lookup<topoa2a_set_window_fn>("topoa2a_set_window")),
      stats_(lookup<StatsFn>("topoa2a_stats_get")),
      algorithm_(
          mpit,
          alltoallv ? "MPIR_CVAR_ALLTOALLV_INTRA_ALGORITHM" : "MPIR_CVAR_ALLTOALL_INTRA_ALGORITHM",
          alltoallv ? kMpichAlltoallvValues : kMpichAlltoallValues),
      fallback_(mpit, "MPIR_CVAR_COLLECTIVE_FALLBACK", kMpichFallbackValues) {}

bool Switcher::select(const Candidate& c, std::string* why) {
  if (c.is_ours() && !select_) {
    *why = "libtopoa2a not preloaded";
    return false;
  }
  if (select_ && select_(op(), c.ours.c_str()) != 0) {
    *why = "topoa2a has no " + std::string(op()) + " algorithm " + c.ours;
    return false;
  }
  if (c.window > 0 && !set_window_) {
    *why = "this libtopoa2a has no window control";
    return false;
  }
  // Plain candidates keep MPIR_CVAR_TOPOA2A_WINDOW until a "NAME@W" one
  // has run; after that they run with the default window.
  if (set_window_ && (c.window > 0 || window_changed_) && set_window_(c.window) != 0) {
    *why = "window " + std::to_string(c.window) + " refused";
    return false;
  }
  window_changed_ = window_changed_ || c.window > 0;
  if (!algorithm_.ok()) {
    if (c.mpich == "auto") return true;  // MPICH's default, unless the environment said otherwise
    *why = algorithm_.error();
    return false;
  }
  if (!algorithm_.has(c.mpich)) {
    *why = "MPICH has no " + std::string(op()) + " algorithm " + c.mpich;
    return false;
  }
  if (!algorithm_.write(c.mpich)) {
    *why = "MPI_T_cvar_write failed";
    return false;
  }
  return true;
}

bool Switcher::verify_mpich_honours_writes(std::string* why) {
  if (!algorithm_.ok() || !fallback_.ok()) {
    *why = algorithm_.ok() ? fallback_.error() : algorithm_.error();
    return false;
  }
  int p = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &p);
  const std::string old_fallback = fallback_.read();
  Candidate mpich_auto;
  make_candidate("mpich:auto", &mpich_auto);
  // Forced scattered refuses MPI_IN_PLACE; auto accepts it.
  const bool refused = select(mpich_auto, why) && fallback_.write("error") &&
                       algorithm_.write("scattered") && in_place_call(alltoallv_, p) != MPI_SUCCESS;
  const bool switched =
      algorithm_.write("auto") && refused && in_place_call(alltoallv_, p) == MPI_SUCCESS;
  fallback_.write(old_fallback.empty() ? "silent" : old_fallback);
  if (!switched && why->empty())
    *why = "an in-place call with scattered forced through MPI_T did not fail";
  return switched;
}

Counts Switcher::counts() const {
  Counts out;
  if (!stats_) return out;
  std::vector<std::string> names = {"mpich"};
  for (const auto& a : topoa2a::algorithms()) names.push_back(a.name);
  for (const auto& n : names) {
    long long calls = 0;
    if (stats_(op(), n.c_str(), &calls, nullptr, nullptr) == 0) out[n] = calls;
  }
  return out;
}

std::string Switcher::what_ran(const Counts& before, const Counts& after) {
  std::string ran;
  for (const auto& [name, calls] : after) {
    auto it = before.find(name);
    if (calls != (it == before.end() ? 0 : it->second)) ran += (ran.empty() ? "" : "+") + name;
  }
  return ran;
}

}  // namespace bench
