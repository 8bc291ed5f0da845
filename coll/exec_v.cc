// MPI_Alltoallv: the payload of self-describing messages for the one
// executor (exec_engine.h). Blocks in transit are kept by block, packed,
// each with its own size; a forwarded message is a header (the byte length
// of each block, 64-bit) and then the blocks back to back.
#include <cstdint>
#include <cstring>
#include <map>
#include <memory>
#include <vector>

#include "coll/exec.h"
#include "coll/exec_engine.h"

namespace topoa2a {
namespace {

using detail::at;
using detail::Elements;
using detail::Failure;

struct VSide {
  const char* base;  // may be MPI_BOTTOM
  const int* counts;
  const int* displs;
  MPI_Datatype type;
  TypeInfo info;
  char* block(int i) const { return at(base, static_cast<MPI_Aint>(displs[i]) * info.extent); }
  MPI_Aint bytes(int i) const { return counts[i] * info.size; }
  Elements elements(int i) const { return {block(i), counts[i], type, &info}; }
};

struct BlockLess {
  bool operator()(const Block& a, const Block& b) const {
    return a.src != b.src ? a.src < b.src : a.dst < b.dst;
  }
};

// Unpack block i, which the sender says has `bytes` bytes.
int unpack_from(Transport& tr, const char* in, MPI_Aint bytes, const VSide& v, int i) {
  if (bytes != v.bytes(i)) return MPI_ERR_TRUNCATE;
  return detail::unpack(tr, in, v.elements(i));
}

class VPayload final : public detail::Payload {
 public:
  VPayload(Transport& tr, const VSide& send, const VSide& recv, int me)
      : tr_(tr), send_(send), recv_(recv), me_(me) {}

  int send_message(const PlanSend& s, Message* m) override {
    if (s.direct) {
      *m = {send_.block(s.user_block), send_.counts[s.user_block], send_.type, s.peer};
      bytes_ += send_.bytes(s.user_block);
      return MPI_SUCCESS;
    }
    std::vector<std::uint64_t> sizes;
    sizes.reserve(s.blocks.size());
    for (const Block& b : s.blocks) {
      auto it = held_.find(b);
      sizes.push_back(it != held_.end() ? it->second.size()
                                        : static_cast<std::uint64_t>(send_.bytes(b.dst)));
    }
    size_t total = sizes.size() * sizeof(std::uint64_t);
    for (auto n : sizes) total += n;
    std::vector<char>& msg = outgoing_[&s];
    msg.resize(total);
    std::memcpy(msg.data(), sizes.data(), sizes.size() * sizeof(std::uint64_t));
    char* out = msg.data() + sizes.size() * sizeof(std::uint64_t);
    for (size_t i = 0; i < s.blocks.size(); ++i) {
      const Block& b = s.blocks[i];
      auto it = held_.find(b);
      if (it != held_.end()) {
        if (sizes[i]) std::memcpy(out, it->second.data(), sizes[i]);
        held_.erase(it);
      } else if (const int err = detail::pack(tr_, send_.elements(b.dst), out);
                 err != MPI_SUCCESS) {
        return err;
      }
      out += sizes[i];
    }
    bytes_ += static_cast<long long>(total);
    *m = {msg.data(), static_cast<MPI_Aint>(msg.size()), MPI_BYTE, s.peer};
    return MPI_SUCCESS;
  }

  void sent(const PlanSend& s) override { outgoing_.erase(&s); }

  bool recv_message(const PlanRecv& r, Message* m, std::vector<char>** into) override {
    if (!r.direct) {
      *into = &incoming_[&r];
      return false;
    }
    *m = {recv_.block(r.user_block), recv_.counts[r.user_block], recv_.type, r.peer};
    return true;
  }

  int received(const PlanRecv& r) override {
    if (r.direct) return MPI_SUCCESS;
    auto node = incoming_.extract(&r);
    const std::vector<char>& msg = node.mapped();
    const size_t header = r.blocks.size() * sizeof(std::uint64_t);
    if (msg.size() < header) return MPI_ERR_TRUNCATE;
    std::vector<std::uint64_t> sizes(r.blocks.size());
    std::memcpy(sizes.data(), msg.data(), header);
    size_t pos = header;
    for (size_t i = 0; i < r.blocks.size(); ++i) {
      if (sizes[i] > msg.size() - pos) return MPI_ERR_TRUNCATE;
      const Block& b = r.blocks[i];
      const char* data = msg.data() + pos;
      if (b.dst == me_) {
        if (const int err = unpack_from(tr_, data, static_cast<MPI_Aint>(sizes[i]), recv_, b.src);
            err != MPI_SUCCESS)
          return err;
      } else {
        held_[b].assign(data, data + sizes[i]);
      }
      pos += sizes[i];
    }
    return MPI_SUCCESS;
  }
  long long bytes_sent() const override { return bytes_; }

 private:
  Transport& tr_;
  const VSide send_;
  const VSide recv_;
  int me_;
  std::map<Block, std::vector<char>, BlockLess> held_;  // blocks in transit here, packed
  std::map<const PlanSend*, std::vector<char>> outgoing_;
  std::map<const PlanRecv*, std::vector<char>> incoming_;
  long long bytes_ = 0;
};

class AlltoallvOp final : public detail::PlanOperation {
 public:
  AlltoallvOp(const Plan& plan, Transport& tr, const AlltoallvArgs& args, int window, bool own) {
    const int p = plan.p, me = plan.rank;
    VSide recv{
        static_cast<const char*>(args.recvbuf), args.recvcounts, args.rdispls, args.recvtype, {}};
    failure_.record(tr.type_info(args.recvtype, &recv.info));
    VSide send = recv;
    if (args.sendbuf == MPI_IN_PLACE) {
      // Work from a copy of the bytes the receive blocks cover.
      MPI_Aint lo = 0, hi = 0;
      if (!failure_.failed() &&
          detail::blocks_footprint(recv.info, p, 0, recv.counts, recv.displs, &lo, &hi)) {
        in_place_copy_ = std::make_unique<detail::InPlaceCopy>(recv.base, lo, hi);
        send.base = in_place_copy_->base();
      }
    } else if (!failure_.failed()) {
      send = VSide{
          static_cast<const char*>(args.sendbuf), args.sendcounts, args.sdispls, args.sendtype, {}};
      failure_.record(tr.type_info(args.sendtype, &send.info));
      if (!failure_.failed())
        failure_.record(detail::copy(tr, send.elements(me), recv.elements(me)));
    }
    start(plan, tr, std::make_unique<VPayload>(tr, send, recv, me), window, own);
  }
};

}  // namespace

namespace detail {

int make_alltoallv_payload(Transport& tr, const AlltoallvArgs& args, const void* send_base, int me,
                           std::unique_ptr<Payload>* out) {
  VSide recv{
      static_cast<const char*>(args.recvbuf), args.recvcounts, args.rdispls, args.recvtype, {}};
  if (const int err = tr.type_info(args.recvtype, &recv.info); err != MPI_SUCCESS) return err;
  VSide send = recv;
  send.base = static_cast<const char*>(send_base);
  if (args.sendbuf != MPI_IN_PLACE) {
    send = VSide{
        static_cast<const char*>(send_base), args.sendcounts, args.sdispls, args.sendtype, {}};
    if (const int err = tr.type_info(args.sendtype, &send.info); err != MPI_SUCCESS) return err;
  }
  *out = std::make_unique<VPayload>(tr, send, recv, me);
  return MPI_SUCCESS;
}

}  // namespace detail

std::unique_ptr<Operation> start_alltoallv(const Plan& plan, Transport& tr,
                                           const AlltoallvArgs& args, int window) {
  return std::make_unique<AlltoallvOp>(plan, tr, args, window, true);
}

int run_alltoallv(const Plan& plan, Transport& tr, const AlltoallvArgs& args, int window,
                  RunStats* stats) {
  AlltoallvOp op(plan, tr, args, window, false);
  return detail::run_to_completion(op, stats);
}

}  // namespace topoa2a
