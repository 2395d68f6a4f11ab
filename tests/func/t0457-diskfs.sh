#!/bin/sh
# tichaos-diskfs (diskfs/main.c): a FUSE file system that holds what is
# written until it is synced, and on SIGUSR1 drops the rest, as a power
# loss does; what was synced stays, byte for byte. Writes, appends,
# truncates, a rename, writers at work in parallel killed with SIGKILL
# before the loss; the report names each file and the bytes dropped; a
# clean unmount writes what is unsynced. Its fault modes, set over its
# control file and SIGUSR2: a share of reads, writes or syncs failing
# with EIO, every write with ENOSPC, each operation delayed; the counts
# it says when a mode ends are exactly what the program saw. The
# backing directory is read directly to see what reached the "disk".
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

# syncdir DIR: DIR fsync'd, what it lists made durable.
syncdir() {
	perl -MIO::Handle -MFcntl -e '
		sysopen(my $d, $ARGV[0], O_RDONLY | O_DIRECTORY) or die "$ARGV[0]: $!";
		$d->sync or die "fsync: $!";' "$1"
}

# rename_errno FROM TO: rename(2), what it failed with ("ok" if not).
rename_errno() {
	perl -e 'print rename($ARGV[0], $ARGV[1]) ? "ok" : "$!"' "$1" "$2"
}

# mount_fs: tichaos-diskfs on mnt over back, its report in report, its
# control file control; its pid in $fs once it serves.
mount_fs() {
	mkdir -p back mnt && : >report &&
	{ "$DISKFS" "$TRASH/back" "$TRASH/mnt" "$TRASH/report" "$TRASH/control" 2>fs.err & } &&
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
	put mnt/b 0 world && syncdir mnt &&
	test "$(cat mnt/a)" = hello && test "$(cat mnt/b)" = world &&
	test "$(cat back/a)" = hello &&
	test -e back/b && test ! -s back/b &&
	test "$(stat -c %s mnt/b)" = 5
'

test_expect_success 'a loss: the unsynced write dropped and reported, the synced kept' '
	lose &&
	printf "lost 5 /b\nlost-done 1 5 0\n" >expect && test_cmp expect report &&
	test "$(cat mnt/a)" = hello &&
	test -e mnt/b && test ! -s mnt/b && test "$(stat -c %s mnt/b)" = 0
'

test_expect_success 'appends after a sync: the synced prefix stays, byte for byte' '
	put mnt/log 0 "one;" 1 && syncdir mnt &&
	put mnt/log 4 "two;" 1 && put mnt/log 8 "three;" &&
	test "$(cat mnt/log)" = "one;two;three;" &&
	lose &&
	printf "lost 6 /log\nlost-done 1 6 0\n" >expect && test_cmp expect report &&
	test "$(cat mnt/log)" = "one;two;" && test "$(cat back/log)" = "one;two;"
'

test_expect_success 'truncates: an unsynced one undone, a synced one kept' '
	put mnt/t 0 0123456789 1 && syncdir mnt &&
	cut_to mnt/t 4 && test "$(cat mnt/t)" = 0123 &&
	put mnt/t 6 xy && test "$(stat -c %s mnt/t)" = 8 &&
	test "$(od -An -c mnt/t | tr -s " ")" = " 0 1 2 3 \0 \0 x y" &&
	lose &&
	printf "lost 2 /t\nlost-done 1 2 0\n" >expect && test_cmp expect report &&
	test "$(cat mnt/t)" = 0123456789 &&
	cut_to mnt/t 3 1 && lose &&
	echo "lost-done 0 0 0" >expect && test_cmp expect report &&
	test "$(cat mnt/t)" = 012
'

test_expect_success 'a file renamed with unsynced writes: its writes reported by its new name, the rename undone' '
	put mnt/old 0 abc 1 && syncdir mnt && put mnt/old 3 def &&
	mv mnt/old mnt/new &&
	lose &&
	printf "lost 3 /new\nlost-entry rename /old /new\nlost-done 1 3 1\n" >expect &&
	test_cmp expect report &&
	test "$(cat mnt/old)" = abc && test ! -e mnt/new &&
	mv mnt/old mnt/new && syncdir mnt && lose &&
	echo "lost-done 0 0 0" >expect && test_cmp expect report &&
	test "$(cat mnt/new)" = abc && test ! -e mnt/old
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
		sysopen(my $d, "mnt", O_RDONLY | O_DIRECTORY) or die $!;
		$d->sync or die "fsync mnt: $!";
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
	grep -Eq "^lost-done [0-4] [0-9]+ 0$" report &&
	test "$(grep -c "^lost [0-9]* /w[1-4]$" report)" = "$(sed -n "s/^lost-done \([0-9]*\) .*/\1/p" report)"
'

test_expect_success 'entries: what was made, unlinked or renamed since its directory was synced is undone' '
	mkdir mnt/d && syncdir mnt &&
	put mnt/d/x 0 data 1 &&
	put mnt/y 0 why 1 && syncdir mnt &&
	mv mnt/y mnt/d/y && rm mnt/a && mkdir mnt/e && ln -s a mnt/sym &&
	lose &&
	cat >expect <<-\EOF &&
	lost-entry made /sym
	lost-entry made /e
	lost-entry unlink /a
	lost-entry rename /y /d/y
	lost-entry made /d/x
	lost-done 0 0 5
	EOF
	test_cmp expect report &&
	test -d mnt/d && test ! -e mnt/d/x && test ! -e mnt/d/y &&
	test "$(cat mnt/y)" = why && test "$(cat mnt/a)" = hello &&
	test ! -e mnt/e && test ! -e mnt/sym && test -z "$(ls -A back.trash)"
'

test_expect_success 'entries synced stay: an unlink synced is gone for good, a rename over a name keeps the new file' '
	put mnt/p 0 first 1 && put mnt/q 0 second 1 && syncdir mnt &&
	mv mnt/q mnt/p && rm mnt/y && syncdir mnt &&
	test -z "$(ls -A back.trash)" &&
	lose && echo "lost-done 0 0 0" >expect && test_cmp expect report &&
	test "$(cat mnt/p)" = second && test ! -e mnt/q && test ! -e mnt/y
'

test_expect_success 'a rename over a name, not synced: both names back as they were' '
	put mnt/r1 0 one 1 && put mnt/r2 0 two 1 && syncdir mnt &&
	mv mnt/r1 mnt/r2 && test "$(cat mnt/r2)" = one && test ! -e mnt/r1 &&
	test "$(ls back.trash | wc -l)" = 1 &&
	lose &&
	printf "lost-entry rename /r1 /r2\nlost-done 0 0 1\n" >expect && test_cmp expect report &&
	test "$(cat mnt/r1)" = one && test "$(cat mnt/r2)" = two &&
	test -z "$(ls -A back.trash)"
'

test_expect_success 'a file'\''s mode and times: put back unless the file itself was fsynced (fdatasync is not enough)' '
	put mnt/m 0 mode 1 && syncdir mnt &&
	chmod 600 mnt/m && touch -m -d @1000000000 mnt/m &&
	perl -MIO::Handle -MFcntl -e "sysopen(my \$f, q(mnt/m), O_RDWR) or die; \$f->sync or die q(fsync)" &&
	chmod 640 mnt/m && touch -m -d @1100000000 mnt/m &&
	perl -MFcntl -e "sysopen(my \$f, q(mnt/m), O_RDWR) or die; syscall(75, fileno(\$f)) == 0 or die q(fdatasync)" &&
	test "$(stat -c "%a %Y" mnt/m)" = "640 1100000000" &&
	lose &&
	printf "lost-entry attr /m\nlost-entry attr /m\nlost-done 0 0 2\n" >expect && test_cmp expect report &&
	test "$(stat -c "%a %Y" mnt/m)" = "600 1000000000" &&
	test "$(stat -c "%a %Y" back/m)" = "600 1000000000"
'

test_expect_success 'what rename(2) refuses is refused, nothing moved: a directory onto a file, onto a full directory' '
	mkdir mnt/full mnt/empty && put mnt/full/f 0 f 1 && syncdir mnt && syncdir mnt/full &&
	test "$(rename_errno mnt/empty mnt/p)" = "Not a directory" &&
	test "$(rename_errno mnt/empty mnt/full)" = "Directory not empty" &&
	test "$(rename_errno mnt/p mnt/empty)" = "Is a directory" &&
	test "$(cat mnt/p)" = second && test -e mnt/full/f && test -d mnt/empty &&
	test -z "$(ls -A back.trash)"
'

# maker N: files mnt/mN/f1, f2, ... made one after another, mnt/mN
# synced after every 5th, the count then appended to mN.synced (outside
# the mount); until killed (perl is exec'd).
maker() {
	exec perl -MIO::Handle -MFcntl -e '
		my $n = shift;
		open(my $log, ">>", "m$n.synced") or die $!;
		$log->autoflush(1);
		for (my $i = 1; ; $i++) {
			sysopen(my $f, "mnt/m$n/f$i", O_WRONLY | O_CREAT) or die "f$i: $!";
			close $f;
			next if $i % 5;
			sysopen(my $d, "mnt/m$n", O_RDONLY | O_DIRECTORY) or die $!;
			$d->sync or die "fsync: $!";
			print $log "$i\n";
		}' "$1"
}

test_expect_success 'four makers at work in four directories, killed, then a loss: each lists exactly a synced prefix' '
	mkdir mnt/m1 mnt/m2 mnt/m3 mnt/m4 && syncdir mnt &&
	for n in 1 2 3 4; do
		: >m$n.synced &&
		{ maker $n 2>m$n.err & } && eval "m$n=\$!" && test_track_pid $! || return 1
	done &&
	for n in 1 2 3 4; do
		wait_for_condition 30 "test \$(wc -l <m$n.synced) -ge 20" || return 1
	done &&
	kill -KILL $m1 $m2 $m3 $m4 &&
	{ wait $m1 $m2 $m3 $m4; true; } &&
	lose &&
	for n in 1 2 3 4; do
		last=$(tail -n 1 m$n.synced) &&
		count=$(ls mnt/m$n | wc -l) &&
		# The last sync may have returned without being logged.
		{ test $count = $last || test $count = $((last + 5)); } &&
		seq 1 $count | sed "s/^/f/" | sort >want &&
		ls mnt/m$n | sort >got && test_cmp want got ||
		{ echo "m$n: synced $last, lists $count"; cat report; return 1; }
	done &&
	test "$(grep -c "^lost-entry made /m[1-4]/f[0-9]*$" report)" = "$(sed -n "s/^lost-done 0 0 \([0-9]*\)$/\1/p" report)" &&
	test -z "$(ls -A back.trash)" || { cat report; ls back.trash; false; }
'

# mode LINE: the fault mode LINE set (SIGUSR2), its answer waited for;
# the report then holds the counts of the mode that ended and "mode
# LINE".
mode() {
	echo "$1" >control && : >report && kill -USR2 $fs &&
	wait_for_condition 10 "grep -q '^mode' report"
}

# ops FILE KIND COUNT: COUNT operations of KIND (read: a 4096-byte pread
# at 0; write: a 4096-byte pwrite at 0; fsync) on FILE, one at a time;
# prints "OK EIO ENOSPC" (how many succeeded, how many failed with each)
# and the microseconds the slowest one took.
ops() {
	perl -MIO::Handle -MFcntl -MErrno=EIO,ENOSPC -MTime::HiRes=time -e '
		my ($path, $kind, $n) = @ARGV;
		sysopen(my $f, $path, O_RDWR | O_CREAT) or die "$path: $!";
		my ($ok, $eio, $enospc, $max) = (0, 0, 0, 0);
		my $buf = "x" x 4096;
		for (1 .. $n) {
			my $t = time;
			my $r = $kind eq "read" ? sysseek($f, 0, 0) && sysread($f, my $b, 4096)
			      : $kind eq "write" ? sysseek($f, 0, 0) && syswrite($f, $buf)
			      : $f->sync;
			my $took = (time - $t) * 1e6;
			$max = $took if $took > $max;
			if (defined $r && $r) { $ok++ }
			elsif ($!{EIO}) { $eio++ }
			elsif ($!{ENOSPC}) { $enospc++ }
			else { die "$kind: $!" }
		}
		printf "%d %d %d %d\n", $ok, $eio, $enospc, $max;' "$@"
}

test_expect_success 'error 30 read: 30% of 2000 reads fail (within 2 points), each counted' '
	put mnt/e 0 "$(printf "%04096d" 0)" 1 &&
	mode "error 30 read 7" &&
	grep -qx "mode error 30 read 7" report &&
	set -- $(ops mnt/e read 2000) &&
	test $(($1 + $2)) = 2000 && test $3 = 0 && eio=$2 &&
	test $eio -ge 560 && test $eio -le 640 &&
	set -- $(ops mnt/e write 300) && test "$1 $2" = "300 0" &&
	set -- $(ops mnt/e fsync 50) && test "$1 $2" = "50 0" &&
	mode off && grep -qx "ops read 2000 $eio 0 write 300 0 0 fsync 50 0 0" report &&
	grep -qx "mode off" report
'

test_expect_success 'the counts a mode ends with are what the program saw' '
	mode "error 12.5 write,fsync 99" &&
	set -- $(ops mnt/e write 1000) && wf=$2 &&
	set -- $(ops mnt/e fsync 400) && ff=$2 &&
	set -- $(ops mnt/e read 100) && test "$1 $2" = "100 0" &&
	mode off &&
	grep -qx "ops read 100 0 0 write 1000 $wf 0 fsync 400 $ff 0" report &&
	test $wf -ge 105 && test $wf -le 145 &&
	test $ff -ge 42 && test $ff -le 58
'

test_expect_success 'the same seed fails the same operations again' '
	mode "error 50 read 5" && ops mnt/e read 500 >first && mode off &&
	mode "error 50 read 5" && ops mnt/e read 500 >again && mode off &&
	test "$(cut -d" " -f1-3 first)" = "$(cut -d" " -f1-3 again)"
'

test_expect_success 'a synced write failed with EIO stays unsynced: the next loss drops it' '
	put mnt/s 0 kept 1 && syncdir mnt && put mnt/s 0 gone &&
	mode "error 100 fsync 1" &&
	! put mnt/s 4 "" 1 2>err && grep -q "fsync: Input/output error" err &&
	mode off && lose &&
	printf "lost 4 /s\nlost-done 1 4 0\n" >expect && test_cmp expect report &&
	test "$(cat mnt/s)" = kept
'

test_expect_success 'full: writes fail with ENOSPC, reads and syncs go on, no free blocks' '
	mode full && grep -qx "mode full" report &&
	test "$(stat -f -c %a mnt)" = 0 &&
	set -- $(ops mnt/e write 100) && test "$1 $2 $3" = "0 0 100" &&
	set -- $(ops mnt/e read 100) && test "$1 $2 $3" = "100 0 0" &&
	set -- $(ops mnt/e fsync 10) && test "$1 $2 $3" = "10 0 0" &&
	! put mnt/f 0 data 2>err && grep -q "write: No space left on device" err &&
	mode off && grep -qx "ops read 100 0 0 write 101 101 0 fsync 10 0 0" report &&
	test "$(stat -f -c %a mnt)" != 0 && put mnt/f 0 data
'

test_expect_success 'slow 20ms read,fsync: each waits at least 20 ms, writes do not; the wait counted' '
	mode "slow 20000000 read,fsync" &&
	set -- $(ops mnt/e read 20) && test $1 = 20 && test $4 -ge 20000 &&
	set -- $(ops mnt/e fsync 5) && test $1 = 5 && test $4 -ge 20000 &&
	set -- $(ops mnt/e write 50) && test $1 = 50 &&
	mode off &&
	set -- $(sed -n "s/^ops read 20 0 \([0-9]*\) write 50 0 0 fsync 5 0 \([0-9]*\)$/\1 \2/p" report) &&
	test $1 -ge 400000000 && test $2 -ge 100000000
'

test_expect_success 'a line that is no mode: said, the mode in force stays' '
	mode "error 30 read 7" && mode "slow 0 read" &&
	grep -qx "mode-error slow 0 read: the delay .0. is not a number of nanoseconds above 0" report &&
	set -- $(ops mnt/e read 200) && test $2 -gt 0 &&
	mode off && grep -qx "mode off" report
'

test_expect_success 'a clean unmount writes what is unsynced, as a shutdown does' '
	put mnt/late 0 "written late" && rm mnt/p &&
	test ! -s back/late && test "$(ls back.trash | wc -l)" = 1 &&
	unmount_fs &&
	test "$(cat back/late)" = "written late" && test ! -e back/p &&
	test ! -e back.trash
'

test_done
