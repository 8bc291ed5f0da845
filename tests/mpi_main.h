// GoogleTest under mpiexec: every rank runs every test; rank 0 prints the
// usual report, other ranks print only their failures. The exit status is
// non-zero on any rank that saw a failure, so mpiexec fails too.
#pragma once

#include <gtest/gtest.h>
#include <mpi.h>

namespace topoa2a::test {

int mpi_test_main(int argc, char** argv);

int world_rank();
int world_size();

// Agree across `comm` that `ok` held on every rank.
bool all_ok(bool ok, MPI_Comm comm);

}  // namespace topoa2a::test
