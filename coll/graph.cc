#include "coll/graph.h"

#include <memory>
#include <utility>

#include "coll/graph_parts.h"

namespace topoa2a {
namespace detail {

namespace {

// MPI_IN_PLACE: *send works from a copy of the receive buffer's footprint.
int in_place_side(const Side& recv, int p, GraphBuilder& b, Side* send, std::vector<int>* base) {
  *send = recv;
  MPI_Aint lo = 0, hi = 0;
  if (!blocks_footprint(recv.info, p, recv.count, recv.counts, recv.displs, &lo, &hi))
    return MPI_SUCCESS;
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

}  // namespace

int send_side(const Side& recv, const Side* given, int p, int me, GraphBuilder& b, Side* send,
              std::vector<int>* base, std::vector<int>* extra) {
  if (!given) return in_place_side(recv, p, b, send, base);
  *send = *given;
  if (recv.bytes(me) == 0) return MPI_SUCCESS;
  int v;
  const int err = b.copy(send->addr(me), send->block_count(me), send->type, recv.addr(me),
                         recv.block_count(me), recv.type, {}, &v);
  if (err == MPI_SUCCESS) extra->push_back(v);
  return err;
}

int alltoallv_sides(const AlltoallvArgs& args, GraphBuilder& b, Side* recv, Side* send) {
  recv->base = static_cast<const char*>(args.recvbuf);
  recv->type = args.recvtype;
  recv->counts = args.recvcounts;
  recv->displs = args.rdispls;
  if (const int err = b.type_info(args.recvtype, &recv->info); err != MPI_SUCCESS) return err;
  if (args.sendbuf == MPI_IN_PLACE) return MPI_SUCCESS;
  send->base = static_cast<const char*>(args.sendbuf);
  send->type = args.sendtype;
  send->counts = args.sendcounts;
  send->displs = args.sdispls;
  return b.type_info(args.sendtype, &send->info);
}

int add_steps(const Plan& plan, int window, GraphBuilder& b, const std::vector<int>& base,
              const StepAdder& add, int* last) {
  const int nsteps = static_cast<int>(plan.steps.size());
  std::vector<int> done(static_cast<size_t>(nsteps), -1);  // steps 0..k complete
  int j = 0;
  long long in_window = 0;  // messages of steps j..k
  for (int k = 0; k < nsteps; ++k) {
    in_window += plan.steps[k].messages();
    while (j < k && (k - j >= plan.depth || in_window > window))
      in_window -= plan.steps[j++].messages();
    std::vector<int> enter = base;
    if (j > 0) enter.push_back(done[j - 1]);
    std::vector<int> vtx;
    if (const int err = add(plan.steps[k], enter, &vtx); err != MPI_SUCCESS) return err;
    if (k > 0) vtx.push_back(done[k - 1]);
    if (const int err = b.join(vtx, &done[k]); err != MPI_SUCCESS) return err;
  }
  std::vector<int> all = base;
  if (nsteps > 0) all.push_back(done[nsteps - 1]);
  return b.join(all, last);
}

}  // namespace detail

namespace {

using detail::at;
using detail::Side;

// What a fixed graph reports at the end of each run: the same every time.
struct FixedDone final : GraphState {
  GraphDone done;
  GraphStats stats;
  static int call(void* self) {
    auto& d = *static_cast<FixedDone*>(self);
    if (d.done) d.done(d.stats);
    return MPI_SUCCESS;
  }
};

// Fixed-size blocks in scratch slots of bs bytes (plan.h), or direct
// messages only (alltoallv of the direct exchanges: bs 0, no slots).
class Maker {
 public:
  Maker(const Plan& plan, GraphBuilder& b, const Side& send, const Side& recv, char* scratch,
        MPI_Aint bs, GraphStats* stats)
      : plan_(plan),
        b_(b),
        send_(send),
        recv_(recv),
        scratch_(scratch),
        bs_(bs),
        stats_(*stats),
        recv_vtx_(static_cast<size_t>(plan.messages), -1),
        last_send_(static_cast<size_t>(plan.p), -1),
        last_recv_(static_cast<size_t>(plan.p), -1) {}

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

 private:
  char* slot(int i) const { return scratch_ + static_cast<MPI_Aint>(i) * bs_; }

  const Plan& plan_;
  GraphBuilder& b_;
  const Side& send_;
  const Side& recv_;
  char* scratch_;
  const MPI_Aint bs_;
  GraphStats& stats_;
  std::vector<int> recv_vtx_;               // by message id
  std::vector<int> last_send_, last_recv_;  // by peer
};

// What both fixed graphs share: the send side (in place: a copy of the
// receive buffer, made first), the scratch slots, the self copy, the
// steps, and the report at the end.
int build_fixed(const Plan& plan, int window, GraphBuilder& b, const Side& recv, const Side* given,
                MPI_Aint bs, GraphDone done) {
  Side send;
  std::vector<int> base, extra;
  if (const int err = detail::send_side(recv, given, plan.p, plan.rank, b, &send, &base, &extra);
      err != MPI_SUCCESS)
    return err;
  char* scratch = nullptr;
  if (plan.scratch_slots > 0 && bs > 0) {
    scratch = static_cast<char*>(b.alloc(plan.scratch_slots * bs));
    if (!scratch) return MPI_ERR_NO_MEM;
  }
  auto report = std::make_unique<FixedDone>();
  FixedDone* r = report.get();
  r->done = std::move(done);
  r->stats.rounds = plan.rounds;
  if (const int err = b.keep(std::move(report)); err != MPI_SUCCESS) return err;
  Maker maker(plan, b, send, recv, scratch, bs, &r->stats);
  int last;
  const int err = detail::add_steps(
      plan, window, b, base,
      [&](const PlanStep& step, const std::vector<int>& enter, std::vector<int>* vtx) {
        return maker.add_step(step, enter, vtx);
      },
      &last);
  if (err != MPI_SUCCESS) return err;
  extra.push_back(last);
  return detail::add_callback(b, detail::guarded<FixedDone::call>, r, extra);
}

}  // namespace

int build_alltoall_graph(const Plan& plan, const AlltoallArgs& args, int window, GraphBuilder& b,
                         GraphDone done) {
  Side recv, send;
  recv.base = static_cast<const char*>(args.recvbuf);
  recv.type = args.recvtype;
  recv.count = args.recvcount;
  if (const int err = b.type_info(args.recvtype, &recv.info); err != MPI_SUCCESS) return err;
  const MPI_Aint bs = recv.bytes(0);
  const bool in_place = args.sendbuf == MPI_IN_PLACE;
  if (!in_place) {
    send.base = static_cast<const char*>(args.sendbuf);
    send.type = args.sendtype;
    send.count = args.sendcount;
    if (const int err = b.type_info(args.sendtype, &send.info); err != MPI_SUCCESS) return err;
    if (send.bytes(0) != bs) return MPI_ERR_TRUNCATE;  // mismatched type signatures
  }
  if (bs == 0) {  // nothing to move, as in MPICH: only the report
    Plan none;
    none.p = plan.p;
    none.rank = plan.rank;
    return build_fixed(none, window, b, recv, in_place ? nullptr : &send, 0, std::move(done));
  }
  return build_fixed(plan, window, b, recv, in_place ? nullptr : &send, bs, std::move(done));
}

namespace detail {
// graph_v.cc: an alltoallv plan that forwards blocks.
int build_forwarding_alltoallv(const Plan& plan, const AlltoallvArgs& args, int window,
                               GraphBuilder& b, std::unique_ptr<Transport> datatypes,
                               GraphDone done);
}  // namespace detail

int build_alltoallv_graph(const Plan& plan, const AlltoallvArgs& args, int window, GraphBuilder& b,
                          std::unique_ptr<Transport> datatypes, GraphDone done) {
  if (!plan.all_direct)
    return detail::build_forwarding_alltoallv(plan, args, window, b, std::move(datatypes),
                                              std::move(done));
  Side recv, send;
  if (const int err = detail::alltoallv_sides(args, b, &recv, &send); err != MPI_SUCCESS)
    return err;
  const bool in_place = args.sendbuf == MPI_IN_PLACE;
  return build_fixed(plan, window, b, recv, in_place ? nullptr : &send, 0, std::move(done));
}

}  // namespace topoa2a
