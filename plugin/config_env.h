// Reading MPICH's variables, shared by the configuration
// (plugin/config.cc: the algorithm selections and load_config;
// config_options.cc: the plugin's own variables; config_tuning.cc: the
// tuning file). Internal to plugin/config*.cc.
#pragma once

#include <string>

#include "plugin/config.h"

namespace topoa2a::config_detail {

std::string lower(std::string s);

// The effective value of MPICH variable `name` (without prefix): the last
// one MPICH would read (MPICH_, MPIR_PARAM_, MPIR_CVAR_) wins; *full_name
// is the one that did. Empty when unset.
std::string read_var(const std::string& name, std::string* full_name);
// Sets every prefixed form of `name` that is set; removes every one.
void set_everywhere(const std::string& name, const char* value);
void unset_everywhere(const std::string& name);

// A boolean variable (full name): 1/yes/true/on or 0/no/false/off, any
// case; unset or empty leaves *out as it is.
bool load_bool(const char* var, bool* out, std::string* error);

// MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE (config_tuning.cc).
bool load_tuning_file(Config* c, std::string* error);

}  // namespace topoa2a::config_detail
