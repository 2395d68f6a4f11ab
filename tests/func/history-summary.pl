#!/usr/bin/perl
# history-summary.pl HISTORY.jsonl: check the history's shape
# (docs/internals.md, History)
# and print one line per (f, type, table) with its count, sorted:
#   insert ok test.t 123
# Dies with a message on a malformed line, an unknown type, or a process
# whose completion does not follow its invocation.
use strict;
use warnings;
use JSON::PP;

my $json = JSON::PP->new;
my (%open, %count, %ids);
my $line = 0;
while (my $text = <>) {
	$line++;
	die "line $line: no newline\n" unless $text =~ /\n\z/;
	my $ev = eval { $json->decode($text) } or die "line $line: not JSON: $@";
	for my $k (qw(time process type f)) {
		die "line $line: no '$k'\n" unless defined $ev->{$k};
	}
	my $p = $ev->{process};
	my $t = $ev->{type};
	if ($t eq 'invoke') {
		die "line $line: process $p invokes twice\n" if $open{$p};
		$open{$p} = $ev->{f};
	} elsif ($t =~ /^(ok|fail|info)$/) {
		die "line $line: process $p completes without invoke\n"
			unless $open{$p};
		die "line $line: process $p completes '$ev->{f}', invoked '$open{$p}'\n"
			unless $open{$p} eq $ev->{f};
		delete $open{$p};
	} else {
		die "line $line: unknown type '$t'\n";
	}
	my $table = $ev->{table} // '-';
	$count{"$ev->{f} $t $table"}++;
	if ($t eq 'ok' && $ev->{f} eq 'insert' && defined $ev->{id}) {
		$ids{$table}{$ev->{id}}++;
	}
}
die "processes left open: " . join(', ', sort keys %open) . "\n" if %open;
print "$_ $count{$_}\n" for sort keys %count;
if ($ENV{IDS_OF}) {
	open my $out, '>', $ENV{IDS_OUT} or die "$ENV{IDS_OUT}: $!\n";
	print $out "$_\n" for sort { $a <=> $b } keys %{ $ids{$ENV{IDS_OF}} };
	close $out;
}
