# arm-none-eabi-toolchain.cmake: CMake toolchain file for bare-metal Arm with the GNU Arm
# Embedded toolchain (arm-none-eabi-gcc + newlib). CPU flags (-mcpu, -mthumb) and the specs
# (rdimon, nano, nosys) belong to the firmware project, not here.
#
#   cmake -S examples/qemu-cortex-m3 -B build-fw -DCMAKE_TOOLCHAIN_FILE=cmake/arm-none-eabi-toolchain.cmake
#
# Set ARM_NONE_EABI_PREFIX (e.g. /opt/gcc-arm/bin/arm-none-eabi-) to use a toolchain that is not
# on PATH.
set(CMAKE_SYSTEM_NAME Generic)
set(CMAKE_SYSTEM_PROCESSOR arm)

set(ARM_NONE_EABI_PREFIX "arm-none-eabi-" CACHE STRING "Prefix of the cross tools (path and triplet)")

set(CMAKE_C_COMPILER "${ARM_NONE_EABI_PREFIX}gcc")
set(CMAKE_CXX_COMPILER "${ARM_NONE_EABI_PREFIX}g++")
set(CMAKE_ASM_COMPILER "${ARM_NONE_EABI_PREFIX}gcc")
set(CMAKE_AR "${ARM_NONE_EABI_PREFIX}ar" CACHE FILEPATH "Archiver")
set(CMAKE_RANLIB "${ARM_NONE_EABI_PREFIX}ranlib" CACHE FILEPATH "Ranlib")
set(CMAKE_OBJCOPY "${ARM_NONE_EABI_PREFIX}objcopy" CACHE FILEPATH "Objcopy")
set(CMAKE_OBJDUMP "${ARM_NONE_EABI_PREFIX}objdump" CACHE FILEPATH "Objdump")
set(CMAKE_SIZE "${ARM_NONE_EABI_PREFIX}size" CACHE FILEPATH "Size")

# A test executable cannot link without the project's startup code and linker script.
set(CMAKE_TRY_COMPILE_TARGET_TYPE STATIC_LIBRARY)

# Host programs from the host; headers and libraries only from the toolchain.
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)
