// The one executor's engine: runs a compiled plan (plan.h) as a dependency
// graph over a nonblocking transport, with a window of messages in flight.
// What the messages carry is the payload's business: fixed-size blocks for
// MPI_Alltoall (exec.cc), self-describing messages for MPI_Alltoallv
// (exec_v.cc). Internal to coll/.
//
// The window. Steps (the schedule's non-idle rounds) enter in order; the
// steps in flight are always a range [k, e) of consecutive steps, k the
// oldest incomplete one: as many whole steps as fit in `window` messages,
// at least one, at most the plan's depth. When a step enters, its sends
// whose blocks are present are posted (gathered first), then all its
// receives. A send is posted as soon as the receives that bring its blocks
// (PlanSend::after) have completed and every earlier send to the same peer
// is posted; receives from one peer are posted in schedule order. So the
// messages between two ranks are posted in schedule order on both sides,
// and MPI's non-overtaking rule matches each send with its receive. A step
// leaves when all its messages are complete; the window then slides. Round
// by round (window 0, or smaller than a round) is depth 1: the seed's
// rounds exactly.
//
// No deadlock, for any windows (each rank may use its own). Take the
// oldest step j that some rank has not completed. On every rank whose
// oldest incomplete step is j, step j is in the window, so all its
// receives are posted, and its sends are posted too: their blocks come
// from steps before j, complete, and so are all earlier sends to the same
// peer. On every other rank step j is complete. So every message of step j
// is posted on both sides and completes through MPI's progress alone,
// without any rank posting anything more: step j completes on every rank
// and j grows. This is why a rank waits only for messages of its own
// oldest step (Transport::wait's `oldest`) and why the window holds whole
// steps: a window of W single messages could hold one rank's send and its
// peer's send of one exchange, neither receive, and both wait forever.
//
// Errors: the first one (from the transport, packing or the payload) puts
// the rank in discard mode (transport.h): the rest of its messages are
// posted as lost / discarding ones, in the same order, so every peer
// completes its schedule; the error is returned.
//
// Blocking and nonblocking. The engine is a resumable state machine
// (Execution): the blocking call is `while (!progress(true))`, where each
// pass waits (Transport::wait) for messages of the oldest step; a
// nonblocking call (MPI_Ialltoall[v], persistent starts) calls
// progress(false) from MPI's progress, which only tests (Transport::test)
// and returns when nothing more has completed. Both take exactly the same
// steps (admit, post ready sends, complete) on whatever completed, so the
// argument above holds for any mix of blocking and nonblocking ranks as
// long as every rank keeps calling progress: a rank that tests instead of
// waiting posts the same messages in the same order, only later. The
// nonblocking path thus needs MPI progress on every rank (the front door
// says where it comes from), and each outstanding operation its own
// traffic (its own communicator, plugin/nonblocking.h). With several
// operations outstanding each is its own instance of the argument,
// provided a rank that waits for one keeps advancing all the others
// (ranks may complete them in different orders; the preload door's poll
// advances every outstanding operation).
#pragma once

#include <memory>
#include <vector>

#include "coll/exec.h"
#include "coll/exec_buffers.h"
#include "coll/plan.h"
#include "coll/transport.h"

namespace topoa2a::detail {

class Payload {
 public:
  virtual ~Payload() = default;
  // The message for send s, whose blocks are all present (gathers them).
  virtual int send_message(const PlanSend& s, Message* m) = 0;
  // Send s completed: its buffer may go.
  virtual void sent(const PlanSend& /*s*/) {}
  // Where receive r lands: true with *m for a receive of known length,
  // false with *into for one of unknown length.
  virtual bool recv_message(const PlanRecv& r, Message* m, std::vector<char>** into) = 0;
  // Receive r completed: deliver or keep its blocks.
  virtual int received(const PlanRecv& r) = 0;
  // Every message of the step completed.
  virtual void step_done(const PlanStep& /*step*/) {}
  // Bytes of the messages made so far (statistics).
  virtual long long bytes_sent() const = 0;
};

// MPI_Alltoallv's payload (exec_v.cc: self-describing forwarded messages)
// for a driver other than the engine (coll/graph_v.cc). send_base: where
// the send blocks are: args.sendbuf, or with MPI_IN_PLACE a copy of the
// receive buffer addressed like it (the send side then has the receive
// side's counts, displacements and type). The arrays of args must outlive
// the payload.
int make_alltoallv_payload(Transport& tr, const AlltoallvArgs& args, const void* send_base, int me,
                           std::unique_ptr<Payload>* out);

class Engine;

// One run of a plan with at most `window` messages in flight (0: round by
// round). `failure` may already hold an error (then everything runs in
// discard mode). The plan, transport, payload and failure must outlive it.
// Posts the first steps' messages when constructed.
class Execution {
 public:
  // own_scratch: working memory of its own (a run that outlives the call
  // that started it), rather than the thread's reused one.
  Execution(const Plan& plan, Transport& tr, Payload& payload, int window, Failure* failure,
            bool own_scratch);
  ~Execution();
  Execution(const Execution&) = delete;
  Execution& operator=(const Execution&) = delete;
  // Advances the run; block: until it is done. True when done (every
  // message complete and reported, Transport::finish called).
  bool progress(bool block);
  bool done() const { return done_; }
  long long sends_posted() const;

 private:
  Engine* engine_;
  Transport& tr_;
  bool done_ = false;
};

// The Operation of both executors (exec.cc, exec_v.cc): one Execution,
// its progress, result and statistics. A subclass describes the user's
// buffers (recording a bad argument in failure_), makes its payload and
// calls start(); without start() the operation is done at once with
// failure_'s code (nothing to transfer).
class PlanOperation : public Operation {
 public:
  bool progress(bool block) final;
  int result() const final { return failure_.code(); }
  const RunStats& stats() const final { return stats_; }

 protected:
  // Posts the first steps' messages. own_scratch: as for Execution.
  void start(const Plan& plan, Transport& tr, std::unique_ptr<Payload> payload, int window,
             bool own_scratch);

  Failure failure_;
  // What the payload works from, released with it once the run is done:
  // the copy MPI_IN_PLACE sends from, the scratch slots.
  std::unique_ptr<InPlaceCopy> in_place_copy_;
  std::unique_ptr<char, void (*)(void*)> scratch_{nullptr, [](void*) {}};

 private:
  std::unique_ptr<Payload> payload_;
  std::unique_ptr<Execution> run_;
  int rounds_ = 0;
  bool finished_ = false;
  RunStats stats_;
};

// Runs a started operation to completion (blocking); adds what it did to
// *stats (if given) when it succeeded. Returns its result.
int run_to_completion(Operation& op, RunStats* stats);

}  // namespace topoa2a::detail
