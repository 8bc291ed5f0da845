#include "coll/exec.h"

#include <algorithm>
#include <cstring>
#include <memory>
#include <vector>

#include "coll/exec_buffers.h"

namespace topoa2a {
namespace {

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

}  // namespace

int run_alltoall(const Plan& plan, Transport& tr, const AlltoallArgs& args, RunStats* stats) {
  const int p = plan.p, me = plan.rank;
  Failure failure;
  BufferView recv, send;
  failure.record(describe(tr, args.recvbuf, args.recvcount, args.recvtype, &recv));
  const MPI_Aint bs = failure.failed() ? 0 : recv.bytes();
  // Nothing to receive: return at once, as MPICH does for recvcount 0.
  if (bs == 0 && !failure.failed()) return MPI_SUCCESS;

  std::unique_ptr<detail::InPlaceCopy> in_place_copy;
  if (args.sendbuf == MPI_IN_PLACE) {
    // Work from a copy of the receive buffer's footprint, same datatype.
    send = recv;
    if (!failure.failed()) {
      MPI_Aint lo, hi;
      detail::footprint(recv.info, 0, static_cast<MPI_Aint>(p) * recv.count, &lo, &hi);
      in_place_copy = std::make_unique<detail::InPlaceCopy>(recv.base, lo, hi);
      send.base = in_place_copy->base();
    }
  } else if (!failure.failed()) {
    failure.record(describe(tr, args.sendbuf, args.sendcount, args.sendtype, &send));
    // A send block of another size than the receive block: a mismatched type
    // signature, this rank's error; its peers learn of it from its messages.
    if (!failure.failed() && send.bytes() != bs) failure.record(MPI_ERR_TRUNCATE);
    if (!failure.failed()) failure.record(detail::copy(tr, send.elements(me), recv.elements(me)));
  }
  if (stats) stats->rounds += plan.rounds;

  std::unique_ptr<char[]> scratch;
  if (!failure.failed())
    scratch.reset(new char[static_cast<size_t>(std::max<MPI_Aint>(1, plan.scratch_slots * bs))]);
  auto slot = [&](int i) { return scratch.get() + static_cast<MPI_Aint>(i) * bs; };

  std::vector<Message> sends, recvs;
  sends.reserve(plan.max_messages);
  recvs.reserve(plan.max_messages);
  for (const PlanStep& step : plan.steps) {
    sends.clear();
    recvs.clear();
    for (const PlanSend& s : step.sends) {
      if (failure.failed()) {
        sends.push_back({nullptr, 0, MPI_BYTE, s.peer});
      } else if (s.direct) {
        sends.push_back({send.block(s.user_block), send.count, send.type, s.peer});
      } else {
        for (size_t i = 0; i < s.gather.size() && !failure.failed(); ++i) {
          char* dst = slot(s.first_slot + static_cast<int>(i));
          const Loc& loc = s.gather[i];
          if (loc.kind == Loc::kSendBuf)
            failure.record(detail::pack(tr, send.elements(loc.index), dst));
          else
            std::memcpy(dst, slot(loc.index), static_cast<size_t>(bs));
        }
        sends.push_back({slot(s.first_slot), s.nblocks * bs, MPI_BYTE, s.peer});
      }
    }
    for (const PlanRecv& r : step.recvs) {
      if (failure.failed())
        recvs.push_back({nullptr, 0, MPI_BYTE, r.peer});
      else if (r.direct)
        recvs.push_back({recv.block(r.user_block), recv.count, recv.type, r.peer});
      else
        recvs.push_back({slot(r.first_slot), r.nblocks * bs, MPI_BYTE, r.peer});
    }
    failure.record(tr.exchange(sends.data(), static_cast<int>(sends.size()), recvs.data(),
                               static_cast<int>(recvs.size()), failure.code()));
    if (failure.failed()) continue;  // from now on only the traffic goes on
    for (const Delivery& d : step.deliveries)
      failure.record(detail::unpack(tr, slot(d.slot), recv.elements(d.user_block)));
    for (const Move& m : step.moves) std::memcpy(slot(m.to), slot(m.from), static_cast<size_t>(bs));
    if (stats) {
      for (const PlanSend& s : step.sends) stats->bytes_sent += s.nblocks * bs;
      stats->messages_sent += static_cast<long long>(step.sends.size());
    }
  }
  return failure.code();
}

}  // namespace topoa2a
