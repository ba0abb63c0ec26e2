// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.probe;

/**
 * A broker the probe got no answer from for some or all of its replicas: they are UNREACHABLE. Said once per
 * broker, because a broker that is down or hung fails every partition it holds the same way.
 *
 * @param name            how messages name it, "broker 2 (127.0.0.1:9093)"
 * @param reason          why, naming the broker: "broker 2 (127.0.0.1:9093) did not answer ListOffsets within 3 s"
 * @param timedOut        the deadline passed while waiting for it; false when it was given up at once (authentication,
 *                        fenced and not listening, not registered)
 * @param replicasUnknown its replicas left UNREACHABLE
 * @param replicas        its replicas the probe was to learn about
 */
public record UnansweredBroker(int broker, String name, String reason, boolean timedOut, int replicasUnknown,
                               int replicas) {
}
