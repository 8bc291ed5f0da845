# Unit tests of topology/ (no MPI). Included from tests/CMakeLists.txt.
include(GoogleTest)

add_executable(topology_test ${CMAKE_CURRENT_LIST_DIR}/topology_test.cc
                             ${CMAKE_CURRENT_LIST_DIR}/topology_input_test.cc)
target_link_libraries(topology_test PRIVATE topoa2a_topo GTest::gtest_main)
gtest_discover_tests(topology_test DISCOVERY_TIMEOUT 60 PROPERTIES TIMEOUT 300 LABELS unit)
