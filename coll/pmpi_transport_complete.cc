// PmpiTransport's completion (pmpi_transport.h): held receives probed for
// and posted in order, PMPI_Waitsome / PMPI_Testsome, and each finished
// request's error, a lost payload's class included.
#include <vector>

#include "coll/mpi_large_count.h"
#include "coll/pmpi_transport.h"

namespace topoa2a {
namespace {

bool is_lost(const MPI_Status& st) { return st.MPI_TAG >= PmpiTransport::kLostTag; }

// The class a lost payload carries.
int lost_class(const MPI_Status& st) { return st.MPI_TAG - PmpiTransport::kLostTag; }

}  // namespace

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
  hold_world();
  some(true, done);
}

void PmpiTransport::test(const int* /*oldest*/, int /*n*/, std::vector<Completion>* done) {
  const bool held = world_returns_;
  hold_world();
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
