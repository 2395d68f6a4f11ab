#!/usr/bin/perl
# fake-http.pl PORT DIR LOG [--log-query]
#                           [--cdc-users USER,... --cdc-tidb HOST:PORT]
#                           [--cdc-keyspaces NAME,...] [--cdc-tiflow]
# A small HTTP/1.1 server that answers like a TiDB status port, the TiCDC
# Open API or PD, from canned responses, for the tests of what tichaos asks
# of servers that cannot run here.
#
# It listens on 127.0.0.1:PORT only, serves one request per connection
# (Connection: close) and appends "METHOD PATH" to LOG for each request
# (with --log-query, "METHOD PATH?QUERY" for one with a query).
# The answer to `POST /ddl/owner/resign` is the file DIR/POST_ddl_owner_resign
# (the method, "_", the path without its leading slash and query, every
# character but [A-Za-z0-9_-] turned into "_"). A response file's first
# line is the status code, optionally followed by a content type
# ("200 application/json"); the rest of the file is the body, byte for byte.
#
# - Sequences: when DIR/NAME.1, NAME.2, ... exist, the n-th request for
#   NAME gets NAME.n; past the last one, the last one repeats.
# - Actions: when the chosen file F has a sibling F.run, `sh F.run` runs
#   before the answer is sent (e.g. a resign deletes the owner's etcd key,
#   as the real server does before it answers).
# - Bodies: a request's body is kept in DIR/NAME.body (the last one), for
#   the tests to read what tichaos sent.
# - Unknown paths: 404 with Go's body "404 page not found".
# - GET /: 200 "ok" unless DIR/GET_ exists (tichaos's readiness check).
#
# TiCDC's middleware, before any canned answer, on the routes the new
# TiCDC guards with it (pingcap/ticdc api/v2/api.go
# RegisterOpenAPIV2Routes; the changefeed routes, /unsafe), in its order,
# keyspace check first:
# - --cdc-keyspaces NAME,...: the next-gen kernel's KeyspaceCheckerMiddleware
#   (api/middleware/middleware.go) with these keyspaces in PD: a route of
#   it without ?keyspace= (or with an empty one) is 400
#   CDC:ErrAPIInvalidParam "missing required query parameter keyspace,
#   please specify --keyspace or -k", one naming another keyspace 400
#   "keyspace %q does not exist, please check --keyspace or -k". Without
#   this option, the classic kernel: the parameter is not looked at.
# - --cdc-users USER,... --cdc-tidb HOST:PORT: AuthenticateMiddleware
#   (api/middleware/authenticate_middleware.go) with
#   security.client-user-required = true and client-allowed-user = USERS:
#   no basic authentication is 401 CDC:ErrCredentialNotFound "credential
#   not found: please specify the user and password via authorization
#   header"; a user not in USERS 401 CDC:ErrUnauthorized "user U
#   unauthorized, error: The user is not allowed." ("Empty username is not
#   allowed." for ""); else the password is tried as TiCDC does, by
#   logging in as the user to the upstream's SQL server (HOST:PORT; TiCDC
#   takes the TiDBs from etcd) and running SHOW STATUS LIKE '%Ssl_cipher'
#   (doVerify), here with the mariadb client, the password in MYSQL_PWD:
#   a refusal is 401 CDC:ErrUnauthorized "user U unauthorized, error:
#   [CDC:ErrMySQLConnectionError]fail to open MySQL connection: Error 1045
#   (28000): Access denied for user ..." (pkg/sink/mysql/helper.go
#   CreateMysqlDBConn, go-sql-driver's MySQLError text; other client
#   errors are passed on in the client's words, where TiCDC would say
#   Go's "dial tcp ...").
# Both answer as c.IndentedJSON(status, api.NewHTTPError(err)) does:
# {"error_msg", "error_code"} in that order, 4-space indented, Go's
# escapes (<, > and & as \u003c, \u003e, \u0026), no newline at the end
# (pkg/api/util.go HTTPError; pkg/errors/error.go for the texts;
# pingcap/errors Error() "[CODE]message"). tiflow's TiCDC has the same
# AuthenticateMiddleware and texts (cdc/api/middleware/middleware.go) on
# fewer routes: not on GET .../status; --cdc-tiflow takes its routes
# (cdc/api/v2/api.go at v8.1.0, 137ed650: the changes and /unsafe only).
# --cdc-tidb none: no TiDB registered in etcd, as when none runs: a
# password is then refused with "tidb instance not found in topology,
# please check if the tidb is running" (pkg/upstream/upstream.go
# VerifyTiDBUser, tiflow and pingcap/ticdc alike).
# SIGTERM ends it with exit status 0. Core Perl only.
use strict;
use warnings;
use File::Basename qw(dirname);
use MIME::Base64 qw(decode_base64);
use lib dirname(__FILE__);
use FakeHTTP qw(listen_on read_request respond go_404);

my $usage = "usage: fake-http.pl PORT DIR LOG [--log-query] " .
	    "[--cdc-users USER,... --cdc-tidb HOST:PORT] " .
	    "[--cdc-keyspaces NAME,...] [--cdc-tiflow]\n";
@ARGV >= 3 or die $usage;
my ($port, $dir, $logfile) = splice @ARGV, 0, 3;
my %opt;
while (@ARGV) {
	my $o = shift @ARGV;
	if ($o eq '--log-query' || $o eq '--cdc-tiflow') {
		$opt{substr $o, 2} = 1;
		next;
	}
	$o =~ /^--(cdc-users|cdc-tidb|cdc-keyspaces)$/ && @ARGV or die $usage;
	$opt{$1} = shift @ARGV;
}
!defined $opt{'cdc-users'} == !defined $opt{'cdc-tidb'} or die $usage;
my %seen;	# requests per response name, for sequences

$SIG{TERM} = sub { exit 0 };
$SIG{PIPE} = 'IGNORE';
open my $log, '>>', $logfile or die "fake-http: cannot open '$logfile': $!\n";
$log->autoflush(1);
my $server = listen_on('fake-http', "127.0.0.1:$port");

# The response file for NAME: a sequence step, the plain file, or undef.
sub response_file {
	my ($name) = @_;
	my $n = ++$seen{$name};
	$n-- while $n > 1 && !-e "$dir/$name.$n";
	return "$dir/$name.$n" if -e "$dir/$name.$n";
	return -e "$dir/$name" ? "$dir/$name" : undef;
}

# The routes of TiCDC's middleware, pingcap/ticdc api/v2/api.go: METHOD,
# the path, whether the authentication follows the keyspace check.
my $cf = qr{/api/v2/changefeeds/[^/]+};
my @cdc_routes = (
	[GET => qr{^$cf\z}, 0], [GET => qr{^/api/v2/changefeeds\z}, 0],
	[POST => qr{^/api/v2/changefeeds\z}, 1], [PUT => qr{^$cf\z}, 1],
	[POST => qr{^$cf/(?:resume|pause)\z}, 1], [DELETE => qr{^$cf\z}, 1],
	[GET => qr{^$cf/(?:status|synced)\z}, 1],
	[POST => qr{^$cf/(?:move_table|move_split_table|split_table_by_region_count|merge_table)\z}, 1],
	[GET => qr{^$cf/(?:get_dispatcher_count|tables)\z}, 0],
	[GET => qr{^/api/v2/unsafe/metadata\z}, 1],
	[POST => qr{^/api/v2/unsafe/resolve_lock\z}, 1],
	[DELETE => qr{^/api/v2/unsafe/service_gc_safepoint\z}, 1],
);

# tiflow's (cdc/api/v2/api.go at v8.1.0): the changes authenticated, no
# read but /unsafe/metadata.
my @tiflow_routes = (
	[POST => qr{^/api/v2/changefeeds\z}, 1], [PUT => qr{^$cf\z}, 1],
	[DELETE => qr{^$cf\z}, 1], [POST => qr{^$cf/(?:resume|pause)\z}, 1],
	[GET => qr{^/api/v2/unsafe/metadata\z}, 1],
	[POST => qr{^/api/v2/unsafe/resolve_lock\z}, 1],
	[DELETE => qr{^/api/v2/unsafe/service_gc_safepoint\z}, 1],
);

# A string as Go's encoding/json writes it (HTML-safe, as gin's
# IndentedJSON does).
sub go_json_string {
	my ($s) = @_;
	my %short = ("\b" => '\b', "\f" => '\f', "\n" => '\n', "\r" => '\r',
		     "\t" => '\t', '"' => '\"', '\\' => '\\\\');
	$s =~ s{([\x00-\x1f"\\<>&])}{$short{$1} // sprintf('\u%04x', ord $1)}ge;
	$s =~ s{\xe2\x80([\xa8\xa9])}{sprintf '\u%04x', 0x2000 + ord($1) - 0x80}ge;
	return qq("$s");
}

# (status, body) of c.IndentedJSON(status, api.NewHTTPError(err)).
sub cdc_error {
	my ($status, $code, $msg) = @_;
	return ($status, "{\n    \"error_msg\": " .
		go_json_string("[CDC:$code]$msg") . ",\n    \"error_code\": " .
		go_json_string("CDC:$code") . "\n}");
}

# Go's %q of a printable string.
sub go_quote {
	my ($s) = @_;
	$s =~ s/(["\\])/\\$1/g;
	$s =~ s/([\x00-\x1f\x7f])/sprintf '\x%02x', ord $1/ge;
	return qq("$s");
}

# gin's c.Query(KEY): the first value, URL-decoded ("" when absent).
sub query_value {
	my ($query, $key) = @_;
	for my $pair (split /[&]/, $query // '') {
		my ($k, $v) = split /=/, $pair, 2;
		$v //= '';
		tr/+/ / for $k, $v;
		s/%([0-9A-Fa-f]{2})/chr hex $1/ge for $k, $v;
		return $v if $k eq $key;
	}
	return '';
}

# TiCDC's verify(): (status, body) of its refusal, or () to go on.
sub cdc_authenticate {
	my ($auth) = @_;
	my ($user, $password);
	# net/http's BasicAuth: "Basic " in any case, base64 of "user:pw".
	if (defined $auth && $auth =~ /^basic (.*)\z/is) {
		my $b64 = $1;
		($user, $password) = split /:/, decode_base64($b64), 2
			if $b64 =~ m{^[A-Za-z0-9+/]*={0,2}\z} && length($b64) % 4 == 0;
	}
	return cdc_error(401, 'ErrCredentialNotFound', 'credential not found: ' .
			 'please specify the user and password via ' .
			 'authorization header') unless defined $password;
	unless (grep { $_ eq $user } split /,/, $opt{'cdc-users'}) {
		my $why = $user eq '' ? 'Empty username is not allowed.'
				      : 'The user is not allowed.';
		return cdc_error(401, 'ErrUnauthorized',
				 "user $user unauthorized, error: $why");
	}
	return cdc_error(401, 'ErrUnauthorized', "user $user unauthorized, " .
			 'error: tidb instance not found in topology, please ' .
			 'check if the tidb is running')
		if $opt{'cdc-tidb'} eq 'none';
	my ($host, $sql_port) = $opt{'cdc-tidb'} =~ /^(.*):(\d+)\z/;
	local $ENV{MYSQL_PWD} = $password;
	my $pid = open my $out, '-|';
	defined $pid or die "fake-http: fork: $!\n";
	if (!$pid) {
		open STDERR, '>&', \*STDOUT;
		exec('mariadb', '--no-defaults', '--protocol=TCP', "--host=$host",
		     "--port=$sql_port", "--user=$user", '--batch',
		     '--skip-column-names', '--connect-timeout=5',
		     '--execute=SHOW STATUS LIKE \'%Ssl_cipher\'')
			or print "ERROR 2000 (HY000): cannot run mariadb: $!\n";
		exit 1;
	}
	my $said = do { local $/; <$out> } // '';
	close $out;
	return () if $? == 0;
	my ($errno, $state, $text) =
		$said =~ /^ERROR (\d+) \(([0-9A-Z]{5})\)(?: at line \d+)?: (.*?)\s*$/m;
	$text //= $said =~ s/\s+\z//r;
	my $err = defined $errno ? "Error $errno ($state): $text" : $text;
	return cdc_error(401, 'ErrUnauthorized', "user $user unauthorized, " .
			 'error: [CDC:ErrMySQLConnectionError]fail to open ' .
			 "MySQL connection: $err");
}

# TiCDC's middleware on METHOD PATH: (status, body) of a refusal, or ().
sub cdc_middleware {
	my ($method, $path, $query, $auth) = @_;
	my ($route) = grep { $_->[0] eq $method && $path =~ $_->[1] }
		$opt{'cdc-tiflow'} ? @tiflow_routes : @cdc_routes;
	return () unless $route;
	if (defined $opt{'cdc-keyspaces'}) {
		my $ks = query_value($query, 'keyspace');
		return cdc_error(400, 'ErrAPIInvalidParam', 'missing required ' .
				 'query parameter keyspace, please specify ' .
				 '--keyspace or -k') if $ks eq '';
		return cdc_error(400, 'ErrAPIInvalidParam', 'keyspace ' .
				 go_quote($ks) . ' does not exist, please ' .
				 'check --keyspace or -k')
			unless grep { $_ eq $ks } split /,/, $opt{'cdc-keyspaces'};
	}
	return cdc_authenticate($auth) if $route->[2] && defined $opt{'cdc-users'};
	return ();
}

while (1) {
	my $c = $server->accept or next;
	my ($method, $path, $request, $query, $auth) = read_request($c);
	if (!defined $path) {
		close $c;
		next;
	}
	print $log "$method $path",
		$opt{'log-query'} && defined $query ? "?$query" : '', "\n";
	(my $name = $path) =~ s{^/}{};
	$name = "${method}_$name" =~ s/[^A-Za-z0-9_-]/_/gr;
	if (length $request) {
		open my $bf, '>', "$dir/$name.body" or die "fake-http: $!\n";
		print $bf $request;
		close $bf;
	}
	my @refused = cdc_middleware($method, $path, $query, $auth);
	my $file = @refused ? undef : response_file($name);
	if (@refused) {
		respond($c, $refused[0], 'application/json; charset=utf-8',
			$refused[1]);
	} elsif (!$file && $method eq 'GET' && $path eq '/') {
		respond($c, 200, 'text/plain; charset=utf-8', 'ok');
	} elsif (!$file) {
		respond($c, go_404());
	} else {
		open my $fh, '<', $file or die "fake-http: '$file': $!\n";
		binmode $fh;
		my ($code, $type) = (<$fh> // '') =~ /^(\d{3})[ \t]*(.*?)\s*\z/
			or die "fake-http: '$file': no status code\n";
		my $body = do { local $/; <$fh> } // '';
		close $fh;
		$type = 'text/plain; charset=utf-8' if $type eq '';
		system('sh', "$file.run") if -e "$file.run";
		respond($c, $code, $type, $body);
	}
	close $c;
}
