#include "plugin/native/native_comm.h"

#include <climits>
#include <cstdio>
#include <string>
#include <utility>

namespace topoa2a::native {

Globals& globals() {
  static Globals g;
  return g;
}

int NativeComm::detect(const std::vector<int>& cart_dims, const std::vector<int>& cart_periods) {
  Globals& g = globals();
  auto topo = std::make_shared<Topology>(
      native_topology(*g.host, comm_, *g.world, g.config.descriptions, cart_dims, cart_periods));
  if (!topo->errors.empty()) {
    if (rank() == 0)
      for (const auto& e : topo->errors) std::fprintf(stderr, "topoa2a: %s\n", e.c_str());
    return MPI_ERR_OTHER;
  }
  // The costs were parsed at MPI_Init (load_options); the cost model is
  // built on topo_auto's first use.
  set_topology(std::move(topo), g.config.descriptions.cost_params);
  return MPI_SUCCESS;
}

void NativeComm::add_cart_once() {
  if (cart_checked_) return;
  cart_checked_ = true;
  int dims[32], periods[32];
  const int nd = globals().host->cart_get(comm_, 32, dims, periods);
  if (nd > 0 && nd <= 32) detect({dims, dims + nd}, {periods, periods + nd});
}

namespace {

// The registered name: one of ours (ctx: its Algorithm) or topo_auto (null).
Selection selection_of(void* ctx) {
  Selection s;
  if (ctx) {
    s.ours = static_cast<const Algorithm*>(ctx);
    s.value = s.ours->name;
  } else {
    s.value = "topo_auto";
    s.topo_auto = true;
  }
  return s;
}

}  // namespace

Call decide_call(const MPICH_Coll_plugin_args* a, NativeComm& s, void* ctx) {
  const Globals& g = globals();
  Call call;
  call.alltoallv = a->sendcounts != nullptr || a->recvcounts != nullptr;
  const bool in_place = a->sendbuf == MPI_IN_PLACE;
  if (!call.alltoallv) {
    MPI_Aint size = 0, extent, lb, textent;
    int contig;
    g.host->type_info(a->recvtype, &size, &extent, &lb, &textent, &contig);
    call.bytes = static_cast<long long>(size) * a->recvcount;
    if (a->recvcount > INT_MAX || (!in_place && a->sendcount > INT_MAX))
      call.refused = "a count above INT_MAX";
    call.decision = decide(selection_of(ctx), g.config, s, call.bytes, in_place,
                           static_cast<long long>(a->recvcount));
    return call;
  }
  for (int i = 0; i < s.size(); ++i)
    if (a->recvcounts[i] > INT_MAX || a->rdispls[i] > INT_MAX ||
        (!in_place && (a->sendcounts[i] > INT_MAX || a->sdispls[i] > INT_MAX)))
      call.refused = "a count or displacement above INT_MAX";
  // Block sizes differ between ranks, so topo_auto cannot agree on a size
  // without communicating: it takes the direct 1-factor exchange.
  Selection sel = selection_of(ctx);
  if (sel.topo_auto) sel = Selection{"onefactor", &algorithm(AlgorithmId::kOneFactor), false};
  call.decision = decide(sel, g.config, s, 0, in_place);
  if (!ctx) call.decision.how = "topo_auto";
  return call;
}

namespace {

// MPICH's nonblocking algorithm for a blocking name topo_auto chose.
const char* mpich_nb_name(const std::string& blocking) {
  if (blocking == "scattered") return "tsp_scattered";
  if (blocking == "brucks") return "sched_brucks";
  if (blocking == "pairwise") return "sched_pairwise";
  return "";  // MPICH's own selection
}

MPICH_Coll_plugin_verdict check_impl(const MPICH_Coll_plugin_args* a, void* state, void* ctx,
                                     CallKind kind, char* why, int why_len) {
  auto& s = *static_cast<NativeComm*>(state);
  s.add_cart_once();
  const Call call = decide_call(a, s, ctx);
  const Decision& d = call.decision;
  const char* op = op_name(call.alltoallv, kind);
  const bool nonblocking = kind != CallKind::kBlocking;
  const std::string& reason = call.refused.empty() ? d.cannot_run : call.refused;
  record_choice(s, op, d);
  if (d.algo && reason.empty()) return MPICH_COLL_PLUGIN_RUN;
  // MPICH runs this call (a persistent one: counted once, here).
  stats_add(*s.stats(), op, "mpich", 0, 0);
  if (!d.algo) {  // topo_auto chose one of MPICH's algorithms
    std::snprintf(why, static_cast<size_t>(why_len), "%s",
                  nonblocking ? mpich_nb_name(d.mpich) : d.mpich.c_str());
    if (!nonblocking && globals().config.verbose && s.rank() == 0 &&
        s.first_time("mpich " + std::to_string(call.bytes)))
      std::fprintf(stderr,
                   "topoa2a: MPI_Alltoall comm=%ld size=%d msg=%lld bytes algorithm=mpich:%s "
                   "(%s)\n",
                   s.id(), s.size(), call.bytes, d.mpich.c_str(), d.how.c_str());
    return MPICH_COLL_PLUGIN_USE_MPICH;
  }
  std::snprintf(why, static_cast<size_t>(why_len), "%s", reason.c_str());
  return MPICH_COLL_PLUGIN_CANNOT_RUN;
}

}  // namespace

MPICH_Coll_plugin_verdict check_call(const MPICH_Coll_plugin_args* a, void* state, void* ctx,
                                     CallKind kind, char* why, int why_len) {
  try {
    return check_impl(a, state, ctx, kind, why, why_len);
  } catch (...) {
    std::snprintf(why, static_cast<size_t>(why_len), "topoa2a: out of memory deciding");
    return MPICH_COLL_PLUGIN_CANNOT_RUN;
  }
}

int for_each_name(
    const std::function<int(bool alltoallv, const char* name, const Algorithm* a)>& add) {
  int err = MPI_SUCCESS;
  for (const Algorithm& a : algorithms()) {
    if (err == MPI_SUCCESS) err = add(false, a.name, &a);
    if (err == MPI_SUCCESS && a.alltoallv) err = add(true, a.name, &a);
  }
  if (err == MPI_SUCCESS) err = add(false, "topo_auto", nullptr);
  if (err == MPI_SUCCESS) err = add(true, "topo_auto", nullptr);
  return err;
}

void report(const char* op, const Decision& d, NativeComm& s, long long bytes) {
  if (!globals().config.verbose || s.rank() != 0) return;
  const std::string key = std::string(op) + " " + std::to_string(bytes) + " " + d.algo->name;
  if (!s.first_time(key)) return;
  // A forced name came from MPICH's dispatch: its CVAR or its JSON rules.
  const char* how = d.how == "forced" ? "selected by MPICH" : d.how.c_str();
  std::fprintf(stderr, "topoa2a: %s comm=%ld size=%d msg=%lld bytes algorithm=%s (%s, native)\n",
               op, s.id(), s.size(), bytes, d.algo->name, how);
}

namespace {
std::vector<int> ints(const MPI_Aint* v, int n) {
  std::vector<int> out(static_cast<size_t>(n));
  for (int i = 0; i < n; ++i) out[i] = static_cast<int>(v[i]);
  return out;
}
}  // namespace

AlltoallArgs alltoall_args(const MPICH_Coll_plugin_args& a) {
  return {a.sendbuf, static_cast<int>(a.sendcount), a.sendtype,
          a.recvbuf, static_cast<int>(a.recvcount), a.recvtype};
}

AlltoallvInts::AlltoallvInts(const MPICH_Coll_plugin_args& a, int p)
    : a_(a), rc_(ints(a.recvcounts, p)), rd_(ints(a.rdispls, p)) {
  if (a.sendbuf != MPI_IN_PLACE) {
    sc_ = ints(a.sendcounts, p);
    sd_ = ints(a.sdispls, p);
  }
}

AlltoallvArgs AlltoallvInts::args() const {
  const bool in_place = a_.sendbuf == MPI_IN_PLACE;
  return {a_.sendbuf,
          in_place ? nullptr : sc_.data(),
          in_place ? nullptr : sd_.data(),
          a_.sendtype,
          a_.recvbuf,
          rc_.data(),
          rd_.data(),
          a_.recvtype};
}

}  // namespace topoa2a::native
