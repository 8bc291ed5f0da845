// The dependency graphs a scheduler runs by itself (coll/graph.h; MPICH's
// gentran in the native door's nonblocking calls), without MPI: every
// rank's graph is built into a recording builder, then one simulated
// machine runs all of them the way gentran does: a vertex is issued once
// the vertices it waits for have completed, copies and joins complete when
// issued, sends and receives between a pair of ranks match in the order
// they were issued (MPI's non-overtaking rule) and complete at random
// moments (a send either when its receive takes it or, eager, at any
// moment after it was issued). For every algorithm, p up to 16 (odd, even,
// prime, powers of two), windows 0 .. p and 32, MPI_Alltoall (in place or
// not) and MPI_Alltoallv of the direct exchanges: every block must arrive
// exactly once at its place (payloads encode source, destination and
// element), every vertex must complete (no deadlock), no message may be
// longer than its receive, and no vertex may write bytes that a pending
// message reads or fills.
#include "coll/graph.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "coll/algorithms.h"
#include "coll/plan.h"

namespace topoa2a::test {
namespace {

long long encode(int s, int d, int i) { return ((s * 64LL + d) * 8 + i) + 1; }
int vcount(int s, int d) { return (s + 2 * d) % 3; }  // alltoallv: 0, 1 or 2 elements
constexpr int kN = 2;                                 // elements per block, alltoall

MPI_Aint elem_size(MPI_Datatype t) { return t == MPI_BYTE ? 1 : 8; }

struct Vertex {
  enum Kind { kSend, kRecv, kCopy, kJoin, kCallback } kind;
  std::vector<int> after;
  Message m{};                                // send, recv
  const void* const* deferred_buf = nullptr;  // deferred send, recv: read when issued
  const MPI_Aint* deferred_count = nullptr;
  int (*fn)(void*) = nullptr;  // callback
  void* data = nullptr;
  const char* in = nullptr;
  char* out = nullptr;
  MPI_Aint in_bytes = 0, out_bytes = 0;
  int state = 0;  // 0 waiting, 1 issued, 2 complete
};

class Recorder final : public GraphBuilder {
 public:
  std::vector<Vertex> v;
  std::vector<std::unique_ptr<char[]>> memory;
  int send(const Message& m, const std::vector<int>& after, int* vtx) override {
    return add(Vertex{Vertex::kSend, after, m}, vtx);
  }
  int recv(const Message& m, const std::vector<int>& after, int* vtx) override {
    return add(Vertex{Vertex::kRecv, after, m}, vtx);
  }
  int copy(const void* in, MPI_Aint incount, MPI_Datatype intype, void* out, MPI_Aint outcount,
           MPI_Datatype outtype, const std::vector<int>& after, int* vtx) override {
    Vertex x{Vertex::kCopy, after};
    x.in = static_cast<const char*>(in);
    x.out = static_cast<char*>(out);
    x.in_bytes = incount * elem_size(intype);
    x.out_bytes = outcount * elem_size(outtype);
    return add(x, vtx);
  }
  int join(const std::vector<int>& after, int* vtx) override {
    return add(Vertex{Vertex::kJoin, after}, vtx);
  }
  int callback(int (*fn)(void*), void* data, const std::vector<int>& after, int* vtx) override {
    Vertex x{Vertex::kCallback, after};
    x.fn = fn;
    x.data = data;
    return add(x, vtx);
  }
  int send_deferred(const void* const* buf, const MPI_Aint* count, MPI_Datatype type, int peer,
                    const std::vector<int>& after, int* vtx) override {
    Vertex x{Vertex::kSend, after, {nullptr, 0, type, peer}};
    x.deferred_buf = buf;
    x.deferred_count = count;
    return add(x, vtx);
  }
  int recv_deferred(void* const* buf, const MPI_Aint* count, MPI_Datatype type, int peer,
                    const std::vector<int>& after, int* vtx) override {
    Vertex x{Vertex::kRecv, after, {nullptr, 0, type, peer}};
    x.deferred_buf = const_cast<const void* const*>(buf);
    x.deferred_count = count;
    return add(x, vtx);
  }
  int keep(std::unique_ptr<GraphState> state) override {
    kept.push_back(std::move(state));
    return MPI_SUCCESS;
  }
  std::vector<std::unique_ptr<GraphState>> kept;
  void* alloc(MPI_Aint bytes) override {
    memory.emplace_back(new char[static_cast<size_t>(std::max<MPI_Aint>(1, bytes))]);
    std::memset(memory.back().get(), 0x5a, static_cast<size_t>(std::max<MPI_Aint>(1, bytes)));
    return memory.back().get();
  }
  int type_info(MPI_Datatype type, TypeInfo* info) override {
    info->size = info->extent = info->true_extent = elem_size(type);
    info->true_lb = 0;
    info->memcpy_ok = true;
    return MPI_SUCCESS;
  }

 private:
  int add(Vertex x, int* vtx) {
    for (int a : x.after)
      if (a < 0 || a >= static_cast<int>(v.size())) return MPI_ERR_INTERN;  // not yet made
    *vtx = static_cast<int>(v.size());
    v.push_back(std::move(x));
    return MPI_SUCCESS;
  }
};

// The simulated machine.
class Machine {
 public:
  Machine(std::vector<Recorder>& ranks, unsigned seed)
      : r_(ranks),
        p_(static_cast<int>(ranks.size())),
        rng_(seed),
        sends_(static_cast<size_t>(p_) * p_),
        recvs_(static_cast<size_t>(p_) * p_) {
    for (Recorder& r : r_)  // a graph runs again from the start (persistent requests)
      for (Vertex& x : r.v) x.state = 0;
  }

  std::vector<std::string> run() {
    for (int rank = 0; rank < p_; ++rank) issue_ready(rank);
    while (errors_.size() < 10) {
      // Events: a match of a pair's first send and receive, or an eager
      // completion of an issued send.
      std::vector<std::pair<int, int>> events;  // (kind 0 match / 1 eager, index)
      for (int c = 0; c < p_ * p_; ++c)
        if (!sends_[c].empty() && !recvs_[c].empty()) events.push_back({0, c});
      for (size_t e = 0; e < eager_.size(); ++e) events.push_back({1, static_cast<int>(e)});
      if (events.empty()) break;
      const auto ev = events[std::uniform_int_distribution<size_t>(0, events.size() - 1)(rng_)];
      if (ev.first == 0)
        match(ev.second);
      else
        eager(ev.second);
    }
    for (int rank = 0; rank < p_; ++rank)
      for (size_t i = 0; i < r_[rank].v.size(); ++i)
        if (r_[rank].v[i].state != 2) {
          errors_.push_back("rank " + std::to_string(rank) + " vertex " + std::to_string(i) +
                            " never completed (deadlock)");
          break;
        }
    return errors_;
  }

 private:
  struct Pending {
    int rank, vtx;
    bool completed = false;  // a send reported early (eager)
  };

  Vertex& at(int rank, int vtx) { return r_[rank].v[static_cast<size_t>(vtx)]; }
  MPI_Aint bytes(const Message& m) const { return m.count * elem_size(m.type); }

  // Writing [lo, lo + n) of rank's memory: nothing pending may read or
  // fill it (except the writer itself).
  void check_write(int rank, const char* lo, MPI_Aint n, int self) {
    const char* hi = lo + n;
    for (const Pending& q : busy_)
      if (q.rank == rank && q.vtx != self) {
        const Vertex& x = at(q.rank, q.vtx);
        const char* a = static_cast<const char*>(x.m.buf);
        if (a < hi && lo < a + bytes(x.m))
          errors_.push_back("rank " + std::to_string(rank) + ": vertex " + std::to_string(self) +
                            " writes bytes pending vertex " + std::to_string(q.vtx) + " uses");
      }
  }

  void complete(int rank, int vtx) {
    at(rank, vtx).state = 2;
    busy_.erase(std::remove_if(busy_.begin(), busy_.end(),
                               [&](const Pending& q) { return q.rank == rank && q.vtx == vtx; }),
                busy_.end());
    for (int next : users_[rank][static_cast<size_t>(vtx)])
      if (--waiting_[rank][static_cast<size_t>(next)] == 0) issue(rank, next);
  }

  void issue_ready(int rank) {
    auto& vs = r_[rank].v;
    users_[rank].assign(vs.size(), {});
    waiting_[rank].assign(vs.size(), 0);
    for (size_t i = 0; i < vs.size(); ++i)
      for (int a : vs[i].after) {
        users_[rank][static_cast<size_t>(a)].push_back(static_cast<int>(i));
        ++waiting_[rank][i];
      }
    for (size_t i = 0; i < vs.size(); ++i)
      if (waiting_[rank][i] == 0 && vs[i].state == 0) issue(rank, static_cast<int>(i));
  }

  void issue(int rank, int id) {
    Vertex& x = at(rank, id);
    x.state = 1;
    if (x.deferred_buf) {
      x.m.buf = const_cast<void*>(*x.deferred_buf);
      x.m.count = *x.deferred_count;
    }
    if (x.kind == Vertex::kJoin) {
      complete(rank, id);
    } else if (x.kind == Vertex::kCallback) {
      if (x.fn(x.data) != MPI_SUCCESS)
        errors_.push_back("rank " + std::to_string(rank) + ": a callback failed");
      complete(rank, id);
    } else if (x.kind == Vertex::kCopy) {
      if (x.in_bytes != x.out_bytes) errors_.push_back("copy of mismatched sizes");
      check_write(rank, x.out, x.out_bytes, id);
      std::memmove(x.out, x.in, static_cast<size_t>(std::min(x.in_bytes, x.out_bytes)));
      complete(rank, id);
    } else if (x.kind == Vertex::kSend) {
      sends_[rank * p_ + x.m.peer].push_back({rank, id});
      busy_.push_back({rank, id});
      eager_.push_back({rank, id});
    } else {
      check_write(rank, static_cast<const char*>(x.m.buf), bytes(x.m), id);
      recvs_[x.m.peer * p_ + rank].push_back({rank, id});
      busy_.push_back({rank, id});
    }
  }

  void match(int c) {
    Pending s = sends_[c].front(), r = recvs_[c].front();
    sends_[c].erase(sends_[c].begin());
    recvs_[c].erase(recvs_[c].begin());
    const Vertex& sx = at(s.rank, s.vtx);
    const Vertex& rx = at(r.rank, r.vtx);
    if (bytes(sx.m) > bytes(rx.m))
      errors_.push_back("rank " + std::to_string(r.rank) + ": message truncated");
    auto copied = buffered_.find({s.rank, s.vtx});
    const void* from = copied != buffered_.end() ? copied->second.data() : sx.m.buf;
    if (bytes(sx.m) > 0 && bytes(rx.m) > 0)
      std::memcpy(rx.m.buf, from, static_cast<size_t>(std::min(bytes(sx.m), bytes(rx.m))));
    if (copied != buffered_.end()) buffered_.erase(copied);
    auto e = std::find_if(eager_.begin(), eager_.end(),
                          [&](const Pending& q) { return q.rank == s.rank && q.vtx == s.vtx; });
    const bool sent_early = e == eager_.end();
    if (!sent_early) eager_.erase(e);
    complete(r.rank, r.vtx);
    if (!sent_early) complete(s.rank, s.vtx);
  }

  // An eager send reports completion before its receive takes it: its
  // bytes are copied out now (MPI's buffer), and it stops being pending.
  void eager(int e) {
    const Pending s = eager_[static_cast<size_t>(e)];
    eager_.erase(eager_.begin() + e);
    const Vertex& x = at(s.rank, s.vtx);
    const char* b = static_cast<const char*>(x.m.buf);
    buffered_[{s.rank, s.vtx}].assign(b, b + bytes(x.m));
    complete(s.rank, s.vtx);
  }

  std::vector<Recorder>& r_;
  const int p_;
  std::mt19937 rng_;
  std::vector<std::vector<Pending>> sends_, recvs_;  // [src * p + dst], in issue order
  std::vector<Pending> busy_, eager_;
  std::vector<std::vector<std::vector<int>>> users_ = std::vector<std::vector<std::vector<int>>>(
      static_cast<size_t>(p_));  // per rank, per vertex: the vertices waiting for it
  std::vector<std::vector<int>> waiting_ =
      std::vector<std::vector<int>>(static_cast<size_t>(p_));  // deps not yet complete
  std::map<std::pair<int, int>, std::vector<char>> buffered_;  // eager sends' bytes
  std::vector<std::string> errors_;
};

struct RankData {
  std::vector<long long> send, recv;
  std::vector<int> sc, sd, rc, rd;
};

// What arrived on every rank: every block once, at its place.
void check_results(const std::vector<RankData>& data, int p, bool v,
                   std::vector<std::string>* errors) {
  for (int d = 0; d < p && errors->size() < 20; ++d) {
    const RankData& x = data[d];
    for (int s = 0; s < p; ++s) {
      const int n = v ? x.rc[s] : kN;
      const int at = v ? x.rd[s] : s * kN;
      for (int i = 0; i < n; ++i)
        if (x.recv[at + i] != encode(s, d, i))
          errors->push_back("rank " + std::to_string(d) + ": block from " + std::to_string(s) +
                            " element " + std::to_string(i) + " is wrong");
    }
    if (v && x.recv.back() != -1) errors->push_back("write past the receive blocks");
  }
}

// Element sizes for packing forwarded alltoallv blocks (8-byte elements:
// plain memcpy, see Recorder::type_info).
class Datatypes final : public Transport {
 public:
  int rank() const override { return 0; }
  int size() const override { return 0; }
  void post_send(int, const Message&, int) override {}
  void post_recv(int, const Message&, int) override {}
  void post_recv_any(int, int, std::vector<char>*, int) override {}
  void wait(const int*, int, std::vector<Completion>*) override {}
  int pack(const void*, MPI_Aint, MPI_Datatype, void*, MPI_Aint) override { return MPI_ERR_TYPE; }
  int unpack(const void*, MPI_Aint, void*, MPI_Aint, MPI_Datatype) override { return MPI_ERR_TYPE; }
  int type_info(MPI_Datatype type, TypeInfo* info) override {
    return Recorder().type_info(type, info);
  }
};

std::vector<std::string> run_graphs(const Algorithm& a, int p, int window, int mode,
                                    unsigned seed) {
  enum { kAlltoall, kInPlace, kAlltoallv };
  const Params params = resolve_params(p, Params{});
  std::vector<Plan> plans;
  for (int r = 0; r < p; ++r) {
    const Schedule s = a.build(p, r, params);
    plans.push_back(make_plan(s, p, r, window_depth(s, window)));
  }
  std::vector<Recorder> rec(static_cast<size_t>(p));
  std::vector<RankData> data(static_cast<size_t>(p));
  std::vector<std::vector<GraphStats>> runs(static_cast<size_t>(p));  // what `done` reported
  for (int me = 0; me < p; ++me) {
    RankData& x = data[me];
    GraphDone done = [&runs, me](const GraphStats& st) { runs[me].push_back(st); };
    int err;
    if (mode != kAlltoallv) {
      x.send.resize(static_cast<size_t>(p) * kN);
      x.recv.assign(static_cast<size_t>(p) * kN, -1);
      for (int d = 0; d < p; ++d)
        for (int i = 0; i < kN; ++i) x.send[d * kN + i] = encode(me, d, i);
      err = build_alltoall_graph(plans[me],
                                 {mode == kInPlace ? MPI_IN_PLACE : x.send.data(), kN,
                                  MPI_LONG_LONG, x.recv.data(), kN, MPI_LONG_LONG},
                                 window, rec[me], done);
    } else {
      int so = 0, ro = 0;
      for (int d = 0; d < p; ++d) {
        x.sc.push_back(vcount(me, d));
        x.sd.push_back(so);
        so += x.sc.back();
        x.rc.push_back(vcount(d, me));
        x.rd.push_back(ro);
        ro += x.rc.back();
      }
      x.send.resize(static_cast<size_t>(so) + 1);
      x.recv.assign(static_cast<size_t>(ro) + 1, -1);
      for (int d = 0; d < p; ++d)
        for (int i = 0; i < x.sc[d]; ++i) x.send[x.sd[d] + i] = encode(me, d, i);
      err = build_alltoallv_graph(plans[me],
                                  {x.send.data(), x.sc.data(), x.sd.data(), MPI_LONG_LONG,
                                   x.recv.data(), x.rc.data(), x.rd.data(), MPI_LONG_LONG},
                                  window, rec[me], std::make_unique<Datatypes>(), done);
    }
    if (err != MPI_SUCCESS) return {"rank " + std::to_string(me) + ": build failed"};
  }
  // Twice, as a persistent request runs: the second run must deliver
  // everything again into a cleared receive buffer.
  std::vector<std::string> errors;
  for (int run = 0; run < 2 && errors.empty(); ++run) {
    for (int me = 0; me < p; ++me) {
      RankData& x = data[me];
      std::fill(x.recv.begin(), x.recv.end(), -1);
      if (mode == kInPlace) x.recv = x.send;
    }
    Machine machine(rec, seed + 17u * static_cast<unsigned>(run));
    for (const auto& e : machine.run()) errors.push_back(e);
    for (int me = 0; me < p; ++me)
      if (runs[me].size() != static_cast<size_t>(run) + 1 ||
          runs[me].back().rounds != plans[me].rounds)
        errors.push_back("rank " + std::to_string(me) + ": run " + std::to_string(run) +
                         " not reported once, with its rounds");
    check_results(data, p, mode == kAlltoallv, &errors);
  }
  return errors;
}

class Graph : public ::testing::TestWithParam<const Algorithm*> {};

TEST_P(Graph, EveryBlockOnceNoDeadlockBuffersRespected) {
  const Algorithm& a = *GetParam();
  for (int p : {1, 2, 3, 4, 5, 6, 7, 8, 9, 12, 13, 16}) {
    if (!a.check(p, resolve_params(p, Params{})).empty()) continue;
    std::vector<int> windows;
    for (int w = 0; w <= p; ++w) windows.push_back(w);
    windows.push_back(32);
    for (int w : windows)
      for (int mode : {0, 1, 2})
        for (unsigned seed : {1u, 2u}) {
          SCOPED_TRACE(std::string(a.name) + " p=" + std::to_string(p) + " window " +
                       std::to_string(w) + " mode " +
                       (mode == 0   ? "alltoall"
                        : mode == 1 ? "in place"
                                    : "alltoallv") +
                       " seed " + std::to_string(seed));
          const auto errors = run_graphs(a, p, w, mode, seed * 7919u + p * 31u + w);
          for (const auto& e : errors) ADD_FAILURE() << e;
          if (!errors.empty()) return;
        }
  }
}

INSTANTIATE_TEST_SUITE_P(All, Graph, ::testing::ValuesIn([] {
                           std::vector<const Algorithm*> v;
                           for (const Algorithm& a : algorithms()) v.push_back(&a);
                           return v;
                         }()),
                         [](const ::testing::TestParamInfo<const Algorithm*>& info) {
                           return std::string(info.param->name);
                         });

// The window in the graph: a direct exchange's step k waits for exactly
// the steps the engine's admission would have completed first. With
// window w and one send and one receive per step (the 1-factor exchange on
// an even p), at most max(1, w / 2) steps are open at once: step k's first
// vertex waits for the join of step k - max(1, w / 2).
TEST(GraphWindow, StepsInFlightFollowTheWindow) {
  const int p = 8, me = 3;
  const Schedule s = algorithm(AlgorithmId::kOneFactor).build(p, me, Params{});
  for (int w : {0, 2, 4, 6, 32}) {
    const Plan plan = make_plan(s, p, me, window_depth(s, w));
    Recorder rec;
    std::vector<long long> send(p * kN, 1), recv(p * kN, 0);
    GraphStats st;
    ASSERT_EQ(
        build_alltoall_graph(plan, {send.data(), kN, MPI_LONG_LONG, recv.data(), kN, MPI_LONG_LONG},
                             w, rec, [&st](const GraphStats& run) { st = run; }),
        MPI_SUCCESS);
    for (Vertex& x : rec.v)  // the report callback, called directly
      if (x.kind == Vertex::kCallback) x.fn(x.data);
    EXPECT_EQ(st.messages_sent, p - 1);
    EXPECT_EQ(st.bytes_sent, (p - 1) * kN * 8LL);
    // Joins in order: the self copy's vertex first, then per step
    // send, recv, join.
    std::vector<int> joins, sends;
    for (size_t i = 0; i < rec.v.size(); ++i) {
      if (rec.v[i].kind == Vertex::kJoin) joins.push_back(static_cast<int>(i));
      if (rec.v[i].kind == Vertex::kSend) sends.push_back(static_cast<int>(i));
    }
    ASSERT_EQ(static_cast<int>(sends.size()), p - 1);
    const int open = std::min(p - 1, std::max(1, w / 2));
    for (int k = 0; k < p - 1; ++k) {
      const auto& after = rec.v[static_cast<size_t>(sends[k])].after;
      const bool waits =
          std::find(after.begin(), after.end(),
                    k >= open ? joins[static_cast<size_t>(k - open)] : -2) != after.end();
      EXPECT_EQ(waits, k >= open) << "window " << w << " step " << k;
    }
  }
}

}  // namespace
}  // namespace topoa2a::test
