#include "plugin/native/native_transport.h"

#include <algorithm>

namespace topoa2a {

NativeTransport::NativeTransport(const MPICH_Coll_plugin_host& host, MPICH_Coll_plugin_comm* comm)
    : host_(host), comm_(comm), rank_(host.comm_rank(comm)), size_(host.comm_size(comm)) {}

NativeTransport::Posted& NativeTransport::slot(int id) {
  if (static_cast<size_t>(id) >= posted_.size()) posted_.resize(static_cast<size_t>(id) + 1);
  return posted_[id];
}

// Every message is posted even after an error, so that no peer waits for
// one that never comes: after a failure (or when posting it fails) as an
// empty message.
void NativeTransport::post(int id, bool send, const Message& m, bool discard) {
  Posted& p = slot(id);
  int e = MPI_ERR_OTHER;
  if (!discard) {
    e = send ? host_.isend(m.buf, m.count, m.type, m.peer, comm_, &p.request)
             : host_.irecv(m.buf, m.count, m.type, m.peer, comm_, &p.request);
    p.err = e;
  }
  if (e != MPI_SUCCESS) {
    if (send)
      host_.isend(nullptr, 0, MPI_BYTE, m.peer, comm_, &p.request);
    else
      host_.irecv(nullptr, 0, MPI_BYTE, m.peer, comm_, &p.request);
  }
}

void NativeTransport::post_send(int id, const Message& m, int failed) {
  post(id, true, m, failed != MPI_SUCCESS);
}

void NativeTransport::post_recv(int id, const Message& m, int failed) {
  for (const Held& h : held_)
    if (h.m.peer == m.peer) {
      held_.push_back({id, false, failed != MPI_SUCCESS, m, nullptr});
      return;
    }
  post(id, false, m, failed != MPI_SUCCESS);
}

void NativeTransport::post_recv_any(int id, int peer, std::vector<char>* into, int failed) {
  held_.push_back({id, true, failed != MPI_SUCCESS, {nullptr, 0, MPI_BYTE, peer}, into});
}

// Posts the held receives of the oldest round, in order, each peer's first
// one first: a probe (blocking: its round is the oldest) and the receive of
// what it found, or a receive of known length.
void NativeTransport::release_held(const int* oldest, int n) {
  keep_.clear();
  blocked_.clear();
  for (const Held& h : held_) {
    const bool is_oldest = std::find(oldest, oldest + n, h.id) != oldest + n;
    if (!is_oldest || std::find(blocked_.begin(), blocked_.end(), h.m.peer) != blocked_.end()) {
      keep_.push_back(h);
      blocked_.push_back(h.m.peer);
      continue;
    }
    if (!h.any) {
      post(h.id, false, h.m, h.discard);
      continue;
    }
    Posted& p = slot(h.id);
    MPI_Aint bytes = 0;
    p.err = host_.probe(h.m.peer, comm_, &bytes);
    if (p.err != MPI_SUCCESS) continue;  // reported; nothing to take
    std::vector<char>& into = h.discard ? p.spare : *h.into;
    into.resize(static_cast<size_t>(bytes));
    p.err = host_.irecv(into.data(), bytes, MPI_BYTE, h.m.peer, comm_, &p.request);
  }
  held_.swap(keep_);
}

void NativeTransport::wait(const int* oldest, int n, std::vector<Completion>* done) {
  if (!held_.empty()) release_held(oldest, n);
  batch_.clear();
  for (int i = 0; i < n; ++i)
    if (posted_[oldest[i]].request) batch_.push_back(posted_[oldest[i]].request);
  // Wait for what was posted even after an error, so no request outlives
  // the buffers it names.
  const int err = host_.waitall(static_cast<int>(batch_.size()), batch_.data());
  for (int i = 0; i < n; ++i) {
    Posted& p = posted_[oldest[i]];
    done->push_back({oldest[i], p.err != MPI_SUCCESS ? p.err : (i == 0 ? err : MPI_SUCCESS)});
    p.request = nullptr;
    std::vector<char>().swap(p.spare);
  }
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
  return native_type_info(host_, type, info);
}

int native_type_info(const MPICH_Coll_plugin_host& host, MPI_Datatype type, TypeInfo* info) {
  int contiguous = 0;
  const int err = host.type_info(type, &info->size, &info->extent, &info->true_lb,
                                 &info->true_extent, &contiguous);
  if (err != MPI_SUCCESS) return err;
  // Plain bytes in typemap order: contiguous, no gaps, starting at the buffer.
  info->memcpy_ok = contiguous && info->size == info->extent && info->true_lb == 0 &&
                    info->true_extent == info->size;
  return MPI_SUCCESS;
}

}  // namespace topoa2a
