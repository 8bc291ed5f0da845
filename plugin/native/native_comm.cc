#include "plugin/native/native_comm.h"

#include <climits>
#include <cstdio>
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
