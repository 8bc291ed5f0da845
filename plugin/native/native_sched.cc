#include "plugin/native/native_sched.h"

#include <cstdio>
#include <memory>
#include <new>
#include <string>
#include <utility>
#include <vector>

#include "coll/algorithms.h"
#include "coll/graph.h"
#include "plugin/native/native_comm.h"
#include "plugin/native/native_transport.h"
#include "plugin/stats.h"

namespace topoa2a::native {
namespace {

// The host's schedule under construction, as coll/graph.h's builder.
class HostGraph final : public GraphBuilder {
 public:
  HostGraph(const MPICH_Coll_plugin_host& host, MPICH_Coll_plugin_sched* sched)
      : h_(host), s_(sched) {}
  int send(const Message& m, const std::vector<int>& after, int* vtx) override {
    return h_.sched_isend(m.buf, m.count, m.type, m.peer, s_, n(after), after.data(), vtx);
  }
  int recv(const Message& m, const std::vector<int>& after, int* vtx) override {
    return h_.sched_irecv(m.buf, m.count, m.type, m.peer, s_, n(after), after.data(), vtx);
  }
  int copy(const void* in, MPI_Aint incount, MPI_Datatype intype, void* out, MPI_Aint outcount,
           MPI_Datatype outtype, const std::vector<int>& after, int* vtx) override {
    return h_.sched_copy(in, incount, intype, out, outcount, outtype, s_, n(after), after.data(),
                         vtx);
  }
  int join(const std::vector<int>& after, int* vtx) override {
    return h_.sched_join(s_, n(after), after.data(), vtx);
  }
  int callback(int (*fn)(void*), void* data, const std::vector<int>& after, int* vtx) override {
    return h_.sched_callback(fn, data, s_, n(after), after.data(), vtx);
  }
  int send_deferred(const void* const* buf, const MPI_Aint* count, MPI_Datatype type, int peer,
                    const std::vector<int>& after, int* vtx) override {
    return h_.sched_isend_deferred(buf, count, type, peer, s_, n(after), after.data(), vtx);
  }
  int recv_deferred(void* const* buf, const MPI_Aint* count, MPI_Datatype type, int peer,
                    const std::vector<int>& after, int* vtx) override {
    return h_.sched_irecv_deferred(buf, count, type, peer, s_, n(after), after.data(), vtx);
  }
  void* alloc(MPI_Aint bytes) override { return h_.sched_malloc(bytes, s_); }
  int keep(std::unique_ptr<GraphState> state) override {
    // MPICH frees the schedule, and with it the state, when the request goes.
    const int err = h_.sched_release(release, state.get(), s_);
    if (err == MPI_SUCCESS) state.release();
    return err;
  }
  int type_info(MPI_Datatype type, TypeInfo* info) override {
    int contig = 0;
    const int err =
        h_.type_info(type, &info->size, &info->extent, &info->true_lb, &info->true_extent, &contig);
    info->memcpy_ok = contig != 0;
    return err;
  }

 private:
  static int n(const std::vector<int>& v) { return static_cast<int>(v.size()); }
  static void release(void* state) { delete static_cast<GraphState*>(state); }
  const MPICH_Coll_plugin_host& h_;
  MPICH_Coll_plugin_sched* s_;
};

const char* nb_op(bool alltoallv, bool persistent) {
  if (persistent) return alltoallv ? "alltoallv_init" : "alltoall_init";
  return alltoallv ? "ialltoallv" : "ialltoall";
}

// MPICH's nonblocking algorithm for a blocking name topo_auto chose.
const char* mpich_nb_name(const std::string& blocking) {
  if (blocking == "scattered") return "tsp_scattered";
  if (blocking == "brucks") return "sched_brucks";
  if (blocking == "pairwise") return "sched_pairwise";
  return "";  // MPICH's own selection
}

MPICH_Coll_plugin_verdict check_impl(const MPICH_Coll_plugin_args* a, void* state, void* ctx,
                                     int persistent, char* why, int why_len) {
  auto& s = *static_cast<NativeComm*>(state);
  s.add_cart_once();
  const Call call = decide_call(a, s, ctx);
  const Decision& d = call.decision;
  std::string reason = call.refused.empty() ? d.cannot_run : call.refused;
  const char* op = nb_op(call.alltoallv, persistent != 0);
  record_choice(s, op, d);
  if (d.algo && reason.empty()) return MPICH_COLL_PLUGIN_RUN;
  // MPICH builds this call's schedule (a persistent one: counted once, here).
  stats_add(*s.stats(), op, "mpich", 0, 0);
  if (!d.algo) {  // topo_auto chose one of MPICH's algorithms
    std::snprintf(why, static_cast<size_t>(why_len), "%s", mpich_nb_name(d.mpich));
    return MPICH_COLL_PLUGIN_USE_MPICH;
  }
  std::snprintf(why, static_cast<size_t>(why_len), "%s", reason.c_str());
  return MPICH_COLL_PLUGIN_CANNOT_RUN;
}

// The bytes this rank's MPI_Ialltoallv sends (what the verbose line shows).
long long send_bytes(const MPICH_Coll_plugin_args& a, int p) {
  const bool in_place = a.sendbuf == MPI_IN_PLACE;
  MPI_Aint size = 0, extent, lb, true_extent;
  int contig;
  globals().host->type_info(in_place ? a.recvtype : a.sendtype, &size, &extent, &lb, &true_extent,
                            &contig);
  long long n = 0;
  for (int i = 0; i < p; ++i) n += in_place ? a.recvcounts[i] : a.sendcounts[i];
  return n * size;
}

int build_impl(const MPICH_Coll_plugin_args* a, MPICH_Coll_plugin_comm* comm, void* state,
               void* ctx, int persistent, MPICH_Coll_plugin_sched* sched) {
  const MPICH_Coll_plugin_host& host = *globals().host;
  auto& s = *static_cast<NativeComm*>(state);
  const Call call = decide_call(a, s, ctx);
  const Decision& d = call.decision;
  if (!d.algo || !d.cannot_run.empty() || !call.refused.empty()) return MPI_ERR_INTERN;
  const Plan& plan = s.plan(*d.algo, d.params, d.window);
  HostGraph graph(host, sched);
  // Each run counts itself (the communicator, and so its statistics,
  // outlive every schedule made on it: MPICH's vertices hold references).
  CommStats* stats = s.stats().get();
  const char* op = nb_op(call.alltoallv, persistent != 0);
  const char* name = d.algo->name;
  GraphDone done = [stats, op, name](const GraphStats& run) {
    stats_add(*stats, op, name, run.rounds, run.bytes_sent);
  };
  int err;
  if (!call.alltoallv)
    err = build_alltoall_graph(plan, alltoall_args(*a), d.window, graph, std::move(done));
  else
    err = build_alltoallv_graph(plan, AlltoallvInts(*a, s.size()).args(), d.window, graph,
                                std::make_unique<NativeTransport>(host, comm), std::move(done));
  if (err != MPI_SUCCESS) return err;
  report(call.alltoallv ? "MPI_Ialltoallv" : "MPI_Ialltoall", d, s,
         call.alltoallv ? send_bytes(*a, s.size()) : call.bytes);
  return MPI_SUCCESS;
}

// The C boundary: no C++ exception reaches MPICH.
MPICH_Coll_plugin_verdict check(const MPICH_Coll_plugin_args* a, MPICH_Coll_plugin_comm*,
                                void* state, void* ctx, int persistent, char* why, int why_len) {
  try {
    return check_impl(a, state, ctx, persistent, why, why_len);
  } catch (...) {
    std::snprintf(why, static_cast<size_t>(why_len), "topoa2a: out of memory deciding");
    return MPICH_COLL_PLUGIN_CANNOT_RUN;
  }
}

int build(const MPICH_Coll_plugin_args* a, MPICH_Coll_plugin_comm* comm, void* state, void* ctx,
          int persistent, MPICH_Coll_plugin_sched* sched) {
  try {
    return build_impl(a, comm, state, ctx, persistent, sched);
  } catch (const std::bad_alloc&) {
    return MPI_ERR_NO_MEM;
  } catch (...) {
    return MPI_ERR_INTERN;
  }
}

}  // namespace

int register_sched_algorithms(const MPICH_Coll_plugin_host& host) {
  auto add = [&](MPICH_Coll_plugin_coll coll, const char* name, const Algorithm* a) {
    MPICH_Coll_plugin_sched_algorithm alg{};
    alg.coll = coll;
    alg.name = name;
    alg.check = check;
    alg.build = build;
    alg.ctx = const_cast<Algorithm*>(a);
    return host.register_sched_algorithm(&alg);
  };
  int err = MPI_SUCCESS;
  for (const Algorithm& a : algorithms()) {
    if (err == MPI_SUCCESS) err = add(MPICH_COLL_PLUGIN_IALLTOALL, a.name, &a);
    if (err == MPI_SUCCESS && a.alltoallv) err = add(MPICH_COLL_PLUGIN_IALLTOALLV, a.name, &a);
  }
  if (err == MPI_SUCCESS) err = add(MPICH_COLL_PLUGIN_IALLTOALL, "topo_auto", nullptr);
  if (err == MPI_SUCCESS) err = add(MPICH_COLL_PLUGIN_IALLTOALLV, "topo_auto", nullptr);
  return err;
}

}  // namespace topoa2a::native
