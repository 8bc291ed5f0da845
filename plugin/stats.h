// Per-process statistics of what ran: calls, rounds and bytes per
// (operation, algorithm). Thread-safe.
#pragma once

#include <string>

namespace topoa2a {

void stats_add(const std::string& op, const std::string& algorithm, long long rounds,
               long long bytes);
// Lines "topoa2a-stats rank=R op=OP algorithm=A calls=N rounds=N bytes=N".
void stats_dump(int world_rank);

}  // namespace topoa2a

extern "C" {
// Query from tests or tools without linking to topoa2a:
// dlsym(RTLD_DEFAULT, "topoa2a_stats_get"). Returns 0 when found.
int topoa2a_stats_get(const char* op, const char* algorithm, long long* calls, long long* rounds,
                      long long* bytes);
}
