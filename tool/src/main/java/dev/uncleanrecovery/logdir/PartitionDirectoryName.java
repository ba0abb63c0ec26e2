// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.logdir;

import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.kafka.common.TopicPartition;

/**
 * What a directory inside a log dir is: a partition's current log ({@code <topic>-<partition>}), or something
 * inspect must skip, with the reason a person would want to read.
 *
 * @param topicPartition the partition the directory belongs to, also for skipped future/delete/stray copies;
 *                       null when the name says no partition
 * @param skipReason     null when the directory is a partition's current log
 */
record PartitionDirectoryName(TopicPartition topicPartition, String skipReason) {

    /** The KRaft metadata log; it can live in a broker's log dir but is not a data partition. */
    static final String CLUSTER_METADATA_TOPIC = "__cluster_metadata";
    /** Tiered storage keeps its cache of remote indexes here; Kafka's log loading passes over it. */
    private static final String REMOTE_INDEX_CACHE = "remote-log-index-cache";

    // Legal topic names: [a-zA-Z0-9._-], at most 249 characters. The partition is the digits after the last '-'.
    private static final Pattern PARTITION_DIR = Pattern.compile("([a-zA-Z0-9._-]{1,249})-(\\d{1,10})");
    // Copies Kafka renames away from the current log: '<topic>-<partition>.<uuid>-<suffix>'.
    private static final Pattern RENAMED_DIR = Pattern.compile("(.+)\\.[0-9a-zA-Z_-]+-(future|delete|stray)");

    static PartitionDirectoryName classify(String name) {
        Matcher renamed = RENAMED_DIR.matcher(name);
        if (renamed.matches()) {
            TopicPartition of = parse(renamed.group(1));
            return switch (renamed.group(2)) {
                case "future" -> new PartitionDirectoryName(of, "future replica of an intra-broker move"
                        + " (kafka-reassign-partitions --replica-log-dirs): the current log is in another log dir");
                case "delete" -> new PartitionDirectoryName(of,
                        "marked for deletion: Kafka deletes it asynchronously and never serves it again");
                default -> new PartitionDirectoryName(of,
                        "stray replica: the broker found it no longer hosts this partition and will delete it");
            };
        }
        if (name.equals(REMOTE_INDEX_CACHE)) {
            return new PartitionDirectoryName(null, "tiered storage's index cache, not a partition");
        }
        TopicPartition topicPartition = parse(name);
        if (topicPartition == null) {
            // Kafka reads every directory of a log dir as a partition's, and one it cannot fails its start-up
            return new PartitionDirectoryName(null, "not a partition directory (expected <topic>-<partition>): Kafka's"
                    + " log loading fails on it and the broker does not start — move it out of the log dir");
        }
        if (topicPartition.topic().equals(CLUSTER_METADATA_TOPIC)) {
            return new PartitionDirectoryName(topicPartition, "KRaft metadata log, not a data partition");
        }
        return new PartitionDirectoryName(topicPartition, null);
    }

    boolean isPartition() {
        return skipReason == null;
    }

    private static TopicPartition parse(String name) {
        Matcher m = PARTITION_DIR.matcher(name);
        if (!m.matches()) {
            return null;
        }
        long partition = Long.parseLong(m.group(2));
        return partition > Integer.MAX_VALUE ? null : new TopicPartition(m.group(1), (int) partition);
    }
}
