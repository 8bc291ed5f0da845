// Plan: a schedule for one rank compiled into buffer operations.
//
// The executor moves bytes; the plan says from where to where. Every block
// that is not sent straight from the user's send buffer to the user's
// receive buffer lives, packed (m bytes), in a slot of one scratch buffer.
// Slots are assigned here, once per (algorithm, p, rank), with reuse: a slot
// is free again after the round that last reads it. A message whose blocks
// are already a run of consecutive slots in message order is sent from
// scratch without copying (the ring's forwarded tail); others are gathered
// into a fresh run first. A message that finds no hole to land in while the
// pool would have room for it after the round lands in a staging area and
// its blocks move into single free slots afterwards (the hypercube's
// scattered survivors would otherwise grow scratch as p log p). Pure data:
// no MPI.
#pragma once

#include <cstdint>
#include <vector>

#include "coll/schedule.h"

namespace topoa2a {

// Where a block is read from when a message is gathered.
struct Loc {
  enum Kind : std::uint8_t { kSendBuf, kScratch } kind;
  int index;  // kSendBuf: destination rank (block index); kScratch: slot
};

struct PlanSend {
  int peer = -1;
  int nblocks = 0;
  bool direct = false;      // one block (me, peer): user buffer, user datatype
  int user_block = -1;      // direct: index into the send buffer
  int first_slot = -1;      // otherwise: the message is slots [first, first+n)
  std::vector<Loc> gather;  // filled into those slots before sending (may be empty)
};

struct PlanRecv {
  int peer = -1;
  int nblocks = 0;
  bool direct = false;  // one block (peer, me): user buffer, user datatype
  int user_block = -1;  // direct: index into the receive buffer
  int first_slot = -1;  // otherwise: lands in slots [first, first+n)
};

struct Delivery {
  int slot;
  int user_block;  // index into the receive buffer (the block's source)
};

struct Move {
  int from;  // staging slot
  int to;    // pool slot
};

struct PlanStep {
  std::vector<PlanSend> sends;
  std::vector<PlanRecv> recvs;
  std::vector<Delivery> deliveries;  // after the round: scratch -> receive buffer
  std::vector<Move> moves;           // after the deliveries: staging -> pool
};

struct Plan {
  int p = 0;
  int rank = 0;
  int rounds = 0;         // rounds of the schedule, idle ones included
  int scratch_slots = 0;  // peak slots in use: scratch bytes = slots * m
  long long blocks_sent = 0;
  long long blocks_copied = 0;  // blocks gathered (packed) before sending
  long long blocks_moved = 0;   // staged blocks moved into the pool
  std::vector<PlanStep> steps;  // idle rounds dropped
  int max_messages = 0;         // most sends + receives in one step
};

// Compile one rank's schedule. Assumes the schedule is valid (the schedule
// tests prove it for every algorithm).
Plan make_plan(const Schedule& schedule, int p, int rank);

}  // namespace topoa2a
