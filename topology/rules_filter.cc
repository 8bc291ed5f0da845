// The copy of a tuning file that stock MPICH is given while topoa2a's
// preload front door applies the file's alltoall rules itself (see
// filter_tuning_for_mpich in rules.h). json-c reads the file and writes the
// copy, so the copy is what MPICH's json-c reads the file as (comments
// dropped, a repeated key merged as json-c merges it).
#include <cctype>

#include "coll/algorithms.h"
#include "topology/json.h"
#include "topology/rules.h"

namespace topoa2a {
namespace {

constexpr const char* kIntra = "MPIR_Alltoall_intra_";

std::string no_spaces(const std::string& s) {  // MPICH's MPL_strdup_no_spaces
  std::string out;
  for (char c : s)
    if (!std::isspace(static_cast<unsigned char>(c))) out.push_back(c);
  return out;
}

// The key MPICH is to see instead of `key` (itself when nothing changes);
// `collective` is the nearest collective=NAME above.
std::string renamed(const std::string& key, const std::string& collective) {
  const std::string k = no_spaces(key);
  const std::string prefix = "algorithm=";
  if (k.rfind(prefix, 0) != 0) return key;
  const std::string name = k.substr(prefix.size());
  const bool alltoall =
      collective == "alltoall" || (collective.empty() && name.rfind(kIntra, 0) == 0);
  if (!alltoall || name.rfind(kIntra, 0) != 0) return key;
  const std::string stand_in = mpich_stand_in(name.substr(std::string(kIntra).size()));
  return stand_in.empty() ? key : prefix + kIntra + stand_in;
}

// Walks json-c's values. An object with a key to rename is rebuilt (json-c
// cannot rename a key), its members in the same order; returns the value to
// keep in v's place (v itself, or the rebuilt object, which the caller owns).
json_object* filter(json_object* v, const std::string& collective, TuningForMpich* out) {
  if (json_object_is_type(v, json_type_array)) {
    const size_t n = json_object_array_length(v);
    for (size_t i = 0; i < n; ++i) {
      json_object* item = json_object_array_get_idx(v, i);
      json_object* kept = filter(item, collective, out);
      if (kept != item) json_object_array_put_idx(v, i, kept);  // releases item
    }
    return v;
  }
  if (!json_object_is_type(v, json_type_object)) return v;
  bool rename = false;
  json_object_object_foreach(v, key, value) {
    std::string coll = collective;
    const std::string k = no_spaces(key);
    if (k.rfind("collective=", 0) == 0) {
      coll = k.substr(std::string("collective=").size());
      if (coll != "alltoall") ++out->other_collectives;
    }
    if (renamed(key, coll) != key) {
      rename = true;
      ++out->replaced;
    }
    json_object* kept = filter(value, coll, out);
    if (kept != value) json_object_object_add(v, key, kept);  // same place; releases value
  }
  if (!rename) return v;
  json_object* copy = json_object_new_object();
  json_object_object_foreach(v, key2, value2) {
    const std::string k = no_spaces(key2);
    const std::string c =
        k.rfind("collective=", 0) == 0 ? k.substr(std::string("collective=").size()) : collective;
    json_object_object_add(copy, renamed(key2, c).c_str(), json_object_get(value2));
  }
  return copy;
}

}  // namespace

std::string mpich_stand_in(const std::string& name) {
  if (name == "topo_auto") return "scattered";
  const Algorithm* a = find_algorithm(name);
  if (!a) return {};
  switch (a->id) {
    case AlgorithmId::kOneFactor:
    case AlgorithmId::kOneFactorXor:
      return "pairwise";  // direct pairwise exchanges
    default:
      return "brucks";  // store-and-forward, few rounds for small blocks
  }
}

bool filter_tuning_for_mpich(const std::string& text, const std::string& filename,
                             TuningForMpich* out, std::string* error) {
  json::Document doc;
  if (!json::parse(text, filename, &doc, error)) return false;
  TuningForMpich r;
  json_object* top = filter(doc.root.get(), "", &r);
  const json::JsonPtr rebuilt(top != doc.root.get() ? top : nullptr);  // else doc owns it
  r.text = r.replaced ? json_object_to_json_string_ext(
                            top, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE)
                      : text;
  *out = std::move(r);
  return true;
}

}  // namespace topoa2a
