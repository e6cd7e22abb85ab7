#!/usr/bin/env bash
# ramplace-converge.sh: the build loop's place -> relink -> check, correcting itself (issue 37
# item 6). Used where ramplace links for the user: the CMake target <target>-ramplace
# (cmake/RamPlace.cmake), make's `ramplace` (make/ramplace.mk) and the bundled examples' loops.
#
#   ramplace-converge.sh [--ramplace PATH] [--rounds N] [--emit-pico RENAMES] [--elf RELINKED]
#                        PLACE-ARGS... -- RELINK-COMMAND...
#
# Runs `ramplace place PLACE-ARGS` (whose last operand is the ELF, and whose -o/--plan name the
# plan), with --emit-pico also `ramplace emit --format pico` of the plan into RENAMES, then
# RELINK-COMMAND, then `ramplace check --plan PLAN ELF` (RELINKED when the relink writes
# another file than the ELF placed from). When the linker disagrees with the plan,
# it places again with what the link measured, and relinks, up to N rounds (default 3), one line
# each:
#  - the link overflowed its region by N bytes (GNU ld's and ld.lld's message): N more bytes of
#    the budget are kept free (place --link-reserve);
#  - check finds the section larger than the plan claimed by D bytes, or over the budget by D:
#    D bytes are kept free (the plan records them; check then allows the link that much above);
#  - a jump the linker could not stretch ("relocation truncated to fit" in function F against
#    symbol S): F and S stay in flash together (place --exclude).
# Anything else (a compile error, a check failure about what moved) ends the loop with its own
# output. A plan that fitted on paper should never reach the user as a link error: when a
# correction was needed, the last line says so, and what was measured, so it can be reported.
# Exit status: 0 when the last relink passed check; the failing command's status otherwise.
set -uo pipefail
ramplace=${RAMPLACE:-ramplace}
rounds=3
renames="" elf=""
place_args=()
while [ $# -gt 0 ]; do
	case "$1" in
		--ramplace) ramplace=$2; shift 2 ;;
		--rounds) rounds=$2; shift 2 ;;
		--emit-pico) renames=$2; shift 2 ;;
		--elf) elf=$2; shift 2 ;;
		--) shift; break ;;
		*) place_args+=("$1"); shift ;;
	esac
done
relink=("$@")
if [ ${#place_args[@]} -lt 2 ] || [ ${#relink[@]} -eq 0 ]; then
	echo "usage: ramplace-converge.sh [--ramplace PATH] [--rounds N] [--emit-pico RENAMES] [--elf RELINKED] PLACE-ARGS... -- RELINK-COMMAND..." >&2
	exit 2
fi

# what place writes and check reads: the plan (-o FRAG: FRAG.plan; --plan P) and the ELF (the
# last operand); the plan itself says what check must allow (boot-path allowed, link-reserve)
fragment=ramtext.ld plan=""
for ((i = 0; i < ${#place_args[@]}; i++)); do
	a=${place_args[i]}
	case "$a" in
		-o|--output) fragment=${place_args[i + 1]:-} ;;
		--output=*) fragment=${a#--output=} ;;
		--plan) plan=${place_args[i + 1]:-} ;;
		--plan=*) plan=${a#--plan=} ;;
	esac
done
[ -n "$plan" ] || plan=$fragment.plan
[ -n "$elf" ] || elf=${place_args[${#place_args[@]} - 1]}

log=$(mktemp)
trap 'rm -f "$log"' EXIT
reserve=0 corrections=0 extra=() last_over=""
say() { echo "ramplace-converge: $*"; }
round_up() { echo $(( ($1 + 7) / 8 * 8 )); }   # a veneer block's alignment: the next fill cannot split it

for ((round = 1; round <= rounds; round++)); do
	opts=("${place_args[@]}" "${extra[@]}")
	[ "$reserve" -gt 0 ] && opts+=(--link-reserve "$reserve")
	"$ramplace" place "${opts[@]}" || exit $?
	if [ -n "$renames" ]; then
		"$ramplace" emit --format pico --plan "$plan" -o "$renames" || exit $?
	fi
	"${relink[@]}" >"$log" 2>&1
	status=$?
	if [ $status != 0 ]; then
		over=$(grep -Eo "region .?[A-Za-z0-9_.]+.? overflowed by [0-9]+ bytes" "$log" | grep -Eo '[0-9]+ bytes$' | grep -Eo '^[0-9]+' | sort -n | tail -1)
		# GNU ld: "... in function `F': ... relocation truncated to fit: R_X against symbol `S' ..."
		far=$(grep -m1 'relocation truncated to fit' "$log")
		if [ -n "$over" ] && [ "$over" = "$last_over" ]; then
			# the same overflow with that much less code: the room does not shrink with the
			# plan (an ALIGN of the next section in the script): more rounds would not help
			cat "$log"
			say "the link overflowed by $over bytes again with $reserve bytes kept free: the RAM the code leaves does not grow as the plan shrinks (an ALIGN after the section in the linker script?); give a smaller budget (place --budget auto says what is free)"
			exit $status
		elif [ -n "$over" ]; then
			last_over=$over
			reserve=$((reserve + $(round_up "$over")))
			say "round $round: the link overflowed its region by $over bytes; placing again with $reserve bytes of the budget kept free"
		elif [ -n "$far" ]; then
			to=$(sed -nE "s/.*against (symbol )?[\`']([^']+)'.*/\\2/p" <<<"$far")
			from=$(grep -B3 -m1 'relocation truncated to fit' "$log" | sed -nE "s/.*in function [\`']([^']+)'.*/\\1/p" | tail -1)
			if [ -z "$to" ] && [ -z "$from" ]; then
				cat "$log"; exit $status
			fi
			for f in $from $to; do extra+=(--exclude "$f"); done
			say "round $round: a jump from ${from:-?} to ${to:-?} is out of the linker's reach; placing again with both in flash"
		else
			cat "$log"; exit $status
		fi
		corrections=$((corrections + 1))
		continue
	fi
	cat "$log"
	"$ramplace" check --plan "$plan" "$elf" >"$log" 2>&1
	status=$?
	if [ $status = 0 ]; then
		cat "$log"
		[ $corrections = 0 ] ||
			say "converged after $corrections correction(s): $reserve bytes kept free${extra[*]:+, ${extra[*]}}; the plan and the link disagreed, please report it with the map"
		exit 0
	fi
	more=$(sed -nE 's/.*accounting: .* ([+][0-9]+) bytes, more than the .*/\1/p; s/.* over the budget of [0-9]+ by ([0-9]+).*/+\1/p' "$log" | head -1)
	if [ -z "$more" ]; then
		cat "$log"; exit $status
	fi
	reserve=$((reserve + $(round_up "${more#+}")))
	corrections=$((corrections + 1))
	say "round $round: the link holds ${more#+} bytes more than the plan; placing again with $reserve bytes of the budget kept free"
done
say "no link matched its plan in $rounds rounds (last: $reserve bytes kept free${extra[*]:+, ${extra[*]}})"
cat "$log"
exit 1
