#include "plugin/control.h"

#include <string>

#include "plugin/config.h"
#include "plugin/front.h"

extern "C" __attribute__((visibility("default"))) int topoa2a_select(const char* op,
                                                                     const char* value) {
  using namespace topoa2a;
  Config* config = front_config();
  if (!config) return 2;
  if (!op || !value) return 1;
  const std::string which = op;
  Coll coll;
  Selection* sel;
  if (which == "alltoall") {
    coll = Coll::kAlltoall, sel = &config->alltoall;
  } else if (which == "alltoallv") {
    coll = Coll::kAlltoallv, sel = &config->alltoallv;
  } else if (which == "ialltoall") {  // MPI_Ialltoall and MPI_Alltoall_init
    coll = Coll::kIalltoall, sel = &config->ialltoall;
  } else if (which == "ialltoallv") {
    coll = Coll::kIalltoallv, sel = &config->ialltoallv;
  } else {
    return 1;
  }
  if (!parse_selection(value, coll, sel)) return 1;
  if (front_active()) front_gather_world();
  return 0;
}

extern "C" __attribute__((visibility("default"))) int topoa2a_set_window(int window) {
  using namespace topoa2a;
  Config* config = front_config();
  if (!config) return 2;
  if (window < 0 || window > kMaxWindow) return 1;
  config->window = window;
  return 0;
}
