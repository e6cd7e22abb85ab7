# arm-none-eabi-toolchain.cmake (example shim): CMake resolves a relative CMAKE_TOOLCHAIN_FILE
# against the build directory and then the source directory, never the current directory, so
# `cmake -S examples/qemu-cortex-m3 -B build-fw -DCMAKE_TOOLCHAIN_FILE=cmake/arm-none-eabi-toolchain.cmake`
# run from the repository root lands here. The real file is the repository's top-level one.
include("${CMAKE_CURRENT_LIST_DIR}/../../../cmake/arm-none-eabi-toolchain.cmake")
