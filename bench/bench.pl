#!/usr/bin/perl
# bench/bench.pl — tichaos side by side with its peers, in one run on the
# same servers (issue 10). Run from the repository root by `make bench`.
#
#   insert       sysbench oltp_insert vs tichaos's insert workload
#   consistency  tichaos's consistency check vs pt-table-checksum and
#                CHECKSUM TABLE on each side
#   tidb         on two TiDBs given (BENCH_TIDB): the consistency check vs
#                sync-diff-inspector and ADMIN CHECKSUM TABLE
#   diff         a table with known differences: tichaos's report and fix
#                SQL vs pt-table-sync --print and sync-diff-inspector; all
#                must name the same keys, and find each kind of difference
#                (missing, extra, changed, NULL against '', values swapped)
#   ids          the ids checker on generated histories
#   footprint    tichaos's own RSS and CPU during fail_over_ddl_mix
#   diskfs       tichaos-diskfs's fault modes as a program on it sees
#                them: the share of reads failed against the percentage
#                asked, each write's time against the delay asked, beside
#                the same program on the directory under it
#
# Environment:
#   BENCH_QUICK=1          everything scaled down, one repetition
#   BENCH_ONLY=a,b         only these benchmarks (names above)
#   BENCH_REPS=N           repetitions (median reported; default 3, quick 1)
#   BENCH_FOOTPRINT=D      footprint run's duration (default 10m, quick 60s)
#   BENCH_KEEP=1           keep the scratch directory
#   BENCH_SYNC_DIFF=PATH   sync_diff_inspector to run as a peer (default: the
#                          one on PATH); without one, its rows say "not
#                          built here"
#   BENCH_TIDB=UP,DOWN     HOST:PORT of two running TiDBs for `tidb`
#   BENCH_TIDB_ROWS=N,...  its tables' sizes, each of both shapes (default
#                          1000000,5000000; quick 100000)
#
# Writes bench/results/<date>.json and bench/results/latest.md (quick runs:
# <date>-quick.json and quick.md; BENCH_ONLY runs: <date>-<names>.json and
# partial.md), and after a full run the table in
# README.md between its bench markers. Every server and tool it starts it
# stops by pid; the cluster it starts is brought down by directory, also
# when interrupted.
use v5.36;
use DBI;
use Cwd ();
use File::Path qw(make_path remove_tree);
use File::Temp qw(tempdir);
use JSON::PP;
use POSIX qw(strftime WNOHANG);
use Time::HiRes qw(time sleep);

my $QUICK = $ENV{BENCH_QUICK} ? 1 : 0;
my $REPS = $ENV{BENCH_REPS} || ($QUICK ? 1 : 3);
my %ONLY = map { $_ => 1 } split /,/, ($ENV{BENCH_ONLY} // '');
my $TICHAOS = './tichaos';
# sync-diff-inspector is built from pingcap/tiflow's sources by hand, never
# by the project (bench/README.md): measured only where it is found.
my $SYNC_DIFF = $ENV{BENCH_SYNC_DIFF}
	// (grep { -x } map { "$_/sync_diff_inspector" } split /:/, $ENV{PATH} // '')[0];
my $NOT_BUILT = 'not built here';
my $UNISTORE = 'none on unistore';

# Sizes: full run, quick run.
my %CFG = $QUICK ? (
	insert_threads => [1, 4, 16], insert_secs => 5,
	tables => [[100_000, 0], [200_000, 1], [500_000, 0], [200_000, 0, 'ordinary']],
	diff_rows => 200_000, diff_n => 100,
	tidb_tables => [[100_000, 'plain'], [100_000, 'ordinary']],
	histories => [100_000, 1_000_000],
	footprint => $ENV{BENCH_FOOTPRINT} || '60s',
) : (
	insert_threads => [1, 4, 16], insert_secs => 20,
	tables => [[100_000, 0], [1_000_000, 1], [5_000_000, 0],
		   [1_000_000, 0, 'ordinary'], [5_000_000, 0, 'ordinary']],
	diff_rows => 1_000_000, diff_n => 100,
	tidb_tables => [[1_000_000, 'plain'], [5_000_000, 'plain'],
			[1_000_000, 'ordinary'], [5_000_000, 'ordinary']],
	histories => [1_000_000, 10_000_000],
	footprint => $ENV{BENCH_FOOTPRINT} || '10m',
);
if (my $rows = $ENV{BENCH_TIDB_ROWS}) {
	$rows =~ /^[1-9]\d*(,[1-9]\d*)*$/
		or die "bench: BENCH_TIDB_ROWS=$rows: expected row counts, comma-separated\n";
	$CFG{tidb_tables} = [map { my $n = $_; map { [$n, $_] } qw(plain ordinary) }
			     split /,/, $rows];
}

my $JSON = JSON::PP->new->canonical->pretty;
my $work = tempdir('tichaos-bench.XXXXXX', TMPDIR => 1);
my $cluster_dir = "$work/cluster";
my (@clusters, %children);	# what to tear down: cluster dirs, pids
my ($port, $dbh_up, $dbh_down);

sub say_progress { printf STDERR "bench: %s\n", join '', @_ }

# `tichaos cluster down` of a directory that holds a cluster; its output
# goes to stderr, stdout is for the tables.
sub cluster_down($dir) {
	return unless -e "$dir/port-base";
	my $pid = fork // return;
	if (!$pid) {
		open STDOUT, ">&", \*STDERR;
		exec $TICHAOS, "cluster", "down", "--dir", $dir;
		exit 127;
	}
	waitpid $pid, 0;
}

sub cleanup {
	for my $pid (keys %children) {
		kill 'TERM', -$pid;	# its process group: time(1) and child
		waitpid $pid, 0;
	}
	%children = ();
	$_ && $_->disconnect for $dbh_up, $dbh_down;
	($dbh_up, $dbh_down) = ();
	for my $dir (@clusters) {
		cluster_down($dir);
	}
	@clusters = ();
	if ($ENV{BENCH_KEEP}) {
		say_progress "kept $work";
	} else {
		remove_tree($work);
	}
}
$SIG{INT} = $SIG{TERM} = sub { say_progress 'interrupted'; cleanup(); exit 4 };
END { local $?; cleanup() if defined $work && -d $work }

# ---- processes ----------------------------------------------------------

# Run argv under time(1) in its own process group, stdout and stderr to
# files. Returns { rc, secs, rss_kb, cpu_s }: secs as time(1) measured it
# (0.01 s), rss_kb its peak. A `poll` sub gets the pid of
# time(1)'s child every 200 ms while it runs.
sub run_timed($argv, %o) {
	my $tf = "$work/time.$$";
	my $out = $o{out} // '/dev/null';
	my $err = $o{err} // "$work/last.stderr";
	my $t0 = time;
	my $pid = fork // die "bench: fork: $!\n";
	if (!$pid) {
		setpgrp(0, 0);
		chdir $o{dir} or die "bench: $o{dir}: $!\n" if $o{dir};
		open STDOUT, '>', $out or die "bench: $out: $!\n";
		open STDERR, '>', $err or die "bench: $err: $!\n";
		exec '/usr/bin/time', '-f', '%e %M %U %S', '-o', $tf, @$argv;
		die "bench: exec: $!\n";
	}
	$children{$pid} = 1;
	while (waitpid($pid, WNOHANG) == 0) {
		$o{poll}->(child_of($pid) // 0) if $o{poll};
		sleep 0.2;
	}
	my $rc = $? >> 8;
	delete $children{$pid};
	my $secs = time - $t0;
	my ($e, $rss, $u, $s) = split ' ', (slurp($tf) =~ /([\d.]+ \d+ [\d.]+ [\d.]+)\s*$/)[0] // '';
	unlink $tf;
	# time(1)'s elapsed time: to 0.01 s, where the wait above wakes every
	# 0.2 s.
	return { rc => $rc, secs => $e // $secs, rss_kb => $rss // 0,
		 cpu_s => ($u // 0) + ($s // 0) };
}

sub child_of($pid) {
	my $c = slurp("/proc/$pid/task/$pid/children") // '';
	my ($first) = split ' ', $c;
	return $first;
}

sub run_ok($argv, %o) {
	my $r = run_timed($argv, %o);
	die sprintf("bench: '%s' exited with %d: %s\n", "@$argv", $r->{rc},
		    tail($o{err} // "$work/last.stderr") || tail($o{out} // "/dev/null"))
		if $r->{rc} && !grep { $_ == $r->{rc} } @{$o{ok_rc} // []};
	return $r;
}

sub slurp($path) {
	open my $fh, '<', $path or return undef;
	local $/;
	return scalar <$fh>;
}

sub spew($path, $text) {
	open my $fh, '>', $path or die "bench: $path: $!\n";
	print $fh $text;
	close $fh or die "bench: $path: $!\n";
}

sub tail($path) {
	my @l = split /\n/, slurp($path) // '';
	return join ' | ', @l[($#l > 4 ? $#l - 4 : 0) .. $#l];
}

sub first_line(@argv) {
	my $v = `@argv 2>/dev/null` // '';
	return (split /\n/, $v)[0] // 'unknown';
}

sub median(@v) {
	@v = sort { $a <=> $b } grep { defined } @v;
	return undef unless @v;
	return @v % 2 ? $v[$#v / 2] : ($v[@v / 2 - 1] + $v[@v / 2]) / 2;
}

# ---- the cluster --------------------------------------------------------

sub connect_port($p, $db = undef, $host = '127.0.0.1') {
	my $driver = (grep { $_ eq 'mysql' } DBI->available_drivers) ? 'mysql'
		   : 'MariaDB';
	my $dsn = "DBI:$driver:host=$host;port=$p" . ($db ? ";database=$db" : '');
	return DBI->connect($dsn, 'root', '', { RaiseError => 1,
		PrintError => 0, AutoCommit => 1 });
}

sub cluster_up {
	push @clusters, $cluster_dir;
	# On 127.0.0.1, where the peers connect: not on hosts of their own
	# (docs/topology.md), whatever TICHAOS_HOSTS says.
	run_ok([$TICHAOS, 'cluster', 'up', '--dir', $cluster_dir,
		'--port-base', 'auto', '--hosts', 'off']);
	chomp($port = slurp("$cluster_dir/port-base"));
	$dbh_up = connect_port($port);
	$dbh_down = connect_port($port + 1);
	say_progress "cluster up on ports $port..", $port + 3;
}

# Wait until the replica has applied everything the upstream logged.
sub wait_sync($limit = 900) {
	my $t0 = time;
	my ($want) = $dbh_up->selectrow_array('SELECT @@gtid_binlog_pos');
	while (1) {
		my ($have) = $dbh_down->selectrow_array('SELECT @@gtid_slave_pos');
		return if $have eq $want;
		die "bench: replica not in sync after ${limit}s ($have, want $want)\n"
			if time - $t0 > $limit;
		sleep 0.1;
	}
}

# Start a measurement from the same state whoever went before: the
# replica in sync and no dirty page left on either server. The writes of
# the run before are otherwise still being flushed during the next one
# (2 cores), which made whoever went first at a point faster.
sub settle($limit = 120) {
	wait_sync();
	for my $dbh ($dbh_up, $dbh_down) {
		my ($pct) = $dbh->selectrow_array('SELECT @@innodb_max_dirty_pages_pct');
		my $t0 = time;
		$dbh->do('SET GLOBAL innodb_max_dirty_pages_pct = 0');
		while (1) {
			my (undef, $dirty) = $dbh->selectrow_array(
				"SHOW GLOBAL STATUS LIKE 'Innodb_buffer_pool_pages_dirty'");
			last if $dirty == 0;
			if (time - $t0 > $limit) {
				$dbh->do("SET GLOBAL innodb_max_dirty_pages_pct = $pct");
				die "bench: $dirty pages still dirty after ${limit}s\n";
			}
			sleep 0.1;
		}
		$dbh->do("SET GLOBAL innodb_max_dirty_pages_pct = $pct");
	}
}

# A run directory holding only a suite and the cluster's topology: what
# `tichaos check` needs to run the live checks on the cluster.
sub check_dir($name, $suite, $topology = slurp("$cluster_dir/topology.yaml")) {
	my $dir = "$work/check-$name";
	remove_tree($dir);
	make_path($dir);
	spew("$dir/suite.yaml", $suite);
	spew("$dir/topology.yaml", $topology);
	return $dir;
}

sub results($dir) {
	return decode_json(slurp("$dir/results.json") // die "bench: no results.json in $dir\n");
}

# ---- 1. insert throughput -----------------------------------------------

sub bench_insert {
	my $secs = $CFG{insert_secs};
	my (%ops, %cpu);	# {tool}{threads} = [ops/s or client CPU us/op per rep]
	my @sb = ('sysbench', 'oltp_insert', '--db-driver=mysql',
		  '--mysql-host=127.0.0.1', "--mysql-port=$port",
		  '--mysql-user=root', '--mysql-db=sbtest', '--tables=1');
	my $suite = slurp('bench/suites/insert.yaml');
	$dbh_up->do('CREATE DATABASE IF NOT EXISTS sbtest');
	for my $rep (1 .. $REPS) {
		for my $n (@{$CFG{insert_threads}}) {
			# Alternate who goes first, so drift hits both.
			my @order = $rep % 2 ? qw(sysbench tichaos) : qw(tichaos sysbench);
			for my $tool (@order) {
				my ($rate, $cpu_us);
				if ($tool eq 'sysbench') {
					run_ok([@sb, 'cleanup']);
					run_ok([@sb, '--table-size=1', 'prepare']);
					settle();
					my $out = "$work/sysbench.out";
					# k is drawn from 1..table-size.
					my $r = run_ok([@sb, '--table-size=100000', "--threads=$n", "--time=$secs",
						'--report-interval=0', 'run'], out => $out);
					(slurp($out) =~ /transactions:\s+(\d+)\s+\(([\d.]+) per sec/)
						or die "bench: no rate in sysbench's output\n";
					$rate = $2 + 0;
					$cpu_us = $r->{cpu_s} * 1e6 / ($1 || 1);
				} else {
					(my $s = $suite) =~ s/threads: \d+/threads: $n/;
					spew("$work/insert.yaml", $s);
					my $dir = "$work/insert-$n-$rep";
					settle();
					my $t = run_ok([$TICHAOS, 'run', "$work/insert.yaml",
						'--cluster', "$cluster_dir/topology.yaml",
						'--duration', "${secs}s", '--out', $dir,
						'--quiet'], out => "$work/insert.tap");
					my $r = results($dir);
					my $ok = 0;
					$ok += $_->{ok} for @{$r->{workloads}};
					$rate = $ok / ($r->{duration_ns} / 1e9);
					$cpu_us = $t->{cpu_s} * 1e6 / ($ok || 1);
					remove_tree($dir);	# its history is large
				}
				wait_sync();
				push @{$ops{$tool}{$n}}, $rate;
				push @{$cpu{$tool}{$n}}, $cpu_us;
				say_progress sprintf("insert rep %d, %2d threads: %-8s %8.0f ops/s, %5.1f us CPU/op",
						     $rep, $n, $tool, $rate, $cpu_us);
			}
		}
	}
	my @rows;
	for my $n (@{$CFG{insert_threads}}) {
		my ($sb, $tc) = (median(@{$ops{sysbench}{$n}}), median(@{$ops{tichaos}{$n}}));
		push @rows, { threads => $n, seconds => $secs,
			      sysbench_ops => $sb, tichaos_ops => $tc,
			      ratio => $tc / $sb, target => 'tichaos >= sysbench',
			      sysbench_cpu_us_per_op => median(@{$cpu{sysbench}{$n}}),
			      tichaos_cpu_us_per_op => median(@{$cpu{tichaos}{$n}}),
			      met => $tc >= $sb ? JSON::PP::true : JSON::PP::false,
			      samples => { sysbench => $ops{sysbench}{$n},
					   tichaos => $ops{tichaos}{$n} } };
	}
	return \@rows;
}

# ---- 2. consistency check -----------------------------------------------

my $COLUMNS = 'id INT NOT NULL PRIMARY KEY, a INT NOT NULL, b BIGINT NOT NULL, '
	    . 's VARCHAR(64) NOT NULL, t DATETIME NOT NULL, n INT NULL';

# The shapes of the consistency tables: their columns, and the SELECT over
# `seq` (a table of MariaDB's Sequence engine) that fills them, ids
# `step` apart.
# "ordinary" is issue 58's table of everyday columns: a BIGINT key,
# DECIMAL, DATE, DOUBLE (fractions, huge and tiny magnitudes, negatives),
# TINYINT, a VARCHAR(200) of 0 to 200 characters, NULLs and empty strings.
my %SHAPES = (
	plain => {
		columns => $COLUMNS,
		select => sub ($step, $seq) {
			"SELECT seq * $step, seq * 7 % 1000003, "
			. 'seq * 2654435761 % 4294967296, '
			. "CONCAT('row-', seq, '-', LEFT(MD5(seq), 12)), "
			. "'2020-01-01' + INTERVAL seq SECOND, "
			. "IF(seq % 10 = 0, NULL, seq % 97) FROM $seq";
		},
	},
	ordinary => {
		columns => 'id BIGINT PRIMARY KEY, d DECIMAL(12,2), dt DATE, '
			 . 'x DOUBLE, tn TINYINT, s VARCHAR(200), n1 INT NULL, '
			 . 'e VARCHAR(20)',
		select => sub ($step, $seq) {
			"SELECT k * $step, IF(k % 17 = 0, NULL, "
			. 'IF(k % 3 = 0, -1, 1) * k * 1.37), '
			. "DATE_ADD('2000-01-01', INTERVAL k % 9000 DAY), "
			. 'CASE WHEN k % 100 = 0 THEN k * 1.234567e200 '
			. 'WHEN k % 100 = 1 THEN k * 9.87654321e-200 '
			. 'WHEN k % 100 = 2 THEN -k * 3.3e15 '
			. 'ELSE k / 7 + SIN(k) END, k % 256 - 128, '
			. 'LEFT(REPEAT(MD5(k), 7), k % 201), '
			. 'IF(k % 10 = 0, NULL, k * 7 % 1000003 - 500000), '
			. "IF(k % 13 = 0, '', ELT(k % 5 + 1, 'alpha', 'beta', "
			. "'gamma', 'delta', 'epsilon-long-value')) FROM (SELECT "
			. "CAST(seq AS SIGNED) AS k FROM $seq) q";
		},
	},
);

sub label($rows) {
	return $rows >= 1e6 && $rows % 1e6 == 0 ? ($rows / 1e6) . 'M'
	     : ($rows / 1e3) . 'k';
}

# Create `name` upstream with `rows` rows (ids `step`, 2*step, ...) of
# `shape` (%SHAPES) in batches, and wait for the replica to have them.
sub load_table($name, $rows, $partitioned, $step = 1, $shape = 'plain') {
	my $sh = $SHAPES{$shape};
	my $t0 = time;
	my $part = '';
	if ($partitioned) {
		my $q = int($rows * $step / 4);
		$part = " PARTITION BY RANGE (id) (PARTITION p0 VALUES LESS THAN ($q),"
		      . ' PARTITION p1 VALUES LESS THAN (' . 2 * $q . '),'
		      . ' PARTITION p2 VALUES LESS THAN (' . 3 * $q . '),'
		      . ' PARTITION p3 VALUES LESS THAN MAXVALUE)';
	}
	$dbh_up->do('CREATE DATABASE IF NOT EXISTS bench');
	$dbh_up->do("DROP TABLE IF EXISTS bench.$name");
	$dbh_up->do("CREATE TABLE bench.$name ($sh->{columns})$part");
	$dbh_up->do('USE bench');
	for (my $lo = 1; $lo <= $rows; $lo += 100_000) {
		my $hi = $lo + 99_999 > $rows ? $rows : $lo + 99_999;
		$dbh_up->do("INSERT INTO bench.$name "
			    . $sh->{select}->($step, "seq_${lo}_to_$hi"));
	}
	wait_sync();
	my $secs = time - $t0;
	say_progress sprintf('loaded bench.%s (%d rows%s%s) in %.1fs', $name,
			     $rows, $partitioned ? ', partitioned' : '',
			     $shape eq 'plain' ? '' : ", $shape", $secs);
	return $secs;
}

sub consistency_suite($table, $partitioned, $shape = 'plain') {
	(my $s = slurp('bench/suites/consistency.yaml')) =~ s/\bTABLE\b/$table/g;
	my $cols = $SHAPES{$shape}{columns};
	$s =~ s/columns: "[^"]*"/columns: "$cols"/ or die "bench: no columns in the suite\n";
	return $s;
}

sub checksum_table($dbh, $table) {
	my $t0 = time;
	my $row = $dbh->selectrow_arrayref("CHECKSUM TABLE bench.$table");
	return (time - $t0, $row->[1]);
}

sub pt_checksum($table) {
	my $out = "$work/pt-checksum.out";
	my $r = run_ok(['pt-table-checksum', "h=127.0.0.1,P=$port,u=root",
		'--databases', 'bench', '--tables', $table,
		'--recursion-method', "dsn=h=127.0.0.1,P=$port,u=root,D=percona,t=dsns",
		'--replicate', 'percona.checksums', '--no-check-binlog-format',
		'--no-check-replication-filters', '--no-version-check'],
		out => $out);
	# TS ERRORS DIFFS ROWS DIFF_ROWS CHUNKS SKIPPED TIME TABLE
	my ($errors, $diffs, $rows) = slurp($out) =~ /^\S+\s+(\d+)\s+(\d+)\s+(\d+)\s.*bench\.$table$/m
		or die "bench: no result line in pt-table-checksum's output\n";
	die "bench: pt-table-checksum: $errors errors, $diffs diffs on bench.$table\n"
		if $errors || $diffs;
	return $r->{secs};
}

sub bench_consistency {
	# pt-table-checksum finds the replica from a DSN table.
	$dbh_up->do('CREATE DATABASE IF NOT EXISTS percona');
	$dbh_up->do('CREATE TABLE IF NOT EXISTS percona.dsns (id INT '
		. 'AUTO_INCREMENT PRIMARY KEY, parent_id INT, dsn VARCHAR(255) NOT NULL)');
	$dbh_up->do('REPLACE INTO percona.dsns VALUES (1, NULL, ?)', undef,
		    'h=127.0.0.1,P=' . ($port + 1) . ',u=root');
	my @rows;
	for my $t (@{$CFG{tables}}) {
		my ($n, $partitioned, $shape) = @$t;
		$shape //= 'plain';
		my $name = ($shape eq 'plain' ? 'c_' : 'o_') . lc label($n);
		my $load = load_table($name, $n, $partitioned, 1, $shape);
		my $dir = check_dir($name, consistency_suite($name, $partitioned,
							     $shape));
		my %s;
		checksum_table($_, $name) for $dbh_up, $dbh_down;	# warm up
		for my $rep (1 .. $REPS) {
			my ($tu, $cu) = checksum_table($dbh_up, $name);
			my ($td, $cd) = checksum_table($dbh_down, $name);
			die "bench: CHECKSUM TABLE differs on bench.$name\n" if $cu ne $cd;
			my $r = run_ok([$TICHAOS, 'check', $dir], out => "$work/check.tap");
			my $c = results($dir)->{checks}[0];
			die "bench: tichaos check of bench.$name: $c->{verdict}: $c->{message}\n"
				if $c->{verdict} ne 'pass';
			my $pt = pt_checksum($name);
			my $sd = $SYNC_DIFF && sync_diff($name, 0);
			push @{$s{sync_diff}}, $sd->{secs} if $sd;
			push @{$s{checksum_up}}, $tu;
			push @{$s{checksum_down}}, $td;
			push @{$s{tichaos}}, $r->{secs};
			push @{$s{tichaos_rss_kb}}, $r->{rss_kb};
			push @{$s{pt}}, $pt;
			say_progress sprintf('consistency %s rep %d: tichaos %.2fs (%d MB), '
				. 'pt-table-checksum %.2fs, sync-diff-inspector %s, '
				. 'CHECKSUM TABLE %.2fs / %.2fs', $name, $rep, $r->{secs},
				$r->{rss_kb} / 1024, $pt,
				$sd ? sprintf('%.2fs', $sd->{secs}) : $NOT_BUILT, $tu, $td);
		}
		my %m = map { $_ => median(@{$s{$_}}) } keys %s;
		my $slower = $m{checksum_up} > $m{checksum_down} ? $m{checksum_up}
								: $m{checksum_down};
		my $rss_mb = $m{tichaos_rss_kb} / 1024;
		push @rows, { table => $name, rows => $n, shape => $shape,
			      partitioned => $partitioned ? JSON::PP::true : JSON::PP::false,
			      load_s => $load,
			      tichaos_s => $m{tichaos}, pt_table_checksum_s => $m{pt},
			      checksum_table_up_s => $m{checksum_up},
			      checksum_table_down_s => $m{checksum_down},
			      tichaos_rss_mb => $rss_mb,
			      vs_checksum_table => $m{tichaos} / $slower,
			      pt_speedup => $m{pt} / $m{tichaos},
			      sync_diff_s => $m{sync_diff} // $NOT_BUILT,
			      sync_diff_speedup => $m{sync_diff} ? $m{sync_diff} / $m{tichaos}
								 : $NOT_BUILT,
			      samples => \%s };
		$rows[-1]{met} = {
			checksum_table => $m{tichaos} <= 1.5 * $slower ? JSON::PP::true : JSON::PP::false,
			pt => $m{pt} >= 2 * $m{tichaos} ? JSON::PP::true : JSON::PP::false,
			rss => $rss_mb <= 64 ? JSON::PP::true : JSON::PP::false,
		};
		$dbh_up->do("DROP TABLE bench.$name");
		wait_sync();
	}
	return \@rows;
}

# ---- 3. diff with differences -------------------------------------------

sub by_num(@v) { sort { $a <=> $b } @v }

# What `tichaos check` of `dir` found in its first table: the keys of
# each kind, and whether its fix SQL names the same ones (REPLACE for
# missing and changed rows, DELETE for extra ones).
sub tichaos_keys($dir) {
	my $t = results($dir)->{checks}[0]{details}{tables}[0];
	my %k = map { my $kind = $_; ($kind => [by_num
		map { /^id=(-?\d+)$/ ? $1 : die "bench: key '$_'\n" } @{$t->{"${kind}_keys"}}]) }
		qw(missing extra changed);
	my $fix = slurp("$dir/$t->{fix_sql}") // die "bench: no fix SQL\n";
	my @rep = by_num $fix =~ /^REPLACE INTO .* VALUES \('(-?\d+)'/mg;
	my @del = by_num $fix =~ /^DELETE FROM .* WHERE `id` <=> '(-?\d+)';$/mg;
	$k{fix_ok} = "@rep" eq join(' ', by_num @{$k{missing}}, @{$k{changed}})
		  && "@del" eq "@{$k{extra}}";
	return \%k;
}

# pt-table-sync --print from the upstream to the replica: INSERT for a
# missing row, UPDATE for a changed one, DELETE for an extra one.
sub pt_sync_keys($table) {
	my $out = "$work/pt-sync.out";
	my $p = run_ok(['pt-table-sync', '--print', '--no-check-slave',
		'--no-version-check', "h=127.0.0.1,P=$port,u=root,D=bench,t=$table",
		'h=127.0.0.1,P=' . ($port + 1) . ',u=root'], out => $out, ok_rc => [2]);
	my $text = slurp($out);
	return { secs => $p->{secs},
		missing => [by_num $text =~ /^INSERT INTO .*? VALUES \('(-?\d+)'/mg],
		changed => [by_num $text =~ /^UPDATE .*? WHERE `id`='(-?\d+)' LIMIT 1/mg],
		extra => [by_num $text =~ /^DELETE FROM .*? WHERE `id`='(-?\d+)' LIMIT 1/mg] };
}

# sync-diff-inspector on bench.TABLE, the upstream its source and the
# replica its target (the local cluster's, or the HOST:PORT given), with
# its defaults but for the fix SQL and the output directory. It exits 0
# when the table is the same on both sides and 1 when it differs;
# anything else is an error. Returns run_timed's record and the fix SQL
# it wrote.
sub sync_diff($table, $want_rc, $up = "127.0.0.1:$port",
	      $down = '127.0.0.1:' . ($port + 1)) {
	my $dir = "$work/sync-diff-$table";
	remove_tree($dir);
	make_path($dir);
	my ($uh, $up_port) = split /:/, $up;
	my ($dh, $down_port) = split /:/, $down;
	spew("$dir/config.toml", <<~"EOT");
	export-fix-sql = true

	[data-sources.up]
	host = "$uh"
	port = $up_port
	user = "root"
	password = ""

	[data-sources.down]
	host = "$dh"
	port = $down_port
	user = "root"
	password = ""

	[task]
	output-dir = "$dir/output"
	source-instances = ["up"]
	target-instance = "down"
	target-check-tables = ["bench.$table"]
	EOT
	my $r = run_timed([$SYNC_DIFF, "--config=$dir/config.toml"],
			  out => "$dir/stdout", err => "$dir/stderr");
	die sprintf("bench: sync-diff-inspector on bench.%s exited %d, not %d: %s\n",
		    $table, $r->{rc}, $want_rc, tail("$dir/stdout"))
		if $r->{rc} != $want_rc;
	$r->{fix} = join '', map { slurp($_) } sort glob("$dir/output/fix-on-down/*.sql");
	return $r;
}

# The keys in sync-diff-inspector's fix SQL: REPLACE for a row missing or
# changed downstream (it does not tell the two apart), DELETE for an
# extra one.
sub sync_diff_keys($fix) {
	return { replace => [by_num $fix =~ /^REPLACE INTO .*? VALUES \((-?\d+),/mg],
		 extra => [by_num $fix =~ /^DELETE FROM .*? WHERE `id` = (-?\d+)\b/mg] };
}

sub bench_diff {
	my ($n, $k) = ($CFG{diff_rows}, $CFG{diff_n});
	my $name = 'd_' . lc label($n);
	# Even ids upstream, so that extra rows fit between them.
	load_table($name, $n, 0, 2);
	my $span = int($n / $k);
	my (%want, @sql);
	for my $i (0 .. $k - 1) {
		my $base = $i * $span;
		my ($del, $chg, $ext) = (2 * ($base + 1), 2 * ($base + int($span / 2)),
					 2 * ($base + int($span / 4)) + 1);
		push @{$want{missing}}, $del;
		push @{$want{changed}}, $chg;
		push @{$want{extra}}, $ext;
		push @sql, "DELETE FROM bench.$name WHERE id = $del",
			   $i % 2 ? "UPDATE bench.$name SET s = CONCAT(s, '!') WHERE id = $chg"
				  : "UPDATE bench.$name SET n = IF(n IS NULL, 0, NULL) WHERE id = $chg",
			   "INSERT INTO bench.$name VALUES ($ext, 1, 2, 'extra', '2021-01-01', NULL)";
	}
	# Written to the replica alone: the upstream does not log them.
	$dbh_down->do('SET SESSION sql_log_bin = 0');
	$dbh_down->do($_) for @sql;
	$dbh_down->do('SET SESSION sql_log_bin = 1');
	my $dir = check_dir($name, consistency_suite($name, 0));
	my $w = { map { $_ => join ' ', by_num @{$want{$_}} } keys %want };
	my (%s, $agree, %got);
	for my $rep (1 .. $REPS) {
		my $r = run_timed([$TICHAOS, 'check', $dir], out => "$work/check.tap");
		die "bench: tichaos check of bench.$name exited $r->{rc}, not 1\n"
			if $r->{rc} != 1;
		my $tc = tichaos_keys($dir);
		my $pt = pt_sync_keys($name);
		my ($sd, $sk);
		if ($SYNC_DIFF) {
			$sd = sync_diff($name, 1);
			$sk = sync_diff_keys($sd->{fix});
			push @{$s{sync_diff}}, $sd->{secs};
		}
		$agree = $tc->{fix_ok};
		for my $kind (qw(missing extra changed)) {
			$agree &&= "@{$tc->{$kind}}" eq $w->{$kind} && "@{$pt->{$kind}}" eq $w->{$kind};
			$got{$kind} = { tichaos => scalar @{$tc->{$kind}}, pt => scalar @{$pt->{$kind}} };
		}
		if ($sk) {
			$agree &&= "@{$sk->{replace}}" eq join(' ', by_num @{$want{missing}}, @{$want{changed}})
				&& "@{$sk->{extra}}" eq $w->{extra};
			$got{$_}{sync_diff} = scalar @{$sk->{$_}} for qw(replace extra);
		}
		push @{$s{tichaos}}, $r->{secs};
		push @{$s{tichaos_rss_kb}}, $r->{rss_kb};
		push @{$s{pt}}, $pt->{secs};
		say_progress sprintf('diff %s rep %d: tichaos %.2fs, pt-table-sync %.2fs, '
			. 'sync-diff-inspector %s, %s', $name, $rep, $r->{secs}, $pt->{secs},
			$sd ? sprintf('%.2fs', $sd->{secs}) : $NOT_BUILT, $agree ? 'same keys'
			: 'KEYS DIFFER: ' . encode_json(\%got));
	}
	$dbh_up->do("DROP TABLE bench.$name");
	wait_sync();
	my %m = map { $_ => median(@{$s{$_}}) } keys %s;
	return { table => $name, rows => $n, missing => $k, extra => $k, changed => $k,
		 tichaos_s => $m{tichaos}, tichaos_rss_mb => $m{tichaos_rss_kb} / 1024,
		 pt_table_sync_s => $m{pt}, pt_speedup => $m{pt} / $m{tichaos},
		 sync_diff_s => $m{sync_diff} // $NOT_BUILT,
		 found => \%got, agree => $agree ? JSON::PP::true : JSON::PP::false,
		 kinds => diff_kinds(), samples => \%s };
}

# Each kind of difference once, on a small table with a NULLable string
# of its own: which tool finds which. A kind is found when the tool names
# exactly its keys, as the kind of difference it is (sync-diff-inspector
# names missing and changed rows alike, by a REPLACE); `exact` says a tool
# named no other key.
my @KINDS = (
	[missing => 'row missing downstream', [10]],
	[extra => 'extra row downstream', [1001]],
	[changed => 'value changed', [20]],
	[null_empty => "NULL against ''", [30, 40]],
	[swapped => 'values swapped between two rows', [50, 51]],
);

sub diff_kinds {
	my $name = 'k_kinds';
	my $columns = 'id INT NOT NULL PRIMARY KEY, s VARCHAR(64) NULL, n INT NULL';
	$dbh_up->do("DROP TABLE IF EXISTS bench.$name");
	$dbh_up->do("CREATE TABLE bench.$name ($columns)");
	$dbh_up->do("INSERT INTO bench.$name SELECT seq, CONCAT('v', seq), seq FROM seq_1_to_1000");
	$dbh_up->do("UPDATE bench.$name SET s = NULL WHERE id = 30");
	$dbh_up->do("UPDATE bench.$name SET s = '' WHERE id = 40");
	wait_sync();
	$dbh_down->do('SET SESSION sql_log_bin = 0');
	$dbh_down->do($_) for "DELETE FROM bench.$name WHERE id = 10",
		"INSERT INTO bench.$name VALUES (1001, 'v1001', 1001)",
		"UPDATE bench.$name SET s = 'v20!' WHERE id = 20",
		"UPDATE bench.$name SET s = '' WHERE id = 30",
		"UPDATE bench.$name SET s = NULL WHERE id = 40",
		"UPDATE bench.$name SET s = 'v51' WHERE id = 50",
		"UPDATE bench.$name SET s = 'v50' WHERE id = 51";
	$dbh_down->do('SET SESSION sql_log_bin = 1');
	(my $suite = consistency_suite($name, 0)) =~ s/columns: ".*?"/columns: "$columns"/s;
	my $dir = check_dir($name, $suite);
	my $r = run_timed([$TICHAOS, 'check', $dir], out => "$work/check.tap");
	die "bench: tichaos check of bench.$name exited $r->{rc}, not 1\n" if $r->{rc} != 1;
	my %as = (tichaos => tichaos_keys($dir), pt => pt_sync_keys($name));
	if ($SYNC_DIFF) {
		my $sk = sync_diff_keys(sync_diff($name, 1)->{fix});
		$as{sync_diff} = { missing => $sk->{replace}, changed => $sk->{replace},
				   extra => $sk->{extra} };
	}
	my @rows;
	for my $kind (@KINDS) {
		my ($id, $what, $keys) = @$kind;
		my $as = $id =~ /^(missing|extra)$/ ? $id : 'changed';
		my %row = (kind => $id, what => $what, keys => $keys);
		for my $tool (qw(tichaos pt sync_diff)) {
			if (!$as{$tool}) {
				$row{$tool} = $NOT_BUILT;
				next;
			}
			my %have = map { $_ => 1 } @{$as{$tool}{$as}};
			$row{$tool} = (grep { !$have{$_} } @$keys) ? JSON::PP::false : JSON::PP::true;
		}
		push @rows, \%row;
	}
	# The keys a tool named, of whatever kind, are the kinds' keys.
	my $all = join ' ', by_num map { @{$_->[2]} } @KINDS;
	my %exact;
	for my $tool (keys %as) {
		my %named = map { $_ => 1 } map { @{$as{$tool}{$_}} } qw(missing changed extra);
		$exact{$tool} = join(' ', by_num keys %named) eq $all ? JSON::PP::true
								      : JSON::PP::false;
	}
	$dbh_up->do("DROP TABLE bench.$name");
	wait_sync();
	return { table => $name, rows => 1000, kinds => \@rows, exact => \%exact };
}

# ---- 3b. TiDB to TiDB ---------------------------------------------------

# The consistency check beside sync-diff-inspector on its home ground:
# two TiDBs the caller runs (BENCH_TIDB=UP_HOST:PORT,DOWN_HOST:PORT; the
# project never builds or starts one, docs/topology.md). Each table is
# loaded into both with the same statements, as a replication that kept
# up would leave it, and analyzed (sync-diff-inspector splits its chunks
# by TiDB's statistics). ADMIN CHECKSUM TABLE, TiDB's own checksum on
# its storage, is the floor; its checksums differ between two clusters
# (the keys carry each cluster's table id), its count of keys must not.
sub tidb_given {
	my $v = $ENV{BENCH_TIDB} // return undef;
	my @a = split /,/, $v;
	@a == 2 && !grep { !/^[^\s:,]+:\d+$/ } @a
		or die "bench: BENCH_TIDB=$v: expected UP_HOST:PORT,DOWN_HOST:PORT\n";
	return \@a;
}

# A table of the numbers 1 to 100000 on a TiDB, which has no Sequence
# engine: the source of each batch of a load, as seq_1_to_N is on
# MariaDB.
sub tidb_numbers($dbh) {
	$dbh->do('CREATE DATABASE IF NOT EXISTS bench');
	$dbh->do('DROP TABLE IF EXISTS bench.digits, bench.numbers');
	$dbh->do('CREATE TABLE bench.digits (d INT PRIMARY KEY)');
	$dbh->do('INSERT INTO bench.digits VALUES (0),(1),(2),(3),(4),(5),(6),(7),(8),(9)');
	$dbh->do('CREATE TABLE bench.numbers (seq BIGINT PRIMARY KEY)');
	$dbh->do('INSERT INTO bench.numbers SELECT 1 + a.d + 10 * b.d + 100 * c.d '
		 . '+ 1000 * d.d + 10000 * e.d FROM bench.digits a, bench.digits b, '
		 . 'bench.digits c, bench.digits d, bench.digits e');
}

sub tidb_load($dbhs, $name, $rows, $shape) {
	my $sh = $SHAPES{$shape};
	my $t0 = time;
	for my $dbh (@$dbhs) {
		$dbh->do("DROP TABLE IF EXISTS bench.$name");
		$dbh->do("CREATE TABLE bench.$name ($sh->{columns})");
		for (my $lo = 1; $lo <= $rows; $lo += 100_000) {
			my $n = $lo + 99_999 > $rows ? $rows - $lo + 1 : 100_000;
			$dbh->do("INSERT INTO bench.$name " . $sh->{select}->(1,
				 '(SELECT seq + ' . ($lo - 1) . " AS seq FROM bench.numbers "
				 . "WHERE seq <= $n) s"));
		}
		$dbh->do("ANALYZE TABLE bench.$name");
	}
	my $secs = time - $t0;
	say_progress sprintf('loaded bench.%s (%d rows, %s) into both TiDBs in %.1fs',
			     $name, $rows, $shape, $secs);
	return $secs;
}

# ADMIN CHECKSUM TABLE's time and count of keys (a row each: the tables
# have no secondary index). TiDB's unistore answers 1, 1, 1 whatever the
# table holds (its coprocessor does not compute one): such a side has no
# floor to measure.
sub admin_checksum($dbh, $table, $rows) {
	my $t0 = time;
	# Db_name Table_name Checksum_crc64_xor Total_kvs Total_bytes
	my $row = $dbh->selectrow_arrayref("ADMIN CHECKSUM TABLE bench.$table");
	my $secs = time - $t0;
	return undef if $row->[3] == 1 && $row->[4] == 1 && $rows > 1;
	die "bench: ADMIN CHECKSUM TABLE counts $row->[3] keys in bench.$table "
	  . "of $rows rows\n" if $row->[3] != $rows;
	return $secs;
}

sub bench_tidb {
	my $addr = tidb_given() // return { given => JSON::PP::false,
		why => 'no TiDB given (BENCH_TIDB=UP_HOST:PORT,DOWN_HOST:PORT)' };
	my @dbh = map { my ($h, $p) = split /:/; connect_port($p, undef, $h) } @$addr;
	my @version = map { ($_->selectrow_array('SELECT VERSION()'))[0] } @dbh;
	tidb_numbers($_) for @dbh;
	my $topology = <<~"EOT";
	cluster: static
	components:
	  - name: up-0
	    roles: [upstream]
	    sql: "$addr->[0]"
	  - name: down-0
	    roles: [downstream]
	    sql: "$addr->[1]"
	EOT
	my @rows;
	for my $t (@{$CFG{tidb_tables}}) {
		my ($n, $shape) = @$t;
		my $name = ($shape eq 'plain' ? 't_' : 'to_') . lc label($n);
		my $load = tidb_load(\@dbh, $name, $n, $shape);
		# No replication joins the two: compared as they stand.
		(my $suite = consistency_suite($name, 0, $shape))
			=~ s/^(\s*)- kind: consistency\n/$&$1  barrier: false\n/m
			or die "bench: no consistency check in the suite\n";
		my $dir = check_dir($name, $suite, $topology);
		my %s;
		admin_checksum($_, $name, $n) for @dbh;	# warm up
		for my $rep (1 .. $REPS) {
			my $tu = admin_checksum($dbh[0], $name, $n);
			my $td = admin_checksum($dbh[1], $name, $n);
			my $r = run_ok([$TICHAOS, 'check', $dir], out => "$work/check.tap");
			my $c = results($dir)->{checks}[0];
			die "bench: tichaos check of bench.$name: $c->{verdict}: $c->{message}\n"
				if $c->{verdict} ne 'pass';
			my $sd = $SYNC_DIFF && sync_diff($name, 0, @$addr);
			push @{$s{sync_diff}}, $sd->{secs} if $sd;
			push @{$s{checksum_up}}, $tu if defined $tu;
			push @{$s{checksum_down}}, $td if defined $td;
			push @{$s{tichaos}}, $r->{secs};
			push @{$s{tichaos_rss_kb}}, $r->{rss_kb};
			say_progress sprintf('tidb %s rep %d: tichaos %.2fs (%d MB), '
				. 'sync-diff-inspector %s, ADMIN CHECKSUM TABLE %s / %s',
				$name, $rep, $r->{secs}, $r->{rss_kb} / 1024,
				$sd ? sprintf('%.2fs', $sd->{secs}) : $NOT_BUILT,
				map { defined $_ ? sprintf('%.2fs', $_) : $UNISTORE } $tu, $td);
		}
		my %m = map { $_ => median(@{$s{$_}}) } keys %s;
		my ($slower) = sort { $b <=> $a } grep { defined } @m{qw(checksum_up checksum_down)};
		push @rows, { table => $name, rows => $n, shape => $shape, load_s => $load,
			      tichaos_s => $m{tichaos}, tichaos_rss_mb => $m{tichaos_rss_kb} / 1024,
			      admin_checksum_up_s => $m{checksum_up} // $UNISTORE,
			      admin_checksum_down_s => $m{checksum_down} // $UNISTORE,
			      vs_admin_checksum => $slower ? $m{tichaos} / $slower : $UNISTORE,
			      sync_diff_s => $m{sync_diff} // $NOT_BUILT,
			      sync_diff_speedup => $m{sync_diff} ? $m{sync_diff} / $m{tichaos}
								 : $NOT_BUILT,
			      samples => \%s };
		$_->do("DROP TABLE bench.$name") for @dbh;
	}
	$_->do('DROP TABLE bench.digits, bench.numbers') for @dbh;
	$_->disconnect for @dbh;
	return { given => JSON::PP::true, upstream => $addr->[0], downstream => $addr->[1],
		 upstream_version => $version[0], downstream_version => $version[1],
		 tables => \@rows };
}

# ---- 4. ids checker -----------------------------------------------------

# A history of `ops` inserts by eight processes over four tables, up to
# five in flight, ids increasing per table in invoke order (so no
# violation), and a kill fault every 100000 operations.
sub write_history($path, $ops) {
	open my $fh, '>', $path or die "bench: $path: $!\n";
	my @next = (0) x 4;
	my $t = 1_000_000;
	for my $i (0 .. $ops - 1) {
		my $p = $i % 8;
		my $tb = $p % 4;
		my $node = 'up-0';
		my $id = ++$next[$tb];
		$t += 1000;
		print $fh qq({"time":$t,"process":$p,"type":"invoke","f":"insert","table":"test.t_), $tb + 1,
			  qq(","node":"$node"}\n{"time":), $t + 4500,
			  qq(,"process":$p,"type":"ok","f":"insert","table":"test.t_), $tb + 1,
			  qq(","node":"$node","id":$id}\n);
		if ($i % 100_000 == 50_000) {
			print $fh qq({"time":$t,"process":"nemesis","type":"invoke","f":"kill","target":"cdc"}\n),
				  qq({"time":), $t + 100, qq(,"process":"nemesis","type":"info","f":"kill","target":"cdc","value":{"component":"down-0"}}\n);
		}
	}
	close $fh or die "bench: $path: $!\n";
}

sub bench_ids {
	my @rows;
	for my $ops (@{$CFG{histories}}) {
		my $dir = "$work/ids-$ops";
		make_path($dir);
		spew("$dir/suite.yaml", slurp('bench/suites/ids.yaml'));
		my $t0 = time;
		write_history("$dir/history.jsonl", $ops);
		my $size = -s "$dir/history.jsonl";
		say_progress sprintf('history of %d operations: %.0f MB in %.1fs', $ops,
				     $size / 1e6, time - $t0);
		my %s;
		for my $rep (1 .. $REPS) {
			my $r = run_ok([$TICHAOS, 'check', $dir], out => "$work/check.tap");
			my $c = results($dir)->{checks}[0];
			die "bench: ids check: $c->{verdict}: $c->{message}\n"
				if $c->{verdict} ne 'pass';
			push @{$s{secs}}, $r->{secs};
			push @{$s{check_ms}}, $c->{took_ms};
			push @{$s{rss_kb}}, $r->{rss_kb};
			say_progress sprintf('ids %d ops rep %d: %.2fs (check %.2fs), %d MB',
				$ops, $rep, $r->{secs}, ($c->{took_ms} // 0) / 1000, $r->{rss_kb} / 1024);
		}
		remove_tree($dir);
		push @rows, { ops => $ops, history_mb => $size / 1e6,
			      tichaos_check_s => median(@{$s{secs}}),
			      ids_check_s => defined $s{check_ms}[0] ? median(@{$s{check_ms}}) / 1000 : undef,
			      rss_mb => median(@{$s{rss_kb}}) / 1024, samples => \%s };
	}
	return \@rows;
}

# ---- 5. runner footprint ------------------------------------------------

sub bench_footprint {
	my $dir = "$work/footprint";
	push @clusters, "$dir/cluster";
	my $tck = POSIX::sysconf(POSIX::_SC_CLK_TCK()) || 100;
	my ($hwm, $cpu, $t0) = (0, 0, time);
	# VmHWM and utime + stime of tichaos itself (not the servers it starts).
	my $poll = sub ($pid) {
		return unless $pid;
		my $st = slurp("/proc/$pid/status") // return;
		$hwm = $1 if $st =~ /^VmHWM:\s+(\d+)/m && $1 > $hwm;
		my $stat = slurp("/proc/$pid/stat") // return;
		my @f = split ' ', ($stat =~ /\)\s+(.*)/)[0];
		$cpu = ($f[11] + $f[12]) / $tck;
	};
	say_progress "footprint: fail_over_ddl_mix for $CFG{footprint}";
	my $r = run_timed([$TICHAOS, 'run', 'suites/fail_over_ddl_mix.yaml',
		'--duration', $CFG{footprint}, '--port-base', 'auto',
		'--hosts', 'off', '--out', $dir,
		'--quiet'], out => "$work/footprint.tap", err => "$work/footprint.err",
		poll => $poll);
	my $res = -e "$dir/results.json" ? results($dir) : {};
	my $ops = 0;
	$ops += $_->{ok} for @{$res->{workloads} // []};
	my $row = { suite => 'fail_over_ddl_mix', duration => $CFG{footprint},
		    wall_s => $r->{secs}, exit => $r->{rc},
		    verdict => $res->{verdict} // 'none',
		    ok_ops => $ops, peak_rss_mb => $hwm / 1024, cpu_s => $cpu,
		    cpu_pct => 100 * $cpu / $r->{secs} };
	say_progress sprintf('footprint: %.0f MB peak, %.1f s CPU (%.1f%% of a core), verdict %s',
			     $row->{peak_rss_mb}, $cpu, $row->{cpu_pct}, $row->{verdict});
	cluster_down("$dir/cluster");
	return $row;
}

# ---- 6. suites side by side ----------------------------------------------

# Three copies of bench/suites/batch.yaml by `tichaos run -j N`, each on a
# local cluster of its own, for N = 1 (one after another), 2 and 3.
sub bench_batch {
	my $dir = "$work/batch";
	make_path($dir);
	my @suites = map {
		(my $s = slurp('bench/suites/batch.yaml')) =~ s/\bNAME\b/batch_$_/g;
		$s =~ s/duration: 10s/duration: 3s/ if $QUICK;
		spew("$dir/batch_$_.yaml", $s);
		"batch_$_.yaml";
	} 1 .. 3;
	my $tichaos = Cwd::abs_path($TICHAOS);
	my (%s, @rows);
	for my $rep (1 .. $REPS) {
		for my $j (1, 2, 3) {
			remove_tree("$dir/runs");
			my $r = run_ok([$tichaos, 'run', '-j', $j, '--hosts', 'off',
				'--quiet', @suites], dir => $dir,
				out => "$work/batch.tap", err => "$work/batch.err");
			push @{$s{$j}}, $r->{secs};
			say_progress sprintf('batch rep %d, -j %d: %.1fs', $rep, $j, $r->{secs});
		}
	}
	my $one = median(@{$s{1}});
	push @rows, { jobs => $_, suites => 3, secs => median(@{$s{$_}}),
		      speedup => $one / median(@{$s{$_}}), samples => $s{$_} }
		for 1, 2, 3;
	return \@rows;
}

# ---- 7. tichaos-diskfs's modes -------------------------------------------

# `n` operations of `kind` (read: a 4096-byte pread at 0; write: a
# 4096-byte pwrite at 0) on `path`: { ok, eio, enospc, mean_us, p99_us }.
sub disk_ops($path, $kind, $n) {
	sysopen(my $f, $path, POSIX::O_RDWR() | POSIX::O_CREAT()) or die "bench: $path: $!\n";
	my ($ok, $eio, $enospc, @t) = (0, 0, 0);
	my $buf = 'x' x 4096;
	for (1 .. $n) {
		my $t0 = time;
		sysseek($f, 0, 0) or die "bench: seek: $!\n";
		my $r = $kind eq 'read' ? sysread($f, my $b, 4096) : syswrite($f, $buf);
		push @t, (time - $t0) * 1e6;
		if ($r) { $ok++ } elsif ($!{EIO}) { $eio++ } elsif ($!{ENOSPC}) { $enospc++ }
		else { die "bench: $kind: $!\n" }
	}
	close $f;
	my @s = sort { $a <=> $b } @t;
	my $sum = 0;
	$sum += $_ for @t;
	return { ok => $ok, eio => $eio, enospc => $enospc, mean_us => $sum / $n,
		 p99_us => $s[int(0.99 * $#s)] };
}

# Each mode set over the control file and SIGUSR2; its answer waited for.
sub disk_mode($dir, $pid, $line) {
	spew("$dir/control", "$line\n");
	spew("$dir/report", '');
	kill 'USR2', $pid;
	for (1 .. 500) {
		return if (slurp("$dir/report") // '') =~ /^mode \Q$line\E$/m;
		sleep 0.01;
	}
	die "bench: tichaos-diskfs did not set '$line'\n";
}

sub bench_diskfs {
	my $dir = "$work/diskfs";
	make_path("$dir/back", "$dir/mnt");
	my $pid = fork // die "bench: fork: $!\n";
	if (!$pid) {
		setpgrp(0, 0);
		open STDERR, '>', "$dir/fs.err" or die;
		exec 'diskfs/tichaos-diskfs', "$dir/back", "$dir/mnt", "$dir/report",
			"$dir/control";
		exit 127;
	}
	$children{$pid} = 1;
	for (my $i = 0; (slurp("$dir/fs.err") // '') !~ /^mounted /m; $i++) {
		die "bench: tichaos-diskfs did not mount\n" if $i > 500;
		sleep 0.01;
	}
	my $n = $QUICK ? 2000 : 20000;
	my %r = (plain => disk_ops("$dir/back/plain", 'write', $n),
		 off => disk_ops("$dir/mnt/f", 'write', $n), errors => [], delays => []);
	disk_ops("$dir/mnt/f", 'write', 1);
	for my $pct (1, 10, 30, 50) {
		disk_mode($dir, $pid, "error $pct read 1");
		my $x = disk_ops("$dir/mnt/f", 'read', $n);
		disk_mode($dir, $pid, 'off');
		my ($counted) = slurp("$dir/report") =~ /^ops read \d+ (\d+) /m;
		push @{$r{errors}}, { percent => $pct, ops => $n, failed => $x->{eio},
			counted => $counted + 0, measured => 100 * $x->{eio} / $n };
		say_progress sprintf('diskfs: error %g%%: %d of %d reads failed (%.2f%%)',
				     $pct, $x->{eio}, $n, 100 * $x->{eio} / $n);
	}
	for my $ms (1, 5, 20) {
		my $k = $QUICK ? 50 : 500;
		disk_mode($dir, $pid, sprintf('slow %d write', $ms * 1e6));
		my $x = disk_ops("$dir/mnt/f", 'write', $k);
		disk_mode($dir, $pid, 'off');
		push @{$r{delays}}, { delay_ms => $ms, ops => $k, mean_ms => $x->{mean_us} / 1000,
			p99_ms => $x->{p99_us} / 1000,
			over => ($x->{mean_us} / 1000 - $ms) / $ms };
		say_progress sprintf('diskfs: slow %d ms: mean %.3f ms, p99 %.3f ms',
				     $ms, $x->{mean_us} / 1000, $x->{p99_us} / 1000);
	}
	kill 'TERM', $pid;
	waitpid $pid, 0;
	delete $children{$pid};
	return \%r;
}

# ---- the report ---------------------------------------------------------

# "sync_diff_inspector --version" prints a banner of several lines; the
# release and the commit are what identify it. A binary built by hand
# without the release's ldflags says "None" for both; its Go version is
# then what tells it.
sub sync_diff_version {
	my $v = `$SYNC_DIFF --version 2>&1` // '';
	my ($rel) = $v =~ /Release Version:\s*(\S+)/;
	my ($hash) = $v =~ /Git Commit Hash:\s*(\S+)/;
	my ($go) = $v =~ /Go Version:\s*(\S+)/;
	return "sync-diff-inspector $rel" . ($hash && $hash ne 'None' ? ' (' . substr($hash, 0, 9) . ')' : '')
		if $rel && $rel ne 'None';
	return 'sync-diff-inspector (no release in its --version' . ($go ? ", $go" : '') . ')';
}

sub yes($b) { $b ? 'yes' : '**no**' }
sub secs($v) { $v =~ /^[\d.]+$/ ? sprintf('%.2f', $v) : $v }
sub ratio($v) { $v =~ /^[\d.]+$/ ? sprintf('%.2fx', $v) : '-' }

sub markdown($r) {
	my $m = $r->{machine};
	my $v = $r->{versions};
	my $md = "## Benchmarks ($r->{date}" . ($r->{quick} ? ', quick' : '') . ")\n\n"
	       . "$m->{nproc} cores, $m->{memory_gb} GB, Linux $m->{kernel}, load $m->{load_at_start} "
	       . "at the start; $v->{tichaos}, MariaDB $v->{mariadb}, $v->{sysbench}, "
	       . "$v->{percona_toolkit}, $v->{sync_diff_inspector}. Median of $r->{repetitions}; peers run side by "
	       . "side on the same servers.\n";
	if (my $x = $r->{insert}) {
		$md .= "\n### Insert throughput (ops/s, $x->[0]{seconds} s per point)\n\n"
		     . "| threads | sysbench oltp_insert | tichaos insert | ratio | >= sysbench "
		     . "| client CPU us/op sysbench / tichaos |\n|---:|---:|---:|---:|:--|---:|\n";
		$md .= sprintf("| %d | %.0f | %.0f | %.2f | %s | %.0f / %.0f |\n", $_->{threads},
			       $_->{sysbench_ops}, $_->{tichaos_ops}, $_->{ratio}, yes($_->{met}),
			       $_->{sysbench_cpu_us_per_op} // 0, $_->{tichaos_cpu_us_per_op} // 0)
			for @$x;
	}
	if (my $x = $r->{consistency}) {
		$md .= "\n### Consistency check (seconds)\n\n"
		     . "| table | tichaos | pt-table-checksum | CHECKSUM TABLE up / down "
		     . "| tichaos / slower CHECKSUM (<= 1.5) | pt / tichaos (>= 2) "
		     . "| tichaos RSS MB (<= 64) | sync-diff-inspector | sync-diff / tichaos "
		     . "|\n|:--|---:|---:|---:|---:|---:|---:|---:|---:|\n";
		$md .= sprintf("| %s rows%s%s | %.2f | %.2f | %.2f / %.2f | %.1f %s | %.2f %s | %.0f %s | %s | %s |\n",
			label($_->{rows}), $_->{partitioned} ? ', partitioned' : '',
			($_->{shape} // 'plain') eq 'plain' ? '' : ", $_->{shape}",
			$_->{tichaos_s}, $_->{pt_table_checksum_s},
			$_->{checksum_table_up_s}, $_->{checksum_table_down_s},
			$_->{vs_checksum_table}, yes($_->{met}{checksum_table}),
			$_->{pt_speedup}, yes($_->{met}{pt}),
			$_->{tichaos_rss_mb}, yes($_->{met}{rss}), secs($_->{sync_diff_s}),
			ratio($_->{sync_diff_speedup})) for @$x;
	}
	if (my $x = $r->{diff}) {
		my $sd = $x->{found}{replace} ? sprintf('%d / %d (REPLACE) / %d',
			$x->{found}{replace}{sync_diff}, $x->{found}{replace}{sync_diff},
			$x->{found}{extra}{sync_diff}) : '-';
		$md .= sprintf("\n### Diff with differences (%s rows; %d missing, %d changed, "
			. "%d extra downstream)\n\n| tool | seconds | keys found (missing / changed / extra) |\n"
			. "|:--|---:|:--|\n| tichaos check (report + fix SQL) | %.2f | %d / %d / %d |\n"
			. "| pt-table-sync --print | %.2f | %d / %d / %d |\n"
			. "| sync-diff-inspector (fix SQL) | %s | %s |\n\nSame keys: %s.\n",
			label($x->{rows}), $x->{missing}, $x->{changed}, $x->{extra},
			$x->{tichaos_s}, map({ $x->{found}{$_}{tichaos} } qw(missing changed extra)),
			$x->{pt_table_sync_s}, map({ $x->{found}{$_}{pt} } qw(missing changed extra)),
			secs($x->{sync_diff_s}), $sd, $x->{agree} ? 'yes' : '**no**');
		my $k = $x->{kinds};
		my $cell = sub ($v) { ref $v ? yes($v) : $v };
		$md .= "\n### Each kind of difference ($k->{rows} rows, one table)\n\n"
		     . "| difference | keys | tichaos | pt-table-sync | sync-diff-inspector |\n"
		     . "|:--|:--|:--|:--|:--|\n";
		$md .= sprintf("| %s | %s | %s | %s | %s |\n", $_->{what}, join(', ', @{$_->{keys}}),
			map { $cell->($_) } @$_{qw(tichaos pt sync_diff)}) for @{$k->{kinds}};
		$md .= sprintf("| no other key named | | %s | %s | %s |\n",
			map { $cell->($k->{exact}{$_} // $NOT_BUILT) } qw(tichaos pt sync_diff));
	}
	if (my $x = $r->{tidb}) {
		$md .= "\n### Consistency check, TiDB to TiDB (seconds)\n\n";
		if (!$x->{given}) {
			$md .= "Not run: $x->{why}.\n";
		} else {
			$md .= "Upstream $x->{upstream_version}, downstream $x->{downstream_version}; "
			     . "each table loaded into both and analyzed. ADMIN CHECKSUM TABLE "
			     . "is TiDB's own checksum on its storage.\n\n"
			     . "| table | tichaos | sync-diff-inspector | sync-diff / tichaos "
			     . "| ADMIN CHECKSUM TABLE up / down | tichaos / slower ADMIN CHECKSUM "
			     . "| tichaos RSS MB |\n|:--|---:|---:|---:|---:|---:|---:|\n";
			$md .= sprintf("| %s rows, %s | %.2f | %s | %s | %s / %s | %s | %.0f |\n",
				label($_->{rows}), $_->{shape}, $_->{tichaos_s},
				secs($_->{sync_diff_s}), ratio($_->{sync_diff_speedup}),
				secs($_->{admin_checksum_up_s}), secs($_->{admin_checksum_down_s}),
				ratio($_->{vs_admin_checksum}), $_->{tichaos_rss_mb}) for @{$x->{tables}};
		}
	}
	if (my $x = $r->{ids}) {
		$md .= "\n### ids checker\n\n| operations | history MB | tichaos check s | ids check s | peak RSS MB |\n"
		     . "|---:|---:|---:|---:|---:|\n";
		$md .= sprintf("| %s | %.0f | %.2f | %s | %.0f |\n", label($_->{ops}),
			$_->{history_mb}, $_->{tichaos_check_s},
			defined $_->{ids_check_s} ? sprintf('%.2f', $_->{ids_check_s}) : '-',
			$_->{rss_mb}) for @$x;
	}
	if (my $x = $r->{batch}) {
		$md .= "\n### Suites side by side (three suites, `tichaos run -j N`, a local cluster each)\n\n"
		     . "| -j | seconds | faster than one after another |\n|---:|---:|---:|\n";
		$md .= sprintf("| %d | %.1f | %.2fx |\n", $_->{jobs}, $_->{secs}, $_->{speedup})
			for @$x;
	}
	if (my $x = $r->{footprint}) {
		$md .= sprintf("\n### Runner footprint (%s, %s)\n\n| peak RSS MB | CPU s | CPU %% of a core "
			. "| operations | verdict |\n|---:|---:|---:|---:|:--|\n| %.0f | %.1f | %.1f | %d | %s |\n",
			$x->{suite}, $x->{duration}, $x->{peak_rss_mb}, $x->{cpu_s},
			$x->{cpu_pct}, $x->{ok_ops}, $x->{verdict});
	}
	if (my $x = $r->{diskfs}) {
		$md .= sprintf("\n### tichaos-diskfs's modes, as a program on it sees them\n\n"
			. "A 4096-byte write: %.1f us on the directory under it, %.1f us on "
			. "tichaos-diskfs with no mode (p99 %.1f / %.1f us).\n\n"
			. "| reads failing asked %% | reads | failed | measured %% | counted by it "
			. "| within 2 points |\n|---:|---:|---:|---:|---:|:--|\n",
			$x->{plain}{mean_us}, $x->{off}{mean_us}, $x->{plain}{p99_us}, $x->{off}{p99_us});
		$md .= sprintf("| %g | %d | %d | %.2f | %d | %s |\n", $_->{percent}, $_->{ops},
			$_->{failed}, $_->{measured}, $_->{counted},
			yes(abs($_->{measured} - $_->{percent}) <= 2 && $_->{counted} == $_->{failed}))
			for @{$x->{errors}};
		$md .= "\n| write delay asked ms | writes | mean ms | p99 ms | mean over the delay "
		     . "| within 10% |\n|---:|---:|---:|---:|---:|:--|\n";
		$md .= sprintf("| %d | %d | %.3f | %.3f | %+.1f%% | %s |\n", $_->{delay_ms},
			$_->{ops}, $_->{mean_ms}, $_->{p99_ms}, 100 * $_->{over},
			yes($_->{over} >= 0 && $_->{over} <= 0.1)) for @{$x->{delays}};
	}
	return $md;
}

# The README's copy of the table, between its markers.
sub update_readme($md) {
	my $readme = slurp('README.md') // return;
	(my $body = $md) =~ s/^## .*\n\n//;
	$body =~ s/^###/####/mg;
	$readme =~ s/(<!-- bench:begin -->\n).*?(<!-- bench:end -->)/$1$body$2/s
		or return;
	spew('README.md', $readme);
}

# ---- main ---------------------------------------------------------------

-x $TICHAOS or die "bench: run from the repository root after make\n";
!defined $ENV{BENCH_SYNC_DIFF} || -x $SYNC_DIFF
	or die "bench: BENCH_SYNC_DIFF=$SYNC_DIFF is not an executable\n";
my %meminfo = (slurp('/proc/meminfo') // '') =~ /^(\w+):\s+(\d+)/mg;
my %r = (
	date => strftime('%Y-%m-%d %H:%M:%S %z', localtime),
	quick => $QUICK ? JSON::PP::true : JSON::PP::false,
	repetitions => $REPS,
	machine => {
		nproc => first_line('nproc') + 0,
		memory_gb => sprintf('%.1f', ($meminfo{MemTotal} // 0) / 1048576),
		kernel => first_line('uname', '-r'),
		load_at_start => (split ' ', slurp('/proc/loadavg') // '')[0],
	},
	versions => {
		tichaos => first_line($TICHAOS, '--version'),
		sysbench => first_line('sysbench', '--version'),
		percona_toolkit => first_line('pt-table-checksum', '--version'),
		sync_diff_inspector => $SYNC_DIFF ? sync_diff_version()
					   : "sync-diff-inspector $NOT_BUILT",
		commit => first_line('git', 'describe', '--always', '--dirty'),
	},
);
my @all = qw(insert consistency diff tidb ids batch footprint diskfs);
my @todo = %ONLY ? grep { $ONLY{$_} } @all : @all;
# Asked for by name, the TiDB pair must be given; in a run of everything
# its section says it was not.
!$ONLY{tidb} || tidb_given()
	or die "bench: BENCH_ONLY=tidb needs BENCH_TIDB=UP_HOST:PORT,DOWN_HOST:PORT\n";
my %need_cluster = map { $_ => 1 } qw(insert consistency diff);
if (grep { $need_cluster{$_} } @todo) {
	cluster_up();
	($r{versions}{mariadb}) = $dbh_up->selectrow_array('SELECT VERSION()');
	$r{versions}{mariadb} =~ s/-log$//;
} else {
	($r{versions}{mariadb}) = first_line('mariadbd', '--version') =~ /Ver (\S+)/;
}
my %fn = (insert => \&bench_insert, consistency => \&bench_consistency,
	  diff => \&bench_diff, tidb => \&bench_tidb, ids => \&bench_ids, batch => \&bench_batch,
	  footprint => \&bench_footprint, diskfs => \&bench_diskfs);
for my $b (@todo) {
	my $t0 = time;
	$r{$b} = $fn{$b}->();
	say_progress sprintf('%s done in %.0fs', $b, time - $t0);
}
cleanup();

make_path('bench/results');
# A run of some benchmarks (BENCH_ONLY) has a file of its own, and never
# replaces the day's full run.
my $stem = strftime('%Y-%m-%d', localtime) . ($QUICK ? '-quick' : '')
	 . (%ONLY ? '-' . join('-', @todo) : '');
spew("bench/results/$stem.json", $JSON->encode(\%r));
my $md = markdown(\%r);
spew('bench/results/' . ($QUICK ? 'quick.md' : %ONLY ? 'partial.md'
					 : 'latest.md'), $md);
update_readme($md) unless $QUICK || %ONLY;
print $md;
say_progress "results in bench/results/$stem.json";
