# bench-lib.sh: what the benchmarks that value profiles against exact counts share (sourced by
# bench_methods.sh, bench_swo.sh and bench_record_goal.sh once they have set $root and $build;
# never run on its own): the tools' paths, a work folder removed on exit with the QEMU in
# $qemu_pid, qemu() for the machine in $machine (arm: mps2-an385, riscv: sifive_e), the budgets
# valued, and exact_counts, the QEMU plugin's reference profile of a firmware.
. "$root/scripts/qemu-lib.sh"
RAMPLACE=$build/ramplace
TVD=$build/bench/bench_tvd
SHARE=$build/bench/bench_share
PLUGIN=$build/libramplace-qemu.so
budgets="1K 2K 4K 8K"
work=$(mktemp -d)
qemu_pid=""
trap 'stop_pid "$qemu_pid"; rm -rf "$work"' EXIT
machine=arm
qemu() {
	if [ "$machine" = riscv ]; then
		qemu-system-riscv32 -M sifive_e -nographic -monitor none -serial none -bios none \
			-chardev stdio,id=semi -semihosting-config enable=on,target=native,chardev=semi "$@"
	else
		qemu-system-arm -M mps2-an385 -nographic -monitor none -serial none \
			-semihosting-config enable=on,target=native "$@"
	fi
}
exact_counts() { # fw-dir: the plugin's exact counts of $1/fw.elf in $1/exact.txt and $1/exact.db
	qemu -kernel "$1/fw.elf" -plugin "$PLUGIN,out=$1/exact.txt" >/dev/null
	"$RAMPLACE" import --quiet "$1/exact.db" "$1/fw.elf" "$1/exact.txt"
}
