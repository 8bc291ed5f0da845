// MPICH's control variables through the MPI tool interface: read and write
// an enumerated CVAR such as MPIR_CVAR_ALLTOALL_INTRA_ALGORITHM by value
// name, at run time. Used by the benchmark (to time MPICH's algorithms) and
// by the preload front door (to run the MPICH algorithm topo_auto chose).
#pragma once

#include <mpi.h>

#include <map>
#include <string>
#include <vector>

namespace topoa2a {

// MPICH 4.0.2's values of MPIR_CVAR_ALLTOALL_INTRA_ALGORITHM,
// MPIR_CVAR_ALLTOALLV_INTRA_ALGORITHM and MPIR_CVAR_COLLECTIVE_FALLBACK, in
// the order of its generated enums.
extern const std::vector<std::string> kMpichAlltoallValues;
extern const std::vector<std::string> kMpichAlltoallvValues;
extern const std::vector<std::string> kMpichFallbackValues;

// MPI_T_init_thread .. MPI_T_finalize.
class MpiT {
 public:
  MpiT();
  ~MpiT();
  MpiT(const MpiT&) = delete;
  MpiT& operator=(const MpiT&) = delete;
  bool ok() const { return ok_; }

 private:
  bool ok_ = false;
};

// One integer CVAR with named values. The names come from the CVAR's MPI_T
// enumeration; MPICH 4.0.2 registers its algorithm CVARs without one
// (MPI_T_ENUM_NULL), so then they come from the order in which the CVAR's
// description lists `known` names (the order of MPICH's generated enum).
class EnumCvar {
 public:
  EnumCvar(const MpiT& mpit, const std::string& name, const std::vector<std::string>& known);
  ~EnumCvar();
  EnumCvar(const EnumCvar&) = delete;
  EnumCvar& operator=(const EnumCvar&) = delete;

  bool ok() const { return error_.empty(); }
  const std::string& error() const { return error_; }  // why it is unusable
  const std::string& how() const { return how_; }      // where the values came from
  bool has(const std::string& value) const { return values_.count(value) > 0; }
  bool write(const std::string& value);
  std::string read() const;  // the value's name; empty on failure

 private:
  bool from_enum(MPI_T_enum enumtype);
  bool from_description(const std::string& desc, const std::vector<std::string>& known);

  std::string name_, error_, how_;
  MPI_T_cvar_handle handle_ = MPI_T_CVAR_HANDLE_NULL;
  std::map<std::string, int> values_;
};

}  // namespace topoa2a
