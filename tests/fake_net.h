// A whole machine in one process for the executor tests: one thread per
// rank runs the real executor (coll/exec.h) over a FakeTransport; the
// FakeNet matches each pair's sends and receives in posting order (MPI's
// non-overtaking rule) and completes messages one at a time in a random
// order: a send either when its receive takes it (rendezvous) or at any
// moment after it was posted (eager). It checks what MPI cannot:
//  - deadlock: every rank waits and nothing can complete;
//  - the window: no rank has more messages in flight than allowed;
//  - buffers: a send's bytes do not change until it is delivered, a
//    receive's buffer is not written by anyone else while it is pending,
//    no receive lands in bytes another pending message reads or fills;
//  - the wait contract: the `oldest` ids a rank waits for are posted and
//    not yet reported.
// Elements are 8 bytes (any datatype but MPI_BYTE); no MPI call is made.
#pragma once

#include <condition_variable>
#include <deque>
#include <mutex>
#include <random>
#include <string>
#include <vector>

#include "coll/transport.h"

namespace topoa2a::test {

struct Deadlock {};  // thrown out of wait() on every rank

class FakeNet {
 public:
  FakeNet(int p, unsigned seed, int max_in_flight);
  std::vector<std::string> errors() const { return errors_; }
  void finished(int rank);  // the rank's executor returned

  void post_send(int rank, int id, const Message& m, int failed);
  void post_recv(int rank, int id, const Message& m, std::vector<char>* any, int failed);
  void wait(int rank, const int* oldest, int n, std::vector<Completion>* done);
  // Never blocks: completes at most one random event, then reports what
  // this rank has complete (maybe nothing).
  void test(int rank, const int* oldest, int n, std::vector<Completion>* done);

 private:
  struct Send {
    int id;
    const char* buf;
    std::vector<char> bytes;  // as posted
    bool completed;           // eager: reported before delivery
  };
  struct Recv {
    int id;
    char* buf;
    size_t cap;
    std::vector<char>* any;  // unknown length
    bool discard;
  };
  struct Range {
    int id;
    const char* lo;
    const char* hi;
    bool recv;
  };
  void fail(const std::string& what);
  void track(int rank, int id, const char* lo, size_t n, bool recv);
  void untrack(int rank, int id);
  void report(int rank, int id, int err);
  bool step();  // completes one random event; false when none
  void deliver(int src, int dst);

  const int p_;
  const int max_in_flight_;
  std::mt19937 rng_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::vector<std::deque<Send>> sends_;  // [src * p + dst]
  std::vector<std::deque<Recv>> recvs_;  // [src * p + dst]
  std::vector<std::vector<Completion>> done_;
  std::vector<std::vector<Range>> ranges_;  // per rank: buffers of pending messages
  std::vector<std::vector<char>> state_;    // per rank, per id: 0 new, 1 posted, 2 reported
  std::vector<int> in_flight_;
  std::vector<std::pair<int, int>> eager_;  // (rank, id) sends that may complete early
  int waiting_ = 0, finished_ = 0;
  bool dead_ = false;
  std::vector<std::string> errors_;
};

class FakeTransport final : public Transport {
 public:
  FakeTransport(FakeNet& net, int p, int rank) : net_(net), p_(p), rank_(rank) {}
  int rank() const override { return rank_; }
  int size() const override { return p_; }
  void post_send(int id, const Message& m, int failed) override {
    net_.post_send(rank_, id, m, failed);
  }
  void post_recv(int id, const Message& m, int failed) override {
    net_.post_recv(rank_, id, m, nullptr, failed);
  }
  void post_recv_any(int id, int peer, std::vector<char>* into, int failed) override {
    net_.post_recv(rank_, id, {nullptr, 0, MPI_BYTE, peer}, into, failed);
  }
  void wait(const int* oldest, int n, std::vector<Completion>* done) override {
    net_.wait(rank_, oldest, n, done);
  }
  void test(const int* oldest, int n, std::vector<Completion>* done) override {
    net_.test(rank_, oldest, n, done);
  }
  int pack(const void*, MPI_Aint, MPI_Datatype, void*, MPI_Aint) override { return MPI_ERR_TYPE; }
  int unpack(const void*, MPI_Aint, void*, MPI_Aint, MPI_Datatype) override { return MPI_ERR_TYPE; }
  int type_info(MPI_Datatype type, TypeInfo* info) override;

 private:
  FakeNet& net_;
  int p_, rank_;
};

}  // namespace topoa2a::test
