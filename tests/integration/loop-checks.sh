# loop-checks.sh: assertions shared by the loop tests of the bundled examples (sourced).

# hot_set_bytes NM DB ELF: bytes of the functions holding 99 % of DB's samples, sized in ELF
hot_set_bytes() {
	"$RAMPLACE" report "$2" | python3 -c '
import subprocess, sys
# report rows in the gprof layout: percent time first, the name last
rows = [l.split() for l in sys.stdin if len(l.split()) >= 4 and l.split()[0].replace(".", "", 1).isdigit()]
names = []
cum = 0.0
for r in rows:
    names.append(r[-1])
    cum += float(r[0])
    if cum >= 99: break
nm = subprocess.run([sys.argv[1], "-S", sys.argv[2]], capture_output=True, text=True).stdout
size = {}
for line in nm.splitlines():
    f = line.split()
    if len(f) == 4: size[f[3]] = int(f[1], 16)
print(sum(size.get(n, 0) for n in set(names)))' "$1" "$3"
}

# addr_of NM ELF NAME FILE: the address of function NAME, defined in FILE when FILE is not "-"
# (statics of the same name live in several files; nm -l tells them apart by their line info)
addr_of() {
	"$1" -l "$2" 2>/dev/null | awk -v n="$3" -v f="$4" '!found && $3 == n && (f == "-" || $4 ~ ("/" f ":")) { print $1; found = 1 }'
}
