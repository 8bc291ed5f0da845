// One direction of a store-and-forward ring among n members: the building
// block of ring, ring_bidir and both phases of mesh.
//
// unit(u, v, &blocks) appends the blocks that member u must get to member v. A unit
// whose target is t hops away in direction dir leaves u in round 1 and is
// forwarded once per round until it reaches v in round t. Only targets at
// most `hops` away travel in this pass. In round k member i sends to
// i+dir every unit it holds that has further to go, and receives from
// i-dir the units of origin i-dir*k; the unit for i itself comes first, so
// what it forwards next round is the tail of what it just received.
#pragma once

#include <vector>

#include "coll/schedule.h"

namespace topoa2a {

// Round k (1-based, k <= hops) of the pass, appended to `round`: one send
// and one receive, costing the size of the round.
template <class MemberFn, class UnitFn>
void ring_pass_round(Round& round, int n, int pos, int dir, int hops, int k, MemberFn member,
                     UnitFn unit) {
  // The units of `origin` for targets k..hops away, stepping the target
  // instead of reducing it mod n for each unit.
  auto units = [&](int origin, std::vector<Block>* out) {
    int v = mod(origin + dir * k, n);
    for (int t = k; t <= hops; ++t) {
      unit(origin, v, out);
      v += dir;
      if (v == n) v = 0;
      if (v < 0) v = n - 1;
    }
  };
  Transfer send{member(mod(pos + dir, n)), {}};
  units(mod(pos - dir * (k - 1), n), &send.blocks);
  Transfer recv{member(mod(pos - dir, n)), {}};
  units(mod(pos - dir * k, n), &recv.blocks);
  round.sends.push_back(std::move(send));
  round.recvs.push_back(std::move(recv));
}

}  // namespace topoa2a
