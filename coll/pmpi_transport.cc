// PmpiTransport: its working memory, MPI_COMM_WORLD's error handler while it
// waits, and posting (pmpi_transport_complete.cc: completion).
#include "coll/pmpi_transport.h"

#include <mutex>

#include "coll/mpi_large_count.h"  // PMPI_*_c and MPICH_ERR_LAST_MPIX where SMPI lacks them

namespace topoa2a {

int error_class(int code) {
  int cls = MPI_ERR_OTHER;
  PMPI_Error_class(code, &cls);
  return cls;
}

namespace {

int lost_tag(int failed) {
  const int cls = error_class(failed);
  const bool predefined =
      cls > MPI_SUCCESS && cls <= MPICH_ERR_LAST_MPIX && cls <= PmpiTransport::kMaxLostClass;
  return PmpiTransport::kLostTag + (predefined ? cls : MPI_ERR_OTHER);
}

// MPI_COMM_WORLD's error handler is MPI_ERRORS_RETURN while any transport
// of this process waits (see pmpi_transport.h).
std::mutex g_world_mu;
int g_world_users = 0;
MPI_Errhandler g_world_saved = MPI_ERRHANDLER_NULL;

void world_returns_acquire() {
  std::lock_guard<std::mutex> lock(g_world_mu);
  if (g_world_users++ > 0) return;
  if (PMPI_Comm_get_errhandler(MPI_COMM_WORLD, &g_world_saved) == MPI_SUCCESS)
    PMPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  else
    g_world_saved = MPI_ERRHANDLER_NULL;
}

void world_returns_release() {
  std::lock_guard<std::mutex> lock(g_world_mu);
  if (--g_world_users > 0 || g_world_saved == MPI_ERRHANDLER_NULL) return;
  PMPI_Comm_set_errhandler(MPI_COMM_WORLD, g_world_saved);
  PMPI_Errhandler_free(&g_world_saved);
  g_world_saved = MPI_ERRHANDLER_NULL;
}

}  // namespace

PmpiTransport::State* PmpiTransport::take_state(bool* owned, bool own) {
  thread_local State state;
  *owned = own || state.busy;
  State* s = *owned ? new State : &state;
  s->busy = true;
  s->requests.clear();
  s->slots.clear();
  s->free.clear();
  s->held.clear();
  s->ready.clear();
  return s;
}

PmpiTransport::PmpiTransport(MPI_Comm comm, bool own_state)
    : comm_(comm),
      st_(take_state(&owned_, own_state)),
      requests_(st_->requests),
      slots_(st_->slots),
      free_(st_->free),
      held_(st_->held),
      keep_(st_->keep),
      blocked_(st_->blocked),
      ready_(st_->ready),
      indices_(st_->indices),
      statuses_(st_->statuses) {
  PMPI_Comm_rank(comm_, &rank_);
  PMPI_Comm_size(comm_, &size_);
}

void PmpiTransport::hold_world() {
  if (world_returns_) return;
  world_returns_acquire();
  world_returns_ = true;
}

void PmpiTransport::finish() {
  if (world_returns_) world_returns_release();
  world_returns_ = false;
}

PmpiTransport::~PmpiTransport() {
  finish();
  if (owned_)
    delete st_;
  else
    st_->busy = false;
}

int PmpiTransport::add(int id, Kind kind) {
  int i;
  if (!free_.empty()) {
    i = free_.back();
    free_.pop_back();
  } else {
    i = static_cast<int>(requests_.size());
    requests_.push_back(MPI_REQUEST_NULL);
    slots_.emplace_back();
  }
  Slot& s = slots_[i];
  s.id = id;
  s.kind = kind;
  s.err = MPI_SUCCESS;
  s.expected = 0;
  return i;
}

void PmpiTransport::post_send(int id, const Message& m, int failed) {
  const int i = add(id, Kind::kSend);
  int err = MPI_ERR_OTHER;
  if (failed == MPI_SUCCESS) {
    err = PMPI_Isend_c(m.buf, m.count, m.type, m.peer, kTag, comm_, &requests_[i]);
    slots_[i].err = err;
  }
  // The peer learns the class from the lost message sent instead.
  if (err != MPI_SUCCESS)
    PMPI_Isend_c(nullptr, 0, MPI_BYTE, m.peer, lost_tag(failed != MPI_SUCCESS ? failed : err),
                 comm_, &requests_[i]);
}

bool PmpiTransport::held_from(int peer) const {
  for (const Held& h : held_)
    if (h.m.peer == peer) return true;
  return false;
}

int PmpiTransport::start_recv(int id, const Message& m) {
  MPI_Count size = 1;
  if (m.type != MPI_BYTE) PMPI_Type_size_c(m.type, &size);
  const int i = add(id, Kind::kRecv);
  slots_[i].expected = m.count * size;
  const int err = PMPI_Irecv_c(m.buf, m.count, m.type, m.peer, MPI_ANY_TAG, comm_, &requests_[i]);
  if (err != MPI_SUCCESS) {
    requests_[i] = MPI_REQUEST_NULL;
    free_.push_back(i);
  }
  return err;
}

void PmpiTransport::post_recv(int id, const Message& m, int failed) {
  if (failed != MPI_SUCCESS) {
    held_.push_back({id, true, true, MPI_SUCCESS, m, nullptr});
  } else if (!held_.empty() && held_from(m.peer)) {
    held_.push_back({id, false, false, MPI_SUCCESS, m, nullptr});
  } else if (const int err = start_recv(id, m); err != MPI_SUCCESS) {
    held_.push_back({id, true, true, err, m, nullptr});  // take it by probe, report err
  }
}

void PmpiTransport::post_recv_any(int id, int peer, std::vector<char>* into, int failed) {
  held_.push_back(
      {id, true, failed != MPI_SUCCESS, MPI_SUCCESS, {nullptr, 0, MPI_BYTE, peer}, into});
}

}  // namespace topoa2a
