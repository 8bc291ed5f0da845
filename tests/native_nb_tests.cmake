# The native door's nonblocking and persistent calls (plugin ABI 4):
# MPI_Ialltoall[v] and MPI_Alltoall[v]_init run
# topoa2a's algorithms as schedules of MPICH's transport-based scheduler,
# selected by MPIR_CVAR_IALLTOALL[V]_INTRA_ALGORITHM and progressed by
# MPICH itself (plugin/native/native_sched.h, coll/graph.h). The programs
# and their checks are the preload door's (tests/CMakeLists.txt): payloads,
# requests outstanding together and completed in any order, mixed with
# point-to-point requests, persistent starts repeated, two threads; the
# statistics (op ialltoall[v], alltoall[v]_init) prove which algorithm ran.
# Included from native_tests.cmake (native_env, expect, the programs).

set(native_nb_v ring onefactor direct_scheduled node_aware multileader node_aware_log topo_auto)
foreach(alg IN LISTS TOPOA2A_NB_ALGORITHMS)
  set(env ${native_env} -genv MPIR_CVAR_IALLTOALL_INTRA_ALGORITHM ${alg} -genv TOPOA2A_EXPECT
          ${alg} -genv TOPOA2A_FRONT native)
  topoa2a_v_env(MPIR_CVAR_IALLTOALLV_INTRA_ALGORITHM ${alg} "${native_nb_v}" v_env)
  list(APPEND env ${v_env})
  set(nps 4)
  if(alg STREQUAL "ring" OR alg STREQUAL "onefactor")
    set(nps 1 3 4 5)
  endif()
  foreach(n IN LISTS nps)
    add_test(NAME native_nonblocking_${alg}_np${n}
             COMMAND ${TOPOA2A_MPIEXEC} -n ${n} ${env} $<TARGET_FILE:mpi_nonblocking_test>
                     --gtest_brief=1)
    set_tests_properties(native_nonblocking_${alg}_np${n} PROPERTIES TIMEOUT 300
                         LABELS "mpi;native;nonblocking" RUN_SERIAL TRUE)
  endforeach()
  # The blocking tests' payload checks (every type case, in place, zero
  # counts, alltoallv, split and dup communicators) through MPI_Ialltoall +
  # MPI_Wait and MPI_Alltoall_init + MPI_Start + MPI_Wait: a few values.
  if(alg MATCHES "^(ring|mesh|hypercube|onefactor|node_aware|topo_auto)$")
    foreach(kind nonblocking persistent)
      add_test(NAME native_${kind}_app_${alg}_np5
               COMMAND ${TOPOA2A_MPIEXEC} -n 5 ${env} -genv TOPOA2A_CALL ${kind}
                       $<TARGET_FILE:mpi_alltoall_app> --gtest_brief=1)
      set_tests_properties(native_${kind}_app_${alg}_np5 PROPERTIES TIMEOUT 600
                           LABELS "mpi;native;nonblocking" RUN_SERIAL TRUE)
    endforeach()
  endif()
endforeach()

# MPIR_CVAR_COLLECTIVE_FALLBACK for the nonblocking calls: hypercube on 3
# ranks falls back to MPICH's own schedule and says why (print), or fails
# (error).
add_test(NAME native_nb_fallback_print
         COMMAND ${expect} "Ialltoall hypercube cannot be applied: hypercube needs a power-of-two"
                 --
                 ${native_run} -n 3 -genv MPIR_CVAR_IALLTOALL_INTRA_ALGORITHM hypercube
                 -genv MPIR_CVAR_COLLECTIVE_FALLBACK print $<TARGET_FILE:mpi_nonblocking_test>
                 --gtest_brief=1)
add_test(NAME native_nb_fallback_error
         COMMAND ${expect} --fail --attempts 3 "collective algorithm is not usable" --
                 ${native_run} -n 3 -genv MPIR_CVAR_IALLTOALL_INTRA_ALGORITHM hypercube
                 -genv MPIR_CVAR_COLLECTIVE_FALLBACK error $<TARGET_FILE:mpi_nonblocking_test>)
# The node-aware algorithms on a forced layout of 2 nodes x 3 ranks, where
# every phase forwards (alltoallv: lengths first, then the messages).
foreach(alg node_aware multileader node_aware_log)
  add_test(NAME native_nonblocking_${alg}_np6_nodes2x3
           COMMAND ${TOPOA2A_MPIEXEC} -n 6 ${native_env} -genv MPIR_CVAR_TOPOA2A_TOPOLOGY nodes:2x3
                   -genv MPIR_CVAR_IALLTOALL_INTRA_ALGORITHM ${alg} -genv
                   MPIR_CVAR_IALLTOALLV_INTRA_ALGORITHM ${alg} -genv TOPOA2A_EXPECT ${alg}
                   -genv TOPOA2A_EXPECT_V ${alg} -genv TOPOA2A_FRONT native
                   $<TARGET_FILE:mpi_nonblocking_test> --gtest_brief=1)
  set_tests_properties(native_nonblocking_${alg}_np6_nodes2x3 PROPERTIES TIMEOUT 300
                       LABELS "mpi;native;nonblocking" RUN_SERIAL TRUE)
endforeach()
# An unknown value: MPICH's own error at MPI_Init (5.0.1 prints it without
# its text, for MPICH's own variables too).
set(bad_value_message "Invalid MPIR_CVAR_IALLTOALL_INTRA_ALGORITHM value \\(bogus\\)")
if(TOPOA2A_PATCHED_MPICH_VERSION MATCHES "^5\\.")
  set(bad_value_message "Fatal error in internal_Init_thread: Other MPI error")
endif()
add_test(NAME native_nb_bad_value
         COMMAND ${expect} --fail --attempts 3 "${bad_value_message}" --
                 ${native_run} -n 2 -genv MPIR_CVAR_IALLTOALL_INTRA_ALGORITHM bogus
                 $<TARGET_FILE:mpi_nonblocking_test>)
# MPICH's own values of the nonblocking variable still select MPICH's.
add_test(NAME native_nb_mpich_value_passes_through
         COMMAND ${TOPOA2A_MPIEXEC} -n 4 ${native_env} -genv MPIR_CVAR_IALLTOALL_INTRA_ALGORITHM
                 tsp_scattered -genv TOPOA2A_CALL nonblocking -genv TOPOA2A_EXPECT none
                 -genv TOPOA2A_FRONT native $<TARGET_FILE:mpi_alltoall_app> --gtest_brief=1
                 --gtest_filter=*int_n3_world*)
set_tests_properties(native_nb_bad_value native_nb_fallback_print
                     native_nb_fallback_error native_nb_mpich_value_passes_through
                     PROPERTIES TIMEOUT 300 LABELS "mpi;native;nonblocking" RUN_SERIAL TRUE)

# MPICH's own nonblocking and persistent all-to-all tests
# (ci/mpich-testsuite/nonblocking.testlist) through the native door, a few
# values (every value: ci/mpich-testsuite.sh --native PREFIX --nonblocking).
add_test(NAME mpich_testsuite_native_nonblocking
         COMMAND ${CMAKE_COMMAND} -E env TOPOA2A_NATIVE_LIB=$<TARGET_FILE:topoa2a_native>
                 TOPOA2A_ARTIFACTS=${CMAKE_BINARY_DIR}/mpich-testsuite-native-nonblocking
                 bash ${PROJECT_SOURCE_DIR}/ci/mpich-testsuite.sh --native ${TOPOA2A_PATCHED_MPICH}
                 --nonblocking --algs "ring onefactor topo_auto")
set_tests_properties(mpich_testsuite_native_nonblocking PROPERTIES TIMEOUT 900
                     LABELS "mpi;native;mpich-suite;nonblocking" RUN_SERIAL TRUE)
