#!/usr/bin/env bash
# `ibsm import-opensm` end to end:
#  - the complete default opensm.conf that OpenSM itself writes (`opensm -c`,
#    generated here, not kept in the tree): the output loads in ibsmd
#    (--print-config), every opensm.conf key is either translated (the list
#    below, each checked for its value) or named in the header with why;
#  - qos TRUE with a qos-policy.conf using a partition of the man page's
#    partitions examples: the group's P_Key comes from partitions.conf, the
#    output names the partitions file (partitions_file:) and the node-name-map;
#  - a qos-policy.conf line without an equivalent: exit 78, naming file:line,
#    and no output file.
#
# usage: test_import_opensm.sh IBSM IBSMD WORKDIR
set -euo pipefail
IBSM=$(realpath "$1"); IBSMD=$(realpath "$2"); WORK=$3
rm -rf "$WORK"; mkdir -p "$WORK"; cd "$WORK"
fail() { echo "FAIL: $*" >&2; exit 1; }

opensm -c "$WORK/opensm.conf" > /dev/null 2>&1 || true
[ -s "$WORK/opensm.conf" ] || fail "opensm -c wrote no opensm.conf"
keys=$(grep -cvE '^\s*(#|$)' "$WORK/opensm.conf")
[ "$keys" -gt 100 ] || fail "opensm.conf has only $keys keys"

"$IBSM" import-opensm --conf "$WORK/opensm.conf" --out "$WORK/ibsmd.yaml" || fail "import of the default opensm.conf"
"$IBSMD" --config "$WORK/ibsmd.yaml" --print-config > "$WORK/effective.yaml" || fail "ibsmd does not load the import"

# The keys translated (config/opensm_conf.cpp), OpenSM's default value -> ibsmd.
translated="guid sm_key subnet_prefix lmc packet_life_time subnet_timeout max_op_vls sweep_interval routing_engine
root_guid_file cn_guid_file io_guid_file guid_routing_order_file node_name_map_name sm_priority sminfo_polling_timeout
polling_retry_number transaction_timeout transaction_retries log_max_size log_flags perfmgr perfmgr_sweep_time_s
partition_config_file qos qos_policy_file qos_sl2vl qos_ca_sl2vl qos_swe_sl2vl qos_sw0_sl2vl qos_vlarb_high
qos_vlarb_low qos_ca_vlarb_high qos_ca_vlarb_low qos_swe_vlarb_high qos_swe_vlarb_low qos_high_limit
qos_ca_high_limit qos_swe_high_limit max_reverse_hops part_enforce no_partition_enforcement allow_both_pkeys
keep_pkey_indexes"
missing=0
while read -r key _; do
    case "$key" in ''|\#*) continue ;; esac
    if grep -qw "$key" <<< "$translated"; then continue; fi
    grep -qE "^#   .*opensm\.conf:[0-9]+: $key " "$WORK/ibsmd.yaml" || { echo "not listed: $key" >&2; missing=$((missing + 1)); }
done < "$WORK/opensm.conf"
[ "$missing" -eq 0 ] || fail "$missing opensm.conf keys neither translated nor listed"
for line in "priority: 0" "sm_key: 0x0000000000000001" "packet_life_time: 18" "subnet_timeout: 18" \
            "polling_interval_s: 10" "polling_retries: 4" "timeout_ms: 200" "retries: 3" "max_vls: 15" \
            "interval_s: 10" "level: info" "max_size_mb: 0" "interval_s: 180" "max_reverse_hops: 0" \
            "part_enforce: both" "allow_both_pkeys: false"; do
    grep -qF "$line" "$WORK/effective.yaml" || fail "the import does not give '$line'"
done
grep -q "perfmgr FALSE: ibsmd's counter poller stays on" "$WORK/ibsmd.yaml" || fail "perfmgr's difference is not said"

echo "--- qos TRUE, the man page's partitions, a qos-policy.conf naming one"
cat > "$WORK/partitions.conf" << 'CONF'
Default=0x7fff : ALL, SELF=full ;
NewPartition , ipoib : 0x123456=full, 0x3456789034=limi, 0x2134af2306 ;
YetAnotherOne = 0x300 : SELF=full ;
YetAnotherOne = 0x300 : ALL=limited ;
ShareIO = 0x80 , defmember=full : 0x123451, 0x123452;
# 0x123453, 0x123454 will be limited
ShareIO = 0x80 : 0x123453, 0x123454, 0x123455=full;
CONF
cat > "$WORK/qos-policy.conf" << 'CONF'
port-groups
  port-group
    name: Shared
    partition: ShareIO
  end-port-group
end-port-groups
qos-levels
  qos-level
    name: DEFAULT
    sl: 0
  end-qos-level
  qos-level
    name: IO
    sl: 3
  end-qos-level
end-qos-levels
qos-match-rules
  qos-match-rule
    destination: Shared
    qos-level-name: IO
  end-qos-match-rule
end-qos-match-rules
CONF
printf '0x0002c90300000001 "host-1"\n' > "$WORK/names"
sed -e 's/^qos FALSE/qos TRUE/' -e "s|^qos_policy_file .*|qos_policy_file $WORK/qos-policy.conf|" \
    "$WORK/opensm.conf" > "$WORK/opensm-qos.conf"
"$IBSM" import-opensm --conf "$WORK/opensm-qos.conf" --partitions "$WORK/partitions.conf" \
    --node-name-map "$WORK/names" > "$WORK/qos.yaml" || fail "import with qos"
grep -qx "partitions_file: $WORK/partitions.conf" "$WORK/qos.yaml" || fail "no partitions_file in the output"
grep -qx "node_name_map: $WORK/names" "$WORK/qos.yaml" || fail "no node_name_map in the output"
# The group's P_Key is ShareIO's, from partitions.conf; the rule gives level IO.
grep -qE "partitions: \[0x0080\]" "$WORK/qos.yaml" || fail "the Shared group is not P_Key 0x0080"
grep -qE "level: IO" "$WORK/qos.yaml" || fail "no rule with level IO"
# Without the partitions file the daemon loads it as it is (partitions_file
# is read by the partitions.conf reader).
grep -v '^partitions_file:' "$WORK/qos.yaml" > "$WORK/qos-only.yaml"
"$IBSMD" --config "$WORK/qos-only.yaml" --print-config > /dev/null || fail "ibsmd does not load the qos import"

echo "--- a construct without an equivalent"
sed -i 's/    partition: ShareIO/    port-name: vs1 HCA-1\/P1/' "$WORK/qos-policy.conf"
rc=0
"$IBSM" import-opensm --qos-policy "$WORK/qos-policy.conf" --out "$WORK/refused.yaml" 2> "$WORK/err.txt" || rc=$?
cat "$WORK/err.txt"
[ "$rc" -eq 78 ] || fail "exit $rc for a refused qos-policy.conf, expected 78"
grep -q "qos-policy.conf:4: port-name has no equivalent" "$WORK/err.txt" || fail "the refusal does not name file:line"
[ ! -e "$WORK/refused.yaml" ] || fail "an output was written for a refused import"
echo "PASS"
