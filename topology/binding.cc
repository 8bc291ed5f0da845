// The calling process's CPU binding, from hwloc (no MPI).
#include "topology/binding.h"

#ifdef TOPOA2A_HAVE_HWLOC
#include <hwloc.h>
#endif

namespace topoa2a {

void local_binding(int* package, int* numa) {
  struct Binding {
    int package = -1;
    int numa = -1;
  };
  static const Binding cached = [] {
    Binding b;
#ifdef TOPOA2A_HAVE_HWLOC
    hwloc_topology_t topo;
    if (hwloc_topology_init(&topo) != 0) return b;
    if (hwloc_topology_load(topo) == 0) {
      hwloc_bitmap_t set = hwloc_bitmap_alloc();
      if (set && hwloc_get_cpubind(topo, set, HWLOC_CPUBIND_PROCESS) == 0 &&
          !hwloc_bitmap_iszero(set)) {
        // The deepest object covering the binding; its package ancestor, if
        // the binding lies within one package.
        for (hwloc_obj_t o = hwloc_get_obj_covering_cpuset(topo, set); o; o = o->parent) {
          if (o->type == HWLOC_OBJ_PACKAGE) {
            b.package = static_cast<int>(o->logical_index);
            break;
          }
        }
        for (hwloc_obj_t n = hwloc_get_next_obj_by_type(topo, HWLOC_OBJ_NUMANODE, nullptr); n;
             n = hwloc_get_next_obj_by_type(topo, HWLOC_OBJ_NUMANODE, n)) {
          if (n->cpuset && hwloc_bitmap_isincluded(set, n->cpuset)) {
            b.numa = static_cast<int>(n->logical_index);
            break;
          }
        }
      }
      if (set) hwloc_bitmap_free(set);
    }
    hwloc_topology_destroy(topo);
#endif
    return b;
  }();
  *package = cached.package;
  *numa = cached.numa;
}

}  // namespace topoa2a
