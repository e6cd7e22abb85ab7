#!/usr/bin/env bash
# t_hostile.sh: replays the hostile inputs of issue 13 (tests/data/hostile/cases.txt): each case
# runs ramplace on one file that once made it hang, overflow, accept nonsense or blame no file,
# and must end with the exit status and the first line of stderr the case gives, within 10 s
# and without leaving temporaries. Inputs too big or too deep to keep, and those derived from
# good files (directories, empty and truncated files, names that are not UTF-8), are generated
# here first.
# Needs: $RAMPLACE, $RAMPLACE_SRC; python3.
. "$(dirname "$0")/lib.sh"
results_by_name
H=$RAMPLACE_SRC/tests/data/hostile
D=$RAMPLACE_SRC/tests/data
W=$work
cd "$work"

# the good profile most cases start from: two instructions of maptest's Reset_Handler
printf '0x%x 50\n' 0x214 0x216 >pcs.txt
"$RAMPLACE" import --quiet profile.db "$D/maptest/maptest.elf" pcs.txt

# two runs of INT64_MAX samples each: each fits, their sum does not
"$RAMPLACE" import --quiet two-runs.db "$D/maptest/maptest.elf" "$H/count-max.txt"
"$RAMPLACE" import --quiet two-runs.db "$D/maptest/maptest.elf" "$H/count-max.txt"

# generated inputs: YAML flow lists nested 30,000 and 100,000 deep (libyaml alone took 7.6 s
# and over 10 s on them), and a config of more than 1 MiB
python3 - <<'PY'
open('deep-30k.yaml', 'w').write('regions: ' + '[' * 30000 + ']' * 30000 + '\n')
open('deep-100k.yaml', 'w').write('regions: ' + '[' * 100000 + ']' * 100000 + '\n')
open('big.yaml', 'w').write('regions:\n  - {name: ram, budget: 1K}\n' + '# padding\n' * 110000)
PY

# item 12: a directory, an empty file and the first bytes of good files where files are
# expected; names that are not UTF-8; a map whose object name is not, and one whose RAM is 0
# bytes long (steps.db: samples on filt_b.o's step, which the map would move)
"$RAMPLACE" place --quiet --budget 1K profile.db "$D/maptest/maptest.elf" >/dev/null
mkdir -p a-dir "bad$(printf '\xff\x01')name.d"
: >empty
head -c 100 "$D/maptest/maptest.elf" >trunc.elf
head -c 3000 profile.db >trunc.db
head -n 3 ramtext.ld.plan >trunc.plan
cp "$D/maptest/maptest.elf" "bad$(printf '\xff\x01')name.elf"
: >"bad$(printf '\xff\x01')name.txt"
LC_ALL=C sed "s#obj/filt_b\.o#obj/filt_b$(printf '\xff\xfe').o#" "$D/maptest/maptest.map" >badobj.map
sed 's/^RAM              0x20000000         0x00010000/RAM              0x20000000         0x00000000/' \
	"$D/maptest/maptest.map" >ram0.map
grep -q '^RAM  *0x20000000  *0x00000000' ram0.map || fail "ram0.map: the RAM line was not rewritten"
printf '0x%x 100\n' 0x2d0 >steps.txt
"$RAMPLACE" import --quiet steps.db "$D/maptest/maptest.elf" steps.txt

while IFS= read -r line; do
	case $line in '#'* | '') continue ;; esac
	IFS='|' read -r name want pattern args <<<"$line"
	name=$(echo "$name" | sed 's/ *$//')
	want=$(echo "$want" | tr -d ' ')
	pattern=$(echo "$pattern" | sed 's/^ //; s/ $//')
	mkdir -p "case" && cd "case"
	eval "set -- $args"
	status=0
	timeout 10 "$RAMPLACE" "$@" >out 2>err || status=$?
	first=$(head -n 1 err)
	if [ "$status" != "$want" ]; then
		fail "exit $status, expected $want"
	elif ! printf '%s\n' "$first" | grep -Eq -- "$pattern"; then
		fail "stderr does not match /$pattern/"
	elif ls ./*.tmp.* >/dev/null 2>&1; then
		fail "left a temporary file"
	else
		pass
	fi
	cd "$work" && rm -rf case
done <"$H/cases.txt"
finish
