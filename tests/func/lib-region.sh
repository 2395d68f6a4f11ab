# Sourced by the region fault's tests after test-lib.sh, one body for
# each cluster the fault runs on: t0455 on a static topology with
# tests/helpers/fake-pd.pl for PD, t0456 on the playground whose PD is
# that fake too, with the same regions (t0455's pd_up says which).

# suite NAME: $TRASH/NAME.yaml, 3 s of inserts into t, tables t and p, the
# fault items from stdin.
suite() {
	cat >"$TRASH/$1.yaml" <<EOF
name: $1
duration: 3s
seed: 7
requires: [tidb]
database: rg
tables:
  - name: t
    columns: "id INT AUTO_INCREMENT PRIMARY KEY, data VARCHAR(255)"
  - name: p
    columns: "id INT AUTO_INCREMENT PRIMARY KEY, data VARCHAR(255)"
    partition: "RANGE (id) (PARTITION p0 VALUES LESS THAN (1000), PARTITION p1 VALUES LESS THAN MAXVALUE)"
workloads:
  - kind: insert
    tables: t
    rate: 50
faults:
EOF
	cat >>"$TRASH/$1.yaml"
}

# blank_run OUT: the TAP of the run in $TRASH/OUT, OUT.tap, with its
# insert count blanked; the fault's records in OUT.nemesis, times
# blanked.
blank_run() {
	sed -i -e "s/^\(ok 1 - workload 1 insert: \)[0-9]*\( ok, 0 fail, 0 info\)$/\1N\2/" \
		"$TRASH/$1.tap" &&
	grep "\"process\":\"nemesis\"" "$TRASH/$1/history.jsonl" |
		sed -e "s/^{\"time\":[0-9]*,/{/" -e "s/\"took_ms\":[0-9]*/\"took_ms\":N/" \
		    -e "s/,\"fault\":[0-9]*}\$/}/" >"$TRASH/$1.nemesis"
}

# injected_tap OUT: OUT.tap says the fault took effect once.
injected_tap() {
	printf "%s\n" "TAP version 13" "1..2" \
		"ok 1 - workload 1 insert: N ok, 0 fail, 0 info" \
		"ok 2 - fault 1 region: 1 of 1 injected" >"$TRASH/expect.tap" &&
	test_cmp "$TRASH/expect.tap" "$TRASH/$1.tap"
}

# records OUT INVOKE-TARGET VALUE [TYPE [MESSAGE]]: the fault's two
# records are the invoke and an info (TYPE info, the default) or a fail
# with MESSAGE, with VALUE.
records() {
	{
		printf '{"process":"nemesis","type":"invoke","f":"region"%s}\n' "$2"
		if [ "${4:-info}" = info ]; then
			printf '{"process":"nemesis","type":"info","f":"region"%s,"value":{%s,"took_ms":N}}\n' "$2" "$3"
		else
			printf '{"process":"nemesis","type":"fail","f":"region"%s,"error":"%s","value":{%s,"took_ms":N}}\n' "$2" "$5" "$3"
		fi
	} >"$TRASH/expect.nemesis" &&
	test_cmp "$TRASH/expect.nemesis" "$TRASH/$1.nemesis"
}

# R ID START END CONF VERSION LEADER STORES: a region as the record says it.
R() {
	printf '{"id":%s,"start_key":"%s","end_key":"%s","conf_ver":%s,"version":%s,"leader_store":%s,"stores":[%s]}' "$@"
}

# The keys of fake-pd.pl's regions: TiDB's t{id}_r{handle}, memcomparable;
# MID, where the fake splits region 6 of t, at its middle.
T100="7480000000000000FF645F720000000000FA"
T100_1000="7480000000000000FF645F728000000000FF0003E80000000000FA"
T101="7480000000000000FF6500000000000000F8"
T101R="7480000000000000FF655F720000000000FA"
T102="7480000000000000FF6600000000000000F8"
T102R="7480000000000000FF665F720000000000FA"
T103="7480000000000000FF6700000000000000F8"
MID="7480000000000000FF64AFB94000000000FB8001F400000000007D"
