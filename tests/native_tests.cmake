# The native front door: topoa2a registered inside a patched MPICH
# (patches/, built and cached by ci/build-mpich.sh), no LD_PRELOAD. The test
# programs are the ones built against Debian's stock MPICH: they run
# unmodified on the patched library through LD_LIBRARY_PATH.
#
# TOPOA2A_PATCHED_MPICH: the install prefix printed by ci/build-mpich.sh.
set(TOPOA2A_PATCHED_MPICH "" CACHE PATH "Prefix of the patched MPICH (ci/build-mpich.sh)")

if(NOT TOPOA2A_PATCHED_MPICH OR NOT EXISTS "${TOPOA2A_PATCHED_MPICH}/lib/libmpich.so.12")
  # Says so in CTest's summary instead of passing silently.
  add_test(NAME native_front_door
           COMMAND sh -c "echo 'no patched MPICH: run ci/build-mpich.sh and configure with -DTOPOA2A_PATCHED_MPICH=<prefix>'; exit 77")
  set_tests_properties(native_front_door PROPERTIES SKIP_RETURN_CODE 77 LABELS native)
  return()
endif()

# Its MPICH version (4.0.2, 5.0.1), for the few tests that depend on it.
file(STRINGS ${TOPOA2A_PATCHED_MPICH}/include/mpi.h mpich_version_line
     REGEX "^#define MPICH_VERSION \"")
string(REGEX MATCH "\"([0-9.]+)" _ "${mpich_version_line}")
set(TOPOA2A_PATCHED_MPICH_VERSION "${CMAKE_MATCH_1}")
message(STATUS "Patched MPICH ${TOPOA2A_PATCHED_MPICH_VERSION} in ${TOPOA2A_PATCHED_MPICH}")

set(native_env -genv LD_LIBRARY_PATH ${TOPOA2A_PATCHED_MPICH}/lib -genv MPIR_CVAR_COLL_PLUGIN
               $<TARGET_FILE:topoa2a_native>)
set(native_run ${TOPOA2A_MPIEXEC} ${native_env})

# The same GoogleTest suite as the preload runs, each algorithm chosen by
# MPICH's CVAR, parsed and dispatched by MPICH itself; the plugin's
# statistics prove which algorithm ran.
set(TOPOA2A_NATIVE_NPROCS 1 2 3 4 5 8 CACHE STRING "Rank counts of the native MPI tests")
foreach(alg IN LISTS TOPOA2A_PRELOAD_ALGORITHMS)
  topoa2a_alltoallv_env(${alg} v_env)
  foreach(n IN LISTS TOPOA2A_NATIVE_NPROCS)
    add_test(NAME native_alltoall_${alg}_np${n}
             COMMAND ${TOPOA2A_MPIEXEC} -n ${n} ${native_env} -genv
                     MPIR_CVAR_ALLTOALL_INTRA_ALGORITHM ${alg} -genv TOPOA2A_EXPECT ${alg}
                     -genv TOPOA2A_FRONT native ${v_env} $<TARGET_FILE:mpi_alltoall_app>
                     --gtest_brief=1)
    set_tests_properties(native_alltoall_${alg}_np${n} PROPERTIES TIMEOUT 600
                         LABELS "mpi;native" RUN_SERIAL TRUE)
  endforeach()
endforeach()

# The native door with a window: its transport waits for the oldest round
# with waitall and probes (alltoallv) only there (native_transport.h).
foreach(case "ring;3;5" "onefactor;4;4")
  list(GET case 0 alg)
  list(GET case 1 w)
  list(GET case 2 n)
  topoa2a_alltoallv_env(${alg} v_env)
  add_test(NAME native_alltoall_${alg}_window${w}_np${n}
           COMMAND ${TOPOA2A_MPIEXEC} -n ${n} ${native_env} -genv
                   MPIR_CVAR_ALLTOALL_INTRA_ALGORITHM ${alg} -genv TOPOA2A_EXPECT ${alg}
                   -genv TOPOA2A_FRONT native -genv MPIR_CVAR_TOPOA2A_WINDOW ${w} ${v_env}
                   $<TARGET_FILE:mpi_alltoall_app> --gtest_brief=1)
  set_tests_properties(native_alltoall_${alg}_window${w}_np${n} PROPERTIES TIMEOUT 600
                       LABELS "mpi;native" RUN_SERIAL TRUE)
endforeach()

# The node-aware algorithms forced by MPICH's CVAR (alltoall and alltoallv):
# on the node layout MPICH reports (4.0.2: one node here; 5.0's ch4:ucx has
# no shared-memory module, so every process is its own node there), whose
# facts the plugin gathers on MPI_COMM_WORLD (5.0 commits MPI_COMM_SELF
# first, inside MPI_COMM_WORLD's commit: a host that hands it over first
# gives every rank a different layout and the schedules do not match), and
# on forced layouts, where every phase runs. "alg np layout" (- : MPICH's).
foreach(case "node_aware;4;-" "node_aware;5;-" "multileader;4;-" "node_aware_log;5;-"
             "node_aware;4;nodes:2x2" "multileader;6;nodes:2x3" "node_aware_log;6;nodes:2x3")
  list(GET case 0 alg)
  list(GET case 1 n)
  list(GET case 2 layout)
  set(name native_alltoall_${alg}_np${n})
  set(layout_env)
  if(NOT layout STREQUAL "-")
    string(REPLACE ":" "" tag "${layout}")
    set(name ${name}_${tag})
    set(layout_env -genv MPIR_CVAR_TOPOA2A_TOPOLOGY ${layout})
  endif()
  add_test(NAME ${name}
           COMMAND ${TOPOA2A_MPIEXEC} -n ${n} ${native_env} ${layout_env} -genv
                   MPIR_CVAR_ALLTOALL_INTRA_ALGORITHM ${alg} -genv TOPOA2A_EXPECT ${alg}
                   -genv MPIR_CVAR_ALLTOALLV_INTRA_ALGORITHM ${alg} -genv TOPOA2A_EXPECT_V ${alg}
                   -genv TOPOA2A_FRONT native $<TARGET_FILE:mpi_alltoall_app> --gtest_brief=1)
  set_tests_properties(${name} PROPERTIES TIMEOUT 600 LABELS "mpi;native" RUN_SERIAL TRUE)
endforeach()

# MPI_T lists the new values; writing the CVAR switches algorithms.
add_executable(native_mpit_test native_mpit_test.cc)
target_link_libraries(native_mpit_test PRIVATE topoa2a_mpitest topoa2a_sched ${CMAKE_DL_LIBS})
foreach(n 1 3 4)
  add_test(NAME native_mpit_np${n}
           COMMAND ${TOPOA2A_MPIEXEC} -n ${n} ${native_env} $<TARGET_FILE:native_mpit_test>)
endforeach()

# MPICH's JSON tuning file picks our algorithms by size: ring up to 64
# bytes per block, mesh up to 4 KiB, MPICH's pairwise above
# (data/native_tuning.json: MPICH's generic rules with that alltoall part).
# transpose makes 2 alltoalls of N/p x N/p doubles and 1 of 4 bytes (the
# alltoallv counts). A tuning file must name every collective with the
# algorithm names of its MPICH version (MPICH asserts on an unknown one:
# 5.0 renamed several), so 5.0 takes the -5.0 files: 5.0.1's
# maint/tuning/coll/mpir/generic.json with the same alltoall part.
set(tuning_suffix "")
if(TOPOA2A_PATCHED_MPICH_VERSION MATCHES "^5\\.")
  set(tuning_suffix "-5.0")
endif()
set(tuning -genv MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE
           ${CMAKE_CURRENT_SOURCE_DIR}/data/native_tuning${tuning_suffix}.json
           -genv MPIR_CVAR_TOPOA2A_VERBOSE 1
           -genv MPIR_CVAR_TOPOA2A_STATS 1)
add_test(NAME native_json_small_ring
         COMMAND ${expect} "msg=32 bytes algorithm=ring \\(selected by MPICH, native\\)"
                 "topoa2a-stats rank=0 op=alltoall algorithm=ring calls=3 " "result correct" --
                 ${native_run} -n 4 ${tuning} $<TARGET_FILE:transpose> 8 2)
add_test(NAME native_json_medium_mesh
         COMMAND ${expect} "msg=2048 bytes algorithm=mesh \\(selected by MPICH, native\\)"
                 "topoa2a-stats rank=0 op=alltoall algorithm=mesh calls=2 " "result correct" --
                 ${native_run} -n 4 ${tuning} $<TARGET_FILE:transpose> 64 2)
add_test(NAME native_json_large_mpich
         COMMAND ${expect} "msg=4 bytes algorithm=ring" "result correct" --
                 ${native_run} -n 4 ${tuning} $<TARGET_FILE:transpose> 256 2)
set_tests_properties(native_json_large_mpich PROPERTIES FAIL_REGULAR_EXPRESSION
                     "msg=32768 bytes algorithm=|algorithm=mesh")
# MPIR_CVAR_TOPOA2A_MESH_GRID reaches the native door's run too: mesh picked
# by MPICH's tuning file runs on 1x4, 3 rounds per call (2x2: 2).
add_test(NAME native_mesh_user_grid
         COMMAND ${expect} "topoa2a-stats rank=0 op=alltoall algorithm=mesh calls=2 rounds=6 "
                 "result correct" --
                 ${native_run} -n 4 ${tuning} -genv MPIR_CVAR_TOPOA2A_MESH_GRID 1x4
                 $<TARGET_FILE:transpose> 64 2)

# The cost file reaches the native door too (each process reads it).
add_test(NAME native_cost_file
         COMMAND ${expect} "topoa2a: costs ts_intra=0.3us \\(file:[^)]*machine.cost\\)"
                 "o=1us \\(MPIR_CVAR_TOPOA2A_COST\\)" "result correct" --
                 ${native_run} -n 2 -genv MPIR_CVAR_ALLTOALL_INTRA_ALGORITHM topo_auto
                 -genv MPIR_CVAR_TOPOA2A_COST_FILE ${CMAKE_CURRENT_SOURCE_DIR}/data/machine.cost
                 -genv MPIR_CVAR_TOPOA2A_COST o=1us -genv MPIR_CVAR_TOPOA2A_VERBOSE 1
                 $<TARGET_FILE:transpose> 48 1)
set_tests_properties(native_cost_file PROPERTIES TIMEOUT 120 LABELS native)
# MPIR_CVAR_COLLECTIVE_FALLBACK when the algorithm cannot run (hypercube on
# 3 ranks) or no plugin provides it.
add_test(NAME native_fallback_print
         COMMAND ${expect} "Alltoall hypercube cannot be applied: hypercube needs a power-of-two"
                 "result correct" --
                 ${native_run} -n 3 -genv MPIR_CVAR_ALLTOALL_INTRA_ALGORITHM hypercube
                 -genv MPIR_CVAR_COLLECTIVE_FALLBACK print $<TARGET_FILE:transpose> 48 1)
add_test(NAME native_fallback_error
         COMMAND ${expect} --fail --attempts 3 "collective algorithm is not usable" --
                 ${native_run} -n 3 -genv MPIR_CVAR_ALLTOALL_INTRA_ALGORITHM hypercube
                 -genv MPIR_CVAR_COLLECTIVE_FALLBACK error $<TARGET_FILE:transpose> 48 1)
# A hand-back where the user's tuning file names one of ours: hypercube
# cannot run on 3 ranks, MPICH's own selection must then not pick the
# plugin again (its built-in tree decides), and the result is right.
add_test(NAME native_handback_from_tuning_file
         COMMAND ${expect} "Alltoall hypercube cannot be applied: hypercube needs a power-of-two"
                 "result correct" --
                 ${native_run} -n 3 -genv MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE
                 ${CMAKE_CURRENT_SOURCE_DIR}/data/native_tuning_handback${tuning_suffix}.json
                 -genv MPIR_CVAR_COLLECTIVE_FALLBACK print $<TARGET_FILE:transpose> 6 2)
add_test(NAME native_no_plugin_falls_back
         COMMAND ${expect} "Alltoall ring cannot be applied: no collective plugin provides it"
                 "result correct" --
                 ${TOPOA2A_MPIEXEC} -n 2 -genv LD_LIBRARY_PATH ${TOPOA2A_PATCHED_MPICH}/lib
                 -genv MPIR_CVAR_COLL_PLUGIN none -genv MPIR_CVAR_ALLTOALL_INTRA_ALGORITHM ring
                 -genv MPIR_CVAR_COLLECTIVE_FALLBACK print $<TARGET_FILE:transpose> 32 1)
add_test(NAME native_missing_plugin_fails_init
         COMMAND ${expect} --fail --attempts 3
                 "/nonexistent/libplugin.so \\(MPIR_CVAR_COLL_PLUGIN\\) could not be loaded" --
                 ${TOPOA2A_MPIEXEC} -n 2 -genv LD_LIBRARY_PATH ${TOPOA2A_PATCHED_MPICH}/lib
                 -genv MPIR_CVAR_COLL_PLUGIN /nonexistent/libplugin.so $<TARGET_FILE:transpose>)
# The default MPIR_CVAR_COLL_PLUGIN is found on the loader's path.
add_test(NAME native_default_plugin_on_library_path
         COMMAND ${expect} "algorithm=onefactor_xor \\(selected by MPICH, native\\)" "result correct" --
                 ${TOPOA2A_MPIEXEC} -n 4 -genv LD_LIBRARY_PATH
                 ${TOPOA2A_PATCHED_MPICH}/lib:$<TARGET_FILE_DIR:topoa2a_native>
                 -genv MPIR_CVAR_ALLTOALL_INTRA_ALGORITHM onefactor_xor
                 -genv MPIR_CVAR_TOPOA2A_VERBOSE 1 $<TARGET_FILE:transpose> 64 1)
# A Cartesian communicator's grid reaches topo_auto (picked up on first use):
# cart_alltoall makes an MPI_Alltoall on world and on a 1-D Cartesian
# communicator of 4 ranks on 4 emulated nodes, where topo_auto's choice for
# 64-byte blocks differs; each must be what topoa2a-info predicts for that
# communicator (tests/native_cart_check.sh; the preload door's twin is
# preload_cart_reaches_topo_auto).
add_test(NAME native_topo_auto_verbose COMMAND ${cart_check} ${native_env})
set_tests_properties(native_topo_auto_verbose PROPERTIES PASS_REGULAR_EXPRESSION
                     "native_cart_check: PASSED")

# The native door and the preload door make the same topo_auto choice on
# this machine, under forced node layouts (tests/doors_same_choice.sh).
foreach(case "4;nodes:2x2" "6;nodes:3x2,fat_tree")
  list(GET case 0 n)
  list(GET case 1 topo)
  string(REGEX REPLACE "[^a-z0-9]+" "_" tag "${topo}")
  add_test(NAME doors_same_choice_np${n}_${tag}
           COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/doors_same_choice.sh ${TOPOA2A_MPIEXEC}
                   $<TARGET_FILE:transpose> ${n} ${topo} $<TARGET_FILE:topoa2a> -- ${native_env})
  set_tests_properties(doors_same_choice_np${n}_${tag} PROPERTIES TIMEOUT 300
                       LABELS "mpi;native" PASS_REGULAR_EXPRESSION "doors_same_choice: PASSED")
endforeach()

set_tests_properties(native_mpit_np1 native_mpit_np3 native_mpit_np4 native_json_small_ring
                     native_json_medium_mesh native_json_large_mpich native_mesh_user_grid
                     native_fallback_print native_fallback_error native_no_plugin_falls_back
                     native_handback_from_tuning_file
                     native_missing_plugin_fails_init native_default_plugin_on_library_path
                     native_topo_auto_verbose
                     PROPERTIES TIMEOUT 120 LABELS "mpi;native")

# MPICH's own alltoall / alltoallv tests on the patched MPICH, each of our
# algorithms chosen by the CVAR, no LD_PRELOAD (ci/mpich-testsuite.sh --native).
add_test(NAME mpich_testsuite_native
         COMMAND ${CMAKE_COMMAND} -E env TOPOA2A_NATIVE_LIB=$<TARGET_FILE:topoa2a_native>
                 TOPOA2A_ARTIFACTS=${CMAKE_BINARY_DIR}/mpich-testsuite-native
                 bash ${PROJECT_SOURCE_DIR}/ci/mpich-testsuite.sh --native ${TOPOA2A_PATCHED_MPICH})
set_tests_properties(mpich_testsuite_native PROPERTIES TIMEOUT 1800
                     LABELS "mpi;native;mpich-suite" RUN_SERIAL TRUE)

# The preload door on the patched library (its plugin off): the same
# interposer over MPICH 4.0.2 built from source, or over MPICH 5.0.1 when
# TOPOA2A_PATCHED_MPICH is a 5.0.1 prefix. Every algorithm at 4 ranks, and
# the MPI_T interposition over that MPICH's own MPI_T.
set(preload_patched -genv LD_LIBRARY_PATH ${TOPOA2A_PATCHED_MPICH}/lib -genv MPIR_CVAR_COLL_PLUGIN
                    none -genv LD_PRELOAD $<TARGET_FILE:topoa2a>)
foreach(alg IN LISTS TOPOA2A_PRELOAD_ALGORITHMS)
  topoa2a_alltoallv_env(${alg} v_env)
  add_test(NAME preload_on_patched_mpich_${alg}_np4
           COMMAND ${TOPOA2A_MPIEXEC} -n 4 ${preload_patched} -genv MPIR_CVAR_ALLTOALL_INTRA_ALGORITHM
                   ${alg} -genv TOPOA2A_EXPECT ${alg} ${v_env} $<TARGET_FILE:mpi_alltoall_app>
                   --gtest_brief=1)
  set_tests_properties(preload_on_patched_mpich_${alg}_np4 PROPERTIES TIMEOUT 600
                       LABELS "mpi;preload;native" RUN_SERIAL TRUE)
endforeach()
add_test(NAME preload_on_patched_mpich_pvars_np3
         COMMAND ${expect} "^pvars ok" -- ${TOPOA2A_MPIEXEC} -n 3 ${preload_patched}
                 -genv MPIR_CVAR_ALLTOALL_INTRA_ALGORITHM ring
                 -genv MPIR_CVAR_IALLTOALL_INTRA_ALGORITHM ring $<TARGET_FILE:mpi_pvars>)
set_tests_properties(preload_on_patched_mpich_pvars_np3 PROPERTIES TIMEOUT 120
                     LABELS "mpi;preload;native")

# The nonblocking and persistent calls (plugin ABI 4, both series).
include(native_nb_tests.cmake)
