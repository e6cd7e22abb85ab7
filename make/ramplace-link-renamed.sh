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
# to the link as an object ahead of the first archive or library (the archive's copy is then
# never pulled: its symbols are defined); an archive the command line names only as -lNAME, or
# not at all (libc.a, libgcc.a from the driver's specs), is looked up in the -L directories,
# then with the compiler's -print-file-name under the command's -m and --specs options.
# Every rename must find its object, member and section: one that does not fails the link with
# its line, since linking without it would silently leave the function in flash.
# After the link, every link map the command asks for (-Wl,-Map=F, -Wl,-Map,F, -Xlinker) names the
# originals again, not the copies (the renamed sections keep their new names), so that `ramplace
# place` reads it as this build's. Response files are read with perl's shellwords (GCC's @file
# quoting) and written back in GCC's quoting. RamPlace.cmake sets this as the target's C and CXX
# LINKER_LAUNCHER.
set -euo pipefail

die() { echo "ramplace-link-renamed.sh: $*" >&2; exit 1; }
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
prefix=$compiler
for driver in gcc g++ c++ clang++ clang; do
	[ "${compiler%"$driver"}" != "$compiler" ] && { prefix=${compiler%"$driver"}; break; }
done
[ -n "$objcopy" ] || objcopy=${prefix}objcopy
[ -n "$ar" ] || ar=${prefix}ar
objdump=${objcopy%objcopy}objdump

tmp=$(mktemp -d "${TMPDIR:-/tmp}/ramplace-link.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

# The command line with @response files read: args[] holds every word, rsp_of[] says where it
# came from (-1 the command line, k response file k, -2 the @file word itself).
args=() rsp_of=() rsp_files=()
for a in "$@"; do
	if [[ $a == @* ]] && [ -f "${a#@}" ]; then
		rsp_files+=("${a#@}")
		k=$((${#rsp_files[@]} - 1))
		while IFS= read -r -d '' w; do
			args+=("$w")
			rsp_of+=("$k")
		done < <(perl -MText::ParseWords -0777 -ne 'print map { "$_\0" } shellwords($_)' "${a#@}")
		args+=("$a")
		rsp_of+=(-2)
	else
		args+=("$a")
		rsp_of+=(-1)
	fi
done

# the words the linker gets, for the maps: -Wl,a,b,c and -Xlinker a
ld_words=()
for ((i = 0; i < ${#args[@]}; i++)); do
	case ${args[$i]} in
	-Wl,*) IFS=, read -r -a parts <<<"${args[$i]#-Wl,}"; ld_words+=("${parts[@]}") ;;
	-Xlinker) ld_words+=("${args[$((i + 1))]:-}"); i=$((i + 1)) ;;
	esac
done
maps=()
for ((i = 0; i < ${#ld_words[@]}; i++)); do
	case ${ld_words[$i]} in
	-Map=* | --Map=*) maps+=("${ld_words[$i]#*=}") ;;
	-Map | --Map) maps+=("${ld_words[$((i + 1))]:-}"); i=$((i + 1)) ;;
	esac
done

driver_opts=() lib_dirs=()
for ((i = 0; i < ${#args[@]}; i++)); do
	a=${args[$i]}
	case $a in
	-m* | --specs=* | -nostdlib*) driver_opts+=("$a") ;;
	-L) lib_dirs+=("${args[$((i + 1))]:-}"); i=$((i + 1)) ;;
	-L*) lib_dirs+=("${a#-L}") ;;
	esac
done
for w in "${ld_words[@]}"; do
	case $w in -L?*) lib_dirs+=("${w#-L}") ;; esac
done

find_archive() { # PATTERN: the archive's path: on the command line, in a -L directory, else from the driver
	local pat=$1 a base d
	for a in "${args[@]}"; do
		[[ $a == *.a ]] && [[ $a == $pat ]] && { echo "$a"; return 0; }
	done
	base=${pat##*/}
	base=${base#\*}
	[[ $base != *[\*\?\[]* ]] || return 1
	for d in "${lib_dirs[@]}"; do
		[ -f "$d/$base" ] && { echo "$d/$base"; return 0; }
	done
	a=$("$compiler" "${driver_opts[@]}" -print-file-name="$base" 2>/dev/null) || return 1
	[ "$a" != "$base" ] && [ -f "$a" ] && { echo "$a"; return 0; }
	return 1
}

has_section() { # OBJECT SECTION
	"$objdump" -h "$1" 2>/dev/null | awk -v s="$2" '$2 == s { f = 1 } END { exit !f }'
}

declare -A obj_renames     # object path on the command line -> "SECTION=NEW" lines
declare -A member_renames  # "archive<TAB>member" -> "SECTION=NEW" lines
declare -A archive_of      # archive pattern -> the archive's path ("" not found)
lineno=0
while read -r file member section newname rest || [ -n "${file:-}" ]; do
	lineno=$((lineno + 1))
	case ${file:-#} in \#*) continue ;; esac
	[ -n "${newname:-}" ] && [ -z "${rest:-}" ] || die "$renames:$lineno: not 'FILE MEMBER SECTION NEWNAME'"
	[[ $section$newname != *[\*\?\[=]* ]] || die "$renames:$lineno: a section name with a wildcard or '=': '$section'"
	matched=0
	if [ "$member" = "-" ]; then
		for a in "${args[@]}"; do
			if [[ $a != -* && ( $a == *.o || $a == *.obj ) && $a == $file ]]; then
				obj_renames[$a]+="$section=$newname"$'\n'
				matched=1
			fi
		done
	else
		[ -n "${archive_of[$file]+set}" ] || archive_of[$file]=$(find_archive "$file" || true)
		if [ -n "${archive_of[$file]}" ]; then
			member_renames["${archive_of[$file]}"$'\t'"$member"]+="$section=$newname"$'\n'
			matched=1
		fi
	fi
	what="'$file'"
	[ "$member" = "-" ] || what="'$file' ($member)"
	[ "$matched" -eq 1 ] || die "$renames:$lineno: no object or archive of the link matches $what: place again from this build's map"
done <"$renames"

rename_copy() { # IN OUT RENAMES WHAT: objcopy IN to OUT with each SECTION=NEW of RENAMES; every section must exist
	local in=$1 out=$2 list=$3 what=$4 r opts=()
	while IFS= read -r r; do
		[ -n "$r" ] || continue
		has_section "$in" "${r%%=*}" || die "$what has no section ${r%%=*}: place again from this build's map"
		opts+=(--rename-section "$r")
	done <<<"$list"
	"$objcopy" "${opts[@]}" "$in" "$out"
}

n=0
declare -A copy_of
map_names=()   # "copy<TAB>original" for the maps
for a in "${!obj_renames[@]}"; do
	n=$((n + 1))
	copy="$tmp/$n-${a##*/}"
	rename_copy "$a" "$copy" "${obj_renames[$a]}" "$a"
	copy_of[$a]=$copy
	map_names+=("$copy"$'\t'"$a")
done
extra=()
for key in "${!member_renames[@]}"; do
	archive=${key%%$'\t'*}
	member=${key#*$'\t'}
	members=$("$ar" t "$archive" 2>/dev/null) || die "$archive: cannot list its members"
	grep -qxF -- "$member" <<<"$members" || die "$archive has no member $member: place again from this build's map"
	n=$((n + 1))
	copy="$tmp/$n-$member"
	"$ar" p "$archive" "$member" >"$copy.in"
	rename_copy "$copy.in" "$copy" "${member_renames[$key]}" "$archive($member)"
	extra+=("$copy")
	map_names+=("$copy"$'\t'"$archive($member)")
done

gcc_quote() { # WORD: as GCC's @file reader takes it back
	local w=${1//\\/\\\\}
	printf '"%s" ' "${w//\"/\\\"}"
}

# The command again: each renamed object replaced by its copy, the extracted members ahead of
# the first archive, library or -o (before any archive could pull the originals).
out=() rsp_new=()
for ((k = 0; k < ${#rsp_files[@]}; k++)); do rsp_new[$k]=""; done
place_extra() { # where the extracted members go: they go once
	if [ ${#extra[@]} -gt 0 ]; then
		if [ "$1" -ge 0 ]; then
			for e in "${extra[@]}"; do rsp_new[$1]+=$(gcc_quote "$e"); done
		else
			out+=("${extra[@]}")
		fi
		extra=()
	fi
}
for ((i = 0; i < ${#args[@]}; i++)); do
	a=${args[$i]}
	r=${rsp_of[$i]}
	[ -z "${copy_of[$a]:-}" ] || a=${copy_of[$a]}
	if [[ $a == -o* || $a == -l* || $a == -Wl,--start-group* || ( $a == *.a && $a != -* ) ]]; then
		place_extra "$r"
	fi
	if [ "$r" -ge 0 ]; then
		rsp_new[$r]+=$(gcc_quote "$a")
	elif [ "$r" -eq -2 ]; then   # the response file, rewritten into $tmp
		for ((k = 0; k < ${#rsp_files[@]}; k++)); do
			[ "@${rsp_files[$k]}" = "$a" ] && break
		done
		printf '%s\n' "${rsp_new[$k]}" >"$tmp/rsp$k"
		out+=("@$tmp/rsp$k")
	else
		out+=("$a")
	fi
done
place_extra -1
"${out[@]}"

for m in "${maps[@]}"; do
	[ -n "$m" ] && [ -f "$m" ] || die "the link map '$m' the command asks for was not written: its copies' names cannot be undone"
	for pair in "${map_names[@]}"; do
		COPY=${pair%%$'\t'*} ORIG=${pair#*$'\t'} perl -pi -e 's/\Q$ENV{COPY}\E/$ENV{ORIG}/g' "$m"
	done
done
