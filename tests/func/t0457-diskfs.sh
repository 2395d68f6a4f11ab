#!/bin/sh
# tichaos-diskfs (diskfs/main.c): a FUSE file system that holds what is
# written until it is synced, and on SIGUSR1 drops the rest, as a power
# loss does; what was synced stays, byte for byte. Writes, appends,
# truncates, a rename, writers at work in parallel killed with SIGKILL
# before the loss; the report names each file and the bytes dropped; a
# clean unmount writes what is unsynced. The backing directory is read
# directly to see what reached the "disk".
. "$(dirname "$0")/test-lib.sh"

need perl mountpoint

DISKFS="$ROOT/diskfs/tichaos-diskfs"
[ -x "$DISKFS" ] || { echo "Bail out! $DISKFS is not built (make)"; exit 1; }
[ -c /dev/fuse ] || skip_all "no /dev/fuse on this machine"

# put FILE OFFSET TEXT [sync]: TEXT written at OFFSET of FILE (created
# if missing), then fsync'd when asked; nothing else.
put() {
	perl -MIO::Handle -MFcntl -e '
		my ($path, $off, $text, $sync) = @ARGV;
		sysopen(my $f, $path, O_RDWR | O_CREAT) or die "$path: $!";
		sysseek($f, $off, 0) or die "seek: $!";
		syswrite($f, $text) == length($text) or die "write: $!";
		!$sync or $f->sync or die "fsync: $!";' "$@"
}

# cut FILE SIZE [sync]: FILE truncated to SIZE, then fsync'd when asked.
cut_to() {
	perl -MIO::Handle -MFcntl -e '
		my ($path, $size, $sync) = @ARGV;
		sysopen(my $f, $path, O_RDWR) or die "$path: $!";
		truncate($f, $size) or die "truncate: $!";
		!$sync or $f->sync or die "fsync: $!";' "$@"
}

# mount_fs: tichaos-diskfs on mnt over back, its report in report; its
# pid in $fs once it serves.
mount_fs() {
	mkdir -p back mnt && : >report &&
	{ "$DISKFS" "$TRASH/back" "$TRASH/mnt" "$TRASH/report" 2>fs.err & } &&
	fs=$! && test_track_pid $fs && test_track_mount "$TRASH/mnt" &&
	wait_for_condition 10 "grep -q '^mounted ' fs.err" &&
	mountpoint -q mnt
}

# lose: a power loss (SIGUSR1), waited for in the report.
lose() {
	: >report && kill -USR1 $fs &&
	wait_for_condition 10 "grep -q '^lost-done ' report"
}

# unmount_fs: SIGTERM, waited for: mnt is no mount point any more.
unmount_fs() {
	kill -TERM $fs && wait $fs && ! mountpoint -q mnt
}

test_expect_success 'mounted: what is written reads back, synced or not; only the synced reaches the disk' '
	mount_fs &&
	put mnt/a 0 hello 1 &&
	put mnt/b 0 world &&
	test "$(cat mnt/a)" = hello && test "$(cat mnt/b)" = world &&
	test "$(cat back/a)" = hello &&
	test -e back/b && test ! -s back/b &&
	test "$(stat -c %s mnt/b)" = 5
'

test_expect_success 'a loss: the unsynced write dropped and reported, the synced kept' '
	lose &&
	printf "lost 5 /b\nlost-done 1 5\n" >expect && test_cmp expect report &&
	test "$(cat mnt/a)" = hello &&
	test -e mnt/b && test ! -s mnt/b && test "$(stat -c %s mnt/b)" = 0
'

test_expect_success 'appends after a sync: the synced prefix stays, byte for byte' '
	put mnt/log 0 "one;" 1 && put mnt/log 4 "two;" 1 && put mnt/log 8 "three;" &&
	test "$(cat mnt/log)" = "one;two;three;" &&
	lose &&
	printf "lost 6 /log\nlost-done 1 6\n" >expect && test_cmp expect report &&
	test "$(cat mnt/log)" = "one;two;" && test "$(cat back/log)" = "one;two;"
'

test_expect_success 'truncates: an unsynced one undone, a synced one kept' '
	put mnt/t 0 0123456789 1 &&
	cut_to mnt/t 4 && test "$(cat mnt/t)" = 0123 &&
	put mnt/t 6 xy && test "$(stat -c %s mnt/t)" = 8 &&
	test "$(od -An -c mnt/t | tr -s " ")" = " 0 1 2 3 \0 \0 x y" &&
	lose &&
	printf "lost 2 /t\nlost-done 1 2\n" >expect && test_cmp expect report &&
	test "$(cat mnt/t)" = 0123456789 &&
	cut_to mnt/t 3 1 && lose &&
	echo "lost-done 0 0" >expect && test_cmp expect report &&
	test "$(cat mnt/t)" = 012
'

test_expect_success 'a file renamed with unsynced writes: reported by its new name' '
	put mnt/old 0 abc 1 && put mnt/old 3 def &&
	mv mnt/old mnt/new &&
	lose &&
	printf "lost 3 /new\nlost-done 1 3\n" >expect && test_cmp expect report &&
	test "$(cat mnt/new)" = abc
'

# writer N: records of 100 bytes ("N:NNNNN" padded with dots) appended
# to mnt/wN, an fsync after every 7th, its count then appended to
# wN.synced (outside the mount) once the fsync returned; until killed
# (perl is exec'd: the job's pid is the writer's).
writer() {
	exec perl -MIO::Handle -MFcntl -e '
		my $n = shift;
		sysopen(my $f, "mnt/w$n", O_WRONLY | O_CREAT | O_TRUNC) or die $!;
		$f->sync or die "fsync: $!";
		open(my $log, ">>", "w$n.synced") or die $!;
		$log->autoflush(1);
		for (my $i = 1; ; $i++) {
			my $rec = sprintf("%d:%05d", $n, $i);
			$rec .= "." x (99 - length($rec)) . "\n";
			syswrite($f, $rec) == 100 or die "write: $!";
			next if $i % 7;
			$f->sync or die "fsync: $!";
			print $log "$i\n";
		}' "$1"
}

# expected N RECORDS: what wN holds with its first RECORDS records.
expected() {
	perl -e 'my ($n, $k) = @ARGV;
		for my $i (1 .. $k) { my $r = sprintf("%d:%05d", $n, $i);
			print $r, "." x (99 - length($r)), "\n" }' "$1" "$2"
}

test_expect_success 'four writers at work, killed, then a loss: each file exactly a synced prefix' '
	for n in 1 2 3 4; do
		: >w$n.synced &&
		{ writer $n 2>w$n.err & } && eval "w$n=\$!" && test_track_pid $! || return 1
	done &&
	for n in 1 2 3 4; do
		wait_for_condition 30 "test \$(wc -l <w$n.synced) -ge 20" || return 1
	done &&
	kill -KILL $w1 $w2 $w3 $w4 &&
	{ wait $w1 $w2 $w3 $w4; true; } &&
	lose &&
	for n in 1 2 3 4; do
		last=$(tail -n 1 w$n.synced) &&
		size=$(stat -c %s mnt/w$n) &&
		# The last fsync may have returned without being logged.
		{ test $size = $((last * 100)) || test $size = $(((last + 7) * 100)); } &&
		expected $n $((size / 100)) >want &&
		cmp want mnt/w$n && cmp want back/w$n || return 1
	done &&
	grep -Eq "^lost-done [0-4] [0-9]+$" report &&
	test "$(grep -c "^lost [0-9]* /w[1-4]$" report)" = "$(sed -n "s/^lost-done \([0-9]*\) .*/\1/p" report)"
'

test_expect_success 'a clean unmount writes what is unsynced, as a shutdown does' '
	put mnt/late 0 "written late" &&
	test ! -s back/late &&
	unmount_fs &&
	test "$(cat back/late)" = "written late"
'

test_done
