// The preload door's MPI_T category and enum calls: the category "topoa2a"
// after MPICH's categories, holding our variables (pvars.cc), and the enum
// "topoa2a_algorithm" of topo_auto's choice variables.
#include "plugin/pvars_impl.h"

using topoa2a::count;

// The category "topoa2a", after MPICH's categories, holding our variables.
TOPOA2A_EXPORT int MPI_T_category_get_num(int* num) {
  const int err = PMPI_T_category_get_num(num);
  if (err == MPI_SUCCESS) *num += 1;
  return err;
}

TOPOA2A_EXPORT int MPI_T_category_get_info(int index, char* name, int* name_len, char* desc,
                                           int* desc_len, int* num_cvars, int* num_pvars,
                                           int* num_categories) {
  int base = 0;
  const int err = PMPI_T_category_get_num(&base);
  if (err != MPI_SUCCESS) return err;
  if (index != base)
    return PMPI_T_category_get_info(index, name, name_len, desc, desc_len, num_cvars, num_pvars,
                                    num_categories);
  topoa2a::put_string(topoa2a::kPvarCategory, name, name_len);
  topoa2a::put_string(topoa2a::kPvarCategoryDesc, desc, desc_len);
  if (num_cvars) *num_cvars = 0;
  if (num_pvars) *num_pvars = count();
  if (num_categories) *num_categories = 0;
  return MPI_SUCCESS;
}

TOPOA2A_EXPORT int MPI_T_category_get_index(const char* name, int* index) {
  const int err = PMPI_T_category_get_index(name, index);
  if (err != MPI_T_ERR_INVALID_NAME || !name || std::strcmp(name, topoa2a::kPvarCategory) != 0)
    return err;
  return PMPI_T_category_get_num(index);  // ours is the last one
}

TOPOA2A_EXPORT int MPI_T_category_get_pvars(int index, int len, int indices[]) {
  int base = 0, pbase = 0;
  int err = PMPI_T_category_get_num(&base);
  if (err != MPI_SUCCESS) return err;
  if (index != base) return PMPI_T_category_get_pvars(index, len, indices);
  if ((err = PMPI_T_pvar_get_num(&pbase)) != MPI_SUCCESS) return err;
  for (int i = 0; i < len && i < count(); ++i) indices[i] = pbase + i;
  return MPI_SUCCESS;
}

TOPOA2A_EXPORT int MPI_T_category_get_cvars(int index, int len, int indices[]) {
  int base = 0;
  const int err = PMPI_T_category_get_num(&base);
  if (err != MPI_SUCCESS) return err;
  return index == base ? MPI_SUCCESS : PMPI_T_category_get_cvars(index, len, indices);
}

TOPOA2A_EXPORT int MPI_T_category_get_categories(int index, int len, int indices[]) {
  int base = 0;
  const int err = PMPI_T_category_get_num(&base);
  if (err != MPI_SUCCESS) return err;
  return index == base ? MPI_SUCCESS : PMPI_T_category_get_categories(index, len, indices);
}

// The enum "topoa2a_algorithm" of the choice variables.
TOPOA2A_EXPORT int MPI_T_enum_get_info(MPI_T_enum enumtype, int* num, char* name, int* name_len) {
  if (enumtype != topoa2a::our_enum()) return PMPI_T_enum_get_info(enumtype, num, name, name_len);
  if (num) *num = static_cast<int>(topoa2a::choice_names().size());
  topoa2a::put_string(topoa2a::kChoiceEnum, name, name_len);
  return MPI_SUCCESS;
}

TOPOA2A_EXPORT int MPI_T_enum_get_item(MPI_T_enum enumtype, int index, int* value, char* name,
                                       int* name_len) {
  if (enumtype != topoa2a::our_enum())
    return PMPI_T_enum_get_item(enumtype, index, value, name, name_len);
  const auto& names = topoa2a::choice_names();
  if (index < 0 || index >= static_cast<int>(names.size())) return MPI_T_ERR_INVALID_ITEM;
  if (value) *value = index;
  topoa2a::put_string(names[static_cast<size_t>(index)], name, name_len);
  return MPI_SUCCESS;
}
