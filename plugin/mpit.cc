#include "plugin/mpit.h"

#include <algorithm>
#include <cctype>
#include <utility>

namespace topoa2a {

const std::vector<std::string> kMpichAlltoallValues = {
    "auto", "brucks", "nb", "pairwise", "pairwise_sendrecv_replace", "scattered"};
const std::vector<std::string> kMpichAlltoallvValues = {"auto", "nb", "pairwise_sendrecv_replace",
                                                        "scattered"};
const std::vector<std::string> kMpichFallbackValues = {"error", "print", "silent"};

MpiT::MpiT() {
  int provided = 0;
  ok_ = MPI_T_init_thread(MPI_THREAD_SINGLE, &provided) == MPI_SUCCESS;
}

MpiT::~MpiT() {
  if (ok_) MPI_T_finalize();
}

EnumCvar::EnumCvar(const MpiT& mpit, const std::string& name, const std::vector<std::string>& known)
    : name_(name) {
  int index = -1, count = 0;
  if (!mpit.ok()) {
    error_ = "MPI_T_init_thread failed";
    return;
  }
  if (MPI_T_cvar_get_index(name.c_str(), &index) != MPI_SUCCESS) {
    error_ = name + " is not an MPI_T control variable here";
    return;
  }
  char cname[256], desc[4096];
  int name_len = sizeof cname, desc_len = sizeof desc, verbosity, bind, scope;
  MPI_Datatype type;
  MPI_T_enum enumtype;
  if (MPI_T_cvar_get_info(index, cname, &name_len, &verbosity, &type, &enumtype, desc, &desc_len,
                          &bind, &scope) != MPI_SUCCESS ||
      type != MPI_INT) {
    error_ = name + ": MPI_T_cvar_get_info failed or not an int";
    return;
  }
  const bool named =
      enumtype != MPI_T_ENUM_NULL ? from_enum(enumtype) : from_description(desc, known);
  if (!named) {
    error_ = name + ": cannot tell the values' numbers (no MPI_T enum, description not understood)";
    return;
  }
  if (MPI_T_cvar_handle_alloc(index, nullptr, &handle_, &count) != MPI_SUCCESS || count != 1) {
    error_ = name + ": MPI_T_cvar_handle_alloc failed";
    handle_ = MPI_T_CVAR_HANDLE_NULL;
  }
}

EnumCvar::~EnumCvar() {
  if (handle_ != MPI_T_CVAR_HANDLE_NULL) MPI_T_cvar_handle_free(&handle_);
}

bool EnumCvar::from_enum(MPI_T_enum enumtype) {
  int items = 0;
  char ename[256];
  int ename_len = sizeof ename;
  if (MPI_T_enum_get_info(enumtype, &items, ename, &ename_len) != MPI_SUCCESS) return false;
  for (int i = 0; i < items; ++i) {
    char item[256];
    int item_len = sizeof item, value = 0;
    if (MPI_T_enum_get_item(enumtype, i, &value, item, &item_len) != MPI_SUCCESS) return false;
    values_[item] = value;
  }
  how_ = "MPI_T enum";
  return !values_.empty();
}

// MPICH's generated description lists "name<spaces>- text" once per value,
// in enum order (the lines are run together: "...algorithmbrucks   - Force").
// Each known name is found where spaces and "- " follow it; the number of
// such entries must equal the number of known names, or an unknown value
// would shift the numbering.
bool EnumCvar::from_description(const std::string& desc, const std::vector<std::string>& known) {
  auto entry_at = [&](std::size_t end) {  // spaces then "- " start at `end`
    std::size_t i = end;
    while (i < desc.size() && desc[i] == ' ') ++i;
    return i > end && desc.compare(i, 2, "- ") == 0;
  };
  std::size_t entries = 0;
  for (std::size_t i = 0; i < desc.size(); ++i)
    if (std::isalnum(static_cast<unsigned char>(desc[i])) && entry_at(i + 1)) ++entries;
  if (entries != known.size()) return false;
  std::vector<std::pair<std::size_t, std::string>> found;
  for (const auto& k : known) {
    std::size_t pos = desc.find(k);
    while (pos != std::string::npos && !entry_at(pos + k.size())) pos = desc.find(k, pos + 1);
    if (pos == std::string::npos) return false;
    found.emplace_back(pos, k);
  }
  std::sort(found.begin(), found.end());
  for (std::size_t i = 0; i < found.size(); ++i) values_[found[i].second] = static_cast<int>(i);
  how_ = "order in the MPI_T description";
  return true;
}

bool EnumCvar::write(const std::string& value) {
  auto it = values_.find(value);
  if (!ok() || it == values_.end()) return false;
  int v = it->second;
  return MPI_T_cvar_write(handle_, &v) == MPI_SUCCESS;
}

std::string EnumCvar::read() const {
  int v = -1;
  if (!ok() || MPI_T_cvar_read(handle_, &v) != MPI_SUCCESS) return "";
  for (const auto& [name, value] : values_)
    if (value == v) return name;
  return "";
}

}  // namespace topoa2a
