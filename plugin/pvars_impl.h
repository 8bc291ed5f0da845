// What the preload door's MPI_T interposers (pvars.cc, pvar_categories.cc)
// share.
#pragma once

#include <mpi.h>

#include <algorithm>
#include <cstring>
#include <string>

#include "plugin/pvar_list.h"

#define TOPOA2A_EXPORT extern "C" __attribute__((visibility("default")))

namespace topoa2a {

// MPI_T's string convention: with no buffer (or length 0) report the length
// needed; otherwise copy what fits, NUL-terminated, and report its length.
inline void put_string(const std::string& s, char* buf, int* len) {
  if (!len) return;
  const int need = static_cast<int>(s.size()) + 1;
  if (!buf || *len <= 0) {
    *len = need;
    return;
  }
  const int n = std::min(*len - 1, static_cast<int>(s.size()));
  std::memcpy(buf, s.data(), static_cast<size_t>(n));
  buf[n] = '\0';
  *len = n + 1;
}

inline int count() { return static_cast<int>(pvars().size()); }

// Our enum "topoa2a_algorithm": the address of an object of ours.
inline MPI_T_enum our_enum() {
  static const char tag = 0;
  return reinterpret_cast<MPI_T_enum>(const_cast<char*>(&tag));
}

}  // namespace topoa2a
