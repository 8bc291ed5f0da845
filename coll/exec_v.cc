// MPI_Alltoallv over any schedule (see run_alltoallv in exec.h).
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <map>
#include <memory>
#include <vector>

#include "coll/exec.h"

namespace topoa2a {
namespace {

struct VSide {
  char* base;
  const int* counts;
  const int* displs;
  MPI_Datatype type;
  TypeInfo info;
  char* block(int i) const { return base + static_cast<MPI_Aint>(displs[i]) * info.extent; }
  MPI_Aint bytes(int i) const { return counts[i] * info.size; }
};

struct BlockLess {
  bool operator()(const Block& a, const Block& b) const {
    return a.src != b.src ? a.src < b.src : a.dst < b.dst;
  }
};

int pack_to(Transport& tr, const VSide& v, int i, char* out) {
  const MPI_Aint bytes = v.bytes(i);
  if (bytes == 0) return MPI_SUCCESS;
  if (v.info.memcpy_ok) {
    std::memcpy(out, v.block(i) + v.info.true_lb, bytes);
    return MPI_SUCCESS;
  }
  return tr.pack(v.block(i), v.counts[i], v.type, out, bytes);
}

int unpack_from(Transport& tr, const char* in, MPI_Aint bytes, const VSide& v, int i) {
  if (bytes != v.bytes(i)) return MPI_ERR_TRUNCATE;
  if (bytes == 0) return MPI_SUCCESS;
  if (v.info.memcpy_ok) {
    std::memcpy(v.block(i) + v.info.true_lb, in, bytes);
    return MPI_SUCCESS;
  }
  return tr.unpack(in, bytes, v.block(i), v.counts[i], v.type);
}

bool is_direct(const Transfer& t, int sender, int receiver) {
  return t.blocks.size() == 1 && t.blocks[0].src == sender && t.blocks[0].dst == receiver;
}

}  // namespace

int run_alltoallv(const Schedule& schedule, Transport& tr, const AlltoallvArgs& args,
                  RunStats* stats) {
  const int p = tr.size(), me = tr.rank();
  VSide recv{static_cast<char*>(args.recvbuf), args.recvcounts, args.rdispls, args.recvtype, {}};
  int err = tr.type_info(args.recvtype, &recv.info);
  if (err != MPI_SUCCESS) return err;
  VSide send = recv;
  std::unique_ptr<char[]> in_place_copy;
  if (args.sendbuf == MPI_IN_PLACE) {
    // Work from a copy of the bytes the receive blocks cover.
    MPI_Aint lo = 0, hi = 0;
    bool any = false;
    for (int i = 0; i < p; ++i) {
      if (recv.counts[i] == 0) continue;
      const MPI_Aint start = static_cast<MPI_Aint>(recv.displs[i]) * recv.info.extent;
      const MPI_Aint last = (recv.counts[i] - 1) * recv.info.extent;
      const MPI_Aint a = start + recv.info.true_lb + std::min<MPI_Aint>(0, last);
      const MPI_Aint b =
          start + recv.info.true_lb + recv.info.true_extent + std::max<MPI_Aint>(0, last);
      lo = any ? std::min(lo, a) : a;
      hi = any ? std::max(hi, b) : b;
      any = true;
    }
    if (any) {
      in_place_copy.reset(new char[hi - lo]);
      std::memcpy(in_place_copy.get(), recv.base + lo, hi - lo);
      send.base = in_place_copy.get() - lo;
    }
  } else {
    send = VSide{static_cast<char*>(const_cast<void*>(args.sendbuf)),
                 args.sendcounts,
                 args.sdispls,
                 args.sendtype,
                 {}};
    err = tr.type_info(args.sendtype, &send.info);
    if (err != MPI_SUCCESS) return err;
    if (send.bytes(me) != recv.bytes(me)) return MPI_ERR_TRUNCATE;
    std::vector<char> tmp(send.bytes(me));
    err = pack_to(tr, send, me, tmp.data());
    if (err == MPI_SUCCESS) err = unpack_from(tr, tmp.data(), tmp.size(), recv, me);
    if (err != MPI_SUCCESS) return err;
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
      if (is_direct(t, me, t.peer)) {
        sends.push_back({send.block(t.peer), send.counts[t.peer], send.type, t.peer});
        if (stats) stats->bytes_sent += send.bytes(t.peer);
        continue;
      }
      // Header: the byte length of each block, then the blocks.
      std::vector<std::uint64_t> sizes;
      for (const Block& b : t.blocks) {
        auto it = held.find(b);
        sizes.push_back(it != held.end() ? it->second.size() : send.bytes(b.dst));
      }
      size_t total = sizes.size() * sizeof(std::uint64_t);
      for (auto n : sizes) total += n;
      std::vector<char> msg(total);
      std::memcpy(msg.data(), sizes.data(), sizes.size() * sizeof(std::uint64_t));
      char* at = msg.data() + sizes.size() * sizeof(std::uint64_t);
      for (size_t i = 0; i < t.blocks.size(); ++i) {
        const Block& b = t.blocks[i];
        auto it = held.find(b);
        if (it != held.end()) {
          if (sizes[i]) std::memcpy(at, it->second.data(), sizes[i]);
          held.erase(it);
        } else {
          err = pack_to(tr, send, b.dst, at);
          if (err != MPI_SUCCESS) return err;
        }
        at += sizes[i];
      }
      if (stats) stats->bytes_sent += static_cast<long long>(total);
      outgoing.push_back(std::move(msg));
      sends.push_back({outgoing.back().data(), static_cast<MPI_Aint>(outgoing.back().size()),
                       MPI_BYTE, t.peer});
    }
    for (const Transfer& t : round.recvs) {
      if (is_direct(t, t.peer, me)) {
        recvs.push_back({recv.block(t.peer), recv.counts[t.peer], recv.type, t.peer});
      } else {
        probe_peers.push_back(t.peer);
        probed_transfers.push_back(&t);
      }
    }
    incoming.assign(probe_peers.size(), {});
    err = tr.exchange_probed(sends.data(), static_cast<int>(sends.size()), recvs.data(),
                             static_cast<int>(recvs.size()), probe_peers.data(), incoming.data(),
                             static_cast<int>(probe_peers.size()));
    if (err != MPI_SUCCESS) return err;
    if (stats) stats->messages_sent += static_cast<long long>(sends.size());
    for (size_t k = 0; k < incoming.size(); ++k) {
      const Transfer& t = *probed_transfers[k];
      const std::vector<char>& msg = incoming[k];
      const size_t header = t.blocks.size() * sizeof(std::uint64_t);
      if (msg.size() < header) return MPI_ERR_TRUNCATE;
      std::vector<std::uint64_t> sizes(t.blocks.size());
      std::memcpy(sizes.data(), msg.data(), header);
      size_t at = header;
      for (size_t i = 0; i < t.blocks.size(); ++i) {
        if (sizes[i] > msg.size() - at) return MPI_ERR_TRUNCATE;
        const Block& b = t.blocks[i];
        const char* data = msg.data() + at;
        if (b.dst == me) {
          err = unpack_from(tr, data, static_cast<MPI_Aint>(sizes[i]), recv, b.src);
          if (err != MPI_SUCCESS) return err;
        } else {
          held[b].assign(data, data + sizes[i]);
        }
        at += sizes[i];
      }
    }
  }
  return MPI_SUCCESS;
}

}  // namespace topoa2a
