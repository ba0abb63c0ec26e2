// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.formats;

import com.fasterxml.jackson.annotation.JsonInclude;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import org.apache.kafka.common.TopicPartition;

/**
 * One line of {@value #FILE_NAME} (JSON Lines), appended beside the result file once Kafka has accepted a consumer
 * group's offset set back to the divergence point of one election: what tells a later run that a group committed
 * past that point has read on in the new history since, rather than still standing in the old one.
 *
 * <pre>{@code
 * {"version":1,"at":"2026-12-05T02:10:00Z","clusterId":"q1Sh-9_ISia_zwGINzRvyQ","topic":"paid","topicId":"...",
 *  "partition":0,"electedLeaderEpoch":3,"group":"billing","committedOffset":15,"resetTo":10}
 * }</pre>
 *
 * @param electedLeaderEpoch the leader epoch the election gave the partition (the result's {@code after.leaderEpoch}):
 *                           the record holds for that election only
 * @param topicId            the plan's id of the topic; absent when the plan has none
 * @param committedOffset    the group's committed offset when it was set back
 * @param resetTo            the offset it was set to
 */
public record OffsetResetRecord(
        @Required int version,
        @Required Instant at,
        @Required String clusterId,
        @Required String topic,
        @JsonInclude(JsonInclude.Include.NON_NULL) String topicId,
        @Required int partition,
        @Required int electedLeaderEpoch,
        @Required String group,
        @Required long committedOffset,
        @Required long resetTo) {

    public static final int VERSION = 1;

    /** Its name, in the directory of the result file the resets were made for. */
    public static final String FILE_NAME = "consumer-offset-resets.jsonl";

    private static final StrictJsonFile<OffsetResetRecord> FORMAT = new StrictJsonFile<>(OffsetResetRecord.class,
            "consumer offset reset record", VERSION, "'kafka-unclean-recovery.sh consumer-offsets --execute'",
            PlanFormatException::new);

    public OffsetResetRecord {
        Checks.text(clusterId, "clusterId");
        Checks.topic(topic, "topic");
        Checks.atLeast(partition, 0, "partition");
        Checks.text(group, "group");
        if (resetTo < 0 || committedOffset <= resetTo) {
            throw Checks.invalid("committedOffset", committedOffset + " must lie past resetTo " + resetTo);
        }
    }

    /** The records of the resets made for the result file {@code resultFile}: a file in its directory. */
    public static Path besideResult(Path resultFile) {
        return resultFile.toAbsolutePath().resolveSibling(FILE_NAME);
    }

    public TopicPartition topicPartition() {
        return new TopicPartition(topic, partition);
    }

    /** Appends this line to {@code records}, on the disk before this returns. */
    public void appendTo(Path records) throws IOException {
        JsonLines.append(records, this);
    }

    /** Every line of {@code records}, each read as strictly as the tool's other files. */
    public static List<OffsetResetRecord> readAll(Path records) throws IOException {
        return JsonLines.readAll(records, FORMAT);
    }
}
