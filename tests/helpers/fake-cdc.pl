#!/usr/bin/perl
# fake-cdc.pl --pd URL --addr HOST:PORT --log-file FILE [--cluster-id ID]
#             [--version V] [--hold FILE] [--newarch]
#             [--sink 'CMD ARGS...' --sink-status FILE]
#
# A TiCDC capture as tiflow (TiCDC up to v8.5) behaves, for the tests of
# what tichaos does to captures: their election in a real etcd (--pd, the
# local cluster's), their Open API v2 over HTTP on --addr. What it does,
# and where each behaviour is read from in pingcap/tiflow:
#
# - A capture (cdc/capture/capture.go, reset and run): a new etcd session
#   (a lease, TTL 10 s: CaptureSessionTTL) and a new capture id (a uuid),
#   registered as /tidb/cdc/<cluster>/__cdc_meta__/capture/<id> = its
#   CaptureInfo {"id", "address", "version", ...} on that lease
#   (pkg/etcd/etcdkey.go for the keys); then it campaigns for the owner
#   (concurrency.NewElection on /tidb/cdc/<cluster>/__cdc_meta__/owner: the
#   key <prefix>/<lease hex> = its id; the lowest create revision owns).
# - Its owner key deleted by someone else, or its lease gone
#   (runEtcdWorker: ErrEtcdSessionDone, or TimeToLive -1): the capture
#   kills itself (ErrCaptureSuicide) and Run() starts it again, reset: a
#   new session, a NEW capture id, registered and campaigning again. Run()
#   waits on rate.NewLimiter(0.05, 2) before every reset, the first one at
#   the start included: the start and one restart at once, then one every
#   20 s; its campaign loop has its own such limiter, per incarnation.
# - Its session done on the client's side (concurrency.Session over
#   clientv3's lessor, whose deadlineLoop closes the keep-alive once no
#   answer came for the TTL): "session is disconnected" (capture.go,
#   ErrEtcdSessionDone), the capture goes and Run() resets it, as above.
#   An etcd without quorum answers no keep-alive.
# - A reset that fails on its deadline (its etcd unreachable: pkg/etcd
#   client.go Grant, etcdClientTimeoutDuration) is tried again, after
#   the limiter ("capture recovered"); one that fails otherwise ends Run()
#   and the server exits 1 (pkg/cmd/server/server.go: "cdc server exits
#   with error"). A real one, tiflow v8.1.0 on three real PDs v8.1.2, two
#   killed for 8 s (docs/found.md): the reset's PD client asked a PD that
#   had no leader yet for a timestamp ("[PD:tso:ErrGenerateTimestamp]
#   generate timestamp failed, requested pd is not leader of cluster"),
#   and every capture exited. Here --pd is an etcd: the reset asks it for
#   its status (maintenance/status) first; unreachable, the reset is
#   tried again; answering without a leader, the server exits so.
# - POST /api/v2/owner/resign (cdc/api/v2/owner.go, forwarded to the
#   owner): the owner answers {} and then stops its owner role and resigns
#   its key (campaignOwner: "if owner exits, resign the owner key"), and
#   campaigns again as the same capture: same id, same session.
# - GET /api/v2/captures (cdc/api/v2/capture.go, forwarded to the owner):
#   {"items": [{"id", "is_owner", "address", "cluster_id"}], "total": N},
#   the captures registered in etcd. GET /api/v2/health: {} through the
#   owner. GET /api/v2/status: {"version", "git_hash", "id", "pid",
#   "cluster_id", "is_owner", "liveness"} of this capture (cdc/api/v2/
#   model.go ServerStatus). Requests a non-owner gets are
#   forwarded to the owner's address over HTTP, as ForwardToOwner does;
#   with no owner they fail with 500 CDC:ErrOwnerNotFound; before the
#   capture is ready (its first registration) with 503
#   CDC:ErrServerIsNotReady (cdc/api/middleware/middleware.go
#   CheckServerReadyMiddleware; errors as model.HTTPError, indented).
# - SIGTERM: a graceful stop: its capture key deleted, its lease revoked
#   (so its owner key goes too), exit 0.
#
# --newarch: a capture of TiCDC's new architecture (pingcap/ticdc, the
# same cdc binary run with --newarch: cmd/cdc/server/server.go), where it
# differs from the above:
# - Its capture info says "is-new-arch": true (server/server_prepare.go
#   registerNodeToEtcd, pkg/config/capture.go CaptureInfo).
# - The coordinator (the owner) watches no owner key (server/
#   module_election.go campaignCoordinator: once elected, it runs until
#   it stops). It stops when the election's first key (GetOwnerID, read
#   by the node manager at every tick, 50 ms: server/watcher/
#   module_node_manager.go) holds another capture's id (coordinator.go,
#   its owner-change handler), and campaigns again as the same capture,
#   after rate.Every(1s), burst 1. Its key deleted by someone else, it
#   goes on coordinating until then ("coordinator stop ID: OTHER owns");
#   alone, for good, with no key. (A candidate's key deleted while it
#   waits is not modelled: tichaos deletes the owner's.)
# - Its failpoint API, in every build (api/v2/failpoint.go, routed in
#   api/v2/api.go, on pingcap/failpoint at b51a646c7c86): POST
#   /debug/failpoints {"name","expr"} enables it (200 {}), GET lists the
#   enabled by name ([{"name","expr"}]), DELETE ?name=N disables it (200
#   {}, again too: the library keeps what it once registered); one never
#   enabled in this process is 500 {"error_msg":"error on N: failpoint:
#   failpoint does not exist","error_code":""}. A capture of the old one
#   has no such route: 404. (Nothing here is evaluated: tests/helpers/
#   go-probe evaluates failpoints on the library itself.)
# - Its lease gone, the server exits (server/server.go watchEtcdSession:
#   ErrCaptureSuicide ends Run; cmd/cdc/server/server.go exits 1):
#   "suicide ID: WHY", then "exit 1".
# - GET /api/v2/status has the same fields (api/v2/model.go
#   ServerStatus); POST /api/v2/owner/resign stops the coordinator, which
#   resigns its key and campaigns again (api/v2/coordinator.go
#   ResignOwner; campaignCoordinator); GET /api/v2/captures marks the
#   capture answering, the coordinator, as is_owner (api/v2/capture.go).
#
# --sink 'CMD ARGS...' (split on spaces): the changefeed's sink, a child
# process run while the capture owns (tests/helpers/fake-cdc-sink, with
# -status FILE added: --sink-status), stopped (SIGKILL) once it does not,
# started again a second after it exited while it still owns; it dies
# with the capture (PR_SET_PDEATHSIG), as a TiCDC sink is a part of its
# capture's process. Its stderr goes to the capture's log. GET
# /api/v2/changefeeds/{id} (cdc/api/v2/changefeed.go, forwarded to the
# owner) then answers the changefeed as the sink last wrote it in FILE:
# {"id", "state", "checkpoint_ts", "error": {"code", "message"}} (the
# fields cdc/api/v2/model.go ChangeFeedInfo has of them); before the
# sink first wrote it, 400 CDC:ErrChangeFeedNotExists.
#
# Started as `cdc server --log-file F --addr A --pd URL ...` is (TiCDC's
# tests/integration_tests/_utils/run_cdc_server), it takes `server` and
# flags it does not model; FAKE_CDC_SINK and FAKE_CDC_SINK_STATUS in its
# environment stand for --sink and --sink-status.
#
# --hold FILE: the capture registers only once FILE exists (its HTTP
# server answers meanwhile, not ready): a real capture's start, which can
# take seconds, held for as long as a test needs. Every step is one line
# in the log, after the milliseconds since the start: "started pid N",
# "init capture ID", "campaign KEY", "become owner ID", "resign ID",
# "suicide ID: WHY", "rate limited: wait N ms", "coordinator stop ID: OTHER
# owns", "reset failed on its deadline: capture recovered", "cdc server
# exits with error: ERROR", "exit 1", "sink started pid N", "sink pid N exited STATUS", "sink
# pid N stopped", "stopped". Core Perl only.
use strict;
use warnings;
use File::Basename qw(dirname);
use IO::Select;
use HTTP::Tiny;
use JSON::PP;
use MIME::Base64 qw(encode_base64 decode_base64);
use POSIX qw(WNOHANG);
use Time::HiRes qw(time sleep);
use lib dirname(__FILE__);
use FakeHTTP qw(listen_on read_request respond);

my %opt = ('cluster-id' => 'default', version => 'v8.5.0');
my %flags = (newarch => 1);
# As the cdc binary is started (`cdc server --log-file ...`): its
# subcommand first; its other flags (--log-level, --data-dir, ...) are
# taken and not modelled. As cdc.test, the test binary TiCDC's
# integration tests run (`go test -c` of cmd/cdc), is started by their
# run_cdc_server: Go's testing flags first (`-test.coverprofile=FILE
# server ...`), read by the testing package before the command's own; a
# graceful stop writes the coverage profile, which begins with its mode
# line (golang.org/x/tools/cover's format: "mode: atomic").
my %testflag;
while (@ARGV && $ARGV[0] =~ /^-test\.([a-z]+)=(.*)$/) {
	$testflag{$1} = $2;
	shift @ARGV;
}
shift @ARGV if @ARGV && $ARGV[0] eq 'server';
# A sink from the environment, for a capture started by a command line
# that is a real capture's (a topology made for TiCDC's own).
$opt{sink} = $ENV{FAKE_CDC_SINK} if defined $ENV{FAKE_CDC_SINK};
$opt{'sink-status'} = $ENV{FAKE_CDC_SINK_STATUS}
	if defined $ENV{FAKE_CDC_SINK_STATUS};
while (@ARGV) {
	my $a = shift @ARGV;
	$a =~ /^--?([a-z-]+)(?:=(.*))?$/ or die "fake-cdc: bad argument '$a'\n";
	$opt{$1} = defined $2 ? $2 : $flags{$1} ? 1 : shift @ARGV;
}
# The flag, else TICDC_NEWARCH=true in the environment, as
# isNewArchEnabled (cmd/cdc/server/server.go in pingcap/ticdc) reads them.
my $newarch = $opt{newarch} || ($ENV{TICDC_NEWARCH} // '') eq 'true';
die "fake-cdc: --sink needs --sink-status\n"
	if defined $opt{sink} && !defined $opt{'sink-status'};
for (qw(pd addr log-file)) {
	defined $opt{$_} or die "fake-cdc: --$_ is required\n";
}
my ($etcd, $addr) = ($opt{pd}, $opt{addr});
$etcd =~ s{/+$}{};
my $base = "/tidb/cdc/$opt{'cluster-id'}/__cdc_meta__";
my $owner_prefix = "$base/owner";
my $capture_prefix = "$base/capture";
my $ttl = 10;

open my $log, '>>', $opt{'log-file'} or die "fake-cdc: $opt{'log-file'}: $!\n";
$log->autoflush(1);
my $t0 = time;
sub say_log { printf $log "[INFO] [fake-cdc] [%d] %s\n", (time - $t0) * 1000, "@_" }

my $http = HTTP::Tiny->new(timeout => 5, no_proxy => ['127.0.0.1']);
my $json = JSON::PP->new->canonical;

# etcd's JSON gateway: POST /v3/PATH with BODY; the answer decoded.
sub etcd {
	my ($path, $body) = @_;
	my $r = $http->post("$etcd/v3/$path", {
		content => $json->encode($body),
		headers => { 'Content-Type' => 'application/json' } });
	die "fake-cdc: etcd $path: $r->{status} $r->{content}\n"
		unless $r->{success};
	return $json->decode($r->{content});
}
sub b64 { encode_base64($_[0], '') }
sub prefix_end { my $p = shift; substr($p, -1) = chr(ord(substr($p, -1)) + 1); $p }
sub range {
	my ($prefix) = @_;
	my $r = etcd('kv/range', { key => b64($prefix),
				   range_end => b64(prefix_end($prefix)) });
	return map { { key => decode_base64($_->{key}),
		       value => decode_base64($_->{value} // ''),
		       create => $_->{create_revision} } } @{$r->{kvs} // []};
}

# golang.org/x/time/rate's NewLimiter(RATE, BURST), full at first;
# (0.05, 2) unless given.
sub limiter {
	my ($rate, $burst) = @_ ? @_ : (0.05, 2);
	return { rate => $rate, burst => $burst, tokens => $burst, at => time() };
}
sub limiter_wait {
	my ($l) = @_;
	my $now = time;
	$l->{tokens} += ($now - $l->{at}) * $l->{rate};
	$l->{tokens} = $l->{burst} if $l->{tokens} > $l->{burst};
	$l->{at} = $now;
	$l->{tokens} -= 1;
	return $l->{tokens} >= 0 ? 0 : -$l->{tokens} / $l->{rate};
}

my $reset_limiter = limiter();
my ($lease, $id, $key, $campaign_limiter);
my ($ready, $owner, $campaigning, $resigning, $resign_asked) = (0) x 5;
my ($next_at, $next_step) = (0, '');	# the capture's next step
my $last_keepalive = 0;
# When the last keep-alive was answered: the session's deadline is TTL on.
my $last_alive = 0;
my $started = time;

sub lease_hex { sprintf '%x', $lease }

# The capture goes: its lease revoked (its keys with it).
sub drop_session {
	eval { etcd('kv/deleterange', { key => b64("$capture_prefix/$id") }) }
		if defined $id;
	eval { etcd('lease/revoke', { ID => "$lease" }) } if $lease;
	($lease, $owner, $campaigning) = (0, 0, 0);
}

sub schedule {
	my ($step, $limiter) = @_;
	my $wait = $limiter ? limiter_wait($limiter) : 0;
	say_log(sprintf 'rate limited: wait %d ms', $wait * 1000) if $wait > 0;
	($next_at, $next_step) = (time + $wait, $step);
}

sub suicide {
	my ($why) = @_;
	say_log("suicide $id: $why");
	drop_session();
	if ($newarch) {
		say_log('exit 1');
		exit 1;
	}
	schedule('reset', $reset_limiter);
}

sub step {
	return if !$next_step || time < $next_at;
	if ($next_step eq 'reset') {
		return if defined $opt{hold} && !-e $opt{hold};
		my $st = eval { etcd('maintenance/status', {}) };
		if (!$st) {
			say_log("reset failed on its deadline: capture recovered");
			return schedule('reset', $reset_limiter);
		}
		if (!$st->{leader}) {
			say_log('cdc server exits with error: [PD:tso:'
				. 'ErrGenerateTimestamp]generate timestamp failed, '
				. 'requested pd is not leader of cluster');
			say_log('exit 1');
			exit 1;
		}
		$lease = etcd('lease/grant', { TTL => $ttl })->{ID};
		my @h = map { sprintf '%02x', int rand 256 } 1 .. 16;
		$h[6] = sprintf '%02x', 0x40 | (hex($h[6]) & 0x0f);
		$h[8] = sprintf '%02x', 0x80 | (hex($h[8]) & 0x3f);
		my $u = join '', @h;
		$id = join '-', substr($u, 0, 8), substr($u, 8, 4),
			substr($u, 12, 4), substr($u, 16, 4), substr($u, 20);
		etcd('kv/put', { key => b64("$capture_prefix/$id"),
				 value => b64($json->encode({
					id => $id, address => $addr,
					version => $opt{version},
					'git-hash' => 'fake',
					'deploy-path' => $0,
					'start-timestamp' => int $started,
					$newarch ? ('is-new-arch' => JSON::PP::true)
						 : () })),
				 lease => "$lease" });
		$last_keepalive = $last_alive = time;
		$ready = 1;
		say_log("init capture $id");
		$campaign_limiter = $newarch ? limiter(1, 1) : limiter();
		schedule('campaign', $campaign_limiter);
	} elsif ($next_step eq 'campaign') {
		$key = "$owner_prefix/" . lease_hex();
		etcd('kv/put', { key => b64($key), value => b64($id),
				 lease => "$lease" });
		$campaigning = 1;
		$next_step = '';
		say_log("campaign $key");
	}
}

# Every 50 ms: the session kept alive and checked, the election read.
sub watch {
	return unless $lease;
	return suicide('session done') if time - $last_alive >= $ttl;
	if (time - $last_keepalive >= 3) {
		$last_keepalive = time;
		my $ka = etcd('lease/keepalive', { ID => "$lease" });
		$last_alive = time if ($ka->{result}{TTL} // 0) > 0;
	}
	my $left = etcd('lease/timetolive', { ID => "$lease" })->{TTL} // -1;
	return suicide('lease gone') if $left <= 0;
	return unless $campaigning;
	my @kvs = sort { $a->{create} <=> $b->{create} } range("$owner_prefix/");
	my ($own) = grep { $_->{key} eq $key } @kvs;
	if (!$own && $resigning) {
		# Our own resign: campaign again, same capture.
		($resigning, $owner, $campaigning) = (0, 0, 0);
		return schedule('campaign', $campaign_limiter);
	}
	if ($newarch && $owner) {
		# The coordinator: on, until another capture's id is first.
		return if !@kvs || $kvs[0]{value} eq $id;
		say_log("coordinator stop $id: $kvs[0]{value} owns");
		($owner, $campaigning) = (0, 0);
		return schedule('campaign', $campaign_limiter);
	}
	if (!$own) {
		return suicide('owner key deleted') if !$newarch;
		say_log("candidate key deleted: not modelled");
		$campaigning = 0;
		return;
	}
	if (!$owner && $kvs[0]{key} eq $key) {
		$owner = 1;
		say_log("become owner $id");
	}
}

# The owner resigns after it answered, as AsyncStop lets the owner finish.
sub resign {
	say_log("resign $id");
	$resigning = 1;
	eval { etcd('kv/deleterange', { key => b64($key) }) };
}

sub error_doc {
	my ($code, $msg) = @_;
	return JSON::PP->new->canonical->indent->indent_length(4)->encode(
		{ error_msg => "[CDC:$code]$msg", error_code => "CDC:$code" });
}

sub captures {
	my ($owner_id) = map { $_->{value} }
		sort { $a->{create} <=> $b->{create} } range("$owner_prefix/");
	my @items = map {
		my $info = $json->decode($_->{value});
		my $is = $newarch ? $info->{id} eq $id
				  : $info->{id} eq ($owner_id // '');
		{ id => $info->{id}, is_owner => ($is ? JSON::PP::true
						     : JSON::PP::false),
		  address => $info->{address}, cluster_id => $opt{'cluster-id'} }
	} range("$capture_prefix/");
	return { items => \@items, total => scalar @items };
}

# The owner's address, from its capture info; undef when there is none.
sub owner_address {
	my ($owner_id) = map { $_->{value} }
		sort { $a->{create} <=> $b->{create} } range("$owner_prefix/");
	return undef unless defined $owner_id;
	my ($info) = range("$capture_prefix/$owner_id");
	return $info ? $json->decode($info->{value})->{address} : undef;
}

# The failpoints of --newarch: name => expr, and every name ever enabled.
my (%fp, %fp_known);

# (status, body) of the new architecture's /debug/failpoints.
sub failpoints {
	my ($method, $body, $query) = @_;
	if ($method eq 'GET') {
		return (200, $json->encode([map { { name => $_, expr => $fp{$_} } }
					    sort keys %fp]));
	}
	my $req = eval { $json->decode($body // '') } // {};
	if ($method eq 'POST') {
		my ($n, $x) = map { my $v = $_ // ''; $v =~ s/^\s+|\s+$//g; $v }
			$req->{name}, $req->{expr};
		return (400, error_doc('ErrAPIInvalidParam', 'invalid api '
			. 'parameter: name and expr are required'))
			if $n eq '' || $x eq '';
		($fp{$n}, $fp_known{$n}) = ($x, 1);
		return (200, '{}');
	}
	return (404, "404 page not found\n") unless $method eq 'DELETE';
	my ($n) = ($query // '') =~ /(?:^|&)name=([^&]*)/;
	$n = $req->{name} unless defined $n && $n ne '';
	$n //= '';
	$n =~ s/%([0-9A-Fa-f]{2})/chr hex $1/ge;
	return (400, error_doc('ErrAPIInvalidParam', 'invalid api parameter: '
		. 'name is required')) if $n eq '';
	return (500, JSON::PP->new->canonical->indent->indent_length(4)->encode(
		{ error_msg => "error on $n: failpoint: failpoint does not exist",
		  error_code => '' })) unless $fp_known{$n};
	delete $fp{$n};
	return (200, '{}');
}

# (status, body) for METHOD PATH (BODY and QUERY as they came).
sub handle {
	my ($method, $path, $body, $query) = @_;
	my $ok = sub { (200, $json->encode($_[0])) };
	return failpoints($method, $body, $query)
		if $newarch && $path eq '/debug/failpoints';
	if ($method eq 'GET' && $path eq '/api/v2/status') {
		return $ok->({ version => $opt{version}, git_hash => 'fake',
			       id => $id // '', pid => $$,
			       cluster_id => $opt{'cluster-id'},
			       is_owner => $owner ? JSON::PP::true : JSON::PP::false,
			       liveness => 0 });
	}
	my %known = ('GET /api/v2/captures' => 1, 'GET /api/v2/health' => 1,
		     'POST /api/v2/owner/resign' => 1);
	my $feed = $method eq 'GET' && defined $opt{sink} &&
		$path =~ m{^/api/v2/changefeeds/([\w.-]+)(?:\?.*)?$} ? $1 : undef;
	return (404, "404 page not found\n")
		unless $known{"$method $path"} || defined $feed;
	return (503, error_doc('ErrServerIsNotReady', 'cdc server is not ready'))
		unless $ready;
	watch();	# whether we own now: never forward to ourselves
	if (!$owner) {
		my $to = owner_address();
		return (500, error_doc('ErrOwnerNotFound', 'owner not found'))
			unless defined $to;
		my $r = $http->request($method, "http://$to$path");
		return ($r->{status}, $r->{content});
	}
	return $ok->(captures()) if $path eq '/api/v2/captures';
	return changefeed($feed) if defined $feed;
	$resign_asked = 1 if $path eq '/api/v2/owner/resign';
	return $ok->({});
}

# The sink: running while this capture owns.
my ($sink_pid, $sink_after) = (0, 0);
sub sink_sync {
	return unless defined $opt{sink};
	if ($sink_pid && waitpid($sink_pid, WNOHANG) == $sink_pid) {
		say_log("sink pid $sink_pid exited $?");
		($sink_pid, $sink_after) = (0, time + 1);
	}
	if ($owner && !$sink_pid && time >= $sink_after) {
		my @argv = (split(' ', $opt{sink}), '-status', $opt{'sink-status'});
		my $pid = fork;
		die "fake-cdc: fork: $!\n" unless defined $pid;
		if (!$pid) {
			open STDERR, '>>', $opt{'log-file'} or POSIX::_exit(127);
			open STDOUT, '>&', \*STDERR;
			exec @argv or POSIX::_exit(127);
		}
		$sink_pid = $pid;
		say_log("sink started pid $pid");
	} elsif (!$owner && $sink_pid) {
		kill 'KILL', $sink_pid;
		waitpid($sink_pid, 0);
		say_log("sink pid $sink_pid stopped");
		$sink_pid = 0;
	}
}

# GET /api/v2/changefeeds/ID: the sink's status file, as TiCDC's answer.
sub changefeed {
	my ($cf) = @_;
	open my $f, '<', $opt{'sink-status'} or return (400, error_doc(
		'ErrChangeFeedNotExists', "changefeed not exists, $cf"));
	local $/;
	my $doc = eval { $json->decode(<$f>) };
	return (500, error_doc('ErrChangeFeedNotExists', 'bad status file'))
		unless $doc;
	$doc->{id} = $cf;
	return (200, $json->encode($doc));
}

my $server = listen_on('fake-cdc', $addr);
$SIG{PIPE} = 'IGNORE';
my $stop = 0;
$SIG{TERM} = $SIG{INT} = sub { $stop = 1 };
say_log("started pid $$");
schedule('reset', $reset_limiter);
my $sel = IO::Select->new($server);
my $last_watch = 0;
while (!$stop) {
	if ($sel->can_read(0.02)) {
		my $c = $server->accept;
		if ($c) {
			my ($method, $path, $in, $query) = read_request($c);
			if ($method) {
				my ($status, $body) = eval {
					handle($method, $path, $in, $query) };
				($status, $body) = (500, error_doc('ErrPDEtcdAPIError', $@))
					unless defined $status;
				say_log("$method $path: $status",
					$path =~ /captures/ ? $body : '');
				my $type = $status == 404 ? 'text/plain; charset=utf-8'
							  : 'application/json; charset=utf-8';
				respond($c, $status, $type, $body);
			}
			close $c;
		}
	}
	if ($resign_asked) {
		$resign_asked = 0;
		resign() if $owner;
	}
	eval { step() };
	say_log("etcd: $@") if $@;
	if (time - $last_watch >= 0.05) {
		$last_watch = time;
		eval { watch() };
		say_log("etcd: $@") if $@;
	}
	sink_sync();
}
drop_session();
sink_sync();
if (defined $testflag{coverprofile}) {
	open my $cov, '>', $testflag{coverprofile}
		or die "fake-cdc: cannot write $testflag{coverprofile}: $!\n";
	print $cov "mode: atomic\n";
	close $cov;
}
say_log('stopped');
exit 0;
