#include "coll/exec.h"

#include <algorithm>
#include <cstring>
#include <memory>
#include <vector>

namespace topoa2a {
namespace {

// One side of the call: a user buffer holding p blocks of `count` elements.
struct BufferView {
  char* base = nullptr;
  MPI_Aint count = 0;
  MPI_Datatype type = MPI_DATATYPE_NULL;
  TypeInfo info;
  char* block(int i) const { return base + static_cast<MPI_Aint>(i) * count * info.extent; }
};

int describe(Transport& tr, const void* buf, MPI_Aint count, MPI_Datatype type, BufferView* view) {
  view->base = static_cast<char*>(const_cast<void*>(buf));
  view->count = count;
  view->type = type;
  return tr.type_info(type, &view->info);
}

// Pack one block of a view into `bytes` contiguous bytes.
int pack_block(Transport& tr, const BufferView& v, int i, char* out, MPI_Aint bytes) {
  if (v.info.memcpy_ok) {
    std::memcpy(out, v.block(i) + v.info.true_lb, bytes);
    return MPI_SUCCESS;
  }
  return tr.pack(v.block(i), v.count, v.type, out, bytes);
}

int unpack_block(Transport& tr, const char* in, MPI_Aint bytes, const BufferView& v, int i) {
  if (v.info.memcpy_ok) {
    std::memcpy(v.block(i) + v.info.true_lb, in, bytes);
    return MPI_SUCCESS;
  }
  return tr.unpack(in, bytes, v.block(i), v.count, v.type);
}

// Bytes [lo, hi) relative to the buffer start that n elements touch.
void footprint(const TypeInfo& t, MPI_Aint n, MPI_Aint* lo, MPI_Aint* hi) {
  const MPI_Aint last = (n - 1) * t.extent;
  *lo = t.true_lb + std::min<MPI_Aint>(0, last);
  *hi = t.true_lb + t.true_extent + std::max<MPI_Aint>(0, last);
}

}  // namespace

int max_message_blocks(const Plan& plan) {
  int most = 0;
  for (const PlanStep& s : plan.steps) {
    for (const PlanSend& m : s.sends) most = std::max(most, m.nblocks);
    for (const PlanRecv& m : s.recvs) most = std::max(most, m.nblocks);
  }
  return most;
}

int run_alltoall(const Plan& plan, Transport& tr, const AlltoallArgs& args, RunStats* stats) {
  const int p = plan.p, me = plan.rank;
  const bool in_place = args.sendbuf == MPI_IN_PLACE;
  BufferView recv, send;
  int err = describe(tr, args.recvbuf, args.recvcount, args.recvtype, &recv);
  if (err != MPI_SUCCESS) return err;
  const MPI_Aint bs = recv.count * recv.info.size;  // packed bytes per block

  std::unique_ptr<char[]> in_place_copy;
  if (in_place) {
    // Work from a copy of the receive buffer's footprint, same datatype.
    send = recv;
    if (bs > 0) {
      MPI_Aint lo, hi;
      footprint(recv.info, static_cast<MPI_Aint>(p) * recv.count, &lo, &hi);
      in_place_copy.reset(new char[hi - lo]);
      std::memcpy(in_place_copy.get(), recv.base + lo, hi - lo);
      send.base = in_place_copy.get() - lo;
    }
  } else {
    err = describe(tr, args.sendbuf, args.sendcount, args.sendtype, &send);
    if (err != MPI_SUCCESS) return err;
    if (send.count * send.info.size != bs) return MPI_ERR_TRUNCATE;
  }
  if (bs == 0) return MPI_SUCCESS;  // nothing moves
  if (stats) stats->rounds += plan.rounds;

  std::unique_ptr<char[]> scratch(new char[std::max<MPI_Aint>(1, plan.scratch_slots * bs)]);
  auto slot = [&](int i) { return scratch.get() + static_cast<MPI_Aint>(i) * bs; };

  if (!in_place) {  // the block (me, me) never travels
    if (send.info.memcpy_ok && recv.info.memcpy_ok) {
      std::memcpy(recv.block(me) + recv.info.true_lb, send.block(me) + send.info.true_lb, bs);
    } else {
      std::unique_ptr<char[]> tmp(new char[bs]);
      err = pack_block(tr, send, me, tmp.get(), bs);
      if (err == MPI_SUCCESS) err = unpack_block(tr, tmp.get(), bs, recv, me);
      if (err != MPI_SUCCESS) return err;
    }
  }

  std::vector<Message> sends, recvs;
  sends.reserve(plan.max_messages);
  recvs.reserve(plan.max_messages);
  for (const PlanStep& step : plan.steps) {
    sends.clear();
    recvs.clear();
    for (const PlanSend& s : step.sends) {
      if (s.direct) {
        sends.push_back({send.block(s.user_block), send.count, send.type, s.peer});
        continue;
      }
      for (size_t i = 0; i < s.gather.size(); ++i) {
        char* dst = slot(s.first_slot + static_cast<int>(i));
        const Loc& loc = s.gather[i];
        if (loc.kind == Loc::kSendBuf) {
          err = pack_block(tr, send, loc.index, dst, bs);
          if (err != MPI_SUCCESS) return err;
        } else {
          std::memcpy(dst, slot(loc.index), bs);
        }
      }
      sends.push_back({slot(s.first_slot), s.nblocks * bs, MPI_BYTE, s.peer});
    }
    for (const PlanRecv& r : step.recvs) {
      if (r.direct)
        recvs.push_back({recv.block(r.user_block), recv.count, recv.type, r.peer});
      else
        recvs.push_back({slot(r.first_slot), r.nblocks * bs, MPI_BYTE, r.peer});
    }
    err = tr.exchange(sends.data(), static_cast<int>(sends.size()), recvs.data(),
                      static_cast<int>(recvs.size()));
    if (err != MPI_SUCCESS) return err;
    for (const Delivery& d : step.deliveries) {
      err = unpack_block(tr, slot(d.slot), bs, recv, d.user_block);
      if (err != MPI_SUCCESS) return err;
    }
    for (const Move& m : step.moves) std::memcpy(slot(m.to), slot(m.from), bs);
    if (stats) {
      for (const PlanSend& s : step.sends) stats->bytes_sent += s.nblocks * bs;
      stats->messages_sent += static_cast<long long>(step.sends.size());
    }
  }
  return MPI_SUCCESS;
}

}  // namespace topoa2a
