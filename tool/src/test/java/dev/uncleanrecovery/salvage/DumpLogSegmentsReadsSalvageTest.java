// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.salvage;

import static org.assertj.core.api.Assertions.assertThat;

import dev.uncleanrecovery.harness.KafkaToolProcess;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A salvaged segment is a Kafka segment: Kafka 4.4.0's own DumpLogSegments (kafka-dump-log.sh) reads every batch. */
class DumpLogSegmentsReadsSalvageTest {

    private static final Pattern BATCH_LINE = Pattern.compile("baseOffset: (\\d+) lastOffset: (\\d+) count: (\\d+)");

    @Test
    void kafka_dump_log_lists_every_salvaged_batch(@TempDir Path dir) throws Exception {
        SalvagedFile file = SalvageFixture.copied().writeTo(SalvageStore.open(dir, SalvageFixture.PLAN));

        KafkaToolProcess.Run dump = KafkaToolProcess.run("org.apache.kafka.tools.DumpLogSegments", "--files",
                file.segment().toString(), "--deep-iteration");

        assertThat(dump.exitCode()).as(dump.output()).isZero();
        StringBuilder expected = new StringBuilder();
        for (RecordBatch batch : MemoryRecords.readableRecords(
                ByteBuffer.wrap(java.nio.file.Files.readAllBytes(file.segment()))).batches()) {
            expected.append(batch.baseOffset()).append('-').append(batch.lastOffset()).append('-')
                    .append(batch.countOrNull()).append(' ');
        }
        StringBuilder listed = new StringBuilder();
        Matcher line = BATCH_LINE.matcher(dump.output());
        while (line.find()) {
            listed.append(line.group(1)).append('-').append(line.group(2)).append('-').append(line.group(3)).append(' ');
        }
        assertThat(listed.toString()).as(dump.output()).isEqualTo(expected.toString())
                .isEqualTo("0-2-3 3-4-2 5-6-2 7-7-1 8-8-1 9-10-2 11-12-2 ");
        assertThat(dump.output()).contains("endTxnMarker: COMMIT", "endTxnMarker: ABORT");
    }
}
