#!/usr/bin/perl
# fake-tidb-sql.pl --listen PORT --to PORT [--version V] [--gc-safe-point FILE]
#                  [--autoid URL] [--ddl-jobs DB]
#
# TiDB's SQL side, as far as snapshot reads go, over a real mariadbd whose
# tables are system-versioned (WITH SYSTEM VERSIONING): a MySQL-protocol
# proxy on 127.0.0.1:PORT to the server at 127.0.0.1:--to that passes every
# packet through as it is, except the text of these queries (COM_QUERY):
#
# - SET [SESSION] [@@]tidb_snapshot = 'TSO' | TSO | 'datetime' | '': TiDB's
#   session variable (pingcap/tidb pkg/sessionctx/variable/sysvar.go,
#   TiDBSnapshot -> setSnapshotTS in varsutil.go: a TSO, or a datetime
#   string; '' reads the present again): the session's reads see the data
#   as of that time. Here MariaDB's @@system_versioning_asof at the TSO's
#   time (DEFAULT for ''). A TSO is the physical time in milliseconds
#   shifted left 18 bits, OR a logical counter in the low 18 (tikv/pd
#   pkg/tso, tidb's oracle.ComposeTS / ExtractPhysical); this fake's TSOs
#   carry the microseconds within the millisecond as their logical part
#   (below 1000), so that a TSO taken after a commit reads that commit.
# - A TSO older than GC's safe point: TiDB refuses the SET with error 8055
#   "snapshot is older than GC safe point %s" (ErrSnapshotTooOld, pkg/
#   sessionctx/variable/session.go; checked by gcutil.ValidateSnapshot at
#   the SET, pkg/executor/set.go), the time as Go's Time.String() prints
#   it. TiDB reads the safe point from mysql.tidb (tikv_gc_safe_point);
#   this fake from the file --gc-safe-point (a TSO). Without one (the file
#   absent or empty, as on a TiDB whose GC worker has not written the row:
#   a real tidb-server 8f2630e53d5d on unistore never did, run by hand),
#   TiDB refuses every SET of a snapshot with error 1105 "can not get
#   'tikv_gc_safe_point'" (pkg/util/gcutil/gcutil.go GetGCSafePoint).
# - While a snapshot is set, TiDB refuses writes: error 1105 "can not
#   execute write statement when 'tidb_snapshot' is set".
# - @@tidb_current_ts (tidb sessionctx/variable: the current
#   transaction's start_ts, 0 outside a transaction): the TSO of NOW(6) in
#   a transaction, 0 outside one (MariaDB's @@in_transaction).
# - VERSION(): --version (default 8.0.11-TiDB-v7.5.0), as TiDB answers, so
#   tichaos takes the dialect for TiDB; the handshake's server version too.
# - information_schema.TABLES: TiDB calls every table 'BASE TABLE';
#   MariaDB calls a versioned one 'SYSTEM VERSIONED'. A query for
#   TABLE_TYPE = 'BASE TABLE' gets both.
#
# - With --autoid URL (the origin of this TiDB's tests/helpers/fake-autoid,
#   its status port), AUTO_ID_CACHE=1 tables take their ids from the
#   autoid service, as TiDB's do (pkg/meta/autoid/autoid_service.go in
#   pingcap/tidb, singlePointAlloc.Alloc): CREATE TABLE db.t (...) with
#   AUTO_ID_CACHE[=]1 loses that option (MariaDB has none such) and its
#   AUTO_INCREMENT column is registered (POST /fake/table; a CREATE
#   without the option forgets the table); INSERT INTO db.t (cols) VALUES
#   (...) of one row that does not name that column gets it, with the id
#   this TiDB was allocated (POST /fake/insert-id), as the first value.
#   MariaDB's OK packet then says that id as the last insert id, as
#   TiDB's does for an id it allocated (mysql_insert_id; LAST_INSERT_ID()
#   stays MariaDB's, of generated ids only). An error of the service is
#   the statement's, 1105 and its text. Names must be qualified (db.t);
#   other statements pass as they are.
#
# - With --ddl-jobs DB, TiDB's record of the DDL jobs it ran
#   (information_schema.ddl_jobs: pingcap/tidb pkg/infoschema/tables.go
#   tableDDLJobsCols, DB_NAME, TABLE_NAME, QUERY, CREATE_TIME, END_TIME;
#   a job is queued, run and recorded by TiDB's DDL owner, whatever
#   becomes of the client that asked for it), in the table DB.ddl_jobs of
#   the server behind (made at the start): each CREATE, ALTER, DROP,
#   TRUNCATE or RENAME statement runs as one compound statement, BEGIN NOT
#   ATOMIC, that takes NOW(6) as the job's CREATE_TIME, runs the DDL and,
#   when it succeeds, inserts the job's row — the server finishes it even
#   when the client is gone meanwhile (MariaDB notices a lost client only
#   when it next writes to it); a DDL that fails leaves no row and its
#   error is the client's. The job's table is the first the statement
#   names (ALTER TABLE's, as TiDB's job's), its database the name's or
#   the session's. A query of information_schema.ddl_jobs reads DB.ddl_jobs.
#
# The server's handshake loses CLIENT_SSL, so every packet can be read.
#
# Where it differs from TiDB: a MariaDB replica keeps the source's
# timestamps in the rows it applies (row_start is the upstream's time), so
# a row replicated after a sync point's secondary_ts but committed
# upstream before it shows at that snapshot; TiDB's downstream commit_ts
# is its own. The tests write upstream only before a point's primary_ts
# and after its row is recorded, as TiCDC's barrier orders them.
# Every query rewritten is one line on stderr: "rewrite: OLD -> NEW".
# Core Perl only; one process, one select loop, no fork.
use strict;
use warnings;
use IO::Socket::INET;
use IO::Select;
use POSIX qw(strftime);
use HTTP::Tiny;
use JSON::PP;

my %opt = (version => '8.0.11-TiDB-v7.5.0');
while (@ARGV) {
	my $a = shift @ARGV;
	$a =~ /^--([a-z-]+)$/ or die "fake-tidb-sql: bad argument '$a'\n";
	$opt{$1} = shift @ARGV;
}
defined $opt{listen} && defined $opt{to}
	or die "fake-tidb-sql: --listen PORT --to PORT\n";
$| = 1;

if (defined $opt{'ddl-jobs'}) {
	my $db = quote_ident($opt{'ddl-jobs'});
	system('mariadb', '--no-defaults', '-h127.0.0.1', "-P$opt{to}", '-uroot',
	       '-e', "CREATE DATABASE IF NOT EXISTS $db; CREATE TABLE IF NOT " .
	       "EXISTS $db.ddl_jobs (JOB_ID bigint AUTO_INCREMENT PRIMARY " .
	       "KEY, DB_NAME varchar(255), TABLE_NAME varchar(255), QUERY " .
	       "text, CREATE_TIME datetime(6), END_TIME datetime(6))") == 0
		or die "fake-tidb-sql: cannot make $opt{'ddl-jobs'}.ddl_jobs\n";
}

my $ls = IO::Socket::INET->new(LocalAddr => '127.0.0.1',
	LocalPort => $opt{listen}, Listen => 64, ReuseAddr => 1)
	or die "fake-tidb-sql: cannot listen on $opt{listen}: $!\n";
my $sel = IO::Select->new($ls);
my %peer;	# fileno -> the other socket
my %conn;	# fileno of the client -> { snapshot => 0/1, first => 1 }
my %inbuf;	# fileno of the client -> bytes not yet a whole packet
my %is_server;	# fileno -> 1 for the server side

$SIG{TERM} = sub { exit 0 };

sub close_pair {
	my ($s) = @_;
	my $o = delete $peer{fileno $s};
	for my $x ($s, $o) {
		next unless $x;
		delete $peer{fileno $x};
		delete $conn{fileno $x};
		delete $inbuf{fileno $x};
		delete $is_server{fileno $x};
		$sel->remove($x);
		close $x;
	}
}

sub packet { my ($seq, $p) = @_; pack('V', length $p)  # 3 bytes + seq
	=~ s/.$//sr . chr($seq) . $p }

sub err_packet {
	my ($code, $msg) = @_;
	return packet(1, "\xff" . pack('v', $code) . '#HY000' . $msg);
}

# The safe point as a TSO, or undef.
sub safe_point {
	my $f = $opt{'gc-safe-point'};
	return undef unless defined $f && open(my $fh, '<', $f);
	my $v = <$fh>;
	return defined $v && $v =~ /^\s*(\d+)/ ? $1 : undef;
}

# Go's time.Time.String() of a TSO's physical time, in the local zone:
# "2026-12-02 05:20:01.123 +0000 UTC".
sub go_time {
	my ($tso) = @_;
	my $ms = $tso >> 18;
	my @t = localtime(int($ms / 1000));
	my $frac = $ms % 1000 ? sprintf('.%03d', $ms % 1000) =~ s/0+$//r : '';
	return strftime('%Y-%m-%d %H:%M:%S', @t) . $frac .
		strftime(' %z %Z', @t);
}

# "sec.micro" of a TSO for FROM_UNIXTIME.
sub tso_time {
	my ($tso) = @_;
	my $logical = $tso & 0x3FFFF;
	my $us = ($tso >> 18) * 1000 + ($logical < 1000 ? $logical : 999);
	return sprintf('%d.%06d', int($us / 1000000), $us % 1000000);
}

my $CURRENT_TS = 'IF(@@in_transaction, (FLOOR(UNIX_TIMESTAMP(NOW(6)) * '
	. '1000) << 18) | (MICROSECOND(NOW(6)) % 1000), 0)';

my $IDENT = qr/`(?:[^`]|``)+`|\w+/;

sub unquote {
	my ($i) = @_;
	return $i =~ /^`(.*)`$/s ? $1 =~ s/``/`/gr : $i;
}

sub quote_ident { '`' . ($_[0] =~ s/`/``/gr) . '`' }

# The list in the parenthesis at $open of $s: the index of the one that
# closes it (quotes skipped), then its parts between top-level commas;
# () when it does not close.
sub paren_list {
	my ($s, $open) = @_;
	my ($depth, $quote, $from, @parts) = (0, '', $open + 1);
	for my $i ($open .. length($s) - 1) {
		my $ch = substr($s, $i, 1);
		if ($quote) {
			$quote = '' if $ch eq $quote;
		} elsif ($ch eq "'" || $ch eq '"' || $ch eq '`') {
			$quote = $ch;
		} elsif ($ch eq '(') {
			$depth++;
		} elsif (($ch eq ')' && --$depth == 0) ||
			 ($ch eq ',' && $depth == 1)) {
			push @parts, substr($s, $from, $i - $from);
			$from = $i + 1;
			return ($i, @parts) if $ch eq ')';
		}
	}
	return ();
}

my $http = HTTP::Tiny->new(timeout => 30, no_proxy => ["127.0.0.1"]);

# POST $opt{autoid}PATH?ARGS: (status, body).
sub autoid_post {
	my ($path, %args) = @_;
	my $r = $http->request('POST', "$opt{autoid}$path?" .
			       $http->www_form_urlencode(\%args));
	return ($r->{status}, $r->{content});
}

# CREATE TABLE db.t (...) [AUTO_ID_CACHE=1]: registered, the option gone.
sub autoid_create {
	my ($q) = @_;
	$q =~ /^\s*CREATE\s+TABLE\s+(?:IF\s+NOT\s+EXISTS\s+)?($IDENT)\s*\.\s*
	       ($IDENT)\s*\(/xsi or return $q;
	my ($db, $t, $open) = (unquote($1), unquote($2), $+[0] - 1);
	my ($close, @defs) = paren_list($q, $open);
	return $q unless defined $close;
	my $rest = substr($q, $close + 1);
	my $column = '';
	if ($rest =~ s/\bAUTO_ID_CACHE\s*=?\s*1\b\s*,?//i) {
		for (@defs) {
			$column = unquote($1)
				if /^\s*($IDENT)\s.*\bAUTO_INCREMENT\b/si;
		}
	}
	my ($st, $body) = autoid_post('/fake/table', db => $db, table => $t,
				      column => $column);
	return [1105, "autoid: $body"] unless $st == 200;
	return substr($q, 0, $close + 1) . $rest;
}

# INSERT INTO db.t (cols) VALUES (...) of one row: the id TiDB allocates.
sub autoid_insert {
	my ($q) = @_;
	$q =~ /^(\s*INSERT\s+INTO\s+($IDENT)\s*\.\s*($IDENT)\s*)\(([^()]*)\)
	       (\s*VALUES\s*)\(/xsi or return $q;
	my ($head, $db, $t, $cols, $values) = ($1, unquote($2), unquote($3),
					       $4, $5);
	my ($open, $names_at) = ($+[0] - 1, $-[4] - 1);
	my ($close) = paren_list($q, $open);
	return $q unless defined $close &&
		substr($q, $close + 1) =~ /^\s*;?\s*$/;
	my (undef, @cols) = paren_list($q, $names_at);
	my @names = map { /^\s*($IDENT)\s*$/ ? unquote($1) : '' } @cols;
	my ($st, $body) = autoid_post('/fake/insert-id', db => $db,
				      table => $t, n => 1,
				      columns => join(',', @names));
	return $q if $st == 404;
	return [1105, $body =~ s/\s+$//r] unless $st == 200;
	my $a = decode_json($body);
	return $q if $a->{explicit};
	return $head . '(' . quote_ident($a->{column}) . ", $cols)" . $values .
		"($a->{first}, " . substr($q, $open + 1);
}

# The query as the server gets it, or [code, message] to refuse it.
sub sql_string { "'" . ($_[0] =~ s/\\/\\\\/gr =~ s/'/\\'/gr) . "'" }

# --ddl-jobs: the DDL Q as a job recorded once it has run.
sub ddl_job {
	my ($q) = @_;
	my $id = qr/`(?:[^`]|``)+`|\w+/;
	my ($db, $table) = ('DATABASE()', "''");
	if ($q =~ /^\s*(?:CREATE|DROP|ALTER)\s+(?:DATABASE|SCHEMA)\s+
		   (?:IF\s+(?:NOT\s+)?EXISTS\s+)?($id)/xi) {
		$db = sql_string(unquote_ident($1));
	} elsif ($q =~ /\bTABLE\s+(?:IF\s+(?:NOT\s+)?EXISTS\s+)?
			($id)(?:\s*\.\s*($id))?/xi) {
		($db, $table) = defined $2
			? (sql_string(unquote_ident($1)), sql_string(unquote_ident($2)))
			: ($db, sql_string(unquote_ident($1)));
	}
	my $jobs = quote_ident($opt{'ddl-jobs'}) . '.ddl_jobs';
	return "BEGIN NOT ATOMIC SET \@fake_ddl_job = NOW(6); $q; " .
		"INSERT INTO $jobs (DB_NAME, TABLE_NAME, QUERY, CREATE_TIME, " .
		"END_TIME) VALUES ($db, $table, " . sql_string($q) .
		", \@fake_ddl_job, NOW(6)); END";
}

sub unquote_ident { my $s = shift; $s =~ /^`(.*)`$/s ? $1 =~ s/``/`/gr : $s }

sub rewrite {
	my ($c, $q) = @_;
	if (defined $opt{'ddl-jobs'}) {
		return ddl_job($q) if $q =~ /^\s*(?:CREATE|ALTER|DROP|TRUNCATE|RENAME)\b/i;
		my $jobs = quote_ident($opt{'ddl-jobs'}) . '.ddl_jobs';
		$q =~ s/\binformation_schema\.ddl_jobs\b/$jobs/gi;
	}
	if ($q =~ /^\s*SET\s+(?:SESSION\s+|\@\@SESSION\.|\@\@)?tidb_snapshot\s*=\s*
		   (?:'([^']*)'|"([^"]*)"|(\d+))\s*;?\s*$/xi) {
		my $v = defined $1 ? $1 : defined $2 ? $2 : $3;
		if ($v eq '') {
			$c->{snapshot} = 0;
			return 'SET @@system_versioning_asof = DEFAULT';
		}
		if ($v =~ /^\d+$/) {
			my $sp = safe_point();
			return [1105, "can not get 'tikv_gc_safe_point'"]
				unless defined $sp;
			return [8055, 'snapshot is older than GC safe point ' .
				go_time($sp)] if defined $sp && $v < $sp;
			$c->{snapshot} = 1;
			return 'SET @@system_versioning_asof = FROM_UNIXTIME(' .
				tso_time($v) . ')';
		}
		$c->{snapshot} = 1;
		return "SET \@\@system_versioning_asof = '$v'";
	}
	if ($c->{snapshot} &&
	    $q =~ /^\s*(?:INSERT|UPDATE|DELETE|REPLACE)\b/i) {
		return [1105, "can not execute write statement when " .
			"'tidb_snapshot' is set"];
	}
	if ($opt{autoid}) {
		$q = $q =~ /^\s*CREATE\s+TABLE\b/i ? autoid_create($q)
		   : $q =~ /^\s*INSERT\b/i ? autoid_insert($q) : $q;
		return $q if ref $q;
	}
	my $n = $q;
	$n =~ s/\@\@(?:SESSION\.)?tidb_current_ts\b/$CURRENT_TS/gi;
	$n =~ s/\bVERSION\(\)/'$opt{version}'/gi;
	$n =~ s/TABLE_TYPE\s*=\s*'BASE TABLE'/TABLE_TYPE IN ('BASE TABLE', 'SYSTEM VERSIONED')/gi;
	return $n;
}

# The server's first packet: its version replaced, CLIENT_SSL cleared.
sub handshake {
	my ($data) = @_;
	my $p = substr($data, 4);
	return $data unless substr($p, 0, 1) eq "\x0a";
	my $end = index($p, "\0", 1);
	$p = "\x0a" . $opt{version} . substr($p, $end);
	# protocol, version\0, thread id (4), scramble (8), filler (1): the
	# lower capability flags follow.
	my $at = 1 + length($opt{version}) + 1 + 4 + 8 + 1;
	my $caps = unpack('v', substr($p, $at, 2)) & ~0x0800;
	substr($p, $at, 2) = pack('v', $caps);
	return packet(ord(substr($data, 3, 1)), $p);
}

sub from_client {
	my ($s, $srv) = @_;
	my $f = fileno $s;
	while (length $inbuf{$f} >= 4) {
		my $len = unpack('V', substr($inbuf{$f}, 0, 3) . "\0");
		last if length $inbuf{$f} < 4 + $len;
		my $pkt = substr($inbuf{$f}, 0, 4 + $len, '');
		my $seq = ord(substr($pkt, 3, 1));
		if ($seq == 0 && $len < 0xFFFFFF &&
		    substr($pkt, 4, 1) eq "\x03") {
			my $q = substr($pkt, 5);
			my $n = rewrite($conn{$f}, $q);
			if (ref $n) {
				print STDERR "refuse: $q -> $n->[0] $n->[1]\n";
				syswrite($s, err_packet(@$n));
				next;
			}
			if ($n ne $q) {
				print STDERR "rewrite: $q -> $n\n";
				$pkt = packet(0, "\x03" . $n);
			}
		}
		syswrite($srv, $pkt);
	}
}

for (;;) {
	for my $s ($sel->can_read) {
		if ($s == $ls) {
			my $c = $ls->accept or next;
			my $srv = IO::Socket::INET->new(PeerAddr => '127.0.0.1',
				PeerPort => $opt{to});
			unless ($srv) { close $c; next; }
			$peer{fileno $c} = $srv;
			$peer{fileno $srv} = $c;
			$is_server{fileno $srv} = 1;
			$conn{fileno $c} = { snapshot => 0, first => 1 };
			$conn{fileno $srv} = { first => 1 };
			$inbuf{fileno $c} = '';
			$sel->add($c, $srv);
			next;
		}
		next unless defined fileno $s;	# its pair closed just now
		my $o = $peer{fileno $s} or next;
		my $n = sysread($s, my $data, 65536);
		unless ($n) { close_pair($s); next; }
		if ($is_server{fileno $s}) {
			my $st = $conn{fileno $s};
			if ($st->{first}) {
				# The handshake whole before it is rewritten.
				$data = ($st->{held} // '') . $data;
				my $len = length $data < 4 ? 0 :
					unpack('V', substr($data, 0, 3) . "\0");
				if (length $data < 4 + $len || length $data < 4) {
					$st->{held} = $data;
					next;
				}
				$st->{first} = 0;
				$data = handshake(substr($data, 0, 4 + $len)) .
					substr($data, 4 + $len);
			}
			syswrite($o, $data);
		} else {
			$inbuf{fileno $s} .= $data;
			from_client($s, $o);
		}
	}
}
