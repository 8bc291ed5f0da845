// MPI_Alltoallv over any schedule (see run_alltoallv in exec.h).
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <map>
#include <memory>
#include <vector>

#include "coll/exec.h"
#include "coll/exec_buffers.h"

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

bool is_direct(const Transfer& t, int sender, int receiver) {
  return t.blocks.size() == 1 && t.blocks[0].src == sender && t.blocks[0].dst == receiver;
}

// The bytes the receive blocks cover, [lo, hi); false when none.
bool recv_footprint(const VSide& recv, int p, MPI_Aint* lo, MPI_Aint* hi) {
  bool any = false;
  for (int i = 0; i < p; ++i) {
    if (recv.counts[i] == 0) continue;
    MPI_Aint a, b;
    detail::footprint(recv.info, static_cast<MPI_Aint>(recv.displs[i]) * recv.info.extent,
                      recv.counts[i], &a, &b);
    *lo = any ? std::min(*lo, a) : a;
    *hi = any ? std::max(*hi, b) : b;
    any = true;
  }
  return any;
}

}  // namespace

int run_alltoallv(const Schedule& schedule, Transport& tr, const AlltoallvArgs& args,
                  RunStats* stats) {
  const int p = tr.size(), me = tr.rank();
  Failure failure;
  VSide recv{
      static_cast<const char*>(args.recvbuf), args.recvcounts, args.rdispls, args.recvtype, {}};
  failure.record(tr.type_info(args.recvtype, &recv.info));
  VSide send = recv;
  std::unique_ptr<detail::InPlaceCopy> in_place_copy;
  if (args.sendbuf == MPI_IN_PLACE) {
    // Work from a copy of the bytes the receive blocks cover.
    MPI_Aint lo = 0, hi = 0;
    if (!failure.failed() && recv_footprint(recv, p, &lo, &hi)) {
      in_place_copy = std::make_unique<detail::InPlaceCopy>(recv.base, lo, hi);
      send.base = in_place_copy->base();
    }
  } else if (!failure.failed()) {
    send = VSide{
        static_cast<const char*>(args.sendbuf), args.sendcounts, args.sdispls, args.sendtype, {}};
    failure.record(tr.type_info(args.sendtype, &send.info));
    if (!failure.failed()) failure.record(detail::copy(tr, send.elements(me), recv.elements(me)));
  }
  if (stats) stats->rounds += static_cast<int>(schedule.rounds.size());

  // Blocks in transit here, packed.
  std::map<Block, std::vector<char>, BlockLess> held;
  std::vector<std::vector<char>> outgoing, incoming;
  std::vector<Message> sends, recvs;
  std::vector<int> probe_peers;
  std::vector<const Transfer*> probed_transfers;

  for (const Round& round : schedule.rounds) {
    if (round.idle()) continue;
    sends.clear();
    recvs.clear();
    outgoing.clear();
    probe_peers.clear();
    probed_transfers.clear();
    outgoing.reserve(round.sends.size());
    for (const Transfer& t : round.sends) {
      if (failure.failed()) {
        sends.push_back({nullptr, 0, MPI_BYTE, t.peer});
        continue;
      }
      if (is_direct(t, me, t.peer)) {
        sends.push_back({send.block(t.peer), send.counts[t.peer], send.type, t.peer});
        if (stats) stats->bytes_sent += send.bytes(t.peer);
        continue;
      }
      // Header: the byte length of each block, then the blocks.
      std::vector<std::uint64_t> sizes;
      for (const Block& b : t.blocks) {
        auto it = held.find(b);
        sizes.push_back(it != held.end() ? it->second.size()
                                         : static_cast<std::uint64_t>(send.bytes(b.dst)));
      }
      size_t total = sizes.size() * sizeof(std::uint64_t);
      for (auto n : sizes) total += n;
      std::vector<char> msg(total);
      std::memcpy(msg.data(), sizes.data(), sizes.size() * sizeof(std::uint64_t));
      char* out = msg.data() + sizes.size() * sizeof(std::uint64_t);
      for (size_t i = 0; i < t.blocks.size() && !failure.failed(); ++i) {
        const Block& b = t.blocks[i];
        auto it = held.find(b);
        if (it != held.end()) {
          if (sizes[i]) std::memcpy(out, it->second.data(), sizes[i]);
          held.erase(it);
        } else {
          failure.record(detail::pack(tr, send.elements(b.dst), out));
        }
        out += sizes[i];
      }
      if (stats) stats->bytes_sent += static_cast<long long>(total);
      outgoing.push_back(std::move(msg));
      sends.push_back({outgoing.back().data(), static_cast<MPI_Aint>(outgoing.back().size()),
                       MPI_BYTE, t.peer});
    }
    for (const Transfer& t : round.recvs) {
      if (is_direct(t, t.peer, me)) {
        if (failure.failed())
          recvs.push_back({nullptr, 0, MPI_BYTE, t.peer});
        else
          recvs.push_back({recv.block(t.peer), recv.counts[t.peer], recv.type, t.peer});
      } else {
        probe_peers.push_back(t.peer);
        probed_transfers.push_back(&t);
      }
    }
    incoming.assign(probe_peers.size(), {});
    failure.record(tr.exchange_probed(
        sends.data(), static_cast<int>(sends.size()), recvs.data(), static_cast<int>(recvs.size()),
        probe_peers.data(), incoming.data(), static_cast<int>(probe_peers.size()), failure.code()));
    if (failure.failed()) continue;  // from now on only the traffic goes on
    if (stats) stats->messages_sent += static_cast<long long>(sends.size());
    for (size_t k = 0; k < incoming.size() && !failure.failed(); ++k) {
      const Transfer& t = *probed_transfers[k];
      const std::vector<char>& msg = incoming[k];
      const size_t header = t.blocks.size() * sizeof(std::uint64_t);
      if (msg.size() < header) {
        failure.record(MPI_ERR_TRUNCATE);
        break;
      }
      std::vector<std::uint64_t> sizes(t.blocks.size());
      std::memcpy(sizes.data(), msg.data(), header);
      size_t pos = header;
      for (size_t i = 0; i < t.blocks.size() && !failure.failed(); ++i) {
        if (sizes[i] > msg.size() - pos) {
          failure.record(MPI_ERR_TRUNCATE);
          break;
        }
        const Block& b = t.blocks[i];
        const char* data = msg.data() + pos;
        if (b.dst == me)
          failure.record(unpack_from(tr, data, static_cast<MPI_Aint>(sizes[i]), recv, b.src));
        else
          held[b].assign(data, data + sizes[i]);
        pos += sizes[i];
      }
    }
  }
  return failure.code();
}

}  // namespace topoa2a
