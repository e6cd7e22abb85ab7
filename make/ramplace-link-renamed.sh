#!/usr/bin/env bash
# ramplace-link-renamed.sh: a link launcher that moves planned functions into pico-sdk's own RAM
# code without touching the SDK or the build's objects. The SDK's linker scripts copy
# *(.time_critical*) to RAM inside .data; this runs the link command it is given with copies of
# the objects (and archive members) that `ramplace emit --format pico` names, each planned input
# section renamed (.text.vm_run -> .time_critical.ramplace.text.vm_run).
#
#   ramplace-link-renamed.sh --renames FILE [--objcopy PROG] [--ar PROG] -- LINK COMMAND...
#
# FILE holds "FILE-PATTERN MEMBER SECTION NEWNAME" lines ('#' comments; MEMBER '-' for a plain
# object); a missing or empty FILE runs the link unchanged (the first build). FILE-PATTERN is a GNU
# ld file pattern (*/lz.c.o, *libc.a) matched, as ld matches it, against the objects and archives
# on the command line and in @response files. An archive member is extracted, renamed and given
# to the link as an object before -o (the archive's copy is then never pulled: its symbols are
# defined); an archive the command line does not name (libc.a, libgcc.a, from the driver's specs)
# is found with the compiler's -print-file-name under the command's -m, --specs and -L options.
# After the link, the link map (-Wl,-Map=...) names the originals again, not the copies (the
# renamed sections keep their new names), so that `ramplace place` reads it as this build's.
# RamPlace.cmake sets it as the target's C and CXX LINKER_LAUNCHER. A rename that matches nothing
# fails the link with its line: silently linking without it would leave the function in flash.
set -euo pipefail

renames="" objcopy="" ar=""
while [ $# -gt 0 ]; do
	case $1 in
	--renames) renames=$2; shift 2 ;;
	--objcopy) objcopy=$2; shift 2 ;;
	--ar) ar=$2; shift 2 ;;
	--) shift; break ;;
	*) echo "ramplace-link-renamed.sh: unknown option '$1'" >&2; exit 2 ;;
	esac
done
if [ $# -eq 0 ]; then
	echo "usage: ramplace-link-renamed.sh --renames FILE [--objcopy PROG] [--ar PROG] -- LINK COMMAND..." >&2
	exit 2
fi
if [ -z "$renames" ] || [ ! -s "$renames" ] || ! grep -qv '^[[:space:]]*\(#\|$\)' "$renames"; then
	exec "$@"
fi
# the toolchain's binutils beside the compiler (arm-none-eabi-gcc -> arm-none-eabi-objcopy)
compiler=$1
prefix=${compiler%gcc}
[ "$prefix" != "$compiler" ] || prefix=${compiler%g++}
[ "$prefix" != "$compiler" ] || prefix=${compiler%c++}
[ "$prefix" != "$compiler" ] || prefix=${compiler%clang}
[ -n "$objcopy" ] || objcopy=${prefix}objcopy
[ -n "$ar" ] || ar=${prefix}ar

tmp=$(mktemp -d "${TMPDIR:-/tmp}/ramplace-link.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

# the command line, with @response files read (CMake writes objects into them on long links)
args=()
rsp_of=()   # for each arg taken from a response file: that file's index in rsp_files, else -1
rsp_files=()
for a in "$@"; do
	if [[ $a == @* ]] && [ -f "${a#@}" ]; then
		rsp_files+=("${a#@}")
		# response files are whitespace-separated, quotes as the shell's
		eval "set -- $(cat "${a#@}")"
		for r in "$@"; do
			args+=("$r")
			rsp_of+=($((${#rsp_files[@]} - 1)))
		done
		args+=("$a")
		rsp_of+=(-2)   # the @file itself: rewritten below
	else
		args+=("$a")
		rsp_of+=(-1)
	fi
done

declare -A obj_flags     # object path on the command line -> its --rename-section options
declare -A member_flags  # "archive<TAB>member" -> its --rename-section options
declare -A archive_of    # archive pattern -> the archive's path
driver_opts=()
for a in "${args[@]}"; do
	case $a in -m*|--specs=*|-L*|-nostdlib*|-march=*|-mcpu=*) driver_opts+=("$a") ;; esac
done

find_archive() { # PATTERN: the archive's path: on the command line, else from the driver
	local pat=$1 a base
	for a in "${args[@]}"; do
		[[ $a == *.a ]] && [[ $a == $pat ]] && { echo "$a"; return 0; }
	done
	base=${pat##*/}
	base=${base#\*}
	[[ $base != *[\*\?]* ]] || return 1
	a=$("$compiler" "${driver_opts[@]}" -print-file-name="$base" 2>/dev/null) || return 1
	[ "$a" != "$base" ] && [ -f "$a" ] && { echo "$a"; return 0; }
	return 1
}

lineno=0
while read -r file member section newname rest || [ -n "${file:-}" ]; do
	lineno=$((lineno + 1))
	case ${file:-#} in \#*) continue ;; esac
	if [ -z "$newname" ] || [ -n "${rest:-}" ]; then
		echo "ramplace-link-renamed.sh: $renames:$lineno: not 'FILE MEMBER SECTION NEWNAME'" >&2
		exit 2
	fi
	opt="--rename-section $section=$newname"
	if [ "$member" = "-" ]; then
		matched=0
		for a in "${args[@]}"; do
			if [[ $a != -* ]] && [[ $a == *.o || $a == *.obj ]] && [[ $a == $file ]]; then
				obj_flags[$a]="${obj_flags[$a]:-} $opt"
				matched=1
			fi
		done
	else
		if [ -z "${archive_of[$file]:-}" ]; then
			archive_of[$file]=$(find_archive "$file") || archive_of[$file]=""
		fi
		matched=0
		if [ -n "${archive_of[$file]}" ]; then
			key="${archive_of[$file]}"$'\t'"$member"
			member_flags[$key]="${member_flags[$key]:-} $opt"
			matched=1
		fi
	fi
	if [ "$matched" -eq 0 ]; then
		echo "ramplace-link-renamed.sh: $renames:$lineno: no object or archive of the link matches '$file'${member:+ ($member)}: place again from this build's map" >&2
		exit 1
	fi
done <"$renames"

n=0
declare -A copy_of
map_names=()   # "copy<TAB>original" for the map
for a in "${!obj_flags[@]}"; do
	n=$((n + 1))
	copy="$tmp/$n-${a##*/}"
	# shellcheck disable=SC2086 # the options are words
	"$objcopy" ${obj_flags[$a]} "$a" "$copy"
	copy_of[$a]=$copy
	map_names+=("$copy"$'\t'"$a")
done
extra=()
for key in "${!member_flags[@]}"; do
	archive=${key%%$'\t'*}
	member=${key#*$'\t'}
	n=$((n + 1))
	copy="$tmp/$n-$member"
	(cd "$tmp" && "$ar" p "$archive" "$member" >"$copy.in") || {
		echo "ramplace-link-renamed.sh: $archive has no member $member" >&2
		exit 1
	}
	# shellcheck disable=SC2086
	"$objcopy" ${member_flags[$key]} "$copy.in" "$copy"
	extra+=("$copy")
	map_names+=("$copy"$'\t'"$archive($member)")
done

# the command again, each renamed object replaced by its copy, the extracted members before -o
out=()
declare -A rsp_new
for i in "${!args[@]}"; do
	a=${args[$i]}
	r=${rsp_of[$i]}
	[ -n "${copy_of[$a]:-}" ] && a=${copy_of[$a]}
	if [ "$r" -ge 0 ]; then
		rsp_new[$r]+="$(printf '%q' "$a") "
		continue
	fi
	if [ "$r" -eq -2 ]; then   # the response file, rewritten into $tmp
		k=-1
		for j in "${!rsp_files[@]}"; do [ "@${rsp_files[$j]}" = "$a" ] && k=$j; done
		printf '%s\n' "${rsp_new[$k]:-}" >"$tmp/rsp$k"
		a="@$tmp/rsp$k"
	fi
	if [ "$a" = "-o" ] && [ ${#extra[@]} -gt 0 ]; then
		out+=("${extra[@]}")
		extra=()
	fi
	out+=("$a")
done
out+=("${extra[@]}")
"${out[@]}"

# the maps the link wrote, with the copies' paths replaced by what they are copies of
maps=()
for a in "${args[@]}"; do
	case $a in
	-Wl,-Map=* | -Wl,--Map=*) maps+=("${a#*=}") ;;
	-Wl,-Map,* | -Wl,--Map,*) maps+=("${a#*Map,}") ;;
	esac
done
for m in "${maps[@]}"; do
	[ -f "$m" ] || continue
	for pair in "${map_names[@]}"; do
		COPY=${pair%%$'\t'*} ORIG=${pair#*$'\t'} perl -pi -e 's/\Q$ENV{COPY}\E/$ENV{ORIG}/g' "$m"
	done
done
