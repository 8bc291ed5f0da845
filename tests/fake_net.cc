#include "tests/fake_net.h"

#include <algorithm>
#include <cstring>

namespace topoa2a::test {
namespace {

constexpr char kPoison = static_cast<char>(0xEE);

size_t bytes_of(const Message& m) {
  return static_cast<size_t>(m.count) * (m.type == MPI_BYTE ? 1 : 8);
}

}  // namespace

int FakeTransport::type_info(MPI_Datatype type, TypeInfo* info) {
  const MPI_Aint n = type == MPI_BYTE ? 1 : 8;
  info->size = info->extent = info->true_extent = n;
  info->true_lb = 0;
  info->memcpy_ok = true;
  return MPI_SUCCESS;
}

FakeNet::FakeNet(int p, unsigned seed, int max_in_flight)
    : p_(p),
      max_in_flight_(max_in_flight),
      rng_(seed),
      sends_(static_cast<size_t>(p) * p),
      recvs_(static_cast<size_t>(p) * p),
      done_(p),
      ranges_(p),
      state_(p),
      in_flight_(p, 0) {}

void FakeNet::fail(const std::string& what) {
  if (errors_.size() < 20) errors_.push_back(what);
}

void FakeNet::track(int rank, int id, const char* lo, size_t n, bool recv) {
  auto& st = state_[rank];
  if (static_cast<size_t>(id) >= st.size()) st.resize(static_cast<size_t>(id) + 1, 0);
  if (st[id] != 0)
    fail("rank " + std::to_string(rank) + ": id " + std::to_string(id) + " posted twice");
  st[id] = 1;
  if (++in_flight_[rank] > max_in_flight_)
    fail("rank " + std::to_string(rank) + ": " + std::to_string(in_flight_[rank]) +
         " messages in flight, more than " + std::to_string(max_in_flight_));
  if (n == 0 || !lo) return;
  const char* hi = lo + n;
  for (const Range& r : ranges_[rank])
    if (lo < r.hi && r.lo < hi && (recv || r.recv))
      fail("rank " + std::to_string(rank) + ": message " + std::to_string(id) +
           (recv ? " lands in" : " reads") + " bytes that pending message " + std::to_string(r.id) +
           (r.recv ? " fills" : " reads"));
  ranges_[rank].push_back({id, lo, hi, recv});
}

void FakeNet::untrack(int rank, int id) {
  auto& v = ranges_[rank];
  v.erase(std::remove_if(v.begin(), v.end(), [id](const Range& r) { return r.id == id; }), v.end());
}

void FakeNet::report(int rank, int id, int err) {
  untrack(rank, id);
  done_[rank].push_back({id, err});
}

void FakeNet::post_send(int rank, int id, const Message& m, int failed) {
  std::lock_guard<std::mutex> lock(mu_);
  const size_t n = failed == MPI_SUCCESS ? bytes_of(m) : 0;
  const char* buf = static_cast<const char*>(m.buf);
  track(rank, id, buf, n, false);
  Send s{id, buf, std::vector<char>(buf, buf + n), false};
  sends_[static_cast<size_t>(rank) * p_ + m.peer].push_back(std::move(s));
  if (rng_() % 2) eager_.push_back({rank, id});
  cv_.notify_all();
}

void FakeNet::post_recv(int rank, int id, const Message& m, std::vector<char>* any, int failed) {
  std::lock_guard<std::mutex> lock(mu_);
  char* buf = static_cast<char*>(m.buf);
  const size_t cap = any || failed != MPI_SUCCESS ? 0 : bytes_of(m);
  track(rank, id, buf, cap, true);
  if (cap) std::memset(buf, kPoison, cap);
  recvs_[static_cast<size_t>(m.peer) * p_ + rank].push_back(
      {id, buf, cap, any, failed != MPI_SUCCESS});
  cv_.notify_all();
}

void FakeNet::deliver(int src, int dst) {
  Send s = std::move(sends_[static_cast<size_t>(src) * p_ + dst].front());
  sends_[static_cast<size_t>(src) * p_ + dst].pop_front();
  Recv r = recvs_[static_cast<size_t>(src) * p_ + dst].front();
  recvs_[static_cast<size_t>(src) * p_ + dst].pop_front();
  const std::string what = std::to_string(src) + "->" + std::to_string(dst) + ": ";
  if (!s.completed) {
    if (!s.bytes.empty() && std::memcmp(s.buf, s.bytes.data(), s.bytes.size()) != 0)
      fail(what + "send buffer changed while the send was pending");
    eager_.erase(std::remove(eager_.begin(), eager_.end(), std::make_pair(src, s.id)),
                 eager_.end());
    report(src, s.id, MPI_SUCCESS);
  }
  int err = MPI_SUCCESS;
  if (r.discard) {
  } else if (r.any) {
    r.any->assign(s.bytes.begin(), s.bytes.end());
  } else {
    for (size_t i = 0; i < r.cap; ++i)
      if (r.buf[i] != kPoison) {
        fail(what + "receive buffer written while the receive was pending");
        break;
      }
    if (s.bytes.size() != r.cap)
      err = MPI_ERR_TRUNCATE;
    else if (r.cap)
      std::memcpy(r.buf, s.bytes.data(), r.cap);
  }
  report(dst, r.id, err);
}

bool FakeNet::step() {
  // Candidates: pairs whose heads match, and eager sends not yet reported.
  std::vector<int> pairs;
  for (int i = 0; i < p_ * p_; ++i)
    if (!sends_[i].empty() && !recvs_[i].empty()) pairs.push_back(i);
  const size_t n = pairs.size() + eager_.size();
  if (n == 0) return false;
  const size_t pick = rng_() % n;
  if (pick < pairs.size()) {
    deliver(pairs[pick] / p_, pairs[pick] % p_);
    return true;
  }
  const auto [rank, id] = eager_[pick - pairs.size()];
  eager_.erase(eager_.begin() + static_cast<long>(pick - pairs.size()));
  for (int d = 0; d < p_; ++d)
    for (Send& s : sends_[static_cast<size_t>(rank) * p_ + d])
      if (s.id == id && !s.completed) {
        s.completed = true;
        report(rank, id, MPI_SUCCESS);
        return true;
      }
  fail("eager send not found");
  return true;
}

void FakeNet::wait(int rank, const int* oldest, int n, std::vector<Completion>* done) {
  std::unique_lock<std::mutex> lock(mu_);
  if (n < 1) fail("rank " + std::to_string(rank) + ": wait without messages");
  for (int i = 0; i < n; ++i) {
    const auto& st = state_[rank];
    if (static_cast<size_t>(oldest[i]) >= st.size() || st[oldest[i]] != 1)
      fail("rank " + std::to_string(rank) + ": waits for message " + std::to_string(oldest[i]) +
           ", which is not pending");
  }
  for (;;) {
    if (dead_) throw Deadlock{};
    if (!done_[rank].empty()) {
      for (const Completion& c : done_[rank]) {
        state_[rank][c.id] = 2;  // reported
        --in_flight_[rank];
      }
      done->insert(done->end(), done_[rank].begin(), done_[rank].end());
      done_[rank].clear();
      return;
    }
    if (step()) {
      cv_.notify_all();
      continue;
    }
    // Deadlock: every rank waits or has finished, none has completions to
    // take, and nothing can complete.
    bool undelivered = false;
    for (const auto& d : done_) undelivered = undelivered || !d.empty();
    if (++waiting_ + finished_ == p_ && !undelivered) {
      dead_ = true;
      fail("deadlock: every rank waits and no message can complete");
      cv_.notify_all();
      throw Deadlock{};
    }
    cv_.wait(lock);
    --waiting_;
  }
}

void FakeNet::test(int rank, const int* oldest, int n, std::vector<Completion>* done) {
  std::unique_lock<std::mutex> lock(mu_);
  if (n < 1) fail("rank " + std::to_string(rank) + ": test without messages");
  for (int i = 0; i < n; ++i) {
    const auto& st = state_[rank];
    if (static_cast<size_t>(oldest[i]) >= st.size() || st[oldest[i]] != 1)
      fail("rank " + std::to_string(rank) + ": tests message " + std::to_string(oldest[i]) +
           ", which is not pending");
  }
  if (dead_) throw Deadlock{};
  if (done_[rank].empty() && step()) cv_.notify_all();
  for (const Completion& c : done_[rank]) {
    state_[rank][c.id] = 2;  // reported
    --in_flight_[rank];
  }
  done->insert(done->end(), done_[rank].begin(), done_[rank].end());
  done_[rank].clear();
}

void FakeNet::finished(int rank) {
  std::lock_guard<std::mutex> lock(mu_);
  (void)rank;
  ++finished_;
  cv_.notify_all();
}

}  // namespace topoa2a::test
