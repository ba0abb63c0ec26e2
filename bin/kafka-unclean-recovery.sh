#!/usr/bin/env bash
# kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
# SPDX-License-Identifier: Apache-2.0
#
# Runs the tool. On a fresh clone it first builds the runnable jar with Maven (once).
set -euo pipefail

home="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
jar="$home/target/kafka-unclean-recovery.jar"
server_classpath="$home/target/kafka-server-4.4.0.classpath"

if ! command -v java >/dev/null 2>&1; then
  echo "kafka-unclean-recovery: java not found; install Java 17 or later" >&2
  exit 1
fi

if [ ! -f "$jar" ] || [ ! -f "$server_classpath" ]; then
  echo "kafka-unclean-recovery: building the tool first (mvn package, about a minute; output hidden)..." >&2
  if ! command -v mvn >/dev/null 2>&1; then
    echo "kafka-unclean-recovery: mvn not found; install Maven 3.8+ to build the tool" >&2
    exit 1
  fi
  build_log="$(mktemp)"
  if ! (cd "$home" && mvn -q -B -DskipTests package) >"$build_log" 2>&1; then
    cat "$build_log" >&2
    rm -f "$build_log"
    echo "kafka-unclean-recovery: the build failed (output above)" >&2
    exit 1
  fi
  rm -f "$build_log"
fi

# A short-lived CLI: the client compiler and serial GC start fastest.
exec java -XX:TieredStopAtLevel=1 -XX:+UseSerialGC -Xss1m ${KAFKA_UNCLEAN_RECOVERY_OPTS:-} \
  -Dkafka.unclean.recovery.home="$home" -Dkafka.server.classpath.file="$server_classpath" \
  -jar "$jar" "$@"
