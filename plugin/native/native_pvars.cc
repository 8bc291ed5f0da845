#include "plugin/native/native_pvars.h"

#include <string>
#include <vector>

#include "plugin/pvar_list.h"

namespace topoa2a {
namespace {

const CommStats* (*g_stats_of)(void*) = nullptr;

void read_pvar(void* ctx, void* comm_state, void* out) {
  const Pvar& v = *static_cast<const Pvar*>(ctx);
  const unsigned long long value = pvar_value(v, comm_state ? g_stats_of(comm_state) : nullptr);
  if (v.choice)
    *static_cast<int*>(out) = static_cast<int>(value);
  else
    *static_cast<unsigned long long*>(out) = value;
}

}  // namespace

int register_native_pvars(const MPICH_Coll_plugin_host& host,
                          const CommStats* (*stats_of)(void* comm_state)) {
  g_stats_of = stats_of;
  std::vector<const char*> items;
  for (const std::string& n : choice_names()) items.push_back(n.c_str());
  for (const Pvar& v : pvars()) {
    // The category's description goes with its first variable only: a
    // version-2 host passes it to MPIR_T_cat_add_desc, which asserts on a
    // category that already has one.
    const char* cat_desc = &v == &pvars().front() ? kPvarCategoryDesc : nullptr;
    void* ctx = const_cast<Pvar*>(&v);
    int err = MPI_SUCCESS;
    if (host.abi_version >= 3)
      err = host.register_pvar(v.name.c_str(), v.desc.c_str(), kPvarCategory, cat_desc,
                               v.choice ? MPI_T_PVAR_CLASS_STATE : MPI_T_PVAR_CLASS_COUNTER,
                               v.comm ? MPI_T_BIND_MPI_COMM : MPI_T_BIND_NO_OBJECT,
                               v.choice ? kChoiceEnum : nullptr,
                               v.choice ? static_cast<int>(items.size()) : 0,
                               v.choice ? items.data() : nullptr, read_pvar, ctx);
    else if (host.abi_version == 2 && !v.comm)
      err = host.register_counter(
          v.name.c_str(), v.desc.c_str(), kPvarCategory, cat_desc,
          [](void* c) { return pvar_value(*static_cast<const Pvar*>(c)); }, ctx);
    if (err != MPI_SUCCESS) return err;
  }
  return MPI_SUCCESS;
}

}  // namespace topoa2a
