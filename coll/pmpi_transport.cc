#include "coll/pmpi_transport.h"

#include <mutex>

#include "coll/mpi_large_count.h"

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

bool is_lost(const MPI_Status& st) { return st.MPI_TAG >= PmpiTransport::kLostTag; }

// The class a lost payload carries.
int lost_class(const MPI_Status& st) { return st.MPI_TAG - PmpiTransport::kLostTag; }

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

// Held receives, in posting order: for each peer the first one is posted
// (a known length) or probed for (it is posted once its message is there);
// the later ones from that peer wait.
void PmpiTransport::advance() {
  keep_.clear();
  blocked_.clear();
  auto blocked = [this](int peer) {
    for (int b : blocked_)
      if (b == peer) return true;
    return false;
  };
  for (const Held& h : held_) {
    if (blocked(h.m.peer)) {
      keep_.push_back(h);
      continue;
    }
    if (!h.any) {
      const int err = start_recv(h.id, h.m);
      if (err == MPI_SUCCESS) continue;
      keep_.push_back({h.id, true, true, err, h.m, nullptr});  // take it by probe
      blocked_.push_back(h.m.peer);
      continue;
    }
    int flag = 0;
    large_count::Probed probed;
    const int perr = large_count::probe(h.m.peer, MPI_ANY_TAG, comm_, &flag, &probed);
    if (perr != MPI_SUCCESS) {  // the communicator is broken: give up on this one
      ready_.push_back({h.id, h.discard ? MPI_SUCCESS : perr});
      continue;
    }
    if (!flag) {
      blocked_.push_back(h.m.peer);
      keep_.push_back(h);
      continue;
    }
    MPI_Count bytes = 0;
    PMPI_Get_count_c(&probed.status, MPI_BYTE, &bytes);
    const bool lost = is_lost(probed.status);
    int i, err;
    if (h.discard || lost) {
      i = add(h.id, Kind::kDiscard);
      Slot& s = slots_[i];
      s.err = h.discard ? h.err : lost_class(probed.status);
      s.spare.resize(static_cast<size_t>(bytes));
      err = large_count::receive(s.spare.data(), bytes, MPI_BYTE, &probed, comm_, &requests_[i]);
    } else {
      i = add(h.id, Kind::kProbed);
      h.into->resize(static_cast<size_t>(bytes));
      err = large_count::receive(h.into->data(), bytes, MPI_BYTE, &probed, comm_, &requests_[i]);
    }
    if (err != MPI_SUCCESS) {
      requests_[i] = MPI_REQUEST_NULL;
      free_.push_back(i);
      ready_.push_back({h.id, h.discard ? MPI_SUCCESS : err});
    }
  }
  held_.swap(keep_);
}

void PmpiTransport::collect(int count, int rc, std::vector<Completion>* done) {
  const bool in_status = rc != MPI_SUCCESS && error_class(rc) == MPI_ERR_IN_STATUS;
  for (int k = 0; k < count; ++k) {
    const int i = indices_[k];
    Slot& s = slots_[i];
    const MPI_Status& st = statuses_[k];
    const int st_err = in_status ? st.MPI_ERROR : MPI_SUCCESS;
    int err = st_err;
    switch (s.kind) {
      case Kind::kSend:
        if (s.err != MPI_SUCCESS) err = s.err;
        break;
      case Kind::kRecv:
        if (err == MPI_SUCCESS && is_lost(st)) {
          err = lost_class(st);
        } else if (err == MPI_SUCCESS) {
          MPI_Count bytes = 0;
          PMPI_Get_count_c(&st, MPI_BYTE, &bytes);
          if (bytes != s.expected) err = MPI_ERR_TRUNCATE;  // shorter than its receive
        }
        break;
      case Kind::kProbed:
        break;
      case Kind::kDiscard:
        err = s.err;
        std::vector<char>().swap(s.spare);
        break;
    }
    done->push_back({s.id, err});
    free_.push_back(i);
  }
}

void PmpiTransport::wait(const int* /*oldest*/, int /*n*/, std::vector<Completion>* done) {
  if (!world_returns_) {
    world_returns_acquire();
    world_returns_ = true;
  }
  some(true, done);
}

void PmpiTransport::test(const int* /*oldest*/, int /*n*/, std::vector<Completion>* done) {
  const bool held = world_returns_;
  if (!held) {
    world_returns_acquire();
    world_returns_ = true;
  }
  some(false, done);
  if (!held) finish();
}

void PmpiTransport::some(bool block, std::vector<Completion>* done) {
  const size_t before = done->size();
  for (;;) {
    if (!held_.empty()) advance();
    if (!ready_.empty()) {
      done->insert(done->end(), ready_.begin(), ready_.end());
      ready_.clear();
    }
    const int n = static_cast<int>(requests_.size());
    if (done->size() > before || (n == static_cast<int>(free_.size()) && held_.empty())) return;
    indices_.resize(static_cast<size_t>(n));
    statuses_.resize(static_cast<size_t>(n));
    int count = 0;
    // Block only while no probe is outstanding (a probe needs polling).
    const int rc =
        block && held_.empty()
            ? PMPI_Waitsome(n, requests_.data(), &count, indices_.data(), statuses_.data())
            : PMPI_Testsome(n, requests_.data(), &count, indices_.data(), statuses_.data());
    if (count == MPI_UNDEFINED) count = 0;
    if (rc != MPI_SUCCESS && error_class(rc) != MPI_ERR_IN_STATUS) {
      // The communicator is broken: report everything in flight, once.
      for (int i = 0; i < n; ++i) {
        if (requests_[i] == MPI_REQUEST_NULL) continue;
        requests_[i] = MPI_REQUEST_NULL;
        done->push_back({slots_[i].id, rc});
        free_.push_back(i);
      }
      for (const Held& h : held_) done->push_back({h.id, rc});
      held_.clear();
      return;
    }
    collect(count, rc, done);
    if (!block) {
      if (!held_.empty()) advance();  // a probe that the test's progress made match
      done->insert(done->end(), ready_.begin(), ready_.end());
      ready_.clear();
      return;
    }
  }
}

}  // namespace topoa2a
