# kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
# SPDX-License-Identifier: Apache-2.0
#
# Runs one JVM of the local cluster (a Kafka node or a storage format) and SIGKILLs it as soon as
# this script's standard input reaches end-of-file. Standard input is a pipe from the JVM that
# launched us, so the node dies with that JVM however it ends, including kill -9, when no shutdown
# hook runs. The first line written to standard output is the node's PID; the node itself writes
# to the log file. The exit status is the node's.
#
# usage: bash -c "<this script>" kafka-node-watchdog <log file> <java> <java arguments...>
log_file=$1
shift
# Keep the pipe from our launcher on fd 3 only: background jobs would otherwise get /dev/null.
exec 3<&0 0</dev/null
"$@" >>"$log_file" 2>&1 3<&- &
node_pid=$!
echo "$node_pid"
# 'read' is a shell builtin: killing this subshell leaves no reader process behind.
( while read -r -u 3 _; do :; done; kill -KILL "$node_pid" 2>/dev/null ) &
watcher_pid=$!
exec 3<&- 1>/dev/null
wait "$node_pid"
status=$?
kill -KILL "$watcher_pid" 2>/dev/null
exit "$status"
