#!/usr/bin/perl
# fake-http.pl PORT DIR LOG: a small HTTP/1.1 server that answers like a
# TiDB status port, the TiCDC Open API or PD, from canned responses, for
# the tests of what tichaos asks of servers that cannot run here.
#
# It listens on 127.0.0.1:PORT only, serves one request per connection
# (Connection: close) and appends "METHOD PATH" to LOG for each request.
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
# SIGTERM ends it with exit status 0. Core Perl only.
use strict;
use warnings;
use IO::Socket::INET;

@ARGV == 3 or die "usage: fake-http.pl PORT DIR LOG\n";
my ($port, $dir, $logfile) = @ARGV;
my %reason = (200 => 'OK', 400 => 'Bad Request', 404 => 'Not Found',
	      500 => 'Internal Server Error', 503 => 'Service Unavailable');
my %seen;	# requests per response name, for sequences

$SIG{TERM} = sub { exit 0 };
$SIG{PIPE} = 'IGNORE';
open my $log, '>>', $logfile or die "fake-http: cannot open '$logfile': $!\n";
$log->autoflush(1);
my $server = IO::Socket::INET->new(LocalAddr => '127.0.0.1',
				   LocalPort => $port, Proto => 'tcp',
				   Listen => 16, ReuseAddr => 1)
	or die "fake-http: cannot listen on 127.0.0.1:$port: $!\n";

# The response file for NAME: a sequence step, the plain file, or undef.
sub response_file {
	my ($name) = @_;
	my $n = ++$seen{$name};
	$n-- while $n > 1 && !-e "$dir/$name.$n";
	return "$dir/$name.$n" if -e "$dir/$name.$n";
	return -e "$dir/$name" ? "$dir/$name" : undef;
}

# Read one request: (method, path) or () when the client gave up.
sub read_request {
	my ($c) = @_;
	my $line = <$c> // return ();
	my ($method, $target) = $line =~ m{^([A-Z]+) (\S+) HTTP/1\.[01]\r?\n\z}
		or return ();
	my $length = 0;
	while (my $h = <$c>) {
		last if $h =~ /^\r?\n\z/;
		$length = $1 if $h =~ /^Content-Length:\s*(\d+)/i;
	}
	my $body = '';
	read $c, $body, $length if $length;
	(my $path = $target) =~ s/\?.*//s;
	return ($method, $path, $body);
}

sub answer {
	my ($c, $code, $type, $body) = @_;
	my $text = $reason{$code} // 'Status';
	print $c "HTTP/1.1 $code $text\r\nContent-Type: $type\r\n",
		"Content-Length: " . length($body) . "\r\n",
		"Connection: close\r\n\r\n", $body;
}

while (1) {
	my $c = $server->accept or next;
	my ($method, $path, $request) = eval {
		local $SIG{ALRM} = sub { die "timeout\n" };
		alarm 5;
		my @r = read_request($c);
		alarm 0;
		@r;
	};
	if (!defined $path) {
		close $c;
		next;
	}
	print $log "$method $path\n";
	(my $name = $path) =~ s{^/}{};
	$name = "${method}_$name" =~ s/[^A-Za-z0-9_-]/_/gr;
	if (length $request) {
		open my $bf, '>', "$dir/$name.body" or die "fake-http: $!\n";
		print $bf $request;
		close $bf;
	}
	my $file = response_file($name);
	if (!$file && $method eq 'GET' && $path eq '/') {
		answer($c, 200, 'text/plain; charset=utf-8', 'ok');
	} elsif (!$file) {
		answer($c, 404, 'text/plain; charset=utf-8',
		       "404 page not found\n");
	} else {
		open my $fh, '<', $file or die "fake-http: '$file': $!\n";
		binmode $fh;
		my ($code, $type) = (<$fh> // '') =~ /^(\d{3})[ \t]*(.*?)\s*\z/
			or die "fake-http: '$file': no status code\n";
		my $body = do { local $/; <$fh> } // '';
		close $fh;
		$type = 'text/plain; charset=utf-8' if $type eq '';
		system('sh', "$file.run") if -e "$file.run";
		answer($c, $code, $type, $body);
	}
	close $c;
}
