// Plan: a schedule for one rank compiled into buffer operations and a
// dependency graph, for a window of `depth` rounds in flight.
//
// The executor moves bytes; the plan says from where to where, and which
// receives each send waits for. Messages are numbered: step s owns ids
// [first_id, first_id + sends + recvs), its sends first. A send lists in
// `after` the receives that bring the blocks it carries; a send of blocks
// from the user's send buffer waits for nothing.
//
// Every block that is not sent straight from the user's send buffer to the
// user's receive buffer lives, packed (m bytes), in a slot of one scratch
// buffer (alltoall; alltoallv keeps blocks of varying size by block, see
// exec_v.cc, and uses only the graph). Slots are assigned here, once per
// (algorithm, p, rank, depth), with reuse: with `depth` rounds in flight, a
// slot last read or filled in step s is free again from step s + depth on
// (the executor never holds steps s and s + depth at once). Round by round
// (depth 1) two more reuses hold, as in the seed executor: a slot a send
// gathers from may take that round's incoming data (the executor gathers a
// round's sends before posting its receives), and a message that finds no
// hole to land in while the pool would have room for it after the round
// lands in a staging area and its blocks move into single free slots
// afterwards (the hypercube's scattered survivors would otherwise grow
// scratch as p log p). A message whose blocks are already a run of
// consecutive slots in message order is sent from scratch without copying
// (the ring's forwarded tail); others are gathered into a fresh run first.
// Pure data: no MPI.
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
  bool direct = false;        // one block (me, peer): user buffer, user datatype
  int user_block = -1;        // direct: index into the send buffer
  int first_slot = -1;        // otherwise: the message is slots [first, first+n)
  std::vector<Loc> gather;    // filled into those slots before sending (may be empty)
  std::vector<Block> blocks;  // not direct: the blocks, in message order
  std::vector<int> after;     // ids of the receives that bring its blocks
};

struct Delivery {
  int slot;
  int user_block;  // index into the receive buffer (the block's source)
};

struct PlanRecv {
  int peer = -1;
  int nblocks = 0;
  bool direct = false;               // one block (peer, me): user buffer, user datatype
  int user_block = -1;               // direct: index into the receive buffer
  int first_slot = -1;               // otherwise: lands in slots [first, first+n)
  std::vector<Block> blocks;         // not direct: the blocks, in message order
  std::vector<Delivery> deliveries;  // once it arrived: scratch -> receive buffer
};

struct Move {
  int from;  // staging slot
  int to;    // pool slot
};

struct PlanStep {
  int first_id = 0;
  std::vector<PlanSend> sends;
  std::vector<PlanRecv> recvs;
  std::vector<Move> moves;  // depth 1, after the step: staging -> pool
  int messages() const { return static_cast<int>(sends.size() + recvs.size()); }
};

struct Plan {
  int p = 0;
  int rank = 0;
  int rounds = 0;         // rounds of the schedule, idle ones included
  int depth = 1;          // most steps in flight at once
  int scratch_slots = 0;  // peak slots in use: scratch bytes = slots * m
  int messages = 0;       // ids 0 .. messages-1
  long long blocks_sent = 0;
  long long blocks_copied = 0;  // blocks gathered (packed) before sending
  long long blocks_moved = 0;   // staged blocks moved into the pool
  bool all_direct = true;       // every message goes straight from source to destination
  std::vector<PlanStep> steps;  // idle rounds dropped
};

// Compile one rank's schedule for `depth` (>= 1) steps in flight. Assumes
// the schedule is valid (the schedule tests prove it for every algorithm).
Plan make_plan(const Schedule& schedule, int p, int rank, int depth = 1);

// The window: the executor holds the steps [k, k + d) in flight, d the
// most whole steps from k whose messages add up to at most `window`, at
// least one, at most the plan's depth. window_depth is the largest such d
// over the schedule (the depth to compile the plan for); window 0 (or one
// smaller than every round) gives 1: round by round.
int window_depth(const Schedule& schedule, int window);

// The default window for rank `rank`'s schedule, when
// MPIR_CVAR_TOPOA2A_WINDOW is unset (see the README's Variables table):
// a direct exchange (every message goes straight from its source to its
// destination, rounds independent) keeps kDirectWindow messages in flight,
// as MPICH's scattered algorithm does (MPIR_CVAR_ALLTOALL_THROTTLE, 32); a
// store-and-forward schedule, whose rounds depend on each other anyway,
// runs with kForwardingWindow.
constexpr int kDirectWindow = 32;
constexpr int kForwardingWindow = 1;  // round by round
int default_window(const Schedule& schedule, int rank);

}  // namespace topoa2a
