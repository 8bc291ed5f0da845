# Installation layout, CMake package config, pkg-config file and the Debian
# packages (CPack):
#   libtopoa2a     libtopoa2a.so (preload door), libtopoa2a_native.so (the
#                  patched MPICH's plugin), headers, CMake and pkg-config
#                  files, documentation
#   topoa2a-tools  topoa2a-info, topoa2a-bench and topoa2a-calibrate, with
#                  their man pages
# `cpack -G DEB` in the build directory writes both .deb files.
include(CMakePackageConfigHelpers)

set(TOPOA2A_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/topoa2a)
install(EXPORT topoa2aTargets NAMESPACE topoa2a:: DESTINATION ${TOPOA2A_CMAKE_DIR}
        COMPONENT libtopoa2a)
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/topoa2aConfig.cmake.in
                              ${PROJECT_BINARY_DIR}/topoa2aConfig.cmake
                              INSTALL_DESTINATION ${TOPOA2A_CMAKE_DIR})
write_basic_package_version_file(${PROJECT_BINARY_DIR}/topoa2aConfigVersion.cmake
                                 COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/topoa2aConfig.cmake
              ${PROJECT_BINARY_DIR}/topoa2aConfigVersion.cmake
        DESTINATION ${TOPOA2A_CMAKE_DIR} COMPONENT libtopoa2a)

# pkg-config: absolute paths (GNUInstallDirs' FULL variants).
set(TOPOA2A_PC_LIBDIR ${CMAKE_INSTALL_FULL_LIBDIR})
set(TOPOA2A_PC_INCLUDEDIR ${CMAKE_INSTALL_FULL_INCLUDEDIR})
configure_file(${PROJECT_SOURCE_DIR}/cmake/topoa2a.pc.in ${PROJECT_BINARY_DIR}/topoa2a.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/topoa2a.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig
        COMPONENT libtopoa2a)

install(FILES ${PROJECT_SOURCE_DIR}/docs/man/topoa2a-info.1 ${PROJECT_SOURCE_DIR}/docs/man/topoa2a-bench.1
              ${PROJECT_SOURCE_DIR}/docs/man/topoa2a-calibrate.1
        DESTINATION ${CMAKE_INSTALL_MANDIR}/man1 COMPONENT tools)
install(FILES ${PROJECT_SOURCE_DIR}/docs/man/topoa2a.7 DESTINATION ${CMAKE_INSTALL_MANDIR}/man7
        COMPONENT libtopoa2a)

set(CPACK_PACKAGE_NAME topoa2a)
set(CPACK_PACKAGE_VENDOR "topoa2a developers")
set(CPACK_PACKAGE_CONTACT "topoa2a developers <topoa2a@localhost>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "Topology-aware MPI_Alltoall algorithms for MPICH")
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_COMPONENTS_ALL libtopoa2a tools)
set(CPACK_DEB_COMPONENT_INSTALL ON)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION devel)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)  # dpkg-shlibdeps: libmpich12, libhwloc15, ...
set(CPACK_DEBIAN_LIBTOPOA2A_PACKAGE_NAME libtopoa2a)
set(CPACK_DEBIAN_LIBTOPOA2A_PACKAGE_SECTION libs)
set(CPACK_COMPONENT_LIBTOPOA2A_DESCRIPTION
    "topoa2a: topology-aware MPI_Alltoall algorithms for MPICH (libraries)\n"
    "libtopoa2a.so adds ring, mesh, hypercube, 1-factor and node-aware all-to-all\n"
    "algorithms to an unmodified MPICH program (LD_PRELOAD or -ltopoa2a), selected\n"
    "with MPIR_CVAR_ALLTOALL_INTRA_ALGORITHM; libtopoa2a_native.so is the plugin\n"
    "loaded by topoa2a's patched MPICH.")
set(CPACK_DEBIAN_TOOLS_PACKAGE_NAME topoa2a-tools)
set(CPACK_DEBIAN_TOOLS_PACKAGE_SECTION utils)
set(CPACK_DEBIAN_TOOLS_PACKAGE_DEPENDS "libtopoa2a (= ${PROJECT_VERSION})")
set(CPACK_COMPONENT_TOOLS_DESCRIPTION
    "topoa2a: topology-aware MPI_Alltoall algorithms for MPICH (tools)\n"
    "topoa2a-info prints a run's detected topology and topo_auto's choice per size;\n"
    "topoa2a-bench is an osu_alltoall-compatible benchmark of every algorithm;\n"
    "topoa2a-calibrate measures the machine's message costs and writes a cost file\n"
    "for topo_auto (MPIR_CVAR_TOPOA2A_COST_FILE).")
include(CPack)
