#include "plugin/comm_state.h"

#include <atomic>
#include <cstdio>
#include <memory>

#include "plugin/nonblocking.h"
#include "topology/detect.h"

namespace topoa2a {
namespace {
int keyval = MPI_KEYVAL_INVALID;
std::atomic<long> next_id{0};
std::atomic<long> private_comms{0};
WorldFacts g_world;            // gathered at MPI_Init, read-only afterwards
UserDescriptions g_described;  // as world rank 0 read them

std::string error_string(int err) {
  char text[MPI_MAX_ERROR_STRING];
  int len = 0;
  if (PMPI_Error_string(err, text, &len) != MPI_SUCCESS) return "MPI error " + std::to_string(err);
  return std::string(text, static_cast<size_t>(len));
}

std::string joined(const std::vector<std::string>& lines) {
  std::string out;
  for (const auto& l : lines) out += (out.empty() ? "" : "\n") + l;
  return out;
}

// MPI_Comm_create_group over the whole of `comm`, its errors returned
// rather than handed to the user's error handler.
int create_private(MPI_Comm comm, MPI_Comm* out) {
  MPI_Errhandler user = MPI_ERRHANDLER_NULL;
  PMPI_Comm_get_errhandler(comm, &user);
  PMPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
  MPI_Group group;
  int err = PMPI_Comm_group(comm, &group);
  if (err == MPI_SUCCESS) {
    constexpr int kCreateTag = 7332;
    err = PMPI_Comm_create_group(comm, group, kCreateTag, out);
    PMPI_Group_free(&group);
  }
  PMPI_Comm_set_errhandler(comm, user);
  PMPI_Errhandler_free(&user);
  if (err == MPI_SUCCESS) PMPI_Comm_set_errhandler(*out, MPI_ERRORS_RETURN);
  return err;
}
}  // namespace

bool CommState::init(const UserDescriptions& read, std::string* error) {
  PMPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, &CommState::delete_fn, &keyval, nullptr);
  g_described = read;
  const int err = gather_world(&g_world, &g_described);
  if (err != MPI_SUCCESS) {
    *error = "gathering the machine's facts over MPI_COMM_WORLD failed: " + error_string(err);
    return false;
  }
  // Rank 0's, parsed once here (rank 0's own copy already is); every
  // communicator's derivation uses the result.
  if (!g_described.parsed && !parse_user_descriptions(&g_described, error)) return false;
  // The world's own topology: a malformed description stops the program
  // here, on every rank alike.
  const Topology world = derive_topology(g_world, comm_facts(MPI_COMM_WORLD), g_described);
  if (!world.errors.empty()) {
    *error = joined(world.errors);
    return false;
  }
  return true;
}

void CommState::finalize() {
  if (keyval == MPI_KEYVAL_INVALID) return;
  PMPI_Comm_delete_attr(MPI_COMM_WORLD, keyval);
  PMPI_Comm_delete_attr(MPI_COMM_SELF, keyval);
  PMPI_Comm_free_keyval(&keyval);
}

int CommState::delete_fn(MPI_Comm, int, void* value, void*) {
  auto* state = static_cast<CommState*>(value);
  if (nb_release_state(state)) destroy(state);
  return MPI_SUCCESS;
}

void CommState::destroy(CommState* state) {
  for (MPI_Comm& c : state->nb.slots)
    if (c != MPI_COMM_NULL) PMPI_Comm_free(&c);
  if (state->shadow_ != MPI_COMM_NULL) PMPI_Comm_free(&state->shadow_);
  delete state;
}

long CommState::created_count() { return next_id.load(); }
long CommState::private_count() { return private_comms.load(); }

CommState* CommState::get(MPI_Comm comm, int* err) {
  void* value = nullptr;
  int found = 0;
  *err = PMPI_Comm_get_attr(comm, keyval, &value, &found);
  if (*err != MPI_SUCCESS) return nullptr;
  if (found) return static_cast<CommState*>(value);
  int size = 0, rank = 0;
  PMPI_Comm_size(comm, &size);
  PMPI_Comm_rank(comm, &rank);
  auto state = std::unique_ptr<CommState>(new CommState(size, rank, next_id++));
  auto topo = std::make_shared<Topology>(derive_topology(g_world, comm_facts(comm), g_described));
  state->topology_error_ = joined(topo->errors);
  state->set_topology(std::move(topo), g_described.cost_params);  // parsed at MPI_Init
  *err = PMPI_Comm_set_attr(comm, keyval, state.get());
  if (*err != MPI_SUCCESS) return nullptr;
  return state.release();
}

MPI_Comm CommState::shadow(MPI_Comm comm, std::string* why) {
  if (!shadow_tried_) {
    shadow_tried_ = true;
    const int err = create_private(comm, &shadow_);
    if (err != MPI_SUCCESS) {
      shadow_ = MPI_COMM_NULL;
      shadow_error_ = "could not make topoa2a's private communicator: " + error_string(err);
    } else {
      ++private_comms;
    }
  }
  if (shadow_ == MPI_COMM_NULL) *why = shadow_error_;
  return shadow_;
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

// Communicator states, and private communicators, made by this process so far.
extern "C" __attribute__((visibility("default"))) long topoa2a_comm_states(void) {
  return topoa2a::CommState::created_count();
}
extern "C" __attribute__((visibility("default"))) long topoa2a_private_comms(void) {
  return topoa2a::CommState::private_count();
}
