#!/bin/sh
# Port bases: two clusters side by side, collisions, auto.
. "$(dirname "$0")/test-lib.sh"

need mariadbd etcd

A="$TRASH/a"
B="$TRASH/b"

test_expect_success 'two clusters with different port bases run at once' '
	test_cluster_up "$A" &&
	base=$(cat "$A/port-base") &&
	other=$(free_port_base "$base") &&
	test_cluster_up "$B" --port-base "$other" &&
	test "$(cat "$B/port-base")" = "$other" &&
	sql "$base" "create database only_a" &&
	sql "$other" "create database only_b" &&
	wait_for_condition 5 "sql $((base + 1)) \"show databases\" | grep -qx only_a" &&
	wait_for_condition 5 "sql $((other + 1)) \"show databases\" | grep -qx only_b" &&
	! sql "$((base + 1))" "show databases" | grep -qx only_b &&
	! sql "$((other + 1))" "show databases" | grep -qx only_a
'

test_expect_success 'a port base that collides with a running cluster: clear error, exit 3' '
	"$TICHAOS" cluster up --dir "$TRASH/c" --port-base "$((base + 2))" >out 2>err
	test $? = 3 &&
	echo "tichaos: port $((base + 2)) of up-0 is already in use (choose another --port-base)" >expect &&
	test_cmp expect err &&
	test ! -e "$TRASH/c"
'

test_expect_success 'a running cluster keeps its port base' '
	"$TICHAOS" cluster up --dir "$A" --port-base "$((base + 20))" 2>err
	test $? = 2 &&
	echo "tichaos: the cluster in '\''$A'\'' is running with port base $base; run '\''cluster down'\'' first" >expect &&
	test_cmp expect err
'

test_expect_success 'a stopped cluster moves to a new port base' '
	"$TICHAOS" cluster down --dir "$B" &&
	moved=$(free_port_base "$other") &&
	"$TICHAOS" cluster up --dir "$B" --port-base "$moved" >/dev/null 2>&1 &&
	test "$(cat "$B/port-base")" = "$moved" &&
	sql "$moved" "create table only_b.t (id int primary key); insert into only_b.t values (7)" &&
	wait_for_condition 5 "test \"\$(sql $((moved + 1)) \"select id from only_b.t\")\" = 7"
'

test_expect_success 'cluster down of one leaves the other running' '
	"$TICHAOS" cluster down --dir "$B" &&
	"$TICHAOS" cluster status --dir "$A" >out &&
	test "$(grep -c " running" out)" = 3
'

# In a network namespace of its own (every port free, none of this
# machine's taken): base+7 of every auto block held but of 25000 and
# 25010; then two `up --port-base auto` at once, and a third once they
# are up. Both find 25000 free first from nearly any start: a choice that
# only looked gave it to both, and one's mariadbd found its port taken.
cat >"$TRASH/at-once.pl" <<'PERL'
use IO::Socket::INET;
my @held;
for (my $b = 20000; $b + 8 <= 32768; $b += 10) {
	next if $b == 25000 || $b == 25010;
	push @held, IO::Socket::INET->new(LocalAddr => "127.0.0.1",
		LocalPort => $b + 7, Listen => 1, ReuseAddr => 1)
		or die "cannot hold $b: $!\n";
}
sub up {
	my $pid = fork // die "fork: $!\n";
	exec "sh", "-c", 'exec "$0" cluster up --dir "$1" --port-base auto ' .
	    '>"$1.out" 2>&1', $ENV{TICHAOS}, $_[0] unless $pid;
	return $pid;
}
sub rc { waitpid $_[0], 0; return $? >> 8 }
my ($a, $b, $c) = @ARGV;
my @at_once = (up($a), up($b));
print "$a ", rc($at_once[0]), "\n", "$b ", rc($at_once[1]), "\n";
print "$c ", rc(up($c)), "\n";
PERL

if [ "$(id -u)" = 0 ] && unshare -n true 2>/dev/null; then
test_expect_success 'two auto bases chosen at once never share a block; a third finds none' '
	test_clusters="$test_clusters $TRASH/at-a $TRASH/at-b $TRASH/at-c" &&
	unshare -n sh -c "ip link set lo up && exec perl \"\$0\" \"\$@\"" \
		"$TRASH/at-once.pl" at-a at-b at-c >rcs &&
	printf "%s\n" "at-a 0" "at-b 0" "at-c 3" >expect &&
	{ test_cmp expect rcs || { cat at-?.out; false; }; } &&
	cat at-a/port-base at-b/port-base | sort >bases &&
	printf "%s\n" 25000 25010 >expect &&
	test_cmp expect bases &&
	echo "tichaos: no free block of 8 ports on 127.0.0.1 from 20000 to 32767" >expect &&
	test_cmp expect at-c.out &&
	"$TICHAOS" cluster down --dir at-a && "$TICHAOS" cluster down --dir at-b
'
else
	test_skip 'two auto bases chosen at once never share a block' \
		'a network namespace of its own needs root'
fi

test_done
