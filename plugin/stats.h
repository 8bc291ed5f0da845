// Statistics of what ran: calls, rounds and bytes per (operation,
// algorithm), per process and per communicator, and the algorithm topo_auto
// chose last on each communicator. Thread-safe. Read through
// MPIR_CVAR_TOPOA2A_STATS (stats_dump) and the MPI_T performance variables
// (plugin/pvar_list.h).
#pragma once

#include <map>
#include <mutex>
#include <string>
#include <utility>

namespace topoa2a {

struct Counters {
  long long calls = 0, rounds = 0, bytes = 0;
};

// One communicator's statistics (CommCore::stats()). Shared: an MPI_T
// handle bound to the communicator keeps it after the communicator is freed.
class CommStats {
 public:
  Counters get(const std::string& op, const std::string& algorithm) const;
  // topo_auto's last choice for `op` on this communicator: one of our
  // algorithms' names, "mpich" or "mpich:<MPICH's algorithm>"; empty: none.
  std::string last_choice(const std::string& op) const;
  void chose(const std::string& op, const std::string& name);

 private:
  friend void stats_add(CommStats& comm, const std::string& op, const std::string& algorithm,
                        long long rounds, long long bytes);
  mutable std::mutex mu_;
  std::map<std::pair<std::string, std::string>, Counters> table_;
  std::map<std::string, std::string> last_;
};

// One call of `op` that `algorithm` ran on the communicator of `comm`
// (counted there and in the process).
void stats_add(CommStats& comm, const std::string& op, const std::string& algorithm,
               long long rounds, long long bytes);
// Lines "topoa2a-stats rank=R op=OP algorithm=A calls=N rounds=N bytes=N".
void stats_dump(int world_rank);

}  // namespace topoa2a

extern "C" {
// Query from tests or tools without linking to topoa2a:
// dlsym(RTLD_DEFAULT, "topoa2a_stats_get"). Returns 0 when found.
int topoa2a_stats_get(const char* op, const char* algorithm, long long* calls, long long* rounds,
                      long long* bytes);
}
