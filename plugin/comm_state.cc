#include "plugin/comm_state.h"

#include <atomic>

namespace topoa2a {
namespace {
int keyval = MPI_KEYVAL_INVALID;
std::atomic<long> next_id{0};
std::atomic<long> detections{0};

std::string key_of(const Algorithm& a, const Params& p) {
  return std::string(a.name) + ":" + std::to_string(p.grid.rows) + "x" +
         std::to_string(p.grid.cols);
}
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
  int err = MPI_SUCCESS;
  (void)parent;
  (void)dup;
  get(comm, &err);
}

CommState* CommState::get(MPI_Comm comm, int* err) {
  void* value = nullptr;
  int found = 0;
  *err = PMPI_Comm_get_attr(comm, keyval, &value, &found);
  if (*err != MPI_SUCCESS) return nullptr;
  if (found) return static_cast<CommState*>(value);
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
  ++detections;
  *err = PMPI_Comm_set_attr(comm, keyval, state);
  if (*err != MPI_SUCCESS) {
    PMPI_Comm_free(&state->shadow_);
    delete state;
    return nullptr;
  }
  return state;
}

const Plan& CommState::plan(const Algorithm& a, const Params& params) {
  std::lock_guard<std::mutex> lock(mu_);
  auto& slot = plans_[key_of(a, params)];
  if (!slot) slot = std::make_unique<Plan>(make_plan(a.build(size_, rank_, params), size_, rank_));
  return *slot;
}

const Schedule& CommState::schedule(const Algorithm& a, const Params& params) {
  std::lock_guard<std::mutex> lock(mu_);
  auto& slot = schedules_[key_of(a, params)];
  if (!slot) slot = std::make_unique<Schedule>(a.build(size_, rank_, params));
  return *slot;
}

bool CommState::first_time(const std::string& key) {
  std::lock_guard<std::mutex> lock(mu_);
  return seen_.insert(key).second;
}

}  // namespace topoa2a
