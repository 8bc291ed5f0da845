#include "coll/graph.h"

#include <algorithm>

#include "coll/exec_buffers.h"

namespace topoa2a {
namespace {

using detail::at;

// Where the user's blocks are: block i of a side is `count(i)` elements of
// its datatype at `addr(i)`.
struct Side {
  const char* base = nullptr;  // may be MPI_BOTTOM
  MPI_Datatype type = MPI_DATATYPE_NULL;
  TypeInfo info;
  MPI_Aint count = 0;           // alltoall: elements per block
  const int* counts = nullptr;  // alltoallv
  const int* displs = nullptr;  // alltoallv
  MPI_Aint block_count(int i) const { return counts ? counts[i] : count; }
  char* addr(int i) const {
    const MPI_Aint first = counts ? static_cast<MPI_Aint>(displs[i]) : i * count;
    return at(base, first * info.extent);
  }
  Message message(int i, int peer) const { return {addr(i), block_count(i), type, peer}; }
  MPI_Aint bytes(int i) const { return block_count(i) * info.size; }
};

class Maker {
 public:
  Maker(const Plan& plan, int window, GraphBuilder& b, const Side& send, const Side& recv,
        char* scratch, MPI_Aint bs, GraphStats* stats)
      : plan_(plan),
        window_(window),
        b_(b),
        send_(send),
        recv_(recv),
        scratch_(scratch),
        bs_(bs),
        stats_(*stats) {}

  // Every vertex waits for these (the in-place copy).
  std::vector<int> base;

  int build(int* last) {
    const int nsteps = static_cast<int>(plan_.steps.size());
    recv_vtx_.assign(static_cast<size_t>(plan_.messages), -1);
    last_send_.assign(static_cast<size_t>(plan_.p), -1);
    last_recv_.assign(static_cast<size_t>(plan_.p), -1);
    std::vector<int> done(static_cast<size_t>(nsteps), -1);  // steps 0..k complete
    int j = 0;
    long long in_window = 0;  // messages of steps j..k
    for (int k = 0; k < nsteps; ++k) {
      in_window += plan_.steps[k].messages();
      while (j < k && (k - j >= plan_.depth || in_window > window_))
        in_window -= plan_.steps[j++].messages();
      std::vector<int> enter = base;
      if (j > 0) enter.push_back(done[j - 1]);
      std::vector<int> step_vtx;
      if (const int err = add_step(plan_.steps[k], enter, &step_vtx); err != MPI_SUCCESS)
        return err;
      if (k > 0) step_vtx.push_back(done[k - 1]);
      if (const int err = b_.join(step_vtx, &done[k]); err != MPI_SUCCESS) return err;
    }
    std::vector<int> all = base;
    all.insert(all.end(), extra_.begin(), extra_.end());
    if (nsteps > 0) all.push_back(done[nsteps - 1]);
    stats_.rounds = plan_.rounds;
    return b_.join(all, last);
  }

  // A vertex the last one waits for besides the steps (the self copy).
  void add_extra(int vtx) { extra_.push_back(vtx); }

 private:
  char* slot(int i) const { return scratch_ + static_cast<MPI_Aint>(i) * bs_; }

  int add_step(const PlanStep& step, const std::vector<int>& enter, std::vector<int>* vtx) {
    std::vector<int> gathers;  // of the whole step
    for (const PlanSend& s : step.sends) {
      Message m;
      std::vector<int> deps = enter;
      if (s.direct) {
        if (send_.bytes(s.user_block) == 0) continue;  // nothing, on both sides
        m = send_.message(s.user_block, s.peer);
      } else {
        std::vector<int> have = enter;
        for (int id : s.after) have.push_back(recv_vtx_[static_cast<size_t>(id)]);
        std::vector<int> mine;
        for (size_t i = 0; i < s.gather.size(); ++i) {
          const Loc& loc = s.gather[i];
          char* to = slot(s.first_slot + static_cast<int>(i));
          int v;
          const int err = loc.kind == Loc::kScratch
                              ? b_.copy(slot(loc.index), bs_, MPI_BYTE, to, bs_, MPI_BYTE, have, &v)
                              : b_.copy(send_.addr(loc.index), send_.count, send_.type, to, bs_,
                                        MPI_BYTE, have, &v);
          if (err != MPI_SUCCESS) return err;
          mine.push_back(v);
        }
        gathers.insert(gathers.end(), mine.begin(), mine.end());
        vtx->insert(vtx->end(), mine.begin(), mine.end());
        deps = mine.empty() ? have : mine;
        m = {slot(s.first_slot), s.nblocks * bs_, MPI_BYTE, s.peer};
      }
      int& prev = last_send_[static_cast<size_t>(s.peer)];
      if (prev >= 0) deps.push_back(prev);
      if (const int err = b_.send(m, deps, &prev); err != MPI_SUCCESS) return err;
      vtx->push_back(prev);
      stats_.messages_sent += 1;
      stats_.bytes_sent += s.direct ? send_.bytes(s.user_block) : s.nblocks * bs_;
    }
    const int first = step.first_id + static_cast<int>(step.sends.size());
    for (size_t i = 0; i < step.recvs.size(); ++i) {
      const PlanRecv& r = step.recvs[i];
      if (r.direct && recv_.bytes(r.user_block) == 0) continue;
      std::vector<int> deps = enter;
      if (plan_.depth == 1) deps.insert(deps.end(), gathers.begin(), gathers.end());
      int& prev = last_recv_[static_cast<size_t>(r.peer)];
      if (prev >= 0) deps.push_back(prev);
      const Message m = r.direct ? recv_.message(r.user_block, r.peer)
                                 : Message{slot(r.first_slot), r.nblocks * bs_, MPI_BYTE, r.peer};
      if (const int err = b_.recv(m, deps, &prev); err != MPI_SUCCESS) return err;
      recv_vtx_[static_cast<size_t>(first + static_cast<int>(i))] = prev;
      vtx->push_back(prev);
      for (const Delivery& d : r.deliveries) {
        int v;
        if (const int err = b_.copy(slot(d.slot), bs_, MPI_BYTE, recv_.addr(d.user_block),
                                    recv_.count, recv_.type, {prev}, &v);
            err != MPI_SUCCESS)
          return err;
        vtx->push_back(v);
      }
    }
    // Round by round: staging -> pool once the step is complete, in order.
    std::vector<int> after = *vtx;
    for (const Move& mv : step.moves) {
      int v;
      if (const int err =
              b_.copy(slot(mv.from), bs_, MPI_BYTE, slot(mv.to), bs_, MPI_BYTE, after, &v);
          err != MPI_SUCCESS)
        return err;
      after = {v};
      vtx->push_back(v);
    }
    return MPI_SUCCESS;
  }

  const Plan& plan_;
  const int window_;
  GraphBuilder& b_;
  const Side& send_;
  const Side& recv_;
  char* scratch_;
  const MPI_Aint bs_;
  GraphStats& stats_;
  std::vector<int> recv_vtx_;               // by message id
  std::vector<int> last_send_, last_recv_;  // by peer
  std::vector<int> extra_;
};

// Bytes [lo, hi) of the receive buffer that its p blocks cover; false when
// they cover none.
bool recv_footprint(const Side& recv, int p, MPI_Aint* lo, MPI_Aint* hi) {
  bool any = false;
  for (int i = 0; i < p; ++i) {
    const MPI_Aint n = recv.block_count(i);
    if (n == 0) continue;
    const MPI_Aint first = recv.counts ? static_cast<MPI_Aint>(recv.displs[i]) * recv.info.extent
                                       : i * recv.count * recv.info.extent;
    MPI_Aint l, h;
    detail::footprint(recv.info, first, n, &l, &h);
    *lo = any ? std::min(*lo, l) : l;
    *hi = any ? std::max(*hi, h) : h;
    any = true;
  }
  return any;
}

// MPI_IN_PLACE: the sends work from a copy of the receive buffer's
// footprint, made by the first vertex (in maker.base).
int in_place_side(const Side& recv, int p, GraphBuilder& b, Side* send, std::vector<int>* base) {
  *send = recv;
  MPI_Aint lo = 0, hi = 0;
  if (!recv_footprint(recv, p, &lo, &hi)) return MPI_SUCCESS;
  char* copy = static_cast<char*>(b.alloc(hi - lo));
  if (!copy) return MPI_ERR_NO_MEM;
  int v;
  if (const int err = b.copy(at(recv.base, lo), hi - lo, MPI_BYTE, copy, hi - lo, MPI_BYTE, {}, &v);
      err != MPI_SUCCESS)
    return err;
  base->push_back(v);
  send->base = at(copy, -lo);
  return MPI_SUCCESS;
}

// The block a rank sends itself, when not in place.
int self_copy(const Side& send, const Side& recv, int me, GraphBuilder& b, Maker* maker) {
  if (recv.bytes(me) == 0) return MPI_SUCCESS;
  int v;
  const int err = b.copy(send.addr(me), send.block_count(me), send.type, recv.addr(me),
                         recv.block_count(me), recv.type, {}, &v);
  if (err == MPI_SUCCESS) maker->add_extra(v);
  return err;
}

// What both calls share: the send side (in place: a copy of the receive
// buffer, made first), the scratch slots, the self copy, the steps.
int build(const Plan& plan, int window, GraphBuilder& b, const Side& recv, const Side* given,
          MPI_Aint bs, int* last, GraphStats* stats) {
  Side send;
  std::vector<int> base;
  if (!given) {
    if (const int err = in_place_side(recv, plan.p, b, &send, &base); err != MPI_SUCCESS)
      return err;
  } else {
    send = *given;
  }
  char* scratch = nullptr;
  if (plan.scratch_slots > 0 && bs > 0) {
    scratch = static_cast<char*>(b.alloc(plan.scratch_slots * bs));
    if (!scratch) return MPI_ERR_NO_MEM;
  }
  Maker maker(plan, window, b, send, recv, scratch, bs, stats);
  maker.base = base;
  if (given)
    if (const int err = self_copy(send, recv, plan.rank, b, &maker); err != MPI_SUCCESS) return err;
  return maker.build(last);
}

}  // namespace

int build_alltoall_graph(const Plan& plan, const AlltoallArgs& args, int window, GraphBuilder& b,
                         int* last, GraphStats* stats) {
  *last = -1;
  *stats = GraphStats{};
  Side recv, send;
  recv.base = static_cast<const char*>(args.recvbuf);
  recv.type = args.recvtype;
  recv.count = args.recvcount;
  if (const int err = b.type_info(args.recvtype, &recv.info); err != MPI_SUCCESS) return err;
  const MPI_Aint bs = recv.bytes(0);
  if (bs == 0) return MPI_SUCCESS;  // nothing to receive, as in MPICH
  const bool in_place = args.sendbuf == MPI_IN_PLACE;
  if (!in_place) {
    send.base = static_cast<const char*>(args.sendbuf);
    send.type = args.sendtype;
    send.count = args.sendcount;
    if (const int err = b.type_info(args.sendtype, &send.info); err != MPI_SUCCESS) return err;
    if (send.bytes(0) != bs) return MPI_ERR_TRUNCATE;  // mismatched type signatures
  }
  return build(plan, window, b, recv, in_place ? nullptr : &send, bs, last, stats);
}

int build_alltoallv_graph(const Plan& plan, const AlltoallvArgs& args, int window, GraphBuilder& b,
                          int* last, GraphStats* stats) {
  *last = -1;
  *stats = GraphStats{};
  if (!graph_supports_alltoallv(plan)) return MPI_ERR_INTERN;
  Side recv, send;
  recv.base = static_cast<const char*>(args.recvbuf);
  recv.type = args.recvtype;
  recv.counts = args.recvcounts;
  recv.displs = args.rdispls;
  if (const int err = b.type_info(args.recvtype, &recv.info); err != MPI_SUCCESS) return err;
  const bool in_place = args.sendbuf == MPI_IN_PLACE;
  if (!in_place) {
    send.base = static_cast<const char*>(args.sendbuf);
    send.type = args.sendtype;
    send.counts = args.sendcounts;
    send.displs = args.sdispls;
    if (const int err = b.type_info(args.sendtype, &send.info); err != MPI_SUCCESS) return err;
  }
  return build(plan, window, b, recv, in_place ? nullptr : &send, 0, last, stats);
}

}  // namespace topoa2a
