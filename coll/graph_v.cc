// An alltoallv plan that forwards blocks, as a graph (graph.h): the
// executor's own alltoallv payload (exec_v.cc) packs and unpacks the
// self-describing messages in callbacks; each forwarded message travels as
// its length (one MPI_AINT) and then itself, in a deferred vertex whose
// buffer and size the callbacks set when the run reaches it.
#include <memory>
#include <utility>

#include "coll/exec_engine.h"
#include "coll/graph_parts.h"

namespace topoa2a::detail {
namespace {

// Everything the callbacks use, kept by the builder with the graph.
struct VState final : GraphState {
  Plan plan;  // a copy: the payload knows the plan's sends and receives by address
  std::vector<int> sc, sd, rc, rd;
  std::unique_ptr<Transport> datatypes;
  std::unique_ptr<Payload> payload;
  GraphDone done;
  GraphStats stats;            // of a run: bytes of the forwarded messages counted at run time
  long long direct_bytes = 0;  // the direct messages' (the same every run)
  long long bytes_at_start = 0;
  int failed = MPI_SUCCESS;

  struct Slot {
    void* buf = nullptr;
    MPI_Aint count = 0;  // bytes of the message
    MPI_Aint len = 0;    // its length, as sent first
  };
  struct Ref {
    VState* st;
    int id;
  };
  std::vector<Slot> slots;  // by message id
  std::vector<Ref> refs;    // by message id: callback data
  std::vector<const PlanSend*> send_of;
  std::vector<const PlanRecv*> recv_of;

  int note(int err) {
    if (err != MPI_SUCCESS && failed == MPI_SUCCESS) failed = err;
    return err;
  }

  // The callbacks.
  static int start(void* self) {
    auto& s = *static_cast<VState*>(self);
    s.failed = MPI_SUCCESS;
    s.bytes_at_start = s.payload->bytes_sent();
    return MPI_SUCCESS;
  }
  static int finish(void* self) {
    auto& s = *static_cast<VState*>(self);
    GraphStats run = s.stats;
    run.bytes_sent = s.direct_bytes + s.payload->bytes_sent() - s.bytes_at_start;
    if (s.done && s.failed == MPI_SUCCESS) s.done(run);
    return MPI_SUCCESS;
  }
  // A forwarded message is packed once its blocks are here; a failure
  // sends an empty one (its receiver reports it), so the traffic goes on.
  static int pack(void* ref) {
    auto& [s, id] = *static_cast<Ref*>(ref);
    Slot& slot = s->slots[static_cast<size_t>(id)];
    Message m{nullptr, 0, MPI_BYTE, 0};
    const int err = s->note(s->payload->send_message(*s->send_of[static_cast<size_t>(id)], &m));
    slot.buf = err == MPI_SUCCESS ? m.buf : nullptr;
    slot.count = slot.len = err == MPI_SUCCESS ? m.count : 0;
    return err;
  }
  static int sent(void* ref) {
    auto& [s, id] = *static_cast<Ref*>(ref);
    s->payload->sent(*s->send_of[static_cast<size_t>(id)]);
    return MPI_SUCCESS;
  }
  // Its length has arrived: make room for it.
  static int size(void* ref) {
    auto& [s, id] = *static_cast<Ref*>(ref);
    Slot& slot = s->slots[static_cast<size_t>(id)];
    Message m{};
    std::vector<char>* into = nullptr;
    s->payload->recv_message(*s->recv_of[static_cast<size_t>(id)], &m, &into);
    into->resize(static_cast<size_t>(slot.len > 0 ? slot.len : 0));
    slot.buf = into->data();
    slot.count = static_cast<MPI_Aint>(into->size());
    return MPI_SUCCESS;
  }
  static int received(void* ref) {
    auto& [s, id] = *static_cast<Ref*>(ref);
    return s->note(s->payload->received(*s->recv_of[static_cast<size_t>(id)]));
  }
};

class VMaker {
 public:
  VMaker(VState& st, GraphBuilder& b, const Side& send, const Side& recv)
      : st_(st),
        b_(b),
        send_(send),
        recv_(recv),
        unpacked_(static_cast<size_t>(st.plan.messages), -1),
        last_send_(static_cast<size_t>(st.plan.p), -1),
        last_recv_(static_cast<size_t>(st.plan.p), -1) {}

  int add_step(const PlanStep& step, const std::vector<int>& enter, std::vector<int>* vtx) {
    for (size_t i = 0; i < step.sends.size(); ++i) {
      const PlanSend& s = step.sends[i];
      const int id = step.first_id + static_cast<int>(i);
      int& prev = last_send_[static_cast<size_t>(s.peer)];
      std::vector<int> deps = enter;
      if (prev >= 0) deps.push_back(prev);
      if (s.direct) {
        if (send_.bytes(s.user_block) == 0) continue;  // nothing, on both sides
        st_.stats.messages_sent += 1;
        st_.direct_bytes += send_.bytes(s.user_block);
        if (const int err = b_.send(send_.message(s.user_block, s.peer), deps, &prev); err)
          return err;
        vtx->push_back(prev);
        continue;
      }
      st_.stats.messages_sent += 1;
      for (int r : s.after) deps.push_back(unpacked_[static_cast<size_t>(r)]);
      VState::Slot& slot = st_.slots[static_cast<size_t>(id)];
      void* ref = &st_.refs[static_cast<size_t>(id)];
      int packed, length, message, done;
      if (int err = b_.callback(guarded<VState::pack>, ref, deps, &packed); err) return err;
      if (int err = b_.send({&slot.len, 1, MPI_AINT, s.peer}, {packed}, &length); err) return err;
      if (int err = b_.send_deferred(&slot.buf, &slot.count, MPI_BYTE, s.peer, {length}, &message);
          err)
        return err;
      if (int err = b_.callback(guarded<VState::sent>, ref, {message}, &done); err) return err;
      prev = message;
      vtx->insert(vtx->end(), {packed, length, message, done});
    }
    const int first = step.first_id + static_cast<int>(step.sends.size());
    for (size_t i = 0; i < step.recvs.size(); ++i) {
      const PlanRecv& r = step.recvs[i];
      const int id = first + static_cast<int>(i);
      int& prev = last_recv_[static_cast<size_t>(r.peer)];
      std::vector<int> deps = enter;
      if (prev >= 0) deps.push_back(prev);
      if (r.direct) {
        if (recv_.bytes(r.user_block) == 0) continue;
        if (const int err = b_.recv(recv_.message(r.user_block, r.peer), deps, &prev); err)
          return err;
        unpacked_[static_cast<size_t>(id)] = prev;
        vtx->push_back(prev);
        continue;
      }
      VState::Slot& slot = st_.slots[static_cast<size_t>(id)];
      void* ref = &st_.refs[static_cast<size_t>(id)];
      int length, sized, message, unpacked;
      if (int err = b_.recv({&slot.len, 1, MPI_AINT, r.peer}, deps, &length); err) return err;
      if (int err = b_.callback(guarded<VState::size>, ref, {length}, &sized); err) return err;
      if (int err = b_.recv_deferred(&slot.buf, &slot.count, MPI_BYTE, r.peer, {sized}, &message);
          err)
        return err;
      if (int err = b_.callback(guarded<VState::received>, ref, {message}, &unpacked); err)
        return err;
      prev = message;
      unpacked_[static_cast<size_t>(id)] = unpacked;
      vtx->insert(vtx->end(), {length, sized, message, unpacked});
    }
    return MPI_SUCCESS;
  }

 private:
  VState& st_;
  GraphBuilder& b_;
  const Side& send_;
  const Side& recv_;
  std::vector<int> unpacked_;               // by receive id: its blocks are delivered or held
  std::vector<int> last_send_, last_recv_;  // by peer
};

}  // namespace

int build_forwarding_alltoallv(const Plan& plan, const AlltoallvArgs& args, int window,
                               GraphBuilder& b, std::unique_ptr<Transport> datatypes,
                               GraphDone done) {
  auto owned = std::make_unique<VState>();
  VState& st = *owned;
  if (const int err = b.keep(std::move(owned)); err != MPI_SUCCESS) return err;
  st.plan = plan;
  st.datatypes = std::move(datatypes);
  st.done = std::move(done);
  st.stats.rounds = plan.rounds;
  const int p = plan.p;
  const bool in_place = args.sendbuf == MPI_IN_PLACE;
  st.rc.assign(args.recvcounts, args.recvcounts + p);
  st.rd.assign(args.rdispls, args.rdispls + p);
  if (!in_place) {
    st.sc.assign(args.sendcounts, args.sendcounts + p);
    st.sd.assign(args.sdispls, args.sdispls + p);
  }
  st.slots.resize(static_cast<size_t>(plan.messages));
  st.send_of.assign(static_cast<size_t>(plan.messages), nullptr);
  st.recv_of.assign(static_cast<size_t>(plan.messages), nullptr);
  for (int id = 0; id < plan.messages; ++id) st.refs.push_back({&st, id});
  for (const PlanStep& step : st.plan.steps) {
    for (size_t i = 0; i < step.sends.size(); ++i)
      st.send_of[static_cast<size_t>(step.first_id) + i] = &step.sends[i];
    for (size_t i = 0; i < step.recvs.size(); ++i)
      st.recv_of[static_cast<size_t>(step.first_id) + step.sends.size() + i] = &step.recvs[i];
  }

  const AlltoallvArgs kept{args.sendbuf,
                           in_place ? nullptr : st.sc.data(),
                           in_place ? nullptr : st.sd.data(),
                           args.sendtype,
                           args.recvbuf,
                           st.rc.data(),
                           st.rd.data(),
                           args.recvtype};
  Side recv, given, send;
  std::vector<int> base, extra;
  if (const int err = alltoallv_sides(kept, b, &recv, &given); err != MPI_SUCCESS) return err;
  if (const int err =
          send_side(recv, in_place ? nullptr : &given, p, plan.rank, b, &send, &base, &extra);
      err != MPI_SUCCESS)
    return err;
  if (const int err =
          make_alltoallv_payload(*st.datatypes, kept, send.base, plan.rank, &st.payload);
      err != MPI_SUCCESS)
    return err;

  int started;
  if (const int err = b.callback(guarded<VState::start>, &st, base, &started); err != MPI_SUCCESS)
    return err;
  VMaker maker(st, b, send, recv);
  int last;
  if (const int err = add_steps(
          st.plan, window, b, {started},
          [&](const PlanStep& step, const std::vector<int>& enter, std::vector<int>* vtx) {
            return maker.add_step(step, enter, vtx);
          },
          &last);
      err != MPI_SUCCESS)
    return err;
  extra.push_back(last);
  return add_callback(b, guarded<VState::finish>, &st, extra);
}

}  // namespace topoa2a::detail
