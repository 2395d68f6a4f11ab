#!/usr/bin/perl
# fake-pd.pl: a stateful PD (and the TiDB status port's region listing) for
# the tests of the `region` fault (t0455): PD and TiKV cannot run here.
#
#   fake-pd.pl --pd-port P --tidb-port T --log LOG --db DB
#              --table NAME=ID[/N] | --table NAME=PART:ID[/N],PART:ID[/N]...
#              [--stores S] [--replicas N] [--delay-ms MS] [--hold]
#              [--pending REGION]
#              [--hot REGION]
#              [--empty REGION] [--unbootstrapped] [--canned DIR]
#
# It holds TiKV's regions and stores and serves, on 127.0.0.1:P, what PD's
# API answers about them, as tikv/pd does (read in tikv/pd at
# server/api/router.go, server/api/region.go, server/api/operator.go,
# pkg/schedule/handler/handler.go HandleOperatorCreation and the Add*Operator
# functions, pkg/response/region.go RegionInfo, pkg/errs/errno.go,
# pkg/schedule/operator/operator_controller.go OpWithStatus):
#
#   GET  /pd/api/v1/region/id/{id}   the RegionInfo (id, start_key and
#        end_key in upper-case hex, epoch {conf_ver, version} with zero
#        members left out as protobuf's JSON does, peers and leader
#        {id, store_id, role_name}, pending_peers when there are); 404 with
#        "[PD:region:ErrRegionNotFound]region N not found" (a JSON string,
#        as every PD error) when it has none; 400 for an id that is not a
#        number (Go's strconv message)
#   GET  /pd/api/v1/region/key/{hex}?format=hex  the region holding the
#        key; 404 "...region %!v(MISSING) not found" (PD formats the error
#        without its argument)
#   POST /pd/api/v1/operators   transfer-leader {region_id, to_store_id},
#        split-region {region_id, policy, keys}, merge-region
#        {source_region_id, target_region_id}, scatter-region {region_id}:
#        validated as HandleOperatorCreation does (400 "missing operator
#        name", "missing region id", "missing store id to transfer leader
#        to", "missing split policy", "bad format keys", "invalid target
#        region id to merge to", "unknown operator"; 500 with the errors of
#        the Add*Operator functions: ErrRegionNotFound, "region has no
#        voter in store N", "check policy X is not supported", "split key X
#        is not in hex format", ErrRegionAbnormalPeer for a region with a
#        pending peer, ErrRegionNotAdjacent, ErrAddOperator while the
#        region has an operator running); 200 "The operator is created."
#   GET  /pd/api/v1/operators/{id}  "status: RUNNING|SUCCESS, operator:
#        DESC {BRIEF} (kind:admin, region:ID(VERSION, CONF_VER), createAt:T)"
#        (a JSON string; PD's operator text has more after createAt),
#        500 "[PD:operator:ErrOperatorNotFound]operator not found"
#
# Answers are rendered as PD's IndentJSON render does (a JSON string plus a
# newline), the RegionInfo compact (easyjson, rd.Data). An operator is
# applied --delay-ms (default 300) after it was created, as TiKV carries
# it out later on a real cluster: the leader moves; a split cuts the region
# at the middle of its range (TiKV's scan finds a middle key; keys given
# with usekey are used as they are), the original id keeping the right
# part and both parts one version up (TiKV's right-derive-when-split); a
# merge extends the target over the source, one version above the higher
# of the two, and the source is gone; a scatter moves the peer of the
# lowest non-leader store to the lowest store without a peer (conf_ver up
# by 2) and, when every store has a peer, creates no operator at all (PD's
# scatterer returns none, and the API still answers 200); a region given
# with --hot is one PD holds hot, whose scatter it refuses (500 "region N
# is a hot region", pkg/schedule/handler/handler.go
# AddScatterRegionOperator, read at v8.1.2). --hold: accepted
# operators are never applied (they stay RUNNING). A region holds keys
# (approximate_keys 1000, as TiKV's heartbeats report them) unless it is
# given with --empty: then it counts none, and a split by scan or
# approximate finds no key in it (TiKV's split check sends PD nothing and
# PD's operator stays RUNNING until its step's time, FastStepWaitTime,
# 60 s: tikv/pd pkg/schedule/operator/step.go SplitRegion).
#
# On 127.0.0.1:T it answers TiDB's GET /tables/{db}/{table}/regions from
# the same regions (pingcap/tidb pkg/server/handler/tikvhandler/
# tikv_handler.go: TableRegions {name, id, record_regions [{region_id,
# leader, peers, region_epoch}], indices}, one per partition in an array for
# a partitioned table; the regions overlapping the table's record range
# t{id}_r .. t{id}_s; handler.WriteData indents by one space), 400 with
# "[schema:1146]Table 'DB.NAME' doesn't exist" for another table, and
# GET /status ({connections, version, git_hash}, a TiDB 8.5 version).
#
# Keys are TiDB's: "t", the table id as a comparable int64, "_r", and a
# handle, then memcomparable-encoded (codec.EncodeBytes) as TiKV stores
# them. The regions at start: one from "" to the first table, N over each
# table's (or partition's) records (split at handles 1000, 2000, ...), one
# between tables, one to the end; ids 2, 4, 6, ... in key order, three
# voters each on stores 1, 2, 3, the leader on store (index mod 3) + 1.
# --replicas N: N voters each (stores 1 to N, the leader on (index mod
# N) + 1), as a cluster of N TiKVs has them. PD wants max-replicas, 3 by
# default, and merges only regions that have them, refusing a source,
# then a target, with fewer (500 ErrRegionAbnormalPeer: handler.go
# AddMergeRegionOperator, filter.IsRegionReplicated, read at v8.1.2), as
# a real PD v8.1.2 over one TiKV refused every merge.
# --canned DIR: a PD request it does not model (the health and leader
# that the playground's readiness asks) is answered from DIR as
# fake-http.pl answers (DIR/GET_pd_api_v1_health: status line, body), so
# that it can stand for a playground's pd-server (fake-instance.pl).
# Every request goes to LOG as "PD|TIDB METHOD PATH[ BODY]". PD's GET /
# answers 404 "404 page not found" and GET /pd/api/v1/health the one
# member healthy, as a real pd-server built without its dashboard did
# (v9.0.0-beta.2.pre, tikv/pd a186e0cc, run here by hand): its readiness
# URL is /pd/api/v1/health, not its origin. --unbootstrapped: PD without
# any TiKV store, as that pd-server answered alone: every region and
# operator read 500 "[PD:cluster:ErrNotBootstrapped]TiKV cluster not
# bootstrapped, please start TiKV first" (a JSON string, whatever the id),
# and POST /pd/api/v1/operators with a known operator a Go panic caught by
# negroni's Recovery: 500, text/plain, "PANIC: runtime error: invalid
# memory address or nil pointer dereference" and its stack, many lines
# (the handler's GetRegion on a nil RaftCluster). SIGTERM ends it. Core
# Perl only.
use strict;
use warnings;
use File::Basename qw(dirname);
use IO::Select;
use B;
use lib dirname(__FILE__);
use FakeHTTP qw(listen_on read_request respond go_404);
use JSON::PP;
use Time::HiRes qw(time);

my (%opt, @tables, @pending, %empty, %hot);
while (@ARGV) {
	my $a = shift @ARGV;
	if ($a =~ /^--(pd-port|tidb-port|log|db|stores|replicas|delay-ms|canned)$/) { $opt{$1} = shift @ARGV }
	elsif ($a eq '--table') { push @tables, shift @ARGV }
	elsif ($a eq '--pending') { push @pending, shift @ARGV }
	elsif ($a eq '--empty') { $empty{shift @ARGV} = 1 }
	elsif ($a eq '--hot') { $hot{shift @ARGV} = 1 }
	elsif ($a eq '--hold') { $opt{hold} = 1 }
	elsif ($a eq '--unbootstrapped') { $opt{unbootstrapped} = 1 }
	else { die "fake-pd.pl: unknown argument '$a'\n" }
}
defined $opt{$_} or die "fake-pd.pl: --$_ is required\n" for qw(pd-port tidb-port log db);
my $nstores = $opt{stores} // 4;
my $replicas = $opt{replicas} // 3;
my $max_replicas = 3;	# PD's replication.max-replicas, its default
my $delay = ($opt{'delay-ms'} // 300) / 1000;
my $json = JSON::PP->new->canonical;

# --- keys -------------------------------------------------------------------
sub enc_int { my ($v) = @_; pack('Q>', $v ^ (1 << 63)) }
# codec.EncodeBytes: groups of 8, each followed by 0xFF minus its padding.
sub enc_bytes {
	my ($raw) = @_;
	my $out = '';
	for (my $i = 0; ; $i += 8) {
		my $g = substr($raw, $i, 8);
		my $pad = 8 - length $g;
		$out .= $g . ("\0" x $pad) . chr(0xFF - $pad);
		last if $pad;
	}
	return $out;
}
sub record_key { my ($id, $h) = @_; enc_bytes('t' . enc_int($id) . '_r' . (defined $h ? enc_int($h) : '')) }
sub table_key { my ($id) = @_; enc_bytes('t' . enc_int($id)) }
sub hexkey { uc unpack('H*', $_[0]) }

# The middle of [s, e) as byte strings ("" e: the end of the key space).
sub middle {
	my ($s, $e) = @_;
	my $l = (length($s) > length($e) ? length($s) : length($e)) + 1;
	my @a = unpack('C*', $s . ("\0" x ($l - length $s)));
	my @b = length $e ? unpack('C*', $e . ("\0" x ($l - length $e))) : (255) x $l;
	my @sum = (0) x $l;
	my $carry = 0;
	for (my $i = $l - 1; $i >= 0; $i--) {
		my $v = $a[$i] + $b[$i] + $carry;
		$sum[$i] = $v & 255;
		$carry = $v >> 8;
	}
	my @m;
	for my $i (0 .. $l - 1) {
		my $v = $carry * 256 + $sum[$i];
		push @m, $v >> 1;
		$carry = $v & 1;
	}
	my $m = pack('C*', @m);
	$m =~ s/\0+\z//;
	return $m;
}

# --- state ------------------------------------------------------------------
# Tables: [name, [[part or undef, id, n], ...]].
my (@phys, %tables);
for my $t (@tables) {
	my ($name, $spec) = $t =~ /^([^=]+)=(.+)$/ or die "fake-pd.pl: bad --table '$t'\n";
	for my $p (split /,/, $spec) {
		my ($part, $id, $n) = $p =~ /^(?:([^:]+):)?(\d+)(?:\/(\d+))?$/
			or die "fake-pd.pl: bad --table '$t'\n";
		push @{$tables{$name}}, [$part, $id, $n // 1];
		push @phys, [$id, $n // 1];
	}
}
my @bounds = ('');
for my $p (sort { $a->[0] <=> $b->[0] } @phys) {
	my ($id, $n) = @$p;
	push @bounds, record_key($id), map({ record_key($id, 1000 * $_) } 1 .. $n - 1),
		table_key($id + 1);
}
my (@regions, $next_id);
$next_id = 1000;
for my $i (0 .. $#bounds) {
	my $r = { id => 2 * ($i + 1), start => $bounds[$i],
		  end => $i < $#bounds ? $bounds[$i + 1] : '',
		  conf_ver => 5, version => 1 + $i, peers => [] };
	push @{$r->{peers}}, { id => $next_id++, store_id => $_ } for 1 .. $replicas;
	$r->{leader} = $r->{peers}[$i % $replicas];
	push @regions, $r;
}
for my $id (@pending) {
	my ($r) = grep { $_->{id} == $id } @regions or die "fake-pd.pl: no region $id\n";
	$r->{pending} = [$r->{peers}[-1]];
}
my %ops;	# region id -> {desc, brief, status, due, apply}

sub by_id { my ($id) = @_; (grep { $_->{id} == $id } @regions)[0] }
sub by_key {
	my ($k) = @_;
	(grep { $_->{start} le $k && ($_->{end} eq '' || $k lt $_->{end}) } @regions)[0];
}
sub sorted { @regions = sort { $a->{start} cmp $b->{start} } @regions }

# --- answers ----------------------------------------------------------------
sub peer_json {
	my ($p, $pd) = @_;
	my %o = (id => $p->{id}, store_id => $p->{store_id});
	$o{role_name} = 'Voter' if $pd;
	return \%o;
}
sub epoch_json {
	my ($r) = @_;
	my %e;
	$e{conf_ver} = $r->{conf_ver} if $r->{conf_ver};
	$e{version} = $r->{version} if $r->{version};
	return \%e;
}
sub region_json {
	my ($r) = @_;
	my %o = (id => $r->{id}, start_key => hexkey($r->{start}),
		 end_key => hexkey($r->{end}), epoch => epoch_json($r),
		 peers => [map { peer_json($_, 1) } @{$r->{peers}}],
		 leader => peer_json($r->{leader}, 1),
		 cpu_usage => 0, written_bytes => 0, read_bytes => 0,
		 written_keys => 0, read_keys => 0, approximate_size => 1,
		 approximate_keys => $empty{$r->{id}} ? 0 : 1000,
		 approximate_kv_size => 0,
		 approximate_columnar_kv_size => 0);
	$o{pending_peers} = [map { peer_json($_, 1) } @{$r->{pending}}] if $r->{pending};
	return $json->encode(\%o);
}
# PD's rd.JSON with IndentJSON: a string value plus a newline.
sub pd_string { my ($code, $s) = @_; ($code, 'application/json; charset=UTF-8', JSON::PP->new->canonical->allow_nonref->encode($s) . "\n") }

sub op_text {
	my ($id, $o) = @_;
	my $r = by_id($id);
	my ($v, $c) = $r ? ($r->{version}, $r->{conf_ver}) : (0, 0);
	return "status: $o->{status}, operator: $o->{desc} {$o->{brief}} (kind:admin, region:$id($v, $c), createAt:$o->{created})" .
		($o->{status} eq 'SUCCESS' ? ' finished' : '');
}

sub add_op {
	my ($id, $desc, $brief, $apply) = @_;
	$ops{$id} = { desc => $desc, brief => $brief, status => 'RUNNING',
		      created => sprintf('%.6f', time),
		      due => time + $delay, apply => $apply };
}
# A JSON number, as Go's input["..."].(float64) takes (not a string).
sub num {
	my ($v) = @_;
	return 0 if !defined $v || ref $v;
	my $f = B::svref_2object(\$v)->FLAGS;
	return ($f & (B::SVp_IOK | B::SVp_NOK)) && !($f & B::SVp_POK);
}
sub busy { my ($id) = @_; $ops{$id} && $ops{$id}{status} eq 'RUNNING' }
sub not_found { pd_string(500, "[PD:region:ErrRegionNotFound]region $_[0] not found") }
my $add_failed = '[PD:operator:ErrAddOperator]failed to add operator, maybe already have one';

sub split_at {
	my ($r, @keys) = @_;
	for my $k (@keys) {
		next unless $k gt $r->{start} && ($r->{end} eq '' || $k lt $r->{end});
		my $left = { id => $next_id++, start => $r->{start}, end => $k,
			     conf_ver => $r->{conf_ver}, version => $r->{version} + 1,
			     peers => [map { { id => $next_id++, store_id => $_->{store_id} } } @{$r->{peers}}] };
		($left->{leader}) = grep { $_->{store_id} == $r->{leader}{store_id} } @{$left->{peers}};
		$r->{start} = $k;
		$r->{version}++;
		push @regions, $left;
	}
	sorted();
}

sub transfer_leader {
	my ($in) = @_;
	my $rid = $in->{region_id};
	my $to = $in->{to_store_id};
	return pd_string(400, 'missing region id') unless num($rid);
	return pd_string(400, 'missing store id to transfer leader to') unless num($to);
	my $r = by_id($rid) or return not_found($rid);
	my ($p) = grep { $_->{store_id} == $to } @{$r->{peers}};
	return pd_string(500, "region has no voter in store $to") unless $p;
	return pd_string(500, $add_failed) if busy($rid);
	add_op($rid, 'admin-transfer-leader', "transfer leader: store $r->{leader}{store_id} to $to",
	       sub { $r->{leader} = $p });
	return;
}

sub split_region {
	my ($in) = @_;
	my $rid = $in->{region_id};
	return pd_string(400, 'missing region id') unless num($rid);
	my $policy = $in->{policy};
	return pd_string(400, 'missing split policy') unless defined $policy && !ref $policy;
	my @keys;
	if (exists $in->{keys}) {
		for my $k (@{$in->{keys}}) {
			return pd_string(400, 'bad format keys') if ref $k || !defined $k;
			push @keys, $k;
		}
	}
	my $r = by_id($rid) or return not_found($rid);
	return pd_string(500, "check policy $policy is not supported")
		unless uc($policy) =~ /^(SCAN|APPROXIMATE|USEKEY)$/;
	my @split;
	if (uc $policy eq 'USEKEY') {
		for my $k (@keys) {
			return pd_string(500, "split key $k is not in hex format") unless $k =~ /^([0-9A-Fa-f]{2})*$/;
			push @split, pack('H*', $k);
		}
	}
	return pd_string(500, $add_failed) if busy($rid);
	my $none = !@split && $empty{$rid};	# no key found: never done
	add_op($rid, 'admin-split-region', "split: region $rid use policy " . uc($policy),
	       $none ? undef : sub { split_at($r, @split ? sort @split : middle($r->{start}, $r->{end})) });
	return;
}

sub merge_region {
	my ($in) = @_;
	my ($sid, $tid) = @{$in}{qw(source_region_id target_region_id)};
	return pd_string(400, 'missing region id') unless num($sid);
	return pd_string(400, 'invalid target region id to merge to') unless num($tid);
	my $s = by_id($sid) or return not_found($sid);
	my $t = by_id($tid) or return not_found($tid);
	for ([$sid, $s], [$tid, $t]) {
		my ($id, $r) = @$_;
		return pd_string(500, "[PD:region:ErrRegionAbnormalPeer]region $id has abnormal peer")
			if $r->{pending} || @{$r->{peers}} != $max_replicas;
	}
	return pd_string(500, '[PD:region:ErrRegionNotAdjacent]two regions are not adjacent')
		if ($s->{start} ne $t->{end} || $s->{start} eq '') && ($s->{end} ne $t->{start} || $s->{end} eq '');
	return pd_string(500, $add_failed) if busy($sid) || busy($tid);
	my $apply = sub {
		$t->{start} = $s->{start} if $s->{end} eq $t->{start};
		$t->{end} = $s->{end} if $s->{start} eq $t->{end};
		$t->{version} = ($s->{version} > $t->{version} ? $s->{version} : $t->{version}) + 1;
		$t->{conf_ver} = $s->{conf_ver} if $s->{conf_ver} > $t->{conf_ver};
		@regions = grep { $_ != $s } @regions;
	};
	add_op($sid, 'admin-merge-region', "merge: region $sid to $tid", $apply);
	add_op($tid, 'admin-merge-region', "merge: region $sid to $tid", sub { });
	return;
}

sub scatter_region {
	my ($in) = @_;
	my $rid = $in->{region_id};
	return pd_string(400, 'missing region id') unless num($rid);
	my $r = by_id($rid) or return not_found($rid);
	# A region PD holds hot (its writes at the hot threshold, 1 KiB/s or
	# 32 keys/s by default): refused before the scatterer is asked
	# (AddScatterRegionOperator's errors.Errorf, a JSON string).
	return pd_string(500, "region $rid is a hot region") if $hot{$rid};
	my %has = map { $_->{store_id} => 1 } @{$r->{peers}};
	my ($free) = grep { !$has{$_} } 1 .. $nstores;
	return unless $free;	# nothing to move: no operator, still 200
	my ($from) = sort { $a->{store_id} <=> $b->{store_id} }
		grep { $_ != $r->{leader} } @{$r->{peers}};
	return pd_string(500, $add_failed) if busy($rid);
	add_op($rid, 'scatter-region', "mv peer: store [$from->{store_id}] to [$free]", sub {
		$from->{store_id} = $free;
		$from->{id} = $next_id++;
		$r->{conf_ver} += 2;
	});
	return;
}

sub create_operator {
	my ($body) = @_;
	my $in = eval { decode_json($body) };
	return pd_string(400, "invalid JSON: $@") if !$in || ref $in ne 'HASH';
	my $name = $in->{name};
	return pd_string(400, 'missing operator name') unless defined $name && !ref $name;
	my %by = ('transfer-leader' => \&transfer_leader, 'split-region' => \&split_region,
		  'merge-region' => \&merge_region, 'scatter-region' => \&scatter_region);
	return pd_string(400, 'unknown operator') unless $by{$name};
	my @refused = $by{$name}->($in);
	return @refused if @refused;
	return pd_string(200, 'The operator is created.');
}

# A pd-server with no store: region reads refused, an operator a panic.
sub unbootstrapped {
	my ($method, $path, $body) = @_;
	if ($method eq 'POST' && $path eq '/pd/api/v1/operators') {
		my $in = eval { decode_json($body) };
		return create_operator($body) unless ref $in eq 'HASH' && defined $in->{name} &&
			$in->{name} =~ /^(transfer-leader|split-region|merge-region|scatter-region)$/;
		return (500, 'text/plain; charset=utf-8', "PANIC: runtime error: invalid memory address or nil pointer dereference\n"
			. "goroutine 850 [running]:\n"
			. "github.com/urfave/negroni/v3.(*Recovery).ServeHTTP.func1()\n"
			. "\t/go/pkg/mod/github.com/urfave/negroni/v3\@v3.1.1/recovery.go:168 +0x125\n"
			. "github.com/tikv/pd/server/cluster.(*RaftCluster).GetRegion(0x29f4554?, 0x5?)\n"
			. "\t<autogenerated>:1\n");
	}
	return pd_string(500, '[PD:cluster:ErrNotBootstrapped]TiKV cluster not bootstrapped, please start TiKV first')
		if $method eq 'GET' && $path =~ m{^/pd/api/v1/(region/(id|key)|operators)/};
	return;
}

sub pd_answer {
	my ($method, $path, $query, $body) = @_;
	return pd_string(200, [{ name => 'pd', member_id => 1, client_urls => ["http://127.0.0.1:$opt{'pd-port'}"],
				 health => JSON::PP::true }])
		if $method eq 'GET' && $path eq '/pd/api/v1/health' && !defined $opt{canned};
	if ($opt{unbootstrapped}) {
		my @a = unbootstrapped($method, $path, $body);
		return @a if @a;
	}
	if ($method eq 'GET' && $path =~ m{^/pd/api/v1/region/id/([^/]+)$}) {
		my $id = $1;
		return pd_string(400, "strconv.ParseUint: parsing \"$id\": invalid syntax") unless $id =~ /^\d+$/;
		my $r = by_id($id) or return pd_string(404, "[PD:region:ErrRegionNotFound]region $id not found");
		return (200, 'application/json', region_json($r));
	}
	if ($method eq 'GET' && $path =~ m{^/pd/api/v1/region/key/([^/]+)$}) {
		my $k = $1;
		if (($query // '') =~ /(?:^|&)format=hex(?:&|$)/) {
			return pd_string(400, 'encoding/hex: invalid byte') unless $k =~ /^([0-9A-Fa-f]{2})*$/;
			$k = pack('H*', $k);
		}
		my $r = by_key($k) or return pd_string(404, '[PD:region:ErrRegionNotFound]region %!v(MISSING) not found');
		return (200, 'application/json', region_json($r));
	}
	if ($method eq 'POST' && $path eq '/pd/api/v1/operators') {
		return create_operator($body);
	}
	if ($method eq 'GET' && $path =~ m{^/pd/api/v1/operators/([^/]+)$}) {
		my $id = $1;
		return pd_string(400, "strconv.ParseUint: parsing \"$id\": invalid syntax") unless $id =~ /^\d+$/;
		my $o = $ops{$id} or return pd_string(500, '[PD:operator:ErrOperatorNotFound]operator not found');
		return pd_string(200, op_text($id, $o));
	}
	return canned($method, $path) if defined $opt{canned};
	return go_404();
}

# The answer in --canned DIR for METHOD PATH (named as fake-http.pl names
# it), else Go's 404.
sub canned {
	my ($method, $path) = @_;
	(my $name = "${method}_$path") =~ s{_/}{_};
	$name =~ s/[^A-Za-z0-9_-]/_/g;
	open my $fh, '<', "$opt{canned}/$name"
		or return go_404();
	my ($code, $type) = (<$fh> // '') =~ /^(\d{3})[ \t]*(.*?)\s*\z/
		or die "fake-pd.pl: '$opt{canned}/$name': no status code\n";
	my $body = do { local $/; <$fh> } // '';
	return ($code, $type eq '' ? 'text/plain; charset=utf-8' : $type, $body);
}

# One TableRegions: the regions over physical table $id's records.
sub table_regions {
	my ($name, $id) = @_;
	my ($s, $e) = (record_key($id), enc_bytes('t' . enc_int($id) . '_s'));
	my @rs = grep { $_->{start} lt $e && ($_->{end} eq '' || $_->{end} gt $s) } @regions;
	return { name => $name, id => $id + 0, indices => [],
		 record_regions => [map { { region_id => $_->{id},
			leader => peer_json($_->{leader}, 0),
			peers => [map { peer_json($_, 0) } @{$_->{peers}}],
			region_epoch => epoch_json($_) } } @rs] };
}

sub tidb_answer {
	my ($method, $path) = @_;
	return (200, 'text/plain; charset=utf-8', 'ok') if $method eq 'GET' && $path eq '/';
	return (200, 'application/json', qq({"connections":0,"version":"8.0.11-TiDB-v8.5.0","git_hash":"fake"}\n))
		if $method eq 'GET' && $path eq '/status';
	if ($method eq 'GET' && $path =~ m{^/tables/([^/]+)/([^/]+)/regions$}) {
		my ($db, $name) = ($1, $2);
		my $t = $db eq $opt{db} ? $tables{$name} : undef;
		return (400, 'text/plain; charset=utf-8', "[schema:1146]Table '$db.$name' doesn't exist") unless $t;
		my $data = defined $t->[0][0] ? [map { table_regions($_->[0], $_->[1]) } @$t]
			: table_regions($name, $t->[0][1]);
		return (200, 'application/json', JSON::PP->new->canonical->indent->indent_length(1)->encode($data));
	}
	return go_404();
}

# --- the server -------------------------------------------------------------
$SIG{TERM} = sub { exit 0 };
$SIG{PIPE} = 'IGNORE';
open my $log, '>>', $opt{log} or die "fake-pd.pl: cannot open '$opt{log}': $!\n";
$log->autoflush(1);
my %servers;
for my $which (qw(pd tidb)) {
	my $s = listen_on('fake-pd.pl', '127.0.0.1:' . $opt{"$which-port"});
	$servers{fileno $s} = [$which, $s];
}
my $select = IO::Select->new(map { $_->[1] } values %servers);

sub serve {
	my ($which, $c) = @_;
	my ($method, $path, $body, $query) = read_request($c) or return;
	print $log uc($which), " $method $path", (length $body ? " $body" : ''), "\n";
	respond($c, $which eq 'pd' ? pd_answer($method, $path, $query, $body)
		    : tidb_answer($method, $path));
}

while (1) {
	my @due = sort { $a <=> $b } map { $_->{due} } grep { $_->{status} eq 'RUNNING' && $_->{apply} } values %ops;
	my $wait = @due && !$opt{hold} ? $due[0] - time : 1;
	for my $s ($select->can_read($wait < 0 ? 0 : $wait)) {
		my $c = $s->accept or next;
		eval { serve($servers{fileno $s}[0], $c) };
		close $c;
	}
	next if $opt{hold};
	for my $id (sort { $a <=> $b } keys %ops) {
		my $o = $ops{$id};
		next unless $o->{status} eq 'RUNNING' && $o->{apply} && $o->{due} <= time;
		$o->{apply}->();
		$o->{status} = 'SUCCESS';
	}
}
