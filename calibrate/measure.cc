#include "calibrate/measure.h"

#include <algorithm>
#include <map>

namespace topoa2a {

Levels find_levels(MPI_Comm comm) {
  Levels l;
  int size = 0, rank = 0;
  MPI_Comm_size(comm, &size);
  MPI_Comm_rank(comm, &rank);
  MPI_Comm node = MPI_COMM_NULL;
  int leader = rank;
  MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &node);
  if (node != MPI_COMM_NULL) {
    MPI_Bcast(&leader, 1, MPI_INT, 0, node);  // the lowest rank of each node names it
    MPI_Comm_free(&node);
  }
  std::vector<int> leader_of(static_cast<size_t>(size));
  MPI_Allgather(&leader, 1, MPI_INT, leader_of.data(), 1, MPI_INT, comm);
  std::map<int, std::vector<int>> members;  // by leader, ranks in order
  for (int r = 0; r < size; ++r) members[leader_of[r]].push_back(r);
  l.nodes = static_cast<int>(members.size());
  const std::vector<int>* two = nullptr;  // the first node with two ranks
  for (const auto& [lead, ranks] : members) {
    l.max_ranks_per_node = std::max(l.max_ranks_per_node, static_cast<int>(ranks.size()));
    if (!two && ranks.size() >= 2) two = &ranks;
  }
  if (two)
    l.intra.push_back({(*two)[0], (*two)[1]});
  else
    l.intra_why = "no node runs two ranks (run two ranks per node)";
  if (l.nodes < 2) {
    l.inter_why =
        "all " + std::to_string(size) + " ranks are on one node (run ranks on at least two nodes)";
    return l;
  }
  const std::vector<int>& first = members.begin()->second;
  const std::vector<int>& second = std::next(members.begin())->second;
  l.inter.push_back({first[0], second[0]});
  const size_t n = std::min(first.size(), second.size());
  if (n >= 2)
    for (size_t i = 0; i < n; ++i) l.inter_n.push_back({first[i], second[i]});
  return l;
}

double exchange(MPI_Comm comm, const std::vector<Pair>& pairs, size_t bytes, int count, int iters) {
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  int peer = -1;
  bool first = false;
  for (const Pair& p : pairs) {
    if (p.a == rank) peer = p.b, first = true;
    if (p.b == rank) peer = p.a;
  }
  const int tag = 77;
  std::vector<char> send(std::max<size_t>(1, bytes * count), 1), recv(send.size());
  std::vector<MPI_Request> req(static_cast<size_t>(count));
  const int n = static_cast<int>(bytes);  // sizes are far below INT_MAX
  int err = MPI_SUCCESS;
  auto one_way = [&](bool sending) {
    for (int i = 0; i < count && err == MPI_SUCCESS; ++i) {
      char* buf = (sending ? send.data() : recv.data()) + bytes * i;
      err = sending ? MPI_Isend(buf, n, MPI_BYTE, peer, tag + i, comm, &req[i])
                    : MPI_Irecv(buf, n, MPI_BYTE, peer, tag + i, comm, &req[i]);
    }
    if (err == MPI_SUCCESS) err = MPI_Waitall(count, req.data(), MPI_STATUSES_IGNORE);
  };
  // Each iteration timed on its own; the median is robust to a rank losing
  // its core for a time slice (a shared machine, busy-polling MPI).
  std::vector<double> times;
  for (int pass = 0; pass < 2; ++pass) {  // a warm-up, then the timed one
    const int reps = pass == 0 ? 1 : iters;
    times.clear();
    MPI_Barrier(comm);
    for (int it = 0; it < reps && peer >= 0 && err == MPI_SUCCESS; ++it) {
      const double t0 = MPI_Wtime();
      one_way(first);
      one_way(!first);
      times.push_back(MPI_Wtime() - t0);
    }
  }
  double mine = 0;
  if (first && !times.empty()) {
    std::nth_element(times.begin(), times.begin() + times.size() / 2, times.end());
    mine = times[times.size() / 2] / 2;
  }
  if (err != MPI_SUCCESS) mine = -1;
  double worst[2] = {mine, -mine};  // the slowest pair; any failure
  MPI_Allreduce(MPI_IN_PLACE, worst, 2, MPI_DOUBLE, MPI_MAX, comm);
  return worst[1] > 0 ? -1 : worst[0];
}

}  // namespace topoa2a
