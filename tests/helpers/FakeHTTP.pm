# tests/helpers/FakeHTTP.pm: the HTTP/1.1 server side of the fakes of Go
# servers (fake-http.pl, fake-pd.pl, fake-cdc.pl), one module so that
# all three answer alike. One request per connection, as tichaos's
# client (libcurl, clusters/api.c) sends them; the status line with the
# reason phrase Go's net/http writes (http.StatusText), and Go's own 404
# for a route it does not have ("404 page not found\n", text/plain).
# Core Perl only.
package FakeHTTP;
use strict;
use warnings;
use Exporter 'import';
use IO::Socket::INET;

our @EXPORT_OK = qw(listen_on read_request respond go_404);

my %reason = (200 => 'OK', 400 => 'Bad Request', 401 => 'Unauthorized',
	      404 => 'Not Found', 412 => 'Precondition Failed',
	      500 => 'Internal Server Error', 503 => 'Service Unavailable');

# listen_on(WHO, HOST:PORT): a listening socket there, or die saying WHO
# could not listen.
sub listen_on {
	my ($who, $addr) = @_;
	return IO::Socket::INET->new(LocalAddr => $addr, Proto => 'tcp',
				     Listen => 16, ReuseAddr => 1)
		// die "$who: cannot listen on $addr: $!\n";
}

# read_request(C): (method, path, body, query, authorization) of the one
# request on C, the query and authorization undef when absent; () when
# the client sent no request line, or gave up, within 5 s.
sub read_request {
	my ($c) = @_;
	my @r = eval {
		local $SIG{ALRM} = sub { die "timeout\n" };
		alarm 5;
		my $line = <$c> // die "closed\n";
		my ($method, $target) = $line =~ m{^([A-Z]+) (\S+) HTTP/1\.[01]\r?\n\z}
			or die "no request line\n";
		my ($length, $auth) = (0, undef);
		while (my $h = <$c>) {
			last if $h =~ /^\r?\n\z/;
			$length = $1 if $h =~ /^Content-Length:\s*(\d+)/i;
			$auth = $1 if $h =~ /^Authorization:[ \t]*(.*?)\r?\n\z/i;
		}
		my $body = '';
		read $c, $body, $length if $length;
		alarm 0;
		my ($path, $query) = $target =~ /^([^?]*)(?:\?(.*))?\z/s;
		($method, $path, $body, $query, $auth);
	};
	alarm 0;
	return @r;
}

# respond(C, CODE, TYPE, BODY): the whole answer, then the connection is
# the caller's to close.
sub respond {
	my ($c, $code, $type, $body) = @_;
	print $c "HTTP/1.1 $code ", $reason{$code} // 'Status', "\r\n",
		"Content-Type: $type\r\nContent-Length: ", length($body), "\r\n",
		"Connection: close\r\n\r\n", $body;
}

# go_404(): (code, type, body) of Go's ServeMux for a path it has no route
# for.
sub go_404 { return (404, 'text/plain; charset=utf-8', "404 page not found\n") }

1;
