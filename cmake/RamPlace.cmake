# RamPlace.cmake: ramplace's re-optimization loop for a CMake firmware build.
#
#   find_package(ramplace CONFIG REQUIRED NO_CMAKE_FIND_ROOT_PATH)   # or include() this file
#   ramplace_add_placement(TARGET fw BUDGET 96K
#     [PROFILE profile.db]          relative to the binary dir; default <binary dir>/profile.db
#     [FRAGMENT ramtext.ld]         what the linker script INCLUDEs; default <binary dir>/ramtext.ld
#     [MAP fw.map]                  the target's link map when you already write one (otherwise
#                                   -Wl,-Map=<binary dir>/<target>.map is added)
#     [CONFIG ramplace.yaml]        passed to `ramplace place --config`
#     [REMOTE 127.0.0.1:1234]       the gdbserver to record from
#     [RECORD_COMMAND cmd args...]  starts the firmware under that gdbserver (QEMU -gdb ... -S,
#                                   OpenOCD, ...); omit it when the gdbserver already runs
#     [RECORD_ARGS ...]             more `ramplace record` options (default --rate 2000 --quiet)
#     [PLACE_ARGS ...]              more `ramplace place` options (--exclude, --min-mapped, ...)
#     [QEMU_COMMAND cmd args...]    on QEMU: the command that runs the firmware, up to -kernel;
#                                   <target>-profile then imports the project plugin's exact
#                                   counts instead of recording through the gdbstub (biased on
#                                   QEMU: it stops only between translation blocks)
#     [FLASH_MODEL ws:5]            with QEMU_COMMAND: the plugin's flash model (docs/cost-models.md);
#                                   a cache or accelerator model (cache:..., art:...) also records
#                                   the access trace, and <target>-ramplace places with --trace
#     [FLASH_RANGE LO-HI]           with QEMU_COMMAND: the flash addresses, hex (required then)
#     [QEMU_PLUGIN path]            libramplace-qemu.so (default: beside RAMPLACE_EXECUTABLE, or
#                                   ../lib/ramplace/ from it when installed)
#     [DIALECT gnu|pico]            how the functions move: gnu, the fragment a linker script
#                                   INCLUDEs; pico (the default under pico-sdk, when
#                                   PICO_SDK_VERSION_STRING is set): the SDK's own RAM code, see below
#     [NO_FUNCTION_SECTIONS])       do not add -ffunction-sections
#
# Under pico-sdk (DIALECT pico) nothing is INCLUDEd: the SDK's linker scripts already copy
# *(.time_critical*) to RAM inside .data, so the target links through a launcher
# (make/ramplace-link-renamed.sh, the target's C and CXX LINKER_LAUNCHER, CMake >= 3.21) that
# gives the link copies of the planned objects and archive members with their sections renamed
# to .time_critical.ramplace.* (FRAGMENT's renames: FRAGMENT with .pico for .ld, from `ramplace
# emit --format pico`). MAP defaults to pico_add_map_output's <elf>.map. The SDK's files and the
# build's objects are not changed. In a pico-sdk project:
#   find_package(ramplace CONFIG REQUIRED NO_CMAKE_FIND_ROOT_PATH)
#   add_executable(fw main.c)
#   target_link_libraries(fw pico_stdlib)
#   pico_add_extra_outputs(fw)
#   ramplace_add_placement(TARGET fw BUDGET 8K)
#
# It compiles TARGET with -ffunction-sections, writes an empty fragment at configure time (so the
# first build links with everything in flash), puts its directory on the link's -L path (through
# the compiler driver, which passes -L before the script's -T: GNU ld opens the INCLUDE while
# it parses -T, so a link that calls ld directly needs -L first), makes it
# a LINK_DEPENDS of TARGET (a new placement relinks), and adds the targets
#   <target>-profile          run RECORD_COMMAND and `ramplace record` into PROFILE (with
#                             QEMU_COMMAND: the plugin's exact counts, imported into PROFILE)
#   <target>-ramplace         place from PROFILE and the current ELF (the HTML report beside the fragment: FRAGMENT.html), relink, `ramplace check`;
#                             when the link disagrees with the plan (more bytes, a region
#                             overflow, a jump out of reach), place again with what it measured,
#                             a few rounds (make/ramplace-converge.sh)
#   <target>-ramplace-check   `ramplace check` the current ELF against the plan
# `RAMPLACE_FORCE=1 cmake --build ... -t <target>-ramplace` places even from a stale profile.
#
# The target-side sampling runtime (docs/runtime.md) as a library of the firmware build, for a
# board without a probe (an RP2040 has no SWO and no DWT): the firmware calls profile_on(),
# then profile_dump_stdout() prints the histogram on its console (pico-sdk's stdio: UART or
# USB), and `ramplace import profile.db fw.elf console.log` reads it from the captured log.
#   ramplace_runtime_library(NAME ramplace_runtime
#     [CLOCK_HZ hz]                 the SysTick clock (the core clock); under pico-sdk the SDK's
#                                   SYS_CLK_HZ by default (125 MHz on RP2040, 150 on RP2350, 200
#                                   with PICO_USE_FASTEST_SUPPORTED_CLOCK), else required
#     [BINS 4096] [ARCS 0]          the histogram's static storage (docs/runtime.md)
#     [SYSTICK_HANDLER name])       the vector table's SysTick name to define (isr_systick under
#                                   pico-sdk, SysTick_Handler for CMSIS startups)
# makes an INTERFACE library (pico-sdk's own kind): target_link_libraries(fw pico_stdlib
# ramplace_runtime). Cortex-M only here (RP2040's M0+, RP2350's M33).
#
# The firmware build is usually a cross build; ramplace is a host program. It is
# RAMPLACE_EXECUTABLE: set by the package configuration to the installed program, or by you
# (-DRAMPLACE_EXECUTABLE=...), else looked up on the host PATH.
include_guard(GLOBAL)

set(_RAMPLACE_MODULE_DIR "${CMAKE_CURRENT_LIST_DIR}")

# <target>-profile on QEMU: the plugin's exact counts and flash stall cycles, imported (the
# caller's RP_* variables: QEMU_COMMAND, FLASH_MODEL, FLASH_RANGE, QEMU_PLUGIN). QEMU splits
# plugin options at commas, so a comma inside the model is doubled.
macro(_ramplace_exact_profile_target tgt elf profile)
  if(NOT RP_FLASH_RANGE)
    message(FATAL_ERROR "ramplace_add_placement: QEMU_COMMAND needs FLASH_RANGE (e.g. 0-400000)")
  endif()
  if(NOT RP_FLASH_MODEL)
    set(RP_FLASH_MODEL ws:5)
  endif()
  if(NOT RP_QEMU_PLUGIN)
    get_filename_component(_rp_bin_dir "${RAMPLACE_EXECUTABLE}" DIRECTORY)
    set(RP_QEMU_PLUGIN "${_rp_bin_dir}/libramplace-qemu.so")
    if(NOT EXISTS "${RP_QEMU_PLUGIN}" AND EXISTS "${_rp_bin_dir}/../lib/ramplace/libramplace-qemu.so")
      set(RP_QEMU_PLUGIN "${_rp_bin_dir}/../lib/ramplace/libramplace-qemu.so")
    endif()
  endif()
  add_custom_target(${tgt}-profile
    COMMAND "${RAMPLACE_QEMU_PROFILE_HELPER}" --ramplace "${RAMPLACE_EXECUTABLE}" --plugin "${RP_QEMU_PLUGIN}"
            --model "${RP_FLASH_MODEL}" --flash "${RP_FLASH_RANGE}" "${profile}" "${elf}" -- ${RP_QEMU_COMMAND}
    DEPENDS ${tgt}
    COMMENT "Exact counts of ${tgt} from the QEMU plugin (flash model ${RP_FLASH_MODEL}) into ${profile}"
    USES_TERMINAL VERBATIM)
  # under a cache or an accelerator the profile run also records the access trace, and place
  # prices the relinked layout on it (without, a small promise moves nothing: pipe_guard.c)
  if(RP_FLASH_MODEL MATCHES "^(cache|art):")
    list(APPEND RP_PLACE_ARGS --flash-model "${RP_FLASH_MODEL}" --trace "${profile}.trace")
  endif()
endmacro()
set(RAMPLACE_RECORD_HELPER "${_RAMPLACE_MODULE_DIR}/../make/ramplace-record.sh"
    CACHE FILEPATH "Script that runs the gdbserver command and ramplace record")
if(EXISTS "${_RAMPLACE_MODULE_DIR}/../ramplace/runtime/profile.c")   # the source tree
  set(_ramplace_runtime_default "${_RAMPLACE_MODULE_DIR}/../ramplace/runtime")
else()   # installed: share/ramplace/runtime beside share/ramplace/cmake
  set(_ramplace_runtime_default "${_RAMPLACE_MODULE_DIR}/../runtime")
endif()
set(RAMPLACE_RUNTIME_DIR "${_ramplace_runtime_default}" CACHE PATH "ramplace's target-side sampling runtime sources")
set(RAMPLACE_QEMU_PROFILE_HELPER "${_RAMPLACE_MODULE_DIR}/../make/ramplace-qemu-profile.sh"
    CACHE FILEPATH "Script that takes the QEMU plugin's counts (and, under a cache model, the access trace)")
set(RAMPLACE_CONVERGE_HELPER "${_RAMPLACE_MODULE_DIR}/../make/ramplace-converge.sh"
    CACHE FILEPATH "Script that places, relinks and checks, correcting the plan when the link disagrees")
set(RAMPLACE_RENAMED_LINK_HELPER "${_RAMPLACE_MODULE_DIR}/../make/ramplace-link-renamed.sh"
    CACHE FILEPATH "Link launcher that renames planned sections to pico-sdk's .time_critical.*")

# Absolute path of `path`, taken relative to `base` when relative.
function(_ramplace_abspath out path base)
  get_filename_component(abs "${path}" ABSOLUTE BASE_DIR "${base}")
  set(${out} "${abs}" PARENT_SCOPE)
endfunction()

function(_ramplace_find_executable)
  if(NOT RAMPLACE_EXECUTABLE)
    # NO_CMAKE_FIND_ROOT_PATH: a cross toolchain file must not redirect a host program search
    find_program(RAMPLACE_EXECUTABLE ramplace NO_CMAKE_FIND_ROOT_PATH)
  endif()
  if(NOT RAMPLACE_EXECUTABLE)
    message(FATAL_ERROR "ramplace_add_placement: the ramplace program was not found; "
      "install it, or pass -DRAMPLACE_EXECUTABLE=/path/to/ramplace or -Dramplace_DIR=<its build or share/ramplace/cmake dir>")
  endif()
endfunction()

function(ramplace_add_placement)
  cmake_parse_arguments(PARSE_ARGV 0 RP "NO_FUNCTION_SECTIONS"
    "TARGET;BUDGET;PROFILE;FRAGMENT;MAP;CONFIG;REMOTE;FLASH_MODEL;FLASH_RANGE;QEMU_PLUGIN;DIALECT"
    "RECORD_COMMAND;RECORD_ARGS;PLACE_ARGS;QEMU_COMMAND")
  if(RP_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "ramplace_add_placement: unknown arguments: ${RP_UNPARSED_ARGUMENTS}")
  endif()
  if(NOT RP_TARGET OR NOT TARGET "${RP_TARGET}")
    message(FATAL_ERROR "ramplace_add_placement: TARGET '${RP_TARGET}' is not a target of this project")
  endif()
  if(NOT RP_BUDGET)
    message(FATAL_ERROR "ramplace_add_placement: BUDGET is required (bytes, or 16K, 1M)")
  endif()
  _ramplace_find_executable()
  set(bin "${CMAKE_CURRENT_BINARY_DIR}")
  set(tgt "${RP_TARGET}")
  if(NOT RP_DIALECT)
    if(DEFINED PICO_SDK_VERSION_STRING)
      set(RP_DIALECT pico)
    else()
      set(RP_DIALECT gnu)
    endif()
  endif()
  if(NOT RP_DIALECT MATCHES "^(gnu|pico)$")
    message(FATAL_ERROR "ramplace_add_placement: DIALECT is gnu or pico, not '${RP_DIALECT}'")
  endif()
  if(RP_DIALECT STREQUAL "pico" AND CMAKE_VERSION VERSION_LESS 3.21)
    message(FATAL_ERROR "ramplace_add_placement: DIALECT pico sets the target's LINKER_LAUNCHER, which needs "
      "CMake 3.21 or later (this is ${CMAKE_VERSION})")
  endif()
  if(NOT RP_FRAGMENT)
    set(RP_FRAGMENT ramtext.ld)
  endif()
  if(NOT RP_PROFILE)
    set(RP_PROFILE profile.db)
  endif()
  if(NOT RP_REMOTE)
    set(RP_REMOTE 127.0.0.1:1234)
  endif()
  if(NOT DEFINED RP_RECORD_ARGS)
    set(RP_RECORD_ARGS --rate 2000 --quiet)
  endif()
  _ramplace_abspath(fragment "${RP_FRAGMENT}" "${bin}")
  _ramplace_abspath(profile "${RP_PROFILE}" "${bin}")
  get_filename_component(fragment_dir "${fragment}" DIRECTORY)
  set(plan "${fragment}.plan")
  if(RP_MAP)
    _ramplace_abspath(map "${RP_MAP}" "${bin}")
  elseif(RP_DIALECT STREQUAL "pico")
    # where pico_add_extra_outputs (pico_add_map_output) writes it, so both name one file
    set(map "$<TARGET_FILE:${tgt}>.map")
    target_link_options(${tgt} PRIVATE "LINKER:-Map=${map}")
  else()
    set(map "${bin}/${tgt}.map")
    target_link_options(${tgt} PRIVATE "-Wl,-Map=${map}")
  endif()
  set(config_args)
  if(RP_CONFIG)
    _ramplace_abspath(config "${RP_CONFIG}" "${CMAKE_CURRENT_SOURCE_DIR}")
    set(config_args --config "${config}")
  endif()

  # First configure: an empty fragment, so the first build links with everything in flash.
  if(NOT EXISTS "${fragment}")
    file(WRITE "${fragment}" "/* ramtext.ld: empty placement, every function stays in flash */\n")
  endif()
  # and an empty .ramdata fragment beside it (place --data writes it there), for a linker script
  # that INCLUDEs ramdata.ld; harmless to one that does not
  if(NOT EXISTS "${fragment_dir}/ramdata.ld")
    file(WRITE "${fragment_dir}/ramdata.ld" "/* ramdata.ld: empty placement, every const object stays in flash */\n")
  endif()
  # and an empty flash order (place --trace writes flashtext.ld there), for a script that
  # INCLUDEs it at the start of its text output section
  if(NOT EXISTS "${fragment_dir}/flashtext.ld")
    file(WRITE "${fragment_dir}/flashtext.ld" "/* flashtext.ld: no order, flash keeps the link order */\n")
  endif()
  if(NOT RP_NO_FUNCTION_SECTIONS)
    target_compile_options(${tgt} PRIVATE -ffunction-sections)
  endif()
  set(emit_args)
  set(dialect_args)
  if(RP_DIALECT STREQUAL "pico")
    string(REGEX REPLACE "\\.ld$" "" renames "${fragment}")
    set(renames "${renames}.pico")
    if(NOT EXISTS "${renames}")
      file(WRITE "${renames}" "# ramtext.pico: empty placement, every function stays in flash\n")
    endif()
    set(launcher "${RAMPLACE_RENAMED_LINK_HELPER}" --renames "${renames}")
    if(CMAKE_OBJCOPY)
      list(APPEND launcher --objcopy "${CMAKE_OBJCOPY}")
    endif()
    if(CMAKE_AR)
      list(APPEND launcher --ar "${CMAKE_AR}")
    endif()
    list(APPEND launcher --)
    set_target_properties(${tgt} PROPERTIES C_LINKER_LAUNCHER "${launcher}" CXX_LINKER_LAUNCHER "${launcher}")
    set_property(TARGET ${tgt} APPEND PROPERTY LINK_DEPENDS "${renames}")
    set(dialect_args --dialect pico)
    set(emit_args --emit-pico "${renames}")
  else()
    target_link_options(${tgt} PRIVATE "-L${fragment_dir}")
    set_property(TARGET ${tgt} APPEND PROPERTY LINK_DEPENDS "${fragment}")
  endif()

  set(elf "$<TARGET_FILE:${tgt}>")
  set(server)
  if(RP_RECORD_COMMAND)
    set(server -- ${RP_RECORD_COMMAND})
  endif()
  if(RP_QEMU_COMMAND)
    _ramplace_exact_profile_target(${tgt} "${elf}" "${profile}")
  else()
  add_custom_target(${tgt}-profile
    COMMAND "${RAMPLACE_RECORD_HELPER}" --ramplace "${RAMPLACE_EXECUTABLE}" --remote "${RP_REMOTE}"
            "${profile}" "${elf}" ${RP_RECORD_ARGS} ${server}
    DEPENDS ${tgt}
    COMMENT "Recording ${tgt} into ${profile}"
    USES_TERMINAL VERBATIM)
  endif()
  # The nested build relinks TARGET with the fragment just written; TARGET itself was brought up
  # to date before, so the placement sees the ELF and map as they are now. The helper checks the
  # relink and, when the linker disagrees with the plan, places again with what it measured.
  add_custom_target(${tgt}-ramplace
    COMMAND "${RAMPLACE_CONVERGE_HELPER}" --ramplace "${RAMPLACE_EXECUTABLE}" ${emit_args}
            --budget "${RP_BUDGET}" --map "${map}" -o "${fragment}"
            --html "${fragment}.html" ${dialect_args} ${config_args} ${RP_PLACE_ARGS} "${profile}" "${elf}"
            -- "${CMAKE_COMMAND}" --build "${CMAKE_BINARY_DIR}" --target ${tgt} --config $<CONFIG>
    DEPENDS ${tgt}
    COMMENT "Placing ${tgt}'s hot functions into ${RP_BUDGET} of RAM"
    USES_TERMINAL VERBATIM)
  add_custom_target(${tgt}-ramplace-check
    COMMAND "${RAMPLACE_EXECUTABLE}" check --plan "${plan}" "${elf}"
    DEPENDS ${tgt}
    USES_TERMINAL VERBATIM)
  set_property(TARGET ${tgt} PROPERTY RAMPLACE_FRAGMENT "${fragment}")
  set_property(TARGET ${tgt} PROPERTY RAMPLACE_PROFILE "${profile}")
endfunction()

function(ramplace_runtime_library)
  cmake_parse_arguments(PARSE_ARGV 0 RT "" "NAME;CLOCK_HZ;BINS;ARCS;SYSTICK_HANDLER" "")
  if(RT_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "ramplace_runtime_library: unknown arguments: ${RT_UNPARSED_ARGUMENTS}")
  endif()
  if(NOT RT_NAME)
    set(RT_NAME ramplace_runtime)
  endif()
  set(pico_platform "${PICO_PLATFORM}")
  if(pico_platform MATCHES "riscv")
    message(FATAL_ERROR "ramplace_runtime_library: ${pico_platform}: the runtime's RISC-V port samples from a "
      "CLINT machine timer, which the RP2350's Hazard3 cores do not have; build for rp2350-arm-s")
  endif()
  set(platform_header)
  if(NOT RT_CLOCK_HZ)
    if(DEFINED PICO_SDK_VERSION_STRING)
      # the SDK's own figure (SYS_CLK_HZ: the board's, or 125/150/200 MHz), read at compile time
      set(RT_CLOCK_HZ SYS_CLK_HZ)
      set(platform_header "<hardware/platform_defs.h>")
    else()
      message(FATAL_ERROR "ramplace_runtime_library: CLOCK_HZ (the SysTick clock, the core clock) is required")
    endif()
  endif()
  if(NOT RT_SYSTICK_HANDLER AND DEFINED PICO_SDK_VERSION_STRING)
    set(RT_SYSTICK_HANDLER isr_systick)
  endif()
  set(dir "${RAMPLACE_RUNTIME_DIR}")
  add_library(${RT_NAME} INTERFACE)
  target_sources(${RT_NAME} INTERFACE "${dir}/profile.c" "${dir}/port_cortexm.c" "${dir}/dump_text.c"
    "${dir}/dump_stdio.c")
  target_include_directories(${RT_NAME} INTERFACE "${dir}")
  target_compile_definitions(${RT_NAME} INTERFACE RAMPLACE_PROFILE_CLOCK_HZ=${RT_CLOCK_HZ})
  if(RT_BINS)
    target_compile_definitions(${RT_NAME} INTERFACE RAMPLACE_PROFILE_BINS=${RT_BINS})
  endif()
  if(RT_ARCS)
    target_compile_definitions(${RT_NAME} INTERFACE RAMPLACE_PROFILE_ARCS=${RT_ARCS})
  endif()
  if(RT_SYSTICK_HANDLER)
    target_compile_definitions(${RT_NAME} INTERFACE RAMPLACE_PROFILE_SYSTICK_ALIAS=${RT_SYSTICK_HANDLER})
  endif()
  if(platform_header)
    target_compile_definitions(${RT_NAME} INTERFACE "RAMPLACE_PROFILE_PLATFORM_HEADER=${platform_header}")
  endif()
endfunction()
