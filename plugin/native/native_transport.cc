#include "plugin/native/native_transport.h"

namespace topoa2a {

NativeTransport::NativeTransport(const MPICH_Coll_plugin_host& host, MPICH_Coll_plugin_comm* comm)
    : host_(host), comm_(comm), rank_(host.comm_rank(comm)), size_(host.comm_size(comm)) {}

int NativeTransport::exchange(const Message* sends, int nsends, const Message* recvs, int nrecvs) {
  return exchange_probed(sends, nsends, recvs, nrecvs, nullptr, nullptr, 0);
}

int NativeTransport::exchange_probed(const Message* sends, int nsends, const Message* recvs,
                                     int nrecvs, const int* probe_peers, std::vector<char>* probed,
                                     int nprobed) {
  requests_.assign(static_cast<size_t>(nsends + nrecvs + nprobed), nullptr);
  int n = 0, err = MPI_SUCCESS;
  for (int i = 0; i < nrecvs && err == MPI_SUCCESS; ++i)
    err = host_.irecv(recvs[i].buf, recvs[i].count, recvs[i].type, recvs[i].peer, comm_,
                      &requests_[n++]);
  for (int i = 0; i < nsends && err == MPI_SUCCESS; ++i)
    err = host_.isend(sends[i].buf, sends[i].count, sends[i].type, sends[i].peer, comm_,
                      &requests_[n++]);
  // A probe sees the first message from the peer that no posted receive
  // has matched; the receive posted right after it takes that message.
  for (int i = 0; i < nprobed && err == MPI_SUCCESS; ++i) {
    MPI_Aint bytes = 0;
    err = host_.probe(probe_peers[i], comm_, &bytes);
    if (err != MPI_SUCCESS) break;
    probed[i].resize(static_cast<size_t>(bytes));
    err = host_.irecv(probed[i].data(), bytes, MPI_BYTE, probe_peers[i], comm_, &requests_[n++]);
  }
  // Wait for what was posted even after an error, so no request outlives
  // the buffers it names.
  const int wait_err = host_.waitall(n, requests_.data());
  return err != MPI_SUCCESS ? err : wait_err;
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
