// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.execute;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.time.Instant;
import java.util.Optional;

/**
 * The process of one run, as another run names it: host, pid and when the process started (a pid alone is reused).
 *
 * @param started when the process started, to the millisecond; null when the platform does not say
 */
public record RunOwner(String host, long pid, Instant started) {

    /** This process. */
    public static RunOwner current() {
        ProcessHandle self = ProcessHandle.current();
        return new RunOwner(thisHost(), self.pid(), self.info().startInstant().map(RunOwner::toMillis).orElse(null));
    }

    public static String thisHost() {
        try {
            return InetAddress.getLocalHost().getHostName();
        } catch (UnknownHostException e) {
            return "unknown";
        }
    }

    /**
     * Whether this owner is known to have ended: on this host, its pid is gone or belongs to a process started at
     * another time. On another host nothing can be known.
     */
    public boolean endedOnThisHost() {
        if (!thisHost().equals(host) || pid == ProcessHandle.current().pid()) {
            return false;
        }
        Optional<ProcessHandle> process = ProcessHandle.of(pid).filter(ProcessHandle::isAlive);
        if (process.isEmpty()) {
            return true;
        }
        Optional<Instant> start = process.get().info().startInstant().map(RunOwner::toMillis);
        return started != null && start.isPresent() && !start.get().equals(started);
    }

    /** "pid 4242 on host-a, started 2026-12-04T05:00:00.123Z". */
    public String describe() {
        return "pid " + pid + " on " + host + (started == null ? "" : ", started " + started);
    }

    private static Instant toMillis(Instant instant) {
        return Instant.ofEpochMilli(instant.toEpochMilli());
    }
}
