#include "coll/exec.h"

#include <algorithm>
#include <cstring>
#include <memory>
#include <vector>

#include "coll/exec_engine.h"

namespace topoa2a {
namespace {

ScratchAllocator scratch_allocator{[](std::size_t n) -> void* { return new char[n]; },
                                   [](void* m) { delete[] static_cast<char*>(m); }};

using detail::at;
using detail::Elements;
using detail::Failure;

// One side of the call: a user buffer holding p blocks of `count` elements.
struct BufferView {
  const char* base = nullptr;  // may be MPI_BOTTOM
  MPI_Aint count = 0;
  MPI_Datatype type = MPI_DATATYPE_NULL;
  TypeInfo info;
  char* block(int i) const { return at(base, static_cast<MPI_Aint>(i) * count * info.extent); }
  Elements elements(int i) const { return {block(i), count, type, &info}; }
  MPI_Aint bytes() const { return count * info.size; }  // packed bytes per block
};

int describe(Transport& tr, const void* buf, MPI_Aint count, MPI_Datatype type, BufferView* view) {
  view->base = static_cast<const char*>(buf);
  view->count = count;
  view->type = type;
  return tr.type_info(type, &view->info);
}

// Fixed-size blocks: scratch slots of m bytes (plan.h).
class FixedPayload final : public detail::Payload {
 public:
  FixedPayload(Transport& tr, const BufferView& send, const BufferView& recv, char* scratch,
               MPI_Aint bs)
      : tr_(tr), send_(send), recv_(recv), scratch_(scratch), bs_(bs) {}
  int send_message(const PlanSend& s, Message* m) override {
    bytes_ += s.nblocks * bs_;
    if (s.direct) {
      *m = {send_.block(s.user_block), send_.count, send_.type, s.peer};
      return MPI_SUCCESS;
    }
    for (size_t i = 0; i < s.gather.size(); ++i) {
      char* dst = slot(s.first_slot + static_cast<int>(i));
      const Loc& loc = s.gather[i];
      if (loc.kind == Loc::kScratch) {
        std::memcpy(dst, slot(loc.index), static_cast<size_t>(bs_));
      } else if (const int err = detail::pack(tr_, send_.elements(loc.index), dst);
                 err != MPI_SUCCESS) {
        return err;
      }
    }
    *m = {slot(s.first_slot), s.nblocks * bs_, MPI_BYTE, s.peer};
    return MPI_SUCCESS;
  }
  bool recv_message(const PlanRecv& r, Message* m, std::vector<char>**) override {
    if (r.direct)
      *m = {recv_.block(r.user_block), recv_.count, recv_.type, r.peer};
    else
      *m = {slot(r.first_slot), r.nblocks * bs_, MPI_BYTE, r.peer};
    return true;
  }
  int received(const PlanRecv& r) override {
    for (const Delivery& d : r.deliveries)
      if (const int err = detail::unpack(tr_, slot(d.slot), recv_.elements(d.user_block));
          err != MPI_SUCCESS)
        return err;
    return MPI_SUCCESS;
  }
  void step_done(const PlanStep& step) override {
    for (const Move& mv : step.moves)
      std::memcpy(slot(mv.to), slot(mv.from), static_cast<size_t>(bs_));
  }
  long long bytes_sent() const override { return bytes_; }

 private:
  char* slot(int i) const { return scratch_ + static_cast<MPI_Aint>(i) * bs_; }
  Transport& tr_;
  const BufferView send_;
  const BufferView recv_;
  char* scratch_;
  MPI_Aint bs_;
  long long bytes_ = 0;
};

// One MPI_Alltoall from start to finish: everything the run needs lives
// here, so that it can outlive the call that started it.
class AlltoallOp final : public detail::PlanOperation {
 public:
  AlltoallOp(const Plan& plan, Transport& tr, const AlltoallArgs& args, int window, bool own) {
    const int p = plan.p, me = plan.rank;
    BufferView recv, send;
    failure_.record(describe(tr, args.recvbuf, args.recvcount, args.recvtype, &recv));
    const MPI_Aint bs = failure_.failed() ? 0 : recv.bytes();
    // Nothing to receive: done at once, as MPICH does for recvcount 0.
    if (bs == 0 && !failure_.failed()) return;
    if (args.sendbuf == MPI_IN_PLACE) {
      // Work from a copy of the receive buffer's footprint, same datatype.
      send = recv;
      if (!failure_.failed()) {
        MPI_Aint lo, hi;
        detail::footprint(recv.info, 0, static_cast<MPI_Aint>(p) * recv.count, &lo, &hi);
        in_place_copy_ = std::make_unique<detail::InPlaceCopy>(recv.base, lo, hi);
        send.base = in_place_copy_->base();
      }
    } else if (!failure_.failed()) {
      failure_.record(describe(tr, args.sendbuf, args.sendcount, args.sendtype, &send));
      // A send block of another size than the receive block: a mismatched
      // type signature, this rank's error; its peers learn of it from its
      // messages.
      if (!failure_.failed() && send.bytes() != bs) failure_.record(MPI_ERR_TRUNCATE);
      if (!failure_.failed())
        failure_.record(detail::copy(tr, send.elements(me), recv.elements(me)));
    }
    if (!failure_.failed() && plan.scratch_slots > 0)
      scratch_ = {
          static_cast<char*>(scratch_allocator.alloc(static_cast<size_t>(plan.scratch_slots * bs))),
          scratch_allocator.release};
    start(plan, tr, std::make_unique<FixedPayload>(tr, send, recv, scratch_.get(), bs), window,
          own);
  }
};

}  // namespace

void set_scratch_allocator(ScratchAllocator allocator) { scratch_allocator = allocator; }

std::unique_ptr<Operation> start_alltoall(const Plan& plan, Transport& tr, const AlltoallArgs& args,
                                          int window) {
  return std::make_unique<AlltoallOp>(plan, tr, args, window, true);
}

int run_alltoall(const Plan& plan, Transport& tr, const AlltoallArgs& args, int window,
                 RunStats* stats) {
  AlltoallOp op(plan, tr, args, window, false);
  return detail::run_to_completion(op, stats);
}

}  // namespace topoa2a
