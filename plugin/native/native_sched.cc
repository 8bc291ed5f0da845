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
    return native_type_info(h_, type, info);
  }

 private:
  static int n(const std::vector<int>& v) { return static_cast<int>(v.size()); }
  static void release(void* state) { delete static_cast<GraphState*>(state); }
  const MPICH_Coll_plugin_host& h_;
  MPICH_Coll_plugin_sched* s_;
};

CallKind kind(int persistent) {
  return persistent ? CallKind::kPersistent : CallKind::kNonblocking;
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
  const char* op = op_name(call.alltoallv, kind(persistent));
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
  return check_call(a, state, ctx, kind(persistent), why, why_len);
}

int build(const MPICH_Coll_plugin_args* a, MPICH_Coll_plugin_comm* comm, void* state, void* ctx,
          int persistent, MPICH_Coll_plugin_sched* sched) {
  return c_status([&] { return build_impl(a, comm, state, ctx, persistent, sched); });
}

}  // namespace

int register_sched_algorithms(const MPICH_Coll_plugin_host& host) {
  return for_each_name([&](bool alltoallv, const char* name, const Algorithm* a) {
    MPICH_Coll_plugin_sched_algorithm alg{};
    alg.coll = alltoallv ? MPICH_COLL_PLUGIN_IALLTOALLV : MPICH_COLL_PLUGIN_IALLTOALL;
    alg.name = name;
    alg.check = check;
    alg.build = build;
    alg.ctx = const_cast<Algorithm*>(a);
    return host.register_sched_algorithm(&alg);
  });
}

}  // namespace topoa2a::native
