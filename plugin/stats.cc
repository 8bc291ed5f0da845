#include "plugin/stats.h"

#include <cstdio>

namespace topoa2a {
namespace {

std::mutex mu;
std::map<std::pair<std::string, std::string>, Counters>& table() {
  static std::map<std::pair<std::string, std::string>, Counters> t;
  return t;
}

void add(Counters& c, long long rounds, long long bytes) {
  ++c.calls;
  c.rounds += rounds;
  c.bytes += bytes;
}

}  // namespace

Counters CommStats::get(const std::string& op, const std::string& algorithm) const {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = table_.find({op, algorithm});
  return it == table_.end() ? Counters{} : it->second;
}

std::string CommStats::last_choice(const std::string& op) const {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = last_.find(op);
  return it == last_.end() ? std::string() : it->second;
}

void CommStats::chose(const std::string& op, const std::string& name) {
  std::lock_guard<std::mutex> lock(mu_);
  last_[op] = name;
}

void stats_add(CommStats& comm, const std::string& op, const std::string& algorithm,
               long long rounds, long long bytes) {
  {
    std::lock_guard<std::mutex> lock(comm.mu_);
    add(comm.table_[{op, algorithm}], rounds, bytes);
  }
  std::lock_guard<std::mutex> lock(mu);
  add(table()[{op, algorithm}], rounds, bytes);
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
