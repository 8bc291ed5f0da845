#include "plugin/nonblocking.h"

#include <algorithm>
#include <atomic>
#include <mutex>
#include <vector>

#include "plugin/comm_state.h"
#include "plugin/stats.h"

namespace topoa2a {
namespace {

// One outstanding operation: its private communicator, the agreement, then
// the run; its generalized request is completed once the run is done.
struct NbOp {
  enum class Phase { kSlot, kAgree, kRun, kDone } phase = Phase::kSlot;
  CommState* state = nullptr;
  int slot = 0;
  std::string stats_op;
  Launch launch;
  bool agree = false;
  long long mine = 0;
  long long agreement[2] = {0, 0};
  MPI_Request pending = MPI_REQUEST_NULL;  // the slot's idup, or the agreement
  MPI_Comm made = MPI_COMM_NULL;           // the slot communicator idup makes
  Launched run;
  int err = MPI_SUCCESS;
  MPI_Request greq = MPI_REQUEST_NULL;
  bool completed = false;          // MPI_Grequest_complete called
  std::atomic<bool> freed{false};  // MPI freed the request (free_fn)
};

std::recursive_mutex g_mu;
std::vector<NbOp*> g_ops;  // outstanding, in start order
std::atomic<int> g_live{0};
bool g_sweeping = false;
MPIX_Grequest_class g_class;
bool g_class_made = false;

MPI_Comm slot_comm(const NbOp& op) { return op.state->nb.slots[static_cast<size_t>(op.slot)]; }

// The slot's holder leaves; the state goes with its last operation once
// its communicator is freed.
void leave(NbOp* op) {
  CommState* s = op->state;
  if (s->nb.holder[static_cast<size_t>(op->slot)] == op)
    s->nb.holder[static_cast<size_t>(op->slot)] = nullptr;
  if (--s->nb.live == 0 && s->nb.orphaned) CommState::destroy(s);
  op->state = nullptr;
}

void finish(NbOp* op) {
  op->phase = NbOp::Phase::kDone;
  const RunStats* rs = op->run.op ? &op->run.op->stats() : nullptr;
  if (op->err == MPI_SUCCESS)
    stats_add(*op->state->stats(), op->stats_op, op->run.algo.empty() ? "mpich" : op->run.algo,
              rs ? rs->rounds : 0, rs ? rs->bytes_sent : 0);
  op->run.op.reset();  // the user's buffers are not touched from here on
  op->run.transport.reset();
  leave(op);
}

// The operation failed with err: it is done.
void failed(NbOp* op, int err) {
  op->err = err;
  finish(op);
}

void start_run(NbOp* op, bool agreed) {
  op->run = op->launch(slot_comm(*op), agreed);
  op->launch = nullptr;
  op->phase = NbOp::Phase::kRun;
  if (op->run.err != MPI_SUCCESS) failed(op, op->run.err);
}

// One nonblocking pass over an operation.
void step(NbOp* op) {
  int flag = 0;
  switch (op->phase) {
    case NbOp::Phase::kSlot:
      if (op->pending != MPI_REQUEST_NULL) {
        const int err = PMPI_Test(&op->pending, &flag, MPI_STATUS_IGNORE);
        if (err != MPI_SUCCESS) return failed(op, err);
        if (!flag) return;
        op->state->nb.slots[static_cast<size_t>(op->slot)] = op->made;
      }
      if (op->agree) {
        op->agreement[0] = op->mine;
        op->agreement[1] = -op->mine;
        const int err = PMPI_Iallreduce(MPI_IN_PLACE, op->agreement, 2, MPI_LONG_LONG, MPI_MAX,
                                        slot_comm(*op), &op->pending);
        if (err != MPI_SUCCESS) return failed(op, err);
        op->phase = NbOp::Phase::kAgree;
        return step(op);
      }
      return start_run(op, true);
    case NbOp::Phase::kAgree: {
      const int err = PMPI_Test(&op->pending, &flag, MPI_STATUS_IGNORE);
      if (err != MPI_SUCCESS) return failed(op, err);
      if (!flag) return;
      return start_run(op, op->agreement[0] == op->mine && op->agreement[1] == -op->mine);
    }
    case NbOp::Phase::kRun:
      if (op->run.op) {
        if (!op->run.op->progress(false)) return;
        op->err = op->run.op->result();
      } else {
        MPI_Status st;
        const int err = PMPI_Test(&op->run.mpich, &flag, &st);
        if (err != MPI_SUCCESS) return failed(op, err);
        if (!flag) return;
      }
      finish(op);
      return;
    case NbOp::Phase::kDone:
      return;
  }
}

void progress_locked() {
  const bool outer = !g_sweeping;
  g_sweeping = true;
  // Operations may be added while we step (none is: starts hold the lock).
  for (size_t i = 0; i < g_ops.size(); ++i) {
    NbOp* op = g_ops[i];
    if (op->phase != NbOp::Phase::kDone) step(op);
    if (op->phase == NbOp::Phase::kDone && !op->completed) {
      op->completed = true;
      PMPI_Grequest_complete(op->greq);
    }
  }
  if (!outer) return;
  g_sweeping = false;
  auto gone = [](NbOp* op) {
    if (!(op->completed && op->freed.load())) return false;
    delete op;
    return true;
  };
  g_ops.erase(std::remove_if(g_ops.begin(), g_ops.end(), gone), g_ops.end());
  g_live.store(static_cast<int>(g_ops.size()));
}

// Called by MPICH under its critical section too: reads only what was set
// before MPI_Grequest_complete.
int query_fn(void* extra, MPI_Status* status) {
  auto* op = static_cast<NbOp*>(extra);
  if (status != MPI_STATUS_IGNORE) {
    PMPI_Status_set_elements(status, MPI_BYTE, 0);
    PMPI_Status_set_cancelled(status, 0);
    status->MPI_SOURCE = MPI_ANY_SOURCE;
    status->MPI_TAG = MPI_ANY_TAG;
  }
  return op->err;
}

// MPICH calls this holding its global critical section (MPI_Wait* /
// MPI_Test* completing the request, MPI_Request_free): taking our mutex
// here could wait for a thread that holds it and waits for MPICH's. So it
// only marks the operation; the next pass deletes it.
int free_fn(void* extra) {
  static_cast<NbOp*>(extra)->freed.store(true);
  return MPI_SUCCESS;
}

// Collective operations cannot be cancelled (MPI): nothing to do.
int cancel_fn(void*, int) { return MPI_SUCCESS; }

int poll_fn(void*, MPI_Status*) {
  nb_progress_all();
  return MPI_SUCCESS;
}

int wait_fn(int, void**, double, MPI_Status*) {
  nb_progress_all();
  return MPI_SUCCESS;
}

}  // namespace

void nb_progress_all() {
  std::lock_guard<std::recursive_mutex> lock(g_mu);
  progress_locked();
}

bool nb_any_live() { return g_live.load() > 0; }

bool nb_release_state(CommState* state) {
  std::lock_guard<std::recursive_mutex> lock(g_mu);
  if (state->nb.live == 0) return true;
  state->nb.orphaned = true;
  return false;
}

int nb_start(CommState& state, const char* stats_op, bool agree, long long agree_value,
             Launch launch, MPI_Request* request) {
  std::lock_guard<std::recursive_mutex> lock(g_mu);
  if (!g_class_made) {
    const int err =
        PMPIX_Grequest_class_create(query_fn, free_fn, cancel_fn, poll_fn, wait_fn, &g_class);
    if (err != MPI_SUCCESS) return err;
    g_class_made = true;
  }
  CommState::Nonblocking& nb = state.nb;
  if (nb.slots.empty()) {
    nb.slots.assign(kSlots, MPI_COMM_NULL);
    nb.holder.assign(kSlots, nullptr);
  }
  const int slot = static_cast<int>(nb.sequence++ % kSlots);
  // The operation kSlots before this one still holds the slot here.
  while (nb.holder[static_cast<size_t>(slot)] != nullptr) progress_locked();
  auto op = std::make_unique<NbOp>();
  op->state = &state;
  op->slot = slot;
  op->stats_op = stats_op;
  op->launch = std::move(launch);
  op->agree = agree;
  op->mine = agree_value;
  if (nb.slots[static_cast<size_t>(slot)] == MPI_COMM_NULL) {
    std::string why;
    const MPI_Comm shadow = state.shadow(MPI_COMM_NULL, &why);
    const int err = PMPI_Comm_idup(shadow, &op->made, &op->pending);
    if (err != MPI_SUCCESS) return err;
  }
  int err = PMPIX_Grequest_class_allocate(g_class, op.get(), &op->greq);
  if (err != MPI_SUCCESS) return err;  // an idup may be left behind: MPI is broken anyway
  nb.holder[static_cast<size_t>(slot)] = op.get();
  ++nb.live;
  *request = op->greq;
  g_ops.push_back(op.release());
  g_live.store(static_cast<int>(g_ops.size()));
  progress_locked();  // posts its first messages now
  return MPI_SUCCESS;
}

}  // namespace topoa2a
