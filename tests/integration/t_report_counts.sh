#!/usr/bin/env bash
# t_report_counts.sh: sample counts near INT64_MAX (the most profile.db accepts; issue 13 item 7)
# are printed exactly by `import` and `report`, and the report's numbers add up: each function's
# self count is what was imported, the cumulative column ends at the header's total, and the
# iprof table's Total is the sum of its rows. Counts past 2^53 are where a double rounds: the two
# counts below, 2^62+1 and 2^62-2, both became 2^62 and their sum 2^63 (one more than fits).
# bash arithmetic is 64-bit and exact here (awk's is a double). Needs: $RAMPLACE, $RAMPLACE_SRC.
. "$(dirname "$0")/lib.sh"
elf=$RAMPLACE_SRC/tests/data/maptest/maptest.elf
cd "$work"

a=4611686018427387905   # 2^62 + 1, on Reset_Handler (0x214)
b=4611686018427387902   # 2^62 - 2, on step (filt_b.c, 0x2d0)
max=9223372036854775807 # their sum: INT64_MAX
printf '0x214 %s\n0x2d0 %s\n' "$a" "$b" >near.txt
"$RAMPLACE" import near.db "$elf" near.txt >import.out 2>&1
check "import prints the exact total" grep -q "^imported $max samples " import.out

"$RAMPLACE" report near.db >flat.txt
check "the header's total is exact" grep -q "^Flat profile: $max samples in 1 run(s)" flat.txt
# every pair of arguments equal (check runs one command: no && after it)
equal() { while [ $# -ge 2 ]; do [ "$1" = "$2" ] || return 1; shift 2; done; }
row() { awk -v f="$1" '$NF == f && $1 ~ /^[0-9.]+$/ { print $1, $2, $3 }' flat.txt; }
read -r pa cum_a self_a <<<"$(row Reset_Handler)"
read -r pb cum_b self_b <<<"$(row step)"
check "Reset_Handler's self is the imported count ($self_a)" [ "$self_a" = "$a" ]
check "step's self is the imported count ($self_b)" [ "$self_b" = "$b" ]
check "the cumulative column adds up ($cum_a, $cum_b)" equal "$cum_a" "$a" "$cum_b" "$((a + b))" "$cum_b" "$max"
check "shares ($pa %, $pb %) are halves" equal "$pa" 50.00 "$pb" 50.00

"$RAMPLACE" report --addresses near.db >addr.txt
ta=$(awk '$NF == "Reset_Handler" { print $1 }' addr.txt)
tb=$(awk '$NF == "step" { print $1 }' addr.txt)
total=$(awk '$2 == "Total" { print $1 }' addr.txt)
check "iprof rows are exact ($ta, $tb)" equal "$ta" "$a" "$tb" "$b"
check "iprof Total is their sum ($total)" [ "$total" = "$((ta + tb))" ]
check "iprof cum% ends at 100" grep -q '^ *[0-9]* *50.00%  100.00% .*step$' addr.txt

# one more sample does not fit profile.db's int64: refused, with the line, nothing stored
printf '0x214 %s\n0x2d0 %s\n' "$a" "$((b + 1))" >over.txt
status=0
"$RAMPLACE" import over.db "$elf" over.txt 2>over.err || status=$?
check "a total past INT64_MAX is refused (exit $status)" [ "$status" = 2 ]
check "with the file and line" grep -q "over.txt: line 2 .*more than $max" over.err
check "and no profile.db" [ ! -e over.db ]
finish
