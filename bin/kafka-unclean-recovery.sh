#!/usr/bin/env bash
# kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
# SPDX-License-Identifier: Apache-2.0
#
# Runs the tool: from the release archive as it is (lib/), or from a source checkout, which it first builds with
# Maven (once).
set -euo pipefail

home="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
if [ -f "$home/lib/kafka-unclean-recovery.jar" ]; then
  jar="$home/lib/kafka-unclean-recovery.jar"
  demo_jar="$home/lib/kafka-unclean-recovery-demo.jar"
  # no Kafka of its own: 'demo' runs the operator's (--kafka-home or KAFKA_HOME)
  server_classpath=""
  built=true
else
  jar="$home/tool/target/kafka-unclean-recovery.jar"
  demo_jar="$home/demo/target/kafka-unclean-recovery-demo.jar"
  server_classpath="$home/target/kafka-server-4.4.0.classpath"
  built=false
fi

if ! command -v java >/dev/null 2>&1; then
  echo "kafka-unclean-recovery.sh: java not found; install Java 17 or later" >&2
  exit 1
fi

if [ "$built" = false ] && { [ ! -f "$jar" ] || [ ! -f "$demo_jar" ] || [ ! -f "$server_classpath" ]; }; then
  echo "kafka-unclean-recovery.sh: building the tool first (mvn package, about a minute; output hidden)..." >&2
  if ! command -v mvn >/dev/null 2>&1; then
    echo "kafka-unclean-recovery.sh: mvn not found; install Maven 3.8+ to build the tool" >&2
    exit 1
  fi
  build_log="$(mktemp)"
  if ! (cd "$home" && mvn -q -B -DskipTests package) >"$build_log" 2>&1; then
    cat "$build_log" >&2
    rm -f "$build_log"
    echo "kafka-unclean-recovery.sh: the build failed (output above)" >&2
    exit 1
  fi
  rm -f "$build_log"
fi

# 'demo' (module demo: the local cluster it breaks) is the one command that needs the demo jar; every other run
# leaves it off the classpath. An argument that only looks like the command (a topic named demo) costs just the
# larger classpath.
main=(-jar "$jar")
for arg in "$@"; do
  if [ "$arg" = demo ]; then
    main=(-cp "$jar:$demo_jar" dev.uncleanrecovery.cli.Main)
    break
  fi
done

# A short-lived CLI: the client compiler starts fastest. The parallel GC starts as fast as the serial one and
# keeps a probe of many partitions (hundreds of batches in flight) from being copied into the old generation over
# and over. A young generation of half a larger initial heap (5% of the memory, capped by the JVM's default
# maximum on small machines) lets a run of a few thousand partitions finish without a collection. Memory is
# touched only as it is used. docs/benchmarks.md has the figures.
jvm_opts=(-XX:TieredStopAtLevel=1 -XX:+UseParallelGC -XX:InitialRAMPercentage=5 -XX:NewRatio=1 -Xss1m)

# A bounded heap, sized for an outage of 100,000 partitions (docs/benchmarks.md): a larger one ends with an
# "out of memory" error line instead of growing to the JVM's default of a quarter of the host's memory.
# KAFKA_UNCLEAN_RECOVERY_HEAP_OPTS replaces it, as KAFKA_HEAP_OPTS does for Kafka's own scripts.
heap_opts="${KAFKA_UNCLEAN_RECOVERY_HEAP_OPTS:--Xmx2g}"

# Class-data sharing (AppCDS): a dynamic archive of the classes a run loads (picocli, kafka-clients' Admin
# and network stack, the plan, election and JSON code) shortens every start (docs/benchmarks.md). It is made
# once, in the background, by a throw-away run that cannot touch any cluster (the tool's ClassDataTraining main
# class, not a command: a made-up plan in a temporary directory, then status against a closed loopback port),
# written under a temporary name, checked by a JVM that must map it (-Xshare:on), and only then renamed into place: a
# half-written archive would crash the JVM. It lives in the user's cache directory, never in the install (which may
# be read-only or shared), one per jar and Java runtime: the JVM maps an archive only with the exact jar and JDK it
# was made from. A missing or stale archive is silently ignored. KAFKA_UNCLEAN_RECOVERY_CDS=off disables all of it.
quiet_cds=(-Xlog:cds=off -Xlog:cds+dynamic=off)
cache_root="${XDG_CACHE_HOME:-${HOME:-}/.cache}"
if [ "${KAFKA_UNCLEAN_RECOVERY_CDS:-on}" != "off" ] && [ "$cache_root" != "/.cache" ]; then
  java_bin="$(command -v java)"
  java_bin="$(readlink -f "$java_bin" 2>/dev/null || printf '%s' "$java_bin")"
  jar_stamp="$(stat -c '%s.%Y' "$jar" 2>/dev/null || stat -f '%z.%m' "$jar" 2>/dev/null || true)"
  # named by the jar's path and the runtime, then by the jar's size and time: a rebuilt jar replaces its archive
  install_key="$(printf '%s|%s' "$jar" "$java_bin" | cksum | cut -d ' ' -f 1)"
  build_key="$(printf '%s' "$jar_stamp" | cksum | cut -d ' ' -f 1)"
  cache_dir="$cache_root/kafka-unclean-recovery"
  archive="$cache_dir/kafka-unclean-recovery-$install_key-$build_key.jsa"
  if [ -s "$archive" ] && [ "$archive" -nt "$jar" ]; then
    jvm_opts+=(-XX:SharedArchiveFile="$archive" "${quiet_cds[@]}")
  elif mkdir -p -m 700 "$cache_dir" 2>/dev/null && [ -w "$cache_dir" ] && command -v nohup >/dev/null 2>&1; then
    # One archive build at a time; a lock left by a killed build expires after 10 minutes.
    find "$cache_dir" -maxdepth 1 -name "$(basename "$archive").lock" -mmin +10 -exec rmdir {} + 2>/dev/null || true
    if mkdir "$archive.lock" 2>/dev/null; then
      nohup sh -c '
        tmp="$0.$$.tmp"; archive="$0"; jar="$1"; shift
        java "$@" -XX:ArchiveClassesAtExit="$tmp" -cp "$jar" dev.uncleanrecovery.cli.ClassDataTraining >/dev/null 2>&1
        if [ -s "$tmp" ] && java "$@" -XX:SharedArchiveFile="$tmp" -Xshare:on -cp "$jar" -version >/dev/null 2>&1; then
          mv -f "$tmp" "$archive"
          for old in "${archive%-*}"-*.jsa; do [ "$old" = "$archive" ] || rm -f "$old"; done
        fi
        rm -f "$tmp"; rmdir "$archive.lock"' "$archive" "$jar" "${jvm_opts[@]}" "${quiet_cds[@]}" >/dev/null 2>&1 &
    fi
  fi
fi

exec java "${jvm_opts[@]}" $heap_opts ${KAFKA_UNCLEAN_RECOVERY_OPTS:-} \
  -Dkafka.unclean.recovery.home="$home" ${server_classpath:+-Dkafka.server.classpath.file="$server_classpath"} \
  "${main[@]}" "$@"
