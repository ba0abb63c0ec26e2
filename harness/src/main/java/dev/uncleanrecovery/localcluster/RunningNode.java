// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.localcluster;

import java.time.Duration;
import java.util.Optional;

/** One started Kafka JVM (a node or a storage format), whatever runs it: a process or a container. */
interface RunningNode {

    /** The JVM's process id on this machine (a container's init process is the JVM). */
    long pid();

    boolean isAlive();

    /** SIGKILL, then wait until the JVM is gone, and release it. */
    void kill();

    /**
     * SIGTERM, then wait up to {@code timeout} for the JVM to exit.
     *
     * @return false if it was still running after {@code timeout} (it is left running)
     */
    boolean terminate(Duration timeout);

    /** Waits for the JVM to exit by itself; its exit status, or empty on timeout. */
    Optional<Integer> awaitExit(Duration timeout);

    /** Sends SIGSTOP or SIGCONT ({@code "STOP"}, {@code "CONT"}): the JDK has neither. */
    void signal(String signal);

    /** Frees what runs the JVM (killing it if still alive). */
    void release();
}
