#!/usr/bin/perl
# fake-instance.pl: one instance of a fake playground (tests/helpers/fake-tiup.pl),
# run under the name of the server it stands for: pd-server, tikv-server,
# tidb-server or cdc (`cdc server`). It keeps the server's argv as its
# command line, which is what tichaos reads, and serves on the ports its
# flags name:
#
#   pd-server    fake-http.pl on --client-urls: $FAKE_TIUP_HTTP/pd; or,
#                when $FAKE_TIUP_REGIONS is set (fake-pd.pl's --db and
#                --table arguments), fake-pd.pl on --client-urls, the rest
#                answered from $FAKE_TIUP_HTTP/pd (--canned), and on the
#                playground's TiDB status port ($FAKE_TIUP_TIDB_STATUS,
#                set by fake-tiup.pl) TiDB's region listing from the same
#                regions: a real TiDB's status server asks PD for them
#                (pingcap/tidb pkg/server/handler/tikvhandler/
#                tikv_handler.go, TableRegions through the region cache)
#   tikv-server  fake-http.pl on --status-addr: $FAKE_TIUP_HTTP/tikv
#   tidb-server  a real mariadbd on -P (SQL; data in ./data, root without
#                password, a binlog), whose VERSION() is a TiDB 8.5's
#                (8.0.11-TiDB-v8.5.0, as the status port says), and
#                fake-http.pl on --status: $FAKE_TIUP_HTTP/tidb (not with
#                $FAKE_TIUP_REGIONS: the pd-server's fake-pd.pl serves it)
#   cdc server   fake-http.pl on --addr: $FAKE_TIUP_HTTP/cdc, whose
#                changefeed, once created, is the downstream replicating
#                from the upstream ($FAKE_UPSTREAM_SQL) with MariaDB's
#                replication; GET /api/v2/captures lists it (its pid as
#                the id) at its --advertise-addr (else --addr), GET
#                /api/v2/status describes it
#
# fake-http.pl serves a copy of the answers in ./http and logs the
# requests to ./requests.log. Its servers go when it goes, as a real
# server's ports do: pd-server, tikv-server and cdc serve in this very
# process (fake-http.pl, or fake-pd.pl, run in it), so that once it is
# gone (killed: the pid tichaos waits for) its ports are closed and
# nothing left of it can answer for the next instance. With
# $FAKE_TIUP_REGIONS the TiDB's status port goes with the pd-server, not
# with the tidb-server: a killed fake TiDB's status port still answers
# (no test kills one there). tidb-server runs mariadbd and fake-http.pl
# as children: TERM stops them, and a watchdog kills them when it was
# killed, up to 0.1 s later (no test kills a fake TiDB and starts it again
# at once). A line "started pid N" goes to --log-file at every start.
# Core Perl only.
use strict;
use warnings;
use POSIX ':sys_wait_h';
use Cwd qw(getcwd);
use File::Basename qw(basename dirname);

# The server it stands for: its own name, or, under another (a binary of
# the user's, `cdc.test`), its flags as fake-tiup.pl gives each server.
my $prog = basename($0);
my @args = @ARGV;
if ($prog !~ /^(pd-server|tikv-server|tidb-server|cdc)$/) {
	my $a = " @args";
	$prog = $a =~ /^ server / ? 'cdc'
	      : $a =~ / --client-urls=/ ? 'pd-server'
	      : $a =~ / --status-addr=/ ? 'tikv-server'
	      : $a =~ / -P / ? 'tidb-server' : $prog;
}
shift @args if $prog eq 'cdc' && @args && $args[0] eq 'server';

# Go's flag syntax: -name=V, --name=V, -name V, --name V.
sub flag {
	my ($name) = @_;
	for my $i (0 .. $#args) {
		return $1 if $args[$i] =~ /^--?\Q$name\E=(.*)$/;
		return $args[$i + 1] if $args[$i] =~ /^--?\Q$name\E$/;
	}
	return undef;
}
sub port_of { my ($v) = @_; $v =~ /:(\d+)(?:[,\/].*)?$/ or die "$prog: no port in '$v'\n"; $1 }

my $log = flag('log-file') // "$prog.log";
open my $lf, '>>', $log or die "$prog: $log: $!\n";
$lf->autoflush(1);
print $lf "[INFO] [$prog] started pid $$\n";

my $helpers = dirname(__FILE__);
# The fake-http.pl next to us, not next to a symlink to us.
$helpers = dirname(readlink(__FILE__)) if -l __FILE__;
my $answers = $ENV{FAKE_TIUP_HTTP} or die "$prog: FAKE_TIUP_HTTP is not set\n";
my ($set, $http_port);
if ($prog eq 'pd-server') { ($set, $http_port) = ('pd', port_of(flag('client-urls'))) }
elsif ($prog eq 'tikv-server') { ($set, $http_port) = ('tikv', port_of(flag('status-addr'))) }
elsif ($prog eq 'tidb-server') { ($set, $http_port) = ('tidb', flag('status')) }
elsif ($prog eq 'cdc') { ($set, $http_port) = ('cdc', port_of(flag('addr'))) }
else { die "fake-instance.pl: unknown server '$prog'\n" }

my @kids;
sub start {
	my @argv = @_;
	my $pid = fork // die "fork: $!\n";
	if (!$pid) {
		open STDOUT, '>>', $log;
		open STDERR, '>&', \*STDOUT;
		exec @argv or die "$prog: cannot run $argv[0]: $!\n";
	}
	push @kids, $pid;
}

if (!-d 'http') {
	system('cp', '-R', "$answers/$set", 'http') == 0 or die "$prog: no answers\n";
}
if ($prog eq 'cdc') {
	# TiCDC lists the capture at its advertised address once it has
	# registered: at once here.
	# GET /api/v2/status answers for this capture alone.
	my $at = flag('advertise-addr') // flag('addr');
	open my $f, '>', 'http/GET_api_v2_captures' or die "$prog: $!\n";
	print $f "200 application/json\n",
		qq({"items": [{"id": "$$", "is_owner": true, "address": "$at"}], "total": 1}\n);
	close $f;
	open $f, '>', 'http/GET_api_v2_status' or die "$prog: $!\n";
	print $f "200 application/json\n",
		qq({"version": "v8.5.0", "git_hash": "fake", "id": "$$", "pid": $$, "is_owner": true, "liveness": 0}\n);
	close $f;
}
my $regions = $ENV{FAKE_TIUP_REGIONS};
if ($prog ne 'tidb-server') {
	# One server, this process: fake-http.pl's (or fake-pd.pl's) loop,
	# its output to the log. It ends on TERM (exit 0) and never returns
	# otherwise.
	open STDOUT, '>>', $log or die "$prog: $log: $!\n";
	open STDERR, '>&', \*STDOUT or die "$prog: $!\n";
	my $server = 'fake-http.pl';
	@ARGV = ($http_port, 'http', 'requests.log');
	if ($prog eq 'pd-server' && defined $regions) {
		my $status = $ENV{FAKE_TIUP_TIDB_STATUS}
			or die "$prog: FAKE_TIUP_TIDB_STATUS is not set\n";
		$server = 'fake-pd.pl';
		@ARGV = ('--pd-port', $http_port, '--tidb-port', $status,
			 '--log', 'requests.log', '--canned', 'http',
			 split(' ', $regions));
	}
	do "$helpers/$server";
	print $lf "[ERROR] [$prog] $server: ", $@ || $! || "returned", "\n";
	exit 1;
}
start('perl', "$helpers/fake-http.pl", $http_port, 'http', 'requests.log')
	unless defined $regions;
if ($prog eq 'tidb-server') {
	my $port = flag('P') or die "$prog: no -P\n";
	my $here = getcwd();
	my $user = getpwuid($<);
	mkdir 'tmp';
	# Its own tmpdir: bootstraps side by side collide in a shared one.
	if (!-d 'data') {
		system('rm', '-rf', 'data.init');
		system("mariadb-install-db --no-defaults --datadir=$here/data.init " .
		       "--tmpdir=$here/tmp --auth-root-authentication-method=normal " .
		       "--skip-test-db --user=$user >install-db.log 2>&1") == 0
			or die "$prog: mariadb-install-db failed: " .
			       `tail -n 1 install-db.log`;
		rename 'data.init', 'data' or die "$!\n";
	}
	my $mariadbd = -x '/usr/sbin/mariadbd' ? '/usr/sbin/mariadbd' : 'mariadbd';
	start($mariadbd, '--no-defaults', "--datadir=$here/data",
	      "--port=$port", '--bind-address=127.0.0.1',
	      "--socket=$here/mariadbd.sock", "--tmpdir=$here/tmp",
	      "--pid-file=$here/mariadbd.pid", "--user=$user",
	      '--skip-name-resolve', '--innodb-buffer-pool-size=32M',
	      '--log-bin=binlog', '--binlog-format=ROW', "--server-id=$port",
	      '--performance-schema=OFF', '--version=8.0.11-TiDB-v8.5.0');
}

# The watchdog: when we are gone (killed), so are our servers.
my $parent = $$;
my $dog = fork // die "fork: $!\n";
if (!$dog) {
	$0 = 'fake-instance-watchdog';
	select(undef, undef, undef, 0.1) while getppid() == $parent;
	kill 'KILL', @kids;
	exit 0;
}

# mariadbd ignores TERM in its first moments: KILL after 10 s.
$SIG{TERM} = $SIG{INT} = sub {
	kill 'TERM', @kids;
	my %left = map { $_ => 1 } @kids;
	for (my $i = 0; %left && $i < 100; $i++) {
		for (keys %left) { delete $left{$_} if waitpid($_, WNOHANG) }
		select undef, undef, undef, 0.1 if %left;
	}
	kill 'KILL', keys %left;
	waitpid($_, 0) for keys %left;
	kill 'KILL', $dog;
	print $lf "[INFO] [$prog] stopped\n";
	exit 0;
};
# A server that dies takes the instance with it.
for (;;) {
	my $pid = waitpid(-1, 0);
	next if $pid <= 0 || $pid == $dog;
	print $lf "[ERROR] [$prog] server pid $pid exited: $?\n";
	kill 'TERM', @kids;
	kill 'KILL', $dog;
	exit 1;
}
