# install.cmake: what `cmake --install` puts where, and the package files that let others use
# it: the ramplace program and man page; the library (libramplace.a), its headers and
# ramplace.pc for pkg-config; the CMake package (share/ramplace/cmake: ramplaceConfig.cmake,
# RamPlace.cmake) and the make integration (share/ramplace/make). A build-tree
# ramplaceConfig.cmake also lets a firmware project use this build without installing
# (-Dramplace_DIR=<this build dir>), and both give the library as ramplace::ramplace. Included
# from the top-level CMakeLists.txt.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set(RAMPLACE_SHARE_DIR "${CMAKE_INSTALL_DATADIR}/ramplace")

install(TARGETS ramplace RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(FILES docs/ramplace.1 DESTINATION ${CMAKE_INSTALL_MANDIR}/man1)

# libramplace_core.a in the build tree (tests link it by that name), libramplace.a installed
install(FILES $<TARGET_FILE:ramplace_core> DESTINATION ${CMAKE_INSTALL_LIBDIR} RENAME libramplace.a)
# The public boundary: the entry points (one placement from files, check, import, the image and
# map readers, plans, the profile database, reports) and the headers they include, nothing
# else: util.h, the solvers' internals (ilp, budget), the decoder and the reset-path analysis
# stay the library's own. t_cmake_library compiles each installed header alone against the
# install, so a public header that includes a private one fails there.
set(RAMPLACE_ENTRY_HEADERS pipeline.h check_firmware.h import_run.h image.h map.h plan.h profiledb.h
    callgraph.h report.h error.h
    # included by the entry points above
    check.h config.h costs.h curve.h cycles.h dataobjs.h flashmap.h flashmodel.h import.h knapsack.h
    layout.h place_data.h placement.h rsp.h samples.h staleness.h swo.h)
list(TRANSFORM RAMPLACE_ENTRY_HEADERS PREPEND ramplace/include/ramplace/)
install(FILES ${RAMPLACE_ENTRY_HEADERS} DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/ramplace)
file(GLOB RAMPLACE_LDGEN_HEADERS ldgen/include/ramplace/ldgen/*.h)
install(FILES ${RAMPLACE_LDGEN_HEADERS} DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/ramplace/ldgen)

# pkg-config: the modules the library links (extend both lists when adding a dependency)
string(JOIN " " RAMPLACE_PC_REQUIRES_PRIVATE ${RAMPLACE_PKG_MODULES})
string(JOIN " " RAMPLACE_PC_LIBS_PRIVATE ${RAMPLACE_PLAIN_LIBS})
file(RELATIVE_PATH RAMPLACE_PC_TO_PREFIX "/p/${CMAKE_INSTALL_LIBDIR}/pkgconfig" "/p")
configure_file(cmake/ramplace.pc.in ${PROJECT_BINARY_DIR}/ramplace.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/ramplace.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)

# a library built with the sanitizers (RAMPLACE_SANITIZE) links only with their runtimes
set(RAMPLACE_LIB_LINK_OPTIONS "")
if(RAMPLACE_SANITIZE)
  set(RAMPLACE_LIB_LINK_OPTIONS "-fsanitize=address,undefined")
endif()

# CMake package, installed: paths relative to the config file, so the prefix can move
file(RELATIVE_PATH rp_to_prefix "/p/${RAMPLACE_SHARE_DIR}/cmake" "/p")
set(RAMPLACE_CONFIG_LOCATIONS "get_filename_component(_ramplace_prefix \"\${CMAKE_CURRENT_LIST_DIR}/${rp_to_prefix}\" ABSOLUTE)
set(_ramplace_exe \"\${_ramplace_prefix}/${CMAKE_INSTALL_BINDIR}/ramplace\")
set(_ramplace_module_dir \"\${CMAKE_CURRENT_LIST_DIR}\")
set(_ramplace_lib \"\${_ramplace_prefix}/${CMAKE_INSTALL_LIBDIR}/libramplace.a\")
set(_ramplace_include_dirs \"\${_ramplace_prefix}/${CMAKE_INSTALL_INCLUDEDIR}\")
set(_ramplace_link_options \"${RAMPLACE_LIB_LINK_OPTIONS}\")
unset(_ramplace_prefix)")
configure_file(cmake/ramplaceConfig.cmake.in ${PROJECT_BINARY_DIR}/install/ramplaceConfig.cmake @ONLY)
# ARCH_INDEPENDENT: the firmware project that looks for this host tool is a 32-bit cross build
write_basic_package_version_file(${PROJECT_BINARY_DIR}/ramplaceConfigVersion.cmake
  COMPATIBILITY SameMinorVersion ARCH_INDEPENDENT)
install(FILES ${PROJECT_BINARY_DIR}/install/ramplaceConfig.cmake
              ${PROJECT_BINARY_DIR}/ramplaceConfigVersion.cmake cmake/RamPlace.cmake
        DESTINATION ${RAMPLACE_SHARE_DIR}/cmake)
install(FILES make/ramplace.mk DESTINATION ${RAMPLACE_SHARE_DIR}/make)
install(PROGRAMS make/ramplace-record.sh make/ramplace-link-renamed.sh make/ramplace-converge.sh make/ramplace-qemu-profile.sh DESTINATION ${RAMPLACE_SHARE_DIR}/make)
# the target-side sampling runtime, compiled into firmware (ramplace_runtime_library())
file(GLOB RAMPLACE_RUNTIME_FILES ramplace/runtime/*.c ramplace/runtime/*.h)
install(FILES ${RAMPLACE_RUNTIME_FILES} DESTINATION ${RAMPLACE_SHARE_DIR}/runtime)

# CMake package, build tree: this build's program, the modules from the source tree
set(RAMPLACE_CONFIG_LOCATIONS "set(_ramplace_exe \"$<TARGET_FILE:ramplace>\")
set(_ramplace_module_dir \"${PROJECT_SOURCE_DIR}/cmake\")
set(_ramplace_lib \"$<TARGET_FILE:ramplace_core>\")
set(_ramplace_include_dirs \"${PROJECT_SOURCE_DIR}/ramplace/include;${PROJECT_SOURCE_DIR}/ldgen/include\")
set(_ramplace_link_options \"${RAMPLACE_LIB_LINK_OPTIONS}\")")
configure_file(cmake/ramplaceConfig.cmake.in ${PROJECT_BINARY_DIR}/ramplaceConfig.cmake.gen @ONLY)
file(GENERATE OUTPUT ${PROJECT_BINARY_DIR}/ramplaceConfig.cmake
     INPUT ${PROJECT_BINARY_DIR}/ramplaceConfig.cmake.gen)
