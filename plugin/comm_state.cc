#include "plugin/comm_state.h"

#include <atomic>
#include <cstdio>
#include <cstdlib>

#include "topology/detect.h"

namespace topoa2a {
namespace {
int keyval = MPI_KEYVAL_INVALID;
std::atomic<long> next_id{0};
std::atomic<long> detections{0};
}  // namespace

int CommState::init_keyval() {
  return PMPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, &CommState::delete_fn, &keyval, nullptr);
}

int CommState::delete_fn(MPI_Comm, int, void* value, void*) {
  auto* state = static_cast<CommState*>(value);
  PMPI_Comm_free(&state->shadow_);
  delete state;
  return MPI_SUCCESS;
}

void CommState::release(MPI_Comm comm) {
  if (keyval != MPI_KEYVAL_INVALID) PMPI_Comm_delete_attr(comm, keyval);
}

long CommState::created_count() { return next_id.load(); }
long CommState::detected_count() { return detections.load(); }

void CommState::on_created(MPI_Comm comm, MPI_Comm parent, bool dup) {
  if (comm == MPI_COMM_NULL) return;
  int inter = 0;
  if (PMPI_Comm_test_inter(comm, &inter) != MPI_SUCCESS || inter) return;
  const CommState* from = nullptr;
  if (dup && parent != MPI_COMM_NULL) {
    void* value = nullptr;
    int found = 0;
    if (PMPI_Comm_get_attr(parent, keyval, &value, &found) == MPI_SUCCESS && found)
      from = static_cast<CommState*>(value);
  }
  int err = MPI_SUCCESS;
  create(comm, from, &err);
}

CommState* CommState::get(MPI_Comm comm, int* err) {
  void* value = nullptr;
  int found = 0;
  *err = PMPI_Comm_get_attr(comm, keyval, &value, &found);
  if (*err != MPI_SUCCESS) return nullptr;
  if (found) return static_cast<CommState*>(value);
  return create(comm, nullptr, err);  // a communicator made by MPI_Comm_idup
}

CommState* CommState::create(MPI_Comm comm, const CommState* parent, int* err) {
  MPI_Comm shadow;
  *err = PMPI_Comm_dup(comm, &shadow);
  if (*err != MPI_SUCCESS) return nullptr;
  // Errors on internal traffic come back as codes and are raised on the
  // user's communicator.
  PMPI_Comm_set_errhandler(shadow, MPI_ERRORS_RETURN);
  int size, rank;
  PMPI_Comm_size(comm, &size);
  PMPI_Comm_rank(comm, &rank);
  auto* state = new CommState(shadow, size, rank, next_id++);
  if (parent) {  // a duplicate: same ranks, same machine
    state->share_topology(*parent);
  } else {
    auto topo = std::make_shared<Topology>(detect_topology(shadow));
    ++detections;
    if (!topo->errors.empty()) {  // a malformed network file or forced topology
      if (rank == 0)
        for (const auto& e : topo->errors) std::fprintf(stderr, "topoa2a: %s\n", e.c_str());
      PMPI_Abort(comm, 1);
    }
    std::string error;
    CostParams cost = cost_params_for(*topo, &error);
    if (!error.empty()) {
      if (rank == 0) std::fprintf(stderr, "topoa2a: %s\n", error.c_str());
      PMPI_Abort(comm, 1);
    }
    auto model = std::make_shared<CostModel>(*topo, cost);
    state->set_topology(std::move(topo), std::move(model));
  }
  *err = PMPI_Comm_set_attr(comm, keyval, state);
  if (*err != MPI_SUCCESS) {
    PMPI_Comm_free(&state->shadow_);
    delete state;
    return nullptr;
  }
  return state;
}

}  // namespace topoa2a

// Introspection for tests and tools, found with dlsym (not linked).
extern "C" __attribute__((visibility("default"))) int topoa2a_comm_topology(MPI_Comm comm,
                                                                            char* buf, int len) {
  int err = MPI_SUCCESS;
  topoa2a::CommState* s = topoa2a::CommState::get(comm, &err);
  if (!s) return err;
  std::snprintf(buf, static_cast<size_t>(len), "%s", topoa2a::describe(s->topology()).c_str());
  return MPI_SUCCESS;
}

extern "C" __attribute__((visibility("default"))) long topoa2a_detections(void) {
  return topoa2a::CommState::detected_count();
}
