// The copy of a tuning file that stock MPICH is given while topoa2a's
// preload front door applies the file's alltoall rules itself (see
// filter_tuning_for_mpich in rules.h).
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

// Walks the objects; `collective` is the nearest collective=NAME above.
void filter(json::Value* v, const std::string& collective, TuningForMpich* out) {
  if (v->type == json::Type::kArray) {
    for (json::Value& item : v->items) filter(&item, collective, out);
    return;
  }
  if (v->type != json::Type::kObject) return;
  for (json::Member& m : v->members) {
    const std::string key = no_spaces(m.key);
    std::string coll = collective;
    if (key.rfind("collective=", 0) == 0) {
      coll = key.substr(std::string("collective=").size());
      if (coll != "alltoall") ++out->other_collectives;
    }
    const std::string prefix = "algorithm=";
    if (key.rfind(prefix, 0) == 0) {
      const std::string name = key.substr(prefix.size());
      const bool alltoall = coll == "alltoall" || (coll.empty() && name.rfind(kIntra, 0) == 0);
      if (alltoall && name.rfind(kIntra, 0) == 0) {
        const std::string stand_in = mpich_stand_in(name.substr(std::string(kIntra).size()));
        if (!stand_in.empty()) {
          m.key = prefix + kIntra + stand_in;
          ++out->replaced;
        }
      }
    }
    filter(m.value.get(), coll, out);
  }
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
  json::Value doc;
  if (!json::parse(text, filename, &doc, error)) return false;
  TuningForMpich r;
  filter(&doc, "", &r);
  r.text = r.replaced ? json::write(doc) : text;
  *out = std::move(r);
  return true;
}

}  // namespace topoa2a
