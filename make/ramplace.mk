# ramplace.mk: ramplace's re-optimization loop for a plain Makefile. Include it after setting
# your CFLAGS/LDFLAGS and RAMPLACE_ELF:
#
#   RAMPLACE_ELF    := build/fw.elf          # the firmware your Makefile links (required)
#   RAMPLACE_BUDGET := 16K                   # RAM for hot code, veneers included
#   RAMPLACE_RECORD_COMMAND = qemu-system-arm -M mps2-an385 ... -gdb tcp::1234 -S -kernel $(RAMPLACE_ELF)
#   include /usr/local/share/ramplace/make/ramplace.mk
#
# It adds -ffunction-sections to CFLAGS and "-L<fragment dir> -Wl,-Map=<map>" to LDFLAGS (set
# RAMPLACE_ADD_FLAGS := no to add them yourself), creates an empty fragment on the first build so
# it links (and an empty ramdata.ld beside it, for a script that INCLUDEs the .ramdata fragment
# of `ramplace place --data`; copied from beside RAMPLACE_FRAGMENT_FROM when there is one there),
# makes the ELF depend on the fragment (a new placement relinks), and gives:
#
#   make profile    run RAMPLACE_RECORD_COMMAND (the firmware under a gdbserver) and record it
#                   into RAMPLACE_PROFILE with `ramplace record`
#   make ramplace   place from RAMPLACE_PROFILE and the current ELF (report: RAMPLACE_OUTPUT.html), relink, `ramplace check`;
#                   when the link disagrees with the plan, place again with what it measured
#                   (ramplace-converge.sh, a few rounds, one line each)
#   make check      `ramplace check` the current ELF against the fragment's plan
#
# (also as ramplace-profile / ramplace-check; RAMPLACE_SHORT_TARGETS := no drops the short
# names when your Makefile has its own `profile` or `check`). Your linker script must INCLUDE
# the fragment's file name inside the RAM code section; see docs/firmware.md. A Makefile that
# links with `ld` directly must pass -L<fragment dir> before its -T: GNU ld opens the INCLUDE
# while it parses -T (through the gcc driver the order does not matter).
#
# Variables (set before the include, or on the command line):
#   RAMPLACE               the ramplace program (default: ramplace on PATH)
#   RAMPLACE_ELF           firmware ELF target (required)
#   RAMPLACE_MAP           its GNU ld link map (default: the ELF with .map)
#   RAMPLACE_FRAGMENT      fragment the linker script INCLUDEs (default: ramtext.ld beside the ELF)
#   RAMPLACE_FRAGMENT_FROM a fragment kept elsewhere to link with: copied over RAMPLACE_FRAGMENT
#                          whenever the contents differ (and what `make ramplace` writes)
#   RAMPLACE_PROFILE       profile database (default: profile.db beside the ELF)
#   RAMPLACE_BUDGET        RAM budget for `ramplace` (required by that target)
#   RAMPLACE_CONFIG        ramplace.yaml passed as --config (optional)
#   RAMPLACE_PLACE_FLAGS   more `ramplace place` options (--exclude, --min-mapped, ...)
#   RAMPLACE_FORCE         non-empty: place even from a stale profile (--force)
#   RAMPLACE_REMOTE        gdbserver HOST:PORT to record from (default 127.0.0.1:1234)
#   RAMPLACE_RECORD_COMMAND  command that starts the firmware under that gdbserver; empty when
#                          the gdbserver already runs
#   RAMPLACE_RECORD_FLAGS  more `ramplace record` options (default --rate 2000 --quiet)
#   RAMPLACE_QEMU_COMMAND  when the target is QEMU: the command that runs the firmware, up to
#                          (not including) -kernel. `make profile` then takes the exact counts of
#                          the project's plugin instead of recording through the gdbstub (whose
#                          halting samples are biased on QEMU: it stops only between translation
#                          blocks, in host time), with the stall cycles of RAMPLACE_FLASH_MODEL
#                          (default ws:5) over RAMPLACE_FLASH_RANGE (LO-HI, hex; required then);
#                          under a cache or accelerator model (cache:..., art:...) also the access
#                          trace, and `make ramplace` places with --trace on it
#   RAMPLACE_QEMU_PLUGIN   libramplace-qemu.so (default: beside RAMPLACE)

ifndef RAMPLACE_ELF
$(error ramplace.mk: set RAMPLACE_ELF to the firmware ELF before including it)
endif

RAMPLACE_MK_DIR := $(dir $(lastword $(MAKEFILE_LIST)))
# The includer's first target stays the default goal.
ramplace_saved_goal := $(.DEFAULT_GOAL)
RAMPLACE ?= ramplace
RAMPLACE_RECORD_HELPER ?= $(RAMPLACE_MK_DIR)ramplace-record.sh
RAMPLACE_CONVERGE_HELPER ?= $(RAMPLACE_MK_DIR)ramplace-converge.sh
RAMPLACE_QEMU_PROFILE_HELPER ?= $(RAMPLACE_MK_DIR)ramplace-qemu-profile.sh
RAMPLACE_MAP ?= $(basename $(RAMPLACE_ELF)).map
RAMPLACE_FRAGMENT ?= $(dir $(RAMPLACE_ELF))ramtext.ld
RAMPLACE_FRAGMENT_FROM ?=
RAMPLACE_PROFILE ?= $(dir $(RAMPLACE_ELF))profile.db
RAMPLACE_BUDGET ?=
RAMPLACE_CONFIG ?=
RAMPLACE_PLACE_FLAGS ?=
RAMPLACE_FORCE ?=
RAMPLACE_REMOTE ?= 127.0.0.1:1234
RAMPLACE_RECORD_COMMAND ?=
RAMPLACE_RECORD_FLAGS ?= --rate 2000 --quiet
RAMPLACE_QEMU_COMMAND ?=
RAMPLACE_QEMU_PLUGIN ?= $(dir $(RAMPLACE))libramplace-qemu.so
RAMPLACE_FLASH_MODEL ?= ws:5
RAMPLACE_FLASH_RANGE ?=
RAMPLACE_ADD_FLAGS ?= yes
RAMPLACE_SHORT_TARGETS ?= yes

# `make ramplace` writes the fragment that is linked: RAMPLACE_FRAGMENT_FROM when set.
RAMPLACE_OUTPUT := $(or $(strip $(RAMPLACE_FRAGMENT_FROM)),$(RAMPLACE_FRAGMENT))
RAMPLACE_PLAN := $(RAMPLACE_OUTPUT).plan
RAMPLACE_CFLAGS := -ffunction-sections
RAMPLACE_LDFLAGS := -L$(patsubst %/,%,$(dir $(RAMPLACE_FRAGMENT))) -Wl,-Map=$(RAMPLACE_MAP)
ifeq ($(RAMPLACE_ADD_FLAGS),yes)
CFLAGS += $(RAMPLACE_CFLAGS)
LDFLAGS += $(RAMPLACE_LDFLAGS)
endif

# A new placement relinks. The map is a side product of the link.
$(RAMPLACE_ELF): $(RAMPLACE_FRAGMENT)
$(RAMPLACE_MAP): $(RAMPLACE_ELF)

RAMPLACE_EMPTY_RAMDATA := /* ramdata.ld: empty placement, every const object stays in flash */
RAMPLACE_EMPTY_FLASHTEXT := /* flashtext.ld: no order, flash keeps the link order */
ifeq ($(strip $(RAMPLACE_FRAGMENT_FROM)),)
# First build: an empty fragment, everything stays in flash. Never overwritten afterwards.
$(RAMPLACE_FRAGMENT):
	@mkdir -p $(@D)
	echo '/* $(notdir $@): empty placement, every function stays in flash */' > $@
	@test -e $(@D)/ramdata.ld || echo '$(RAMPLACE_EMPTY_RAMDATA)' > $(@D)/ramdata.ld
	@test -e $(@D)/flashtext.ld || echo '$(RAMPLACE_EMPTY_FLASHTEXT)' > $(@D)/flashtext.ld
else
$(RAMPLACE_FRAGMENT): $(RAMPLACE_FRAGMENT_FROM) ramplace-FORCE
	@mkdir -p $(@D)
	@cmp -s $< $@ || { echo "cp $< $@"; cp $< $@; }
	@d='$(dir $(RAMPLACE_FRAGMENT_FROM))ramdata.ld'; if [ -f "$$d" ]; then cmp -s "$$d" $(@D)/ramdata.ld || cp "$$d" $(@D)/ramdata.ld; \
	elif [ ! -e $(@D)/ramdata.ld ]; then echo '$(RAMPLACE_EMPTY_RAMDATA)' > $(@D)/ramdata.ld; fi
	@d='$(dir $(RAMPLACE_FRAGMENT_FROM))flashtext.ld'; if [ -f "$$d" ]; then cmp -s "$$d" $(@D)/flashtext.ld || cp "$$d" $(@D)/flashtext.ld; \
	elif [ ! -e $(@D)/flashtext.ld ]; then echo '$(RAMPLACE_EMPTY_FLASHTEXT)' > $(@D)/flashtext.ld; fi
endif

.PHONY: ramplace ramplace-profile ramplace-check ramplace-FORCE
ramplace-FORCE:

ifneq ($(strip $(RAMPLACE_QEMU_COMMAND)),)
# QEMU: exact counts and flash stall cycles from the plugin; under a cache or accelerator model
# also the access trace, which `make ramplace` then places with (ramplace-qemu-profile.sh)
ramplace-profile: $(RAMPLACE_ELF)
	@test -n "$(RAMPLACE_FLASH_RANGE)" || { echo "ramplace.mk: set RAMPLACE_FLASH_RANGE (e.g. 0-400000) with RAMPLACE_QEMU_COMMAND" >&2; exit 2; }
	$(RAMPLACE_QEMU_PROFILE_HELPER) --ramplace $(RAMPLACE) --plugin $(RAMPLACE_QEMU_PLUGIN) \
		--model '$(RAMPLACE_FLASH_MODEL)' --flash $(RAMPLACE_FLASH_RANGE) $(RAMPLACE_PROFILE) $(RAMPLACE_ELF) \
		-- $(RAMPLACE_QEMU_COMMAND)
else
ramplace-profile: $(RAMPLACE_ELF)
	$(RAMPLACE_RECORD_HELPER) --ramplace $(RAMPLACE) --remote $(RAMPLACE_REMOTE) \
		$(RAMPLACE_PROFILE) $(RAMPLACE_ELF) $(RAMPLACE_RECORD_FLAGS) \
		$(if $(strip $(RAMPLACE_RECORD_COMMAND)),-- $(RAMPLACE_RECORD_COMMAND))
endif

# Place from the ELF as it is now, then relink it with the new fragment (a sub-make, since the
# ELF this rule depended on is out of date only after the recipe's first line), then check;
# when the link disagrees with the plan, place again with what it measured (ramplace-converge.sh).
ramplace: $(RAMPLACE_ELF)
	@test -n "$(RAMPLACE_BUDGET)" || { echo "ramplace.mk: set RAMPLACE_BUDGET (e.g. 16K)" >&2; exit 2; }
	$(RAMPLACE_CONVERGE_HELPER) --ramplace $(RAMPLACE) \
		--budget $(RAMPLACE_BUDGET) --map $(RAMPLACE_MAP) -o $(RAMPLACE_OUTPUT) \
		--html $(RAMPLACE_OUTPUT).html \
		$(if $(RAMPLACE_CONFIG),--config $(RAMPLACE_CONFIG)) $(if $(RAMPLACE_FORCE),--force) \
		$(if $(and $(strip $(RAMPLACE_QEMU_COMMAND)),$(filter cache:% art:%,$(RAMPLACE_FLASH_MODEL))),--flash-model '$(RAMPLACE_FLASH_MODEL)' --trace $(RAMPLACE_PROFILE).trace) \
		$(RAMPLACE_PLACE_FLAGS) $(RAMPLACE_PROFILE) $(RAMPLACE_ELF) \
		-- $(MAKE) --no-print-directory -f $(firstword $(MAKEFILE_LIST)) $(RAMPLACE_ELF)

ramplace-check: $(RAMPLACE_ELF)
	$(RAMPLACE) check --plan $(RAMPLACE_PLAN) $(RAMPLACE_ELF)

ifeq ($(RAMPLACE_SHORT_TARGETS),yes)
.PHONY: profile check
profile: ramplace-profile
check: ramplace-check
endif

.DEFAULT_GOAL := $(ramplace_saved_goal)
