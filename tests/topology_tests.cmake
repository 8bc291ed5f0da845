# Unit tests of topology/ (no MPI). Included from tests/CMakeLists.txt.
include(GoogleTest)

add_executable(topology_test ${CMAKE_CURRENT_LIST_DIR}/topology_test.cc
                             ${CMAKE_CURRENT_LIST_DIR}/rules_test.cc
                             ${CMAKE_CURRENT_LIST_DIR}/topology_input_test.cc
                             ${CMAKE_CURRENT_LIST_DIR}/cost_model_test.cc
                             ${CMAKE_CURRENT_LIST_DIR}/cost_choice_test.cc
                             ${CMAKE_CURRENT_LIST_DIR}/cost_file_test.cc
                             ${CMAKE_CURRENT_LIST_DIR}/cost_bandwidth_test.cc
                             ${CMAKE_CURRENT_LIST_DIR}/cost_product_test.cc)
target_link_libraries(topology_test PRIVATE topoa2a_topo GTest::gtest_main)
# MPICH's shipped tuning files (maint/tuning/coll of MPICH's source; ci/test.sh
# sets this from ci/mpich-tuning.sh). Empty: Rules.MpichShippedFilesParse
# skips; set: it fails when the files are not there.
set(TOPOA2A_MPICH_TUNING_DIR "" CACHE PATH
    "Directory with MPICH's maint/tuning/coll files (mpir/generic.json, ch4/generic.json)")
if(TOPOA2A_MPICH_TUNING_DIR)
  target_compile_definitions(topology_test PRIVATE
                             TOPOA2A_MPICH_TUNING_DIR="${TOPOA2A_MPICH_TUNING_DIR}")
endif()
gtest_discover_tests(topology_test DISCOVERY_TIMEOUT 60 PROPERTIES TIMEOUT 300 LABELS unit)
