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
  if (which != "alltoall" && which != "alltoallv") return 1;
  const bool v = which == "alltoallv";
  if (!parse_selection(value, v, v ? &config->alltoallv : &config->alltoall)) return 1;
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
