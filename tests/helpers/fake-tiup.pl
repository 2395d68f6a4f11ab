#!/usr/bin/perl
# fake-tiup.pl: stands in for tiup in the playground tests (tiup, TiDB, PD,
# TiKV and TiCDC cannot run on the CI machine). Two commands:
#
#   tiup playground --version
#       What the playground component says of its version, as cobra
#       prints its version template ("tiup version 1.16.1 tiup", then the
#       build; pingcap/tiup components/playground/main.go, pkg/version):
#       the version is $FAKE_TIUP_PLAYGROUND (v1.16.1 unless set), the
#       component `tiup playground` runs. One older than v1.4.0 has no
#       --version and fails as cobra does: "Error: unknown flag:
#       --version" on stdout (main prints the error), exit 1.
#   tiup playground [VERSION] --db N --pd N --kv N --ticdc N --tiflash 0
#        [--port-offset N] [--db.binpath P] [--kv.binpath P] [--pd.binpath P]
#        [--ticdc.binpath P] --without-monitor --tag TAG
#       Starts the instances the way tiup playground does: as its
#       children, one directory each under $TIUP_HOME/data/TAG, with the
#       real servers' flags (ports, --log-file, --data-dir), programs from
#       $FAKE_TIUP_BIN (tests/helpers/fake-instance.pl under the servers'
#       names), or the binpath given for it (pingcap/tiup
#       components/playground main.go: each instance runs that binary,
#       `cdc`'s with `server` first; fake-instance.pl under another name
#       tells the server by its flags). Ports are free ones from
#       $FAKE_TIUP_PORT up. Its argv goes
#       to $TIUP_HOME/data/TAG/args. An instance that exits is not
#       restarted: its exit is noted on stdout, "NAME quit: signal: killed"
#       (or "exit status N"; "NAME quit" for status 0), once it is reaped,
#       and that is all. TERM or INT stops them all; then it exits 0.
#       FAKE_TIUP_FAIL=1: prints an error and exits 1 instead. The
#       instances get FAKE_TIUP_TIDB_STATUS, the first TiDB's status
#       port (for fake-instance.pl's FAKE_TIUP_REGIONS).
#       Real tiup starts one TiFlash unless given --tiflash 0 (its tiflash
#       count defaults to 1); the fake has none to start and refuses. Real
#       tiup starts each port search at default_port + --port-offset
#       (components/playground main.go); the fake's ports come from one
#       shared counter, distinct already, so it only checks the value.
#       A playground before v1.16.1 has no --port-offset (pingcap/tiup
#       #2453): "Error: unknown flag: --port-offset", exit 1, nothing
#       started.
#   tiup clean TAG
#       Removes $TIUP_HOME/data/TAG; appends "clean TAG" to
#       $TIUP_HOME/clean.log.
# Core Perl only.
use strict;
use warnings;
use IO::Socket::INET;
use POSIX ':sys_wait_h';

$| = 1;
my $home = $ENV{TIUP_HOME} or die "fake-tiup.pl: TIUP_HOME is not set\n";
my $cmd = shift @ARGV // '';

if ($cmd eq 'clean') {
	my $tag = shift @ARGV or die "fake-tiup.pl: clean TAG\n";
	system('rm', '-rf', '--', "$home/data/$tag") == 0 or exit 1;
	open my $l, '>>', "$home/clean.log" or die "$!\n";
	print $l "clean $tag\n";
	exit 0;
}
$cmd eq 'playground' or die "fake-tiup.pl: unknown command '$cmd'\n";

my $component = $ENV{FAKE_TIUP_PLAYGROUND} // 'v1.16.1';
my @have = $component =~ /^v(\d+)\.(\d+)\.(\d+)$/
	or die "fake-tiup.pl: FAKE_TIUP_PLAYGROUND is vX.Y.Z\n";
# Is the playground component at least version X.Y.Z?
sub since {
	my @want = @_;
	for my $i (0 .. 2) {
		return $have[$i] > $want[$i] if $have[$i] != $want[$i];
	}
	return 1;
}
# As tiup-playground's main() says an error of cobra's: on stdout, exit 1.
sub refuse {
	print "Error: $_[0]\n";
	exit 1;
}

my %n = (db => 1, pd => 1, kv => 1, ticdc => 1, tiflash => 1);
my ($tag, $version, $offset, %binpath);
my @args = @ARGV;
while (@ARGV) {
	my $a = shift @ARGV;
	if ($a =~ /^--(db|pd|kv|ticdc|tiflash)$/) { $n{$1} = shift @ARGV }
	elsif ($a =~ /^--(db|pd|kv|ticdc)\.binpath$/) { $binpath{$1} = shift @ARGV }
	elsif ($a eq '--version') {
		since(1, 4, 0) or refuse("unknown flag: --version");
		(my $semver = $component) =~ s/^v//;
		print "tiup version $semver tiup\nGo Version: go1.21.13\n",
			"Git Ref: $component\nGitHash: 0000000\n";
		exit 0;
	}
	elsif ($a eq '--port-offset') {
		since(1, 16, 1) or refuse("unknown flag: --port-offset");
		$offset = shift @ARGV;
	}
	elsif ($a eq '--tag') { $tag = shift @ARGV }
	elsif ($a eq '--without-monitor') { }
	elsif ($a !~ /^-/ && !defined $version) { $version = $a }
	else { die "fake-tiup.pl: unknown flag '$a'\n" }
}
defined $tag or die "fake-tiup.pl: --tag is required here\n";
$n{tiflash} eq '0' or die "fake-tiup.pl: TiFlash is not faked: pass --tiflash 0\n";
!defined $offset || $offset =~ /^[0-9]+$/
	or die "fake-tiup.pl: --port-offset must be a number\n";
if ($ENV{FAKE_TIUP_FAIL}) {
	print "Error: cannot start the playground: fake failure\n";
	exit 1;
}
my $data = "$home/data/$tag";
system('mkdir', '-p', $data) == 0 or exit 1;
open my $af, '>', "$data/args" or die "$!\n";
print $af "playground @args\n";
close $af;

# A free port from the shared counter, as tiup's MustGetFreePort.
sub free_port {
	my $f = "$home/next-port";
	my $p = $ENV{FAKE_TIUP_PORT} // 30000;
	if (open my $in, '<', $f) { $p = <$in>; chomp $p; close $in }
	for (;; $p++) {
		my $s = IO::Socket::INET->new(LocalAddr => '127.0.0.1',
					      LocalPort => $p, Listen => 1,
					      ReuseAddr => 1) or next;
		close $s;
		last;
	}
	open my $out, '>', $f or die "$!\n";
	print $out $p + 1, "\n";
	close $out;
	return $p;
}

my $fake_bin = $ENV{FAKE_TIUP_BIN} or die "fake-tiup.pl: FAKE_TIUP_BIN is not set\n";
my %prog_of = (pd => 'pd-server', kv => 'tikv-server', db => 'tidb-server', ticdc => 'cdc');
# The binary of server KIND: the binpath given, else the fake's own.
sub bin_of { my ($kind) = @_; $binpath{$kind} // "$fake_bin/$prog_of{$kind}" }
my %kids;
my ($pd_port, $tidb_status, @starts);
for my $i (0 .. $n{pd} - 1) {
	my ($c, $p) = (free_port(), free_port());
	$pd_port //= $c;
	push @starts, ["pd-$i", bin_of('pd'), "--name=pd-$i",
		"--data-dir=$data/pd-$i/data",
		"--peer-urls=http://127.0.0.1:$p",
		"--advertise-peer-urls=http://127.0.0.1:$p",
		"--client-urls=http://127.0.0.1:$c",
		"--advertise-client-urls=http://127.0.0.1:$c",
		"--log-file=$data/pd-$i/pd.log"];
}
for my $i (0 .. $n{kv} - 1) {
	my ($a, $s) = (free_port(), free_port());
	push @starts, ["tikv-$i", bin_of('kv'),
		"--addr=127.0.0.1:$a", "--advertise-addr=127.0.0.1:$a",
		"--status-addr=127.0.0.1:$s", "--pd=http://127.0.0.1:$pd_port",
		"--config=$data/tikv-$i/tikv.toml",
		"--data-dir=$data/tikv-$i/data",
		"--log-file=$data/tikv-$i/tikv.log"];
}
for my $i (0 .. $n{db} - 1) {
	my ($p, $s) = (free_port(), free_port());
	$tidb_status //= $s;
	push @starts, ["tidb-$i", bin_of('db'), "-P", $p,
		"--host=127.0.0.1", "--store=tikv", "--status=$s",
		"--path=127.0.0.1:$pd_port",
		"--log-file=$data/tidb-$i/tidb.log"];
}
# The fake changefeed replicates from the first TiDB (fake-instance.pl).
$ENV{FAKE_UPSTREAM_SQL} = $starts[-$n{db}][3] if $n{db};
# The fake PD serves the first TiDB's status port (fake-instance.pl,
# $FAKE_TIUP_REGIONS): known before anything starts, as tiup takes each
# instance's ports when it makes the instance, before starting any
# (components/playground/instance/tidb.go NewTiDBInstance, MustGetFreePort).
$ENV{FAKE_TIUP_TIDB_STATUS} = $tidb_status if $n{db};
for my $i (0 .. $n{ticdc} - 1) {
	my $a = free_port();
	push @starts, ["ticdc-$i", bin_of('ticdc'), "server",
		"--addr=127.0.0.1:$a", "--advertise-addr=127.0.0.1:$a",
		"--pd=http://127.0.0.1:$pd_port",
		"--log-file=$data/ticdc-$i/ticdc.log",
		"--data-dir=$data/ticdc-$i/data"];
}

my $stopping = 0;
sub stop_all {
	$stopping = 1;
	kill 'TERM', keys %kids;
	my $until = time + 20;
	while (%kids && time < $until) {
		my $pid = waitpid(-1, WNOHANG);
		if ($pid > 0) { delete $kids{$pid} } else { select undef, undef, undef, 0.1 }
	}
	kill 'KILL', keys %kids;
	exit 0;
}
$SIG{TERM} = $SIG{INT} = \&stop_all;

for my $s (@starts) {
	my ($name, @argv) = @$s;
	system('mkdir', '-p', "$data/$name") == 0 or exit 1;
	my $pid = fork // die "fork: $!\n";
	if (!$pid) {
		chdir "$data/$name" or die "$!\n";
		exec @argv or die "fake-tiup.pl: cannot run $argv[0]: $!\n";
	}
	$kids{$pid} = $name;
	print "Start $name instance (pid $pid)\n";
}
print "CLUSTER START SUCCESSFULLY, Enjoy it ^-^\n";

# Why an instance ended, as Go's exec.ExitError says it.
my %signal_name = (1 => 'hangup', 2 => 'interrupt', 6 => 'aborted',
		   9 => 'killed', 11 => 'segmentation fault', 15 => 'terminated');
sub quit_reason {
	my ($status) = @_;
	return '' if $status == 0;
	my $sig = $status & 127;
	return ": exit status " . ($status >> 8) unless $sig;
	return ": signal: " . ($signal_name{$sig} // "signal $sig");
}

# Like tiup playground (components/playground/playground.go,
# addWaitInstance: a goroutine per instance waits for it and prints
# "<component> quit: <error>", then the tail of its log, or
# "<component> quit", and returns): an instance that exits is noted, never
# restarted. The note is the last thing done about it, the event the tests
# wait for; the fake names the instance (ticdc-0), the real one its
# component (cdc or ticdc, by version) and adds the log tail.
for (;;) {
	my $pid = waitpid(-1, 0);
	if ($pid > 0 && exists $kids{$pid}) {
		my $name = delete $kids{$pid};
		print "$name quit", quit_reason($?), "\n";
	}
	select undef, undef, undef, 0.2 if $pid <= 0;
}
