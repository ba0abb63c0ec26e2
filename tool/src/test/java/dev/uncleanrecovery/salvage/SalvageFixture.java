// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.salvage;

import dev.uncleanrecovery.formats.ResultFile;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.apache.kafka.common.record.internal.ControlRecordType;
import org.apache.kafka.common.record.internal.EndTransactionMarker;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.SimpleRecord;

/**
 * A replica's log tail built with kafka-clients, as a broker stores it:
 * <pre>
 * 0-2   plain, epoch 3        (0 lies below the range, which starts at 1)
 * 3-4   transaction of producer 7, committed at 7
 * 5-6   transaction of producer 8, aborted at 8
 * 7     COMMIT of 7
 * 8     ABORT of 8
 * 9-10  transaction of producer 9, no marker
 * 11-12 plain, epoch 4, gzip
 * </pre>
 */
public final class SalvageFixture {

    static final TopicPartition PARTITION = new TopicPartition("orders", 2);
    static final Uuid TOPIC_ID = Uuid.fromString("m0uMP1nXQ4mAkRTb3e6u1Q");
    static final int BROKER = 3;
    static final long FROM = 1;
    static final long TO = 13;
    static final int LAST_EPOCH = 4;
    static final long TIMESTAMP = Instant.parse("2026-12-01T10:00:00Z").toEpochMilli();
    public static final SalvageStore.PlanReference PLAN = new SalvageStore.PlanReference("/ops/plan.json", "cluster-1",
            Instant.parse("2026-12-01T11:00:00Z"));

    private SalvageFixture() {
    }

    static DoomedRange range() {
        return new DoomedRange(PARTITION, TOPIC_ID, BROKER, FROM, TO, LAST_EPOCH);
    }

    /** The batches, one buffer each. */
    static List<ByteBuffer> batches() {
        List<ByteBuffer> batches = new ArrayList<>();
        batches.add(MemoryRecords.withRecords(0L, Compression.NONE, 3,
                record(0), record(1), new SimpleRecord(TIMESTAMP + 2, "key-2".getBytes(StandardCharsets.UTF_8),
                        "value-2".getBytes(StandardCharsets.UTF_8),
                        new RecordHeader[] {new RecordHeader("trace", "t-2".getBytes(StandardCharsets.UTF_8))})).buffer());
        batches.add(MemoryRecords.withTransactionalRecords(3L, Compression.NONE, 7L, (short) 0, 0, 3,
                record(3), record(4)).buffer());
        batches.add(MemoryRecords.withTransactionalRecords(5L, Compression.NONE, 8L, (short) 0, 0, 3,
                record(5), record(6)).buffer());
        batches.add(MemoryRecords.withEndTransactionMarker(7L, TIMESTAMP + 7, 3, 7L, (short) 0,
                new EndTransactionMarker(ControlRecordType.COMMIT, 0)).buffer());
        batches.add(MemoryRecords.withEndTransactionMarker(8L, TIMESTAMP + 8, 3, 8L, (short) 0,
                new EndTransactionMarker(ControlRecordType.ABORT, 0)).buffer());
        batches.add(MemoryRecords.withTransactionalRecords(9L, Compression.NONE, 9L, (short) 0, 0, 3,
                record(9), record(10)).buffer());
        batches.add(MemoryRecords.withRecords(11L, Compression.gzip().build(), LAST_EPOCH,
                record(11), new SimpleRecord(TIMESTAMP + 12, (byte[]) null, (byte[]) null)).buffer());
        return batches;
    }

    /** The batches as two chunks, as two Fetch responses would give them. */
    public static CopiedBatches copied() {
        List<ByteBuffer> batches = batches();
        return new CopiedBatches(range(), List.of(SalvageSource.FETCH_DEBUG_REPLICA, SalvageSource.FETCH_FUTURE_REPLICA),
                List.of(concat(batches.subList(0, 4)), concat(batches.subList(4, batches.size()))));
    }

    /**
     * The result file execute writes for orders-2, elected after {@code salvaged} was copied (version {@code version};
     * {@code salvaged} null: nothing was).
     */
    public static ResultFile resultRecording(int version, SalvagedFile salvaged) {
        return resultRecording(version, "ELECTED", salvaged);
    }

    /** The result file of a run whose outcome for orders-2 was {@code outcome} (designated leader 1). */
    public static ResultFile resultRecording(int version, String outcome, SalvagedFile salvaged) {
        ResultFile.Salvaged recorded = salvaged == null ? null : new ResultFile.Salvaged(salvaged.range().broker(),
                salvaged.range().fromOffset(), salvaged.range().toOffset(), salvaged.records(), salvaged.batches(),
                salvaged.bytes(), List.of("FETCH_DEBUG_REPLICA"), salvaged.segment().toString(),
                salvaged.manifest().toString(), version >= 5 ? salvaged.manifestSha256() : null);
        return new ResultFile(version, "cluster-1", "/ops/plan.json", "test", Instant.parse("2026-12-01T11:00:00Z"),
                42, "stock elector", new ResultFile.Summary(1, 0, 0, 0, 0, 0L),
                List.of(new ResultFile.Partition(PARTITION.topic(), PARTITION.partition(), 1, outcome, "leader 1",
                        null, null, null, recorded == null ? null : List.of(recorded), null)),
                List.of(), null, salvaged == null ? null : salvaged.segment().getParent().getParent().getParent()
                .toString(), null, version >= 6 ? 40L : null);
    }

    /** The batches as {@code inspect --salvage-beyond} copies them off {@code broker}'s disk: one segment read. */
    public static CopiedBatches copiedOffTheDiskOf(int broker) {
        return new CopiedBatches(new DoomedRange(PARTITION, TOPIC_ID, broker, FROM, TO, LAST_EPOCH),
                List.of(SalvageSource.DISK), List.of(concat(batches())));
    }

    static ByteBuffer concat(List<ByteBuffer> buffers) {
        int size = buffers.stream().mapToInt(ByteBuffer::remaining).sum();
        ByteBuffer all = ByteBuffer.allocate(size);
        buffers.forEach(b -> all.put(b.duplicate()));
        return all.flip();
    }

    static byte[] bytes(ByteBuffer buffer) {
        byte[] bytes = new byte[buffer.remaining()];
        buffer.duplicate().get(bytes);
        return bytes;
    }

    private static SimpleRecord record(int offset) {
        return new SimpleRecord(TIMESTAMP + offset, ("key-" + offset).getBytes(StandardCharsets.UTF_8),
                ("value-" + offset).getBytes(StandardCharsets.UTF_8));
    }
}
