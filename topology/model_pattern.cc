// MessagePattern: a candidate's messages, from the algorithm table's round
// generators or MPICH's patterns; the candidate list.
#include "topology/model_pattern.h"

namespace topoa2a {

bool MessagePattern::bind(const std::string& name, int p, const Params& resolved) {
  *this = MessagePattern();
  p_ = p;
  params_ = resolved;
  if ((algo_ = find_algorithm(name))) {
    rounds_ = algo_->rounds(p, resolved);
    forwards_ = !algo_->direct;
    fixed_window_ = -1;
    if (rounds_ > 0)
      blocks_per_round_ = static_cast<double>(algo_->blocks_sent(p, 0, resolved)) / rounds_;
    return true;
  }
  if ((mpich_ = find_mpich_pattern(name))) {
    rounds_ = mpich_->rounds(p);
    forwards_ = mpich_->forwards;
    fixed_window_ = mpich_->window;
    blocks_per_round_ = mpich_->blocks_per_round < 0 ? p / 2.0 : mpich_->blocks_per_round;
    return true;
  }
  return false;
}

void MessagePattern::sends(int rank, int k, std::vector<ModelMessage>* out) const {
  out->clear();
  if (p_ <= 1 || k < 0 || k >= rounds_) return;
  if (mpich_) {
    mpich_->sends(p_, rank, k, out);
    return;
  }
  const Round round = algo_->round(p_, rank, params_, k);
  for (const Transfer& t : round.sends)
    out->push_back({t.peer, static_cast<long long>(t.blocks.size())});
}

std::string known_names() {
  std::string out = algorithm_names();
  for (const MpichPattern& m : mpich_patterns()) out += std::string(", ") + m.name;
  return out;
}

std::vector<std::string> default_candidates() {
  std::vector<std::string> out;
  for (const Algorithm& a : algorithms()) out.push_back(a.name);
  for (const MpichPattern& m : mpich_patterns()) out.push_back(m.name);
  return out;
}

bool model_messages(const std::string& algorithm, int p, const Params& params, int rank, int k,
                    std::vector<ModelMessage>* out) {
  MessagePattern pat;
  out->clear();
  if (!pat.bind(algorithm, p, resolve_params(p, params))) return false;
  pat.sends(rank, k, out);
  return true;
}

}  // namespace topoa2a
