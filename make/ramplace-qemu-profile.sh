#!/usr/bin/env bash
# ramplace-qemu-profile.sh: the `profile` step of the build integrations on QEMU
# (cmake/RamPlace.cmake QEMU_COMMAND, make/ramplace.mk RAMPLACE_QEMU_COMMAND): the project
# plugin's exact counts and the flash model's stall cycles, imported into the profile; under a
# cache or accelerator model also the access trace that `place --trace` prices layouts on
# (issue 37 item 7: without it a placement under a cache can come out slower than flash).
#
#   ramplace-qemu-profile.sh --ramplace BIN --plugin SO --model SPEC --flash LO-HI \
#                            PROFILE ELF -- QEMU-COMMAND...   (up to, not including, -kernel)
#
# The counts come first; the trace is a second run, whole for a run of up to 4 M instructions,
# else in windows of 4,000 accesses, one every 1/1,024 of the first run's instructions
# (docs/layout.md: a whole trace of a long run is too large), written to PROFILE.trace. Exit status: QEMU's or ramplace's when one fails.
set -euo pipefail
ramplace=ramplace plugin="" model=ws:5 flash=""
while [ $# -gt 0 ]; do
	case "$1" in
		--ramplace) ramplace=$2; shift 2 ;;
		--plugin) plugin=$2; shift 2 ;;
		--model) model=$2; shift 2 ;;
		--flash) flash=$2; shift 2 ;;
		--) shift; break ;;
		*) break ;;
	esac
done
if [ $# -lt 3 ] || [ "$3" != -- ] || [ -z "$plugin" ] || [ -z "$flash" ]; then
	echo "usage: ramplace-qemu-profile.sh --ramplace BIN --plugin SO --model SPEC --flash LO-HI PROFILE ELF -- QEMU-COMMAND..." >&2
	exit 2
fi
profile=$1 elf=$2
shift 3
spec=${model//,/,,}   # QEMU splits plugin options at commas: a comma inside the model is doubled
"$@" -kernel "$elf" -plugin "$plugin,out=$profile.counts,mode=insn,model=$spec,flash=$flash" >/dev/null
"$ramplace" import --quiet "$profile" "$elf" "$profile.counts"
case "$model" in
	cache:*|art:*)
		insns=$(awk '$2 == "insns-executed" { print $3 }' "$profile.counts")
		period=$(( ${insns:-0} / 1024 ))
		windows=",trace-window=4000,trace-period=$period" how="windows of 4000 accesses every $period"
		if [ "$period" -le 4000 ]; then   # a short run (4 M instructions): windows would touch, traced whole
			windows="" how="the whole run"
		fi
		"$@" -kernel "$elf" -plugin "$plugin,out=$profile.trace.counts,mode=insn,model=$spec,flash=$flash,trace=$profile.trace$windows" >/dev/null
		echo "ramplace-qemu-profile: $model: the access trace in $profile.trace ($how), for place --trace"
		;;
	*)
		rm -f "$profile.trace"   # an earlier model's trace would outlive it
		;;
esac
