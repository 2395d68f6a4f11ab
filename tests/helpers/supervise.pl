#!/usr/bin/perl
# supervise.pl run DIR RESTART_SEC -- PROGRAM ARGS...
# supervise.pl stop DIR
# supervise.pl start DIR
#
# A supervisor of the tests' own, for components that something other
# than tichaos restarts (docs/topology.md, supervisor): systemd is not
# PID 1 where the tests run, so this behaves as systemd does a service
# unit of Type=simple with Restart=always and RestartSec=RESTART_SEC,
# which is how tiup cluster deploys every server (pingcap/tiup,
# embed/templates/systemd/system.service.tpl: Restart=always,
# RestartSec=15s). From systemd.service(5) and systemd's service.c:
#
# - Restart=always: the service is restarted whenever its main process
#   exits, cleanly or not, killed by a signal included, unless the exit
#   was systemd's own doing (a stop); RestartSec: the time to sleep
#   before that restart (the unit is "activating (auto-restart)" then).
# - `systemctl stop`: the main process gets KillSignal (SIGTERM), and
#   SIGKILL after TimeoutStopSec (90 s by default); a stop cancels a
#   pending restart; the unit is inactive and stays so.
# - `systemctl start` of an inactive unit starts it; of a unit waiting
#   to restart, it waits for that restart (service_start returns EAGAIN
#   in SERVICE_AUTO_RESTART: "the auto restart timer will eventually
#   trigger the restart"); of an active one, it does nothing. It returns
#   once the job is done: for Type=simple, once the process is forked.
# - `systemctl show -p MainPID --value` prints the main process's pid,
#   0 when there is none: DIR/main.pid here.
#
# `run` is the supervisor (the test starts it in a session of its own
# and kills that process group at the end); the process runs in that
# group, with stdin from /dev/null. DIR/supervisor.pid: its pid;
# DIR/journal: what it did, a line each ("started PID", "exited PID
# STATUS, restart in S s", "restarting", "stop", "stopped", "start");
# DIR/state: "active", "auto-restart" or "inactive". `stop` and `start`
# are systemctl's: they signal it (USR1, USR2) and return once it did
# what was asked, exit 1 when it did not within 30 s.
use strict;
use warnings;
use POSIX qw(:sys_wait_h);
use Time::HiRes qw(time sleep);

my ($cmd, $dir) = (shift // '', shift // '');
die "usage: supervise.pl run|stop|start DIR ...\n" unless $dir;

sub put {
	my ($name, $text) = @_;
	open(my $f, '>', "$dir/$name.tmp") or die "$dir/$name.tmp: $!\n";
	print $f $text;
	close($f);
	rename("$dir/$name.tmp", "$dir/$name") or die "$dir/$name: $!\n";
}

sub get {
	my ($name) = @_;
	open(my $f, '<', "$dir/$name") or return '';
	local $/;
	my $t = <$f> // '';
	chomp $t;
	return $t;
}

sub journal {
	open(my $f, '>>', "$dir/journal") or die "$dir/journal: $!\n";
	printf $f "%.3f %s\n", time, $_[0];
	close($f);
}

# stop / start: systemctl's side. Signal the supervisor, wait for the
# state asked for (start: active with a main pid).
if ($cmd eq 'stop' || $cmd eq 'start') {
	my $sup = get('supervisor.pid');
	kill($cmd eq 'stop' ? 'USR1' : 'USR2', $sup)
		or die "supervise.pl: no supervisor in $dir: $!\n";
	my $deadline = time + 30;
	while (time < $deadline) {
		my $state = get('state');
		exit 0 if $cmd eq 'stop' && $state eq 'inactive';
		exit 0 if $cmd eq 'start' && $state eq 'active' &&
			  get('main.pid') ne '0';
		sleep(0.02);
	}
	die "supervise.pl: $cmd: the unit in $dir is '" . get('state') .
	    "' after 30 s\n";
}
die "usage: supervise.pl run DIR RESTART_SEC -- PROGRAM ARGS...\n"
	unless $cmd eq 'run';

my $restart_sec = shift;
shift if @ARGV && $ARGV[0] eq '--';
die "usage: supervise.pl run DIR RESTART_SEC -- PROGRAM ARGS...\n"
	unless defined $restart_sec && $restart_sec =~ /^[0-9.]+$/ && @ARGV;
my @argv = @ARGV;
my ($child, $restart_at, $stopping) = (0, 0, 0);
my ($want_stop, $want_start) = (0, 0);

$SIG{USR1} = sub { $want_stop = 1 };
$SIG{USR2} = sub { $want_start = 1 };
$SIG{TERM} = sub { kill('TERM', $child) if $child; exit 0 };

sub start_child {
	my $pid = fork() // die "fork: $!\n";
	if (!$pid) {
		open(STDIN, '<', '/dev/null');
		exec(@argv) or die "exec $argv[0]: $!\n";
	}
	$child = $pid;
	put('main.pid', "$pid\n");
	put('state', 'active');
	journal("started $pid");
}

put('supervisor.pid', "$$\n");
put('main.pid', "0\n");
start_child();
for (;;) {
	# An end first: a stop asked for after it meets the restart due.
	if ($child && waitpid($child, WNOHANG) == $child) {
		my ($pid, $status) = ($child, $?);
		$child = 0;
		$restart_at = time + $restart_sec;
		put('main.pid', "0\n");
		put('state', 'auto-restart');
		journal("exited $pid $status, restart in $restart_sec s");
	}
	if ($want_stop) {
		$want_stop = 0;
		journal('stop');
		$restart_at = 0;
		if ($child) {
			my ($pid, $deadline) = ($child, time + 90);
			$stopping = 1;
			kill('TERM', $pid);
			while (waitpid($pid, WNOHANG) == 0) {
				kill('KILL', $pid) if time > $deadline;
				sleep(0.01);
			}
			$child = 0;
			$stopping = 0;
			journal("exited $pid $?, stopped");
		}
		put('main.pid', "0\n");
		put('state', 'inactive');
		journal('stopped');
	}
	if ($want_start) {
		$want_start = 0;
		journal('start');
		# Waiting to restart: the start job waits for that restart.
		start_child() if !$child && !$restart_at;
	}
	if ($restart_at && time >= $restart_at) {
		$restart_at = 0;
		journal('restarting');
		start_child();
	}
	sleep(0.02);
}
