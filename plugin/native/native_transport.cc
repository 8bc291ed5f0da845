#include "plugin/native/native_transport.h"

namespace topoa2a {

NativeTransport::NativeTransport(const MPICH_Coll_plugin_host& host, MPICH_Coll_plugin_comm* comm)
    : host_(host), comm_(comm), rank_(host.comm_rank(comm)), size_(host.comm_size(comm)) {}

int NativeTransport::exchange(const Message* sends, int nsends, const Message* recvs, int nrecvs,
                              int failed) {
  return exchange_probed(sends, nsends, recvs, nrecvs, nullptr, nullptr, 0, failed);
}

int NativeTransport::exchange_probed(const Message* sends, int nsends, const Message* recvs,
                                     int nrecvs, const int* probe_peers, std::vector<char>* probed,
                                     int nprobed, int failed) {
  const bool discard = failed != MPI_SUCCESS;
  // The host table has no tags and no statuses: a discarded payload goes as
  // an empty message, which the peer's receive cannot tell from data (its
  // own failure, if any, still ends its schedule; see README, limits).
  requests_.assign(static_cast<size_t>(nsends + nrecvs + nprobed), nullptr);
  int n = 0, err = MPI_SUCCESS;
  auto note = [&err](int e) {
    if (e != MPI_SUCCESS && err == MPI_SUCCESS) err = e;
  };
  // Every message is posted even after an error, so that no peer waits for
  // one that never comes: after a failure (or when posting it fails) as an
  // empty message.
  auto post = [&](auto host_call, const Message& m) {
    const int e =
        discard ? MPI_ERR_OTHER : host_call(m.buf, m.count, m.type, m.peer, comm_, &requests_[n]);
    if (!discard) note(e);
    if (e != MPI_SUCCESS) host_call(nullptr, 0, MPI_BYTE, m.peer, comm_, &requests_[n]);
    ++n;
  };
  for (int i = 0; i < nrecvs; ++i) post(host_.irecv, recvs[i]);
  for (int i = 0; i < nsends; ++i) post(host_.isend, sends[i]);
  // A probe sees the first message from the peer that no posted receive
  // has matched; the receive posted right after it takes that message.
  for (int i = 0; i < nprobed; ++i) {
    MPI_Aint bytes = 0;
    const int e = host_.probe(probe_peers[i], comm_, &bytes);
    note(e);
    if (e != MPI_SUCCESS) continue;
    probed[i].assign(discard ? 0 : static_cast<size_t>(bytes), 0);
    note(host_.irecv(probed[i].data(), static_cast<MPI_Aint>(probed[i].size()), MPI_BYTE,
                     probe_peers[i], comm_, &requests_[n++]));
  }
  // Wait for what was posted even after an error, so no request outlives
  // the buffers it names.
  note(host_.waitall(n, requests_.data()));
  return discard ? MPI_SUCCESS : err;
}

int NativeTransport::pack(const void* in, MPI_Aint count, MPI_Datatype type, void* out,
                          MPI_Aint bytes) {
  return host_.pack(in, count, type, out, bytes);
}

int NativeTransport::unpack(const void* in, MPI_Aint bytes, void* out, MPI_Aint count,
                            MPI_Datatype type) {
  return host_.unpack(in, bytes, out, count, type);
}

int NativeTransport::type_info(MPI_Datatype type, TypeInfo* info) {
  int contiguous = 0;
  const int err = host_.type_info(type, &info->size, &info->extent, &info->true_lb,
                                  &info->true_extent, &contiguous);
  if (err != MPI_SUCCESS) return err;
  // Plain bytes in typemap order: contiguous, no gaps, starting at the buffer.
  info->memcpy_ok = contiguous && info->size == info->extent && info->true_lb == 0 &&
                    info->true_extent == info->size;
  return MPI_SUCCESS;
}

}  // namespace topoa2a
