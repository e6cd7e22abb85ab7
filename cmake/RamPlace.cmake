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
#     [FLASH_MODEL ws:5]            with QEMU_COMMAND: the plugin's flash model (docs/cost-models.md)
#     [FLASH_RANGE LO-HI]           with QEMU_COMMAND: the flash addresses, hex (required then)
#     [QEMU_PLUGIN path]            libramplace-qemu.so (default: beside RAMPLACE_EXECUTABLE, or
#                                   ../lib/ramplace/ from it when installed)
#     [NO_FUNCTION_SECTIONS])       do not add -ffunction-sections
#
# It compiles TARGET with -ffunction-sections, writes an empty fragment at configure time (so the
# first build links with everything in flash), puts its directory on the link's -L path (through
# the compiler driver, which passes -L before the script's -T: GNU ld opens the INCLUDE while
# it parses -T, so a link that calls ld directly needs -L first), makes it
# a LINK_DEPENDS of TARGET (a new placement relinks), and adds the targets
#   <target>-profile          run RECORD_COMMAND and `ramplace record` into PROFILE (with
#                             QEMU_COMMAND: the plugin's exact counts, imported into PROFILE)
#   <target>-ramplace         place from PROFILE and the current ELF (the HTML report beside the fragment: FRAGMENT.html), relink, `ramplace check`
#   <target>-ramplace-check   `ramplace check` the current ELF against the plan
# `RAMPLACE_FORCE=1 cmake --build ... -t <target>-ramplace` places even from a stale profile.
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
  string(REPLACE "," ",," _rp_model "${RP_FLASH_MODEL}")
  add_custom_target(${tgt}-profile
    COMMAND ${RP_QEMU_COMMAND} -kernel "${elf}"
            -plugin "${RP_QEMU_PLUGIN},out=${profile}.counts,mode=insn,model=${_rp_model},flash=${RP_FLASH_RANGE}"
    COMMAND "${RAMPLACE_EXECUTABLE}" import --quiet "${profile}" "${elf}" "${profile}.counts"
    DEPENDS ${tgt}
    COMMENT "Exact counts of ${tgt} from the QEMU plugin (flash model ${RP_FLASH_MODEL}) into ${profile}"
    USES_TERMINAL VERBATIM)
endmacro()
set(RAMPLACE_RECORD_HELPER "${_RAMPLACE_MODULE_DIR}/../make/ramplace-record.sh"
    CACHE FILEPATH "Script that runs the gdbserver command and ramplace record")

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
    "TARGET;BUDGET;PROFILE;FRAGMENT;MAP;CONFIG;REMOTE;FLASH_MODEL;FLASH_RANGE;QEMU_PLUGIN"
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
  if(NOT RP_NO_FUNCTION_SECTIONS)
    target_compile_options(${tgt} PRIVATE -ffunction-sections)
  endif()
  target_link_options(${tgt} PRIVATE "-L${fragment_dir}")
  set_property(TARGET ${tgt} APPEND PROPERTY LINK_DEPENDS "${fragment}")

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
  # to date before, so the placement sees the ELF and map as they are now.
  add_custom_target(${tgt}-ramplace
    COMMAND "${RAMPLACE_EXECUTABLE}" place --budget "${RP_BUDGET}" --map "${map}" -o "${fragment}"
            --html "${fragment}.html" ${config_args} ${RP_PLACE_ARGS} "${profile}" "${elf}"
    COMMAND "${CMAKE_COMMAND}" --build "${CMAKE_BINARY_DIR}" --target ${tgt} --config $<CONFIG>
    COMMAND "${RAMPLACE_EXECUTABLE}" check --plan "${plan}" "${elf}"
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
