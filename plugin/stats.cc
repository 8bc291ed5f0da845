#include "plugin/stats.h"

#include <cstdio>
#include <map>
#include <mutex>
#include <utility>

namespace topoa2a {
namespace {

struct Counters {
  long long calls = 0, rounds = 0, bytes = 0;
};

std::mutex mu;
std::map<std::pair<std::string, std::string>, Counters>& table() {
  static std::map<std::pair<std::string, std::string>, Counters> t;
  return t;
}

}  // namespace

void stats_add(const std::string& op, const std::string& algorithm, long long rounds,
               long long bytes) {
  std::lock_guard<std::mutex> lock(mu);
  Counters& c = table()[{op, algorithm}];
  ++c.calls;
  c.rounds += rounds;
  c.bytes += bytes;
}

void stats_dump(int world_rank) {
  std::lock_guard<std::mutex> lock(mu);
  for (const auto& [key, c] : table())
    std::fprintf(stderr,
                 "topoa2a-stats rank=%d op=%s algorithm=%s calls=%lld rounds=%lld bytes=%lld\n",
                 world_rank, key.first.c_str(), key.second.c_str(), c.calls, c.rounds, c.bytes);
  std::fflush(stderr);
}

}  // namespace topoa2a

extern "C" __attribute__((visibility("default"))) int topoa2a_stats_get(
    const char* op, const char* algorithm, long long* calls, long long* rounds, long long* bytes) {
  std::lock_guard<std::mutex> lock(topoa2a::mu);
  auto it = topoa2a::table().find({op, algorithm});
  const topoa2a::Counters c = it == topoa2a::table().end() ? topoa2a::Counters{} : it->second;
  if (calls) *calls = c.calls;
  if (rounds) *rounds = c.rounds;
  if (bytes) *bytes = c.bytes;
  return 0;
}
