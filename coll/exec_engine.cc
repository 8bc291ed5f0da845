#include "coll/exec_engine.h"

#include <algorithm>
#include <memory>
#include <utility>

namespace topoa2a::detail {
namespace {

// The engine's working memory, kept per thread between calls (cleared, not
// freed): small calls allocate nothing.
struct Scratch {
  std::vector<char> done;
  std::vector<int> left;     // per step: messages not yet complete
  std::vector<int> blocked;  // per peer: scan in which an earlier send waits
  std::vector<int> unposted, ids;
  std::vector<Completion> completed;
  bool busy = false;
};
thread_local Scratch t_scratch;

}  // namespace

class Engine {
 public:
  Engine(const Plan& plan, Transport& tr, Payload& payload, int window, Failure* failure,
         bool own_scratch)
      : plan_(plan),
        tr_(tr),
        payload_(payload),
        window_(window),
        failure_(*failure),
        own_(own_scratch || t_scratch.busy ? new Scratch : nullptr),
        x_(own_ ? *own_ : t_scratch),
        done_(x_.done),
        left_(x_.left),
        blocked_(x_.blocked),
        unposted_(x_.unposted),
        ids_(x_.ids),
        completed_(x_.completed) {
    x_.busy = true;
    done_.assign(static_cast<size_t>(plan.messages), 0);
    left_.resize(plan.steps.size());
    for (size_t s = 0; s < plan.steps.size(); ++s) left_[s] = plan.steps[s].messages();
    if (blocked_.size() < static_cast<size_t>(plan.p)) blocked_.resize(plan.p, -1);
    std::fill(blocked_.begin(), blocked_.begin() + plan.p, -1);
    unposted_.clear();
  }
  ~Engine() {
    if (!own_) x_.busy = false;
    delete own_;
  }
  Engine(const Engine&) = delete;
  Engine& operator=(const Engine&) = delete;

  void start() { admit(); }

  // One pass per completion batch; false (not finished) when a
  // nonblocking test found nothing complete.
  bool progress(bool block) {
    const int nsteps = static_cast<int>(plan_.steps.size());
    while (oldest_ < nsteps) {
      const PlanStep& step = plan_.steps[oldest_];
      ids_.clear();
      for (int id = step.first_id; id < step.first_id + step.messages(); ++id)
        if (!done_[id]) ids_.push_back(id);
      completed_.clear();
      if (block)
        tr_.wait(ids_.data(), static_cast<int>(ids_.size()), &completed_);
      else
        tr_.test(ids_.data(), static_cast<int>(ids_.size()), &completed_);
      if (completed_.empty() && !block) return false;
      for (const Completion& c : completed_) complete(c);
      while (oldest_ < nsteps && left_[oldest_] == 0) {
        if (!failure_.failed()) payload_.step_done(plan_.steps[oldest_]);
        in_flight_ -= plan_.steps[oldest_].messages();
        ++oldest_;
      }
      admit();
      post_ready_sends();
    }
    return true;
  }
  long long sends_posted() const { return sends_posted_; }

 private:
  int step_of(int id) const {
    auto it = std::upper_bound(plan_.steps.begin(), plan_.steps.end(), id,
                               [](int v, const PlanStep& s) { return v < s.first_id; });
    return static_cast<int>(it - plan_.steps.begin()) - 1;
  }

  void complete(const Completion& c) {
    if (done_[c.id]) return;
    done_[c.id] = 1;
    failure_.record(c.err);
    const int si = step_of(c.id);
    const PlanStep& step = plan_.steps[si];
    --left_[si];
    const int index = c.id - step.first_id, nsends = static_cast<int>(step.sends.size());
    if (index < nsends) {
      payload_.sent(step.sends[index]);
    } else if (!failure_.failed()) {
      failure_.record(payload_.received(step.recvs[index - nsends]));
    }
  }

  // Steps enter while they fit: at least the oldest, at most depth.
  void admit() {
    const int nsteps = static_cast<int>(plan_.steps.size());
    while (entered_ < nsteps) {
      const int n = plan_.steps[entered_].messages();
      const bool fits = entered_ - oldest_ < plan_.depth && in_flight_ + n <= window_;
      if (entered_ != oldest_ && !fits) break;
      enter(entered_++);
      in_flight_ += n;
    }
  }

  void enter(int si) {
    const PlanStep& step = plan_.steps[si];
    for (size_t i = 0; i < step.sends.size(); ++i) unposted_.push_back(step.first_id + (int)i);
    post_ready_sends();  // gathers before the receives may reuse their slots (depth 1)
    const int first = step.first_id + static_cast<int>(step.sends.size());
    for (size_t i = 0; i < step.recvs.size(); ++i) {
      const PlanRecv& r = step.recvs[i];
      const int id = first + static_cast<int>(i);
      if (failure_.failed()) {
        tr_.post_recv(id, {nullptr, 0, MPI_BYTE, r.peer}, failure_.code());
        continue;
      }
      Message m{nullptr, 0, MPI_BYTE, r.peer};
      std::vector<char>* into = nullptr;
      if (payload_.recv_message(r, &m, &into))
        tr_.post_recv(id, m, MPI_SUCCESS);
      else
        tr_.post_recv_any(id, r.peer, into, MPI_SUCCESS);
    }
  }

  bool ready(const PlanSend& s) const {
    for (int id : s.after)
      if (!done_[id]) return false;
    return true;
  }

  // Posts, in schedule order, the sends whose blocks are present and whose
  // peer has no earlier send still waiting.
  void post_ready_sends() {
    ++scan_;
    size_t keep = 0;
    for (size_t i = 0; i < unposted_.size(); ++i) {
      const int id = unposted_[i];
      const PlanStep& step = plan_.steps[step_of(id)];
      const PlanSend& s = step.sends[id - step.first_id];
      if (blocked_[s.peer] == scan_ || !ready(s)) {
        blocked_[s.peer] = scan_;
        unposted_[keep++] = id;
        continue;
      }
      post_send(id, s);
    }
    unposted_.resize(keep);
  }

  void post_send(int id, const PlanSend& s) {
    Message m{nullptr, 0, MPI_BYTE, s.peer};
    if (!failure_.failed()) failure_.record(payload_.send_message(s, &m));
    tr_.post_send(id, failure_.failed() ? Message{nullptr, 0, MPI_BYTE, s.peer} : m,
                  failure_.code());
    ++sends_posted_;
  }

  const Plan& plan_;
  Transport& tr_;
  Payload& payload_;
  const int window_;
  Failure& failure_;
  Scratch* own_;  // when this thread's scratch is in use already
  Scratch& x_;
  std::vector<char>& done_;
  std::vector<int>& left_;
  std::vector<int>& blocked_;
  std::vector<int>& unposted_;
  std::vector<int>& ids_;
  std::vector<Completion>& completed_;
  int oldest_ = 0, entered_ = 0, in_flight_ = 0, scan_ = 0;
  long long sends_posted_ = 0;
};

Execution::Execution(const Plan& plan, Transport& tr, Payload& payload, int window,
                     Failure* failure, bool own_scratch)
    : engine_(new Engine(plan, tr, payload, window, failure, own_scratch)), tr_(tr) {
  engine_->start();
}

Execution::~Execution() { delete engine_; }

bool Execution::progress(bool block) {
  if (done_) return true;
  if (!engine_->progress(block)) return false;
  tr_.finish();
  done_ = true;
  return true;
}

long long Execution::sends_posted() const { return engine_->sends_posted(); }

void PlanOperation::start(const Plan& plan, Transport& tr, std::unique_ptr<Payload> payload,
                          int window, bool own_scratch) {
  rounds_ = plan.rounds;
  payload_ = std::move(payload);
  run_ = std::make_unique<Execution>(plan, tr, *payload_, window, &failure_, own_scratch);
}

bool PlanOperation::progress(bool block) {
  if (!run_ || finished_) return true;
  if (!run_->progress(block)) return false;
  finished_ = true;
  if (!failure_.failed()) {
    stats_.rounds = rounds_;
    stats_.bytes_sent = payload_->bytes_sent();
    stats_.messages_sent = run_->sends_posted();
  }
  payload_.reset();
  in_place_copy_.reset();
  scratch_.reset();
  return true;
}

int run_to_completion(Operation& op, RunStats* stats) {
  op.progress(true);
  if (stats && op.result() == MPI_SUCCESS) {
    stats->rounds += op.stats().rounds;
    stats->bytes_sent += op.stats().bytes_sent;
    stats->messages_sent += op.stats().messages_sent;
  }
  return op.result();
}

}  // namespace topoa2a::detail
