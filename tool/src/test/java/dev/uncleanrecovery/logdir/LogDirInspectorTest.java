// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.logdir;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.uncleanrecovery.logdir.LogDirFixture.Batches;
import dev.uncleanrecovery.logdir.LogDirFixture.Partition;
import dev.uncleanrecovery.logdir.LogDirFixture.Segment;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.zip.CRC32;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.compress.Compression;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class LogDirInspectorTest {

    private static final Instant NOW = Instant.parse("2026-11-29T16:00:00Z");

    @TempDir
    Path tmp;

    private final LogDirInspector inspector = new LogDirInspector(Clock.fixed(NOW, ZoneOffset.UTC));

    /** Kafka's own log loading, for the cases whose answer only Kafka's code settles; opened on first use. */
    private static KafkaLogLoading kafka;

    private LogDirReport inspect(LogDirFixture... dirs) {
        return inspector.inspect(Arrays.stream(dirs).map(d -> d.dir).toList(), PartitionFilter.all());
    }

    private PartitionLogSummary only(LogDirReport report) {
        assertThat(report.partitions()).hasSize(1);
        return report.partitions().get(0);
    }

    // ---- log end offset and epochs from intact logs ----

    @Test
    void an_intact_log_keeps_the_first_batches_of_its_last_epochs_and_its_last_batches_as_kafka_reads_them() {
        LogDirFixture logDir = LogDirFixture.formatted(tmp.resolve("batches"), 1);
        Partition p = logDir.partition("t", 0).leaderEpochs("0 0", "1 120", "2 240", "3 360");
        Segment first = p.segment(0);
        Batches.many(0, 0, 40, 3).forEach(first::append);
        Batches.many(1, 120, 40, 3).forEach(first::append);
        Segment second = p.segment(240);
        Batches.many(2, 240, 40, 3).forEach(second::append);
        Batches.many(3, 360, 40, 3).forEach(second::append);

        PartitionLogSummary s = only(inspect(logDir));

        assertThat(s.notes()).isEmpty();
        // epochs 1, 2 and 3: their first 16 batches; then the last 16 of epoch 3
        List<Long> expected = new ArrayList<>();
        for (long start : new long[] {120, 240, 360, 432}) {
            for (int i = 0; i < 16; i++) {
                expected.add(start + 3L * i);
            }
        }
        assertThat(s.batches()).extracting(LoggedBatch::baseOffset).containsExactlyElementsOf(expected);
        assertThat(s.batches()).allSatisfy(b -> assertThat(b.lastOffset()).isEqualTo(b.baseOffset() + 2));
        KafkaLogLoading.Outcome kafka = kafkaLoads(p, 0, false, KafkaLogLoading.batchOffsets(s));
        assertThat(kafka.batchesDifferFrom(s, true)).isNull();
    }

    @Test
    void a_torn_write_at_the_end_keeps_the_batches_before_it_and_a_missing_index_keeps_none() throws IOException {
        LogDirFixture logDir = LogDirFixture.formatted(tmp.resolve("torn"), 1);
        Partition p = logDir.partition("t", 0).leaderEpochs("0 0");
        Segment segment = p.segment(0);
        Batches.many(0, 0, 20, 3).forEach(segment::append);
        truncate(segment.log, segment.size() - 5);

        PartitionLogSummary torn = only(inspect(logDir));

        assertThat(torn.logEndOffset()).isEqualTo(57);
        assertThat(torn.batches()).extracting(LoggedBatch::baseOffset).endsWith(54L).contains(0L);
        assertThat(kafkaLoads(p, 0, false, KafkaLogLoading.batchOffsets(torn)).batchesDifferFrom(torn, true)).isNull();

        // Kafka recovers a segment without an index at every start-up: a damaged log, whose reads are not predicted
        Files.delete(segment.index);
        assertThat(only(inspect(logDir)).batches()).isEmpty();
    }

    @Test
    void intact_log_gives_the_offset_after_its_last_batch_and_the_checkpoints_latest_epoch() {
        LogDirFixture logDir = LogDirFixture.formatted(tmp.resolve("b2"), 2).cleanShutdown(19);
        Partition p = logDir.partition("orders", 3).leaderEpochs("0 0", "1 334", "2 434");
        p.segment(0).batch(0, 0, 10).batch(0, 10, 324).batch(1, 334, 100).batch(2, 434, 20);

        PartitionLogSummary s = only(inspect(logDir));

        assertThat(s.topic()).isEqualTo("orders");
        assertThat(s.partition()).isEqualTo(3);
        assertThat(s.topicId()).isEqualTo(p.topicId);
        assertThat(s.brokerId()).isEqualTo(2);
        assertThat(s.logStartOffset()).isZero();
        assertThat(s.logEndOffset()).isEqualTo(454);
        assertThat(s.lastWrittenLeaderEpoch()).isEqualTo(2);
        assertThat(s.leaderEpochs()).as("the cache Kafka loads, for the cut under a new leader")
                .containsExactly(new EpochEntry(0, 0), new EpochEntry(1, 334), new EpochEntry(2, 434));
        assertThat(s.lastBatchLeaderEpoch()).isEqualTo(2);
        assertThat(s.invalidTailBytes()).isZero();
        assertThat(s.cleanShutdown()).isTrue();
        assertThat(s.brokerEpoch()).isEqualTo(19);
        assertThat(s.error()).isNull();
        assertThat(s.notes()).isEmpty();
    }

    @ParameterizedTest
    @ValueSource(strings = {"gzip", "lz4", "snappy", "zstd"})
    void compressed_batches_are_read_by_their_headers(String codec) {
        LogDirFixture logDir = LogDirFixture.formatted(tmp.resolve("b1"), 1);
        Compression compression = Compression.of(codec).build();
        Partition p = logDir.partition("t", 0).leaderEpochs("4 100", "5 160");
        Segment segment = p.segment(100);
        segment.append(Batches.records(4, 100, 30, compression))
                .append(Batches.records(4, 130, 30, compression))
                .append(Batches.records(5, 160, 25, compression));

        PartitionLogSummary s = only(inspect(logDir));

        assertThat(s.logStartOffset()).isEqualTo(100);
        assertThat(s.logEndOffset()).isEqualTo(185);
        assertThat(s.lastWrittenLeaderEpoch()).isEqualTo(5);
        assertThat(s.lastBatchLeaderEpoch()).isEqualTo(5);
    }

    @Test
    void a_transaction_commit_marker_as_last_batch_counts_like_any_batch() {
        LogDirFixture logDir = LogDirFixture.formatted(tmp.resolve("b1"), 1);
        Partition p = logDir.partition("payments", 0).leaderEpochs("3 0");
        p.segment(0).batch(3, 0, 5)
                .append(Batches.transactional(3, 5, 4, 4242L, (short) 1))
                .append(Batches.commitMarker(3, 9, 4242L, (short) 1));

        PartitionLogSummary s = only(inspect(logDir));

        assertThat(s.logEndOffset()).isEqualTo(10);
        assertThat(s.lastWrittenLeaderEpoch()).isEqualTo(3);
    }

    @Test
    void compacted_log_with_offset_gaps_ends_after_the_last_batchs_last_offset() {
        LogDirFixture logDir = LogDirFixture.formatted(tmp.resolve("b1"), 1);
        Partition p = logDir.partition("__consumer_offsets", 7).leaderEpochs("0 0", "6 40");
        p.segment(0)
                .append(Batches.compacted(0, 19, 2, 7, 11))
                .append(Batches.compacted(0, 39, 25))
                // the cleaner removed the batch's last records but kept its last offset (59)
                .append(Batches.compacted(6, 59, 40, 44));

        PartitionLogSummary s = only(inspect(logDir));

        assertThat(s.logEndOffset()).isEqualTo(60);
        assertThat(s.lastWrittenLeaderEpoch()).isEqualTo(6);
    }

    @Test
    void log_start_offset_comes_from_the_checkpoint_when_it_is_past_the_first_segment() {
        LogDirFixture logDir = LogDirFixture.formatted(tmp.resolve("b1"), 1)
                .logStartOffsets("orders 0 57", "other 1 3");
        Partition p = logDir.partition("orders", 0).leaderEpochs("0 0");
        p.segment(50).batch(0, 50, 20);

        PartitionLogSummary s = only(inspect(logDir));

        assertThat(s.logStartOffset()).isEqualTo(57);
        assertThat(s.logEndOffset()).isEqualTo(70);
    }

    // ---- only the tail of the last segment is read ----

    @Test
    void segments_before_the_recovery_point_are_not_rechecked_as_kafka_does_not_recover_them() throws IOException {
        LogDirFixture logDir = LogDirFixture.formatted(tmp.resolve("b1"), 1).recoveryPoints("orders 0 200");
        Partition p = logDir.partition("orders", 0).leaderEpochs("0 0", "1 200");
        p.segment(0).appendRaw(new byte[] {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20});
        p.segment(100).batch(0, 100, 100);
        p.segment(200).batch(1, 200, 50);

        PartitionLogSummary s = only(inspect(logDir));

        assertThat(s.logStartOffset()).isZero();
        assertThat(s.logEndOffset()).isEqualTo(250);
        assertThat(s.lastWrittenLeaderEpoch()).isEqualTo(1);
        assertThat(s.invalidTailBytes()).isZero();
    }

    @Test
    void after_a_crash_without_a_recovery_point_every_segment_is_recovered_and_the_first_corrupt_one_ends_the_log() {
        LogDirFixture logDir = LogDirFixture.formatted(tmp.resolve("b1"), 1);
        Partition p = logDir.partition("orders", 0).leaderEpochs("0 0", "1 200");
        p.segment(0).batch(0, 0, 50).appendRaw(new byte[] {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18});
        Segment second = p.segment(100).batch(0, 100, 100);
        Segment third = p.segment(200).batch(1, 200, 50);

        PartitionLogSummary s = only(inspect(logDir));

        // Kafka's recovery cuts segment 0 after its first batch and deletes the segments after it
        assertThat(s.logEndOffset()).isEqualTo(50);
        assertThat(s.lastWrittenLeaderEpoch()).isZero();
        assertThat(s.leaderEpochs()).as("epoch 1 began at 200, past the recovered log: Kafka drops it")
                .containsExactly(new EpochEntry(0, 0));
        assertThat(s.invalidTailBytes()).isEqualTo(18 + second.size() + third.size());
        assertThat(s.notes()).anyMatch(n -> n.contains("delete the 2 later segment(s) (100, 200"));
    }

    @Test
    void after_a_clean_shutdown_a_big_segment_costs_an_index_lookup_and_a_few_kilobytes_at_its_tail() throws IOException {
        LogDirFixture logDir = LogDirFixture.formatted(tmp.resolve("b1"), 1);
        Partition p = logDir.partition("orders", 0);
        Segment segment = p.segment(0);
        for (int b = 0; b < 2000; b++) {
            segment.append(Batches.large(0, b * 4L, 4, 1000));
        }
        assertThat(segment.size()).isGreaterThan(8_000_000);

        SegmentTail tail = SegmentTailReader.read(segment.log, 0, segment.index, logDir.dir);

        assertThat(tail.nextOffset()).isEqualTo(8000);
        assertThat(tail.notes()).isEmpty();
        assertThat(tail.scannedFrom()).isGreaterThan(segment.size() - 16 * 1024);
        assertThat(tail.logBytesRead()).isLessThan(16 * 1024);
    }

    @Test
    void an_empty_last_segment_ends_the_log_at_its_base_offset_and_the_epoch_comes_from_the_one_before() {
        LogDirFixture logDir = LogDirFixture.formatted(tmp.resolve("b1"), 1).cleanShutdown(7);
        Partition p = logDir.partition("orders", 0).leaderEpochs("0 0", "4 80");
        p.segment(0).batch(0, 0, 80).batch(4, 80, 20);
        p.segment(100);

        PartitionLogSummary s = only(inspect(logDir));

        assertThat(s.logEndOffset()).isEqualTo(100);
        assertThat(s.lastWrittenLeaderEpoch()).isEqualTo(4);
        assertThat(s.lastBatchLeaderEpoch()).isEqualTo(4);
    }

    @Test
    void an_empty_partition_ends_at_zero_and_has_no_written_epoch() {
        LogDirFixture logDir = LogDirFixture.formatted(tmp.resolve("b1"), 1);
        // A new leader records its epoch at the log end offset before it writes anything.
        Partition p = logDir.partition("fresh", 0).leaderEpochs("0 0");
        p.segment(0).preallocateIndex(10 * 1024 * 1024);

        PartitionLogSummary s = only(inspect(logDir));

        assertThat(s.logEndOffset()).isZero();
        assertThat(s.lastWrittenLeaderEpoch()).isEqualTo(-1);
        assertThat(s.lastBatchLeaderEpoch()).isEqualTo(-1);
        assertThat(s.error()).isNull();
        assertThat(s.notes()).as("an idle empty partition is normal").isEmpty();
    }

    @Test
    void a_partition_without_segment_files_starts_and_ends_at_its_checkpointed_log_start() {
        LogDirFixture logDir = LogDirFixture.formatted(tmp.resolve("b1"), 1).logStartOffsets("orders 0 500");
        logDir.partition("orders", 0);

        PartitionLogSummary s = only(inspect(logDir));

        assertThat(s.logStartOffset()).isEqualTo(500);
        assertThat(s.logEndOffset()).isEqualTo(500);
        assertThat(s.notes()).anyMatch(n -> n.contains("no segment files"));
    }

    // ---- tails a crash leaves behind ----

    @Test
    void torn_tail_cut_mid_batch_ends_the_log_at_the_last_whole_batch() throws IOException {
        LogDirFixture logDir = LogDirFixture.formatted(tmp.resolve("b1"), 1);
        Partition p = logDir.partition("t", 1).leaderEpochs("0 0", "1 330");
        Segment segment = p.segment(0);
        for (int b = 0; b < 40; b++) {
            segment.batch(b < 33 ? 0 : 1, b * 10L, 10);
        }
        long whole = segment.size();
        segment.batch(1, 400, 10);
        long firstOfTwo = segment.size() - whole;
        segment.batch(1, 410, 10);
        long cutAt = whole + firstOfTwo + (segment.size() - whole - firstOfTwo) / 2; // mid second batch
        truncate(segment.log, cutAt);

        PartitionLogSummary s = only(inspect(logDir));

        assertThat(s.logEndOffset()).isEqualTo(410);
        assertThat(s.invalidTailBytes()).isEqualTo(cutAt - whole - firstOfTwo);
        assertThat(s.lastWrittenLeaderEpoch()).isEqualTo(1);
        assertThat(s.notes()).anyMatch(n -> n.contains("torn batch") && n.contains("log recovery will truncate"));
    }

    @Test
    void zero_filled_tail_is_reported_but_is_not_data() {
        LogDirFixture logDir = LogDirFixture.formatted(tmp.resolve("b1"), 1);
        Partition p = logDir.partition("t", 0).leaderEpochs("0 0");
        Segment segment = p.segment(0).batch(0, 0, 10).batch(0, 10, 10);
        long valid = segment.size();
        segment.appendRaw(new byte[1024 * 1024]);

        PartitionLogSummary s = only(inspect(logDir));

        assertThat(s.logEndOffset()).isEqualTo(20);
        assertThat(s.invalidTailBytes()).isEqualTo(1024 * 1024);
        assertThat(s.notes()).anyMatch(n -> n.contains("start with zeros") && n.contains("position " + valid));
    }

    @Test
    void a_batch_failing_its_crc_and_everything_after_it_is_cut_like_recovery_does() throws IOException {
        LogDirFixture logDir = LogDirFixture.formatted(tmp.resolve("b1"), 1);
        Partition p = logDir.partition("t", 0).leaderEpochs("0 0", "2 30");
        Segment segment = p.segment(0).batch(0, 0, 10).batch(0, 10, 10).batch(0, 20, 10);
        long corruptAt = segment.size();
        segment.batch(2, 30, 10).batch(2, 40, 10);
        flipByte(segment.log, corruptAt + 70); // inside the records of the batch at offset 30

        PartitionLogSummary s = only(inspect(logDir));

        assertThat(s.logEndOffset()).isEqualTo(30);
        assertThat(s.invalidTailBytes()).isEqualTo(segment.size() - corruptAt);
        assertThat(s.lastBatchLeaderEpoch()).isZero();
        // epoch 2 started at 30 = the new log end offset: Kafka drops it from the cache
        assertThat(s.lastWrittenLeaderEpoch()).isZero();
        assertThat(s.notes()).anyMatch(n -> n.contains("fails its CRC check"));
        assertThat(s.notes()).anyMatch(n -> n.contains("epoch 2 from 30"));
    }

    @ParameterizedTest(name = "batch length {0}: {1}")
    @CsvSource({
        "1000000, needs 1000012 bytes",   // beyond the end of the file: a torn write
        "20,      impossible length 20",  // below a v2 header: corruption
        "-3,      impossible length -3"})
    void a_batch_whose_length_cannot_be_right_ends_the_log_before_it(int batchLength, String why) throws IOException {
        LogDirFixture logDir = LogDirFixture.formatted(tmp.resolve("b1"), 1);
        Partition p = logDir.partition("t", 0).leaderEpochs("0 0");
        Segment segment = p.segment(0).batch(0, 0, 10);
        long at = segment.size();
        segment.batch(0, 10, 10);
        writeInt(segment.log, at + 8, batchLength);

        PartitionLogSummary s = only(inspect(logDir));

        assertThat(s.logEndOffset()).isEqualTo(10);
        assertThat(s.invalidTailBytes()).isEqualTo(segment.size() - at);
        assertThat(s.notes()).anyMatch(n -> n.contains(why));
    }

    @Test
    void a_message_of_format_v1_that_passes_its_crc_is_kept_as_kafkas_recovery_keeps_it() throws IOException {
        LogDirFixture logDir = LogDirFixture.formatted(tmp.resolve("b1"), 1);
        Partition p = logDir.partition("old", 0);
        Segment segment = p.segment(0).batch(0, 0, 10);
        Files.write(segment.log, legacyV1Message(), StandardOpenOption.TRUNCATE_EXISTING);
        logDir.partition("new", 0).leaderEpochs("0 0").segment(0).batch(0, 0, 3);

        LogDirReport report = inspect(logDir);

        assertThat(report.partitions()).extracting(PartitionLogSummary::topic).containsExactly("new", "old");
        assertThat(report.partitions().get(0).logEndOffset()).isEqualTo(3);
        PartitionLogSummary old = report.partitions().get(1);
        assertThat(old.error()).isNull();
        assertThat(old.logEndOffset()).isEqualTo(1);
        assertThat(old.lastBatchLeaderEpoch()).as("format v1 has no leader epoch").isEqualTo(-1);
        assertThat(old.lastWrittenLeaderEpoch()).isEqualTo(-1);
    }

    // ---- the offset index ----

    @Test
    void after_a_clean_shutdown_the_log_end_is_found_through_the_index_as_kafka_finds_it() {
        LogDirFixture logDir = LogDirFixture.formatted(tmp.resolve("b1"), 1);
        Partition p = logDir.partition("t", 0).leaderEpochs("0 0");
        Segment segment = p.segment(0);
        Batches.many(0, 0, 300, 10).forEach(segment::append);

        SegmentTail tail = tailOf(segment);

        assertThat(tail.nextOffset()).isEqualTo(3000);
        assertThat(tail.scannedFrom()).isPositive();
        assertThat(tail.notes()).isEmpty();
    }

    @Test
    void after_a_crash_a_preallocated_or_garbage_index_does_not_matter_as_recovery_rebuilds_it() throws IOException {
        LogDirFixture logDir = LogDirFixture.formatted(tmp.resolve("b1"), 1);
        Segment preallocated = logDir.partition("t", 0).leaderEpochs("0 0").segment(0);
        Batches.many(0, 0, 300, 10).forEach(preallocated::append);
        preallocated.preallocateIndex(10 * 1024 * 1024);
        Segment garbage = logDir.partition("t", 1).leaderEpochs("0 0").segment(0);
        Batches.many(0, 0, 300, 10).forEach(garbage::append);
        byte[] bytes = new byte[4096];
        new Random(42).nextBytes(bytes);
        Files.write(garbage.index, bytes);

        LogDirReport report = inspect(logDir);

        assertThat(report.partitions()).allSatisfy(s -> {
            assertThat(s.error()).isNull();
            assertThat(s.logEndOffset()).isEqualTo(3000);
            assertThat(s.invalidTailBytes()).isZero();
        });
    }

    @Test
    void after_a_clean_shutdown_a_garbage_index_is_read_as_kafka_reads_it() throws IOException {
        for (int seed = 0; seed < 20; seed++) {
            LogDirFixture logDir = LogDirFixture.formatted(tmp.resolve("b" + seed), 1).cleanShutdown(4);
            Partition p = logDir.partition("t", 0).leaderEpochs("0 0");
            Segment segment = p.segment(0);
            Batches.many(0, 0, 300, 10).forEach(segment::append);
            byte[] garbage = new byte[8 * (1 + seed)];
            new Random(seed).nextBytes(garbage);
            Files.write(segment.index, garbage);

            PartitionLogSummary s = only(inspect(logDir));
            KafkaLogLoading.Outcome kafka = kafkaLoads(p, 0, true);

            if (kafka.failure() == null) {
                assertThat(s.error()).as("seed %d", seed).isNull();
                assertThat(s.logEndOffset()).as("seed %d", seed).isEqualTo(kafka.logEndOffset());
            } else {
                assertThat(s.error()).as("seed %d", seed).contains(kafka.failure().consequence(logDir.dir));
            }
        }
    }

    @Test
    void after_a_clean_shutdown_an_index_pointing_past_a_log_cut_on_disk_makes_kafka_take_the_segment_as_empty() {
        LogDirFixture logDir = LogDirFixture.formatted(tmp.resolve("b1"), 1).cleanShutdown(3);
        Partition p = logDir.partition("t", 0).leaderEpochs("0 0");
        p.segment(0).batch(0, 0, 5);
        Segment segment = p.segment(5);
        Batches.many(0, 5, 300, 10).forEach(segment::append);
        truncate(segment.log, segment.size() / 2 + 3);

        PartitionLogSummary s = only(inspect(logDir));

        // Kafka looks the index's last entry up, finds no batch from its position, and counts the segment as empty
        assertThat(s.logEndOffset()).isEqualTo(5).isEqualTo(kafkaLoads(p, 0, true).logEndOffset());
        assertThat(s.notes()).anyMatch(n -> n.contains("takes segment 5 as empty"));
    }

    @Test
    void a_segment_without_its_index_is_recovered_even_after_a_clean_shutdown() throws IOException {
        LogDirFixture logDir = LogDirFixture.formatted(tmp.resolve("b1"), 1).cleanShutdown(2);
        Partition p = logDir.partition("t", 0).leaderEpochs("0 0");
        Segment segment = p.segment(0);
        Batches.many(0, 0, 100, 10).forEach(segment::append);
        long whole = segment.size();
        segment.appendRaw(new byte[] {0, 0, 0, 0, 0, 0, 0, 9, 0, 0, 0, 1});
        Files.delete(segment.index);

        PartitionLogSummary s = only(inspect(logDir));

        assertThat(s.logEndOffset()).isEqualTo(1000);
        assertThat(s.invalidTailBytes()).isEqualTo(segment.size() - whole);
        assertThat(s.notes()).anyMatch(n -> n.contains("is missing") && n.contains("recovery cuts its last 12 bytes"));
    }

    // ---- the leader epoch ----

    @Test
    void without_a_leader_epoch_checkpoint_the_last_batchs_epoch_is_used_and_said() throws IOException {
        LogDirFixture logDir = LogDirFixture.formatted(tmp.resolve("b1"), 1);
        Partition p = logDir.partition("t", 0);
        p.segment(0).batch(3, 0, 10).batch(5, 10, 10);

        PartitionLogSummary s = only(inspect(logDir));

        assertThat(s.lastWrittenLeaderEpoch()).isEqualTo(5);
        assertThat(s.notes()).anyMatch(n -> n.contains("leader-epoch-checkpoint is missing"));
    }

    @Test
    void a_leader_epoch_checkpoint_cut_short_is_that_partitions_error_as_kafka_takes_the_log_dir_offline() {
        LogDirFixture logDir = LogDirFixture.formatted(tmp.resolve("b1"), 1);
        Partition p = logDir.partition("t", 0).file("leader-epoch-checkpoint", "0\n3\n0 0\n5 10\n");
        p.segment(0).batch(0, 0, 10).batch(5, 10, 10);
        logDir.partition("u", 0).leaderEpochs("0 0").segment(0).batch(0, 0, 4);

        LogDirReport report = inspect(logDir);

        PartitionLogSummary torn = report.partitions().get(0);
        assertThat(torn.isReadable()).isFalse();
        assertThat(torn.error()).contains("leader-epoch-checkpoint says it has 3 entries but holds 2")
                .contains("Kafka marks log dir " + logDir.dir + " failed").contains("restore the file or remove it");
        assertThat(report.partitions().get(1).logEndOffset()).isEqualTo(4);
    }

    @Test
    void a_leader_epoch_checkpoint_with_a_field_that_is_not_a_number_keeps_kafka_from_starting() {
        LogDirFixture logDir = LogDirFixture.formatted(tmp.resolve("b1"), 1);
        Partition p = logDir.partition("t", 0).file("leader-epoch-checkpoint", "0\n2\n0 0\n5 1x\n");
        p.segment(0).batch(0, 0, 10).batch(5, 10, 10);

        PartitionLogSummary s = only(inspect(logDir));

        assertThat(s.error()).contains("'5 1x' has a field that is not a number").contains("the broker does not start");
    }

    @Test
    void a_leader_epoch_checkpoint_torn_to_nothing_loads_empty_and_recovery_fills_the_cache() {
        LogDirFixture logDir = LogDirFixture.formatted(tmp.resolve("b1"), 1);
        Partition p = logDir.partition("t", 0).file("leader-epoch-checkpoint", "0\n");
        p.segment(0).batch(0, 0, 10).batch(5, 10, 10);

        PartitionLogSummary s = only(inspect(logDir));

        assertThat(s.error()).isNull();
        assertThat(s.lastWrittenLeaderEpoch()).isEqualTo(5);
    }

    @Test
    void an_epoch_a_leader_took_without_writing_is_not_a_written_epoch() {
        LogDirFixture logDir = LogDirFixture.formatted(tmp.resolve("b1"), 1).cleanShutdown(12);
        // elected at epoch 7 with log end offset 40, then stopped before any write
        Partition p = logDir.partition("t", 0).leaderEpochs("0 0", "6 20", "7 40");
        p.segment(0).batch(0, 0, 20).batch(6, 20, 20);

        PartitionLogSummary s = only(inspect(logDir));

        assertThat(s.logEndOffset()).isEqualTo(40);
        assertThat(s.lastWrittenLeaderEpoch()).isEqualTo(6);
        assertThat(s.notes()).anyMatch(n -> n.contains("epoch 7 from 40"));
    }

    @Test
    void after_a_crash_an_epoch_missing_from_the_checkpoint_is_added_back_by_recovery() {
        LogDirFixture logDir = LogDirFixture.formatted(tmp.resolve("b1"), 1);
        Partition p = logDir.partition("t", 0).leaderEpochs("0 0", "2 10");
        p.segment(0).batch(0, 0, 10).batch(2, 10, 10).batch(3, 20, 10);

        PartitionLogSummary s = only(inspect(logDir));

        assertThat(s.cleanShutdown()).isFalse();
        assertThat(s.lastWrittenLeaderEpoch()).isEqualTo(3);
        assertThat(s.notes()).anyMatch(n -> n.contains("log recovery adds it"));
    }

    @Test
    void after_a_clean_shutdown_the_checkpoint_wins_over_a_disagreeing_batch_and_the_mismatch_is_noted() {
        LogDirFixture logDir = LogDirFixture.formatted(tmp.resolve("b1"), 1).cleanShutdown(3);
        Partition p = logDir.partition("t", 0).leaderEpochs("0 0", "2 10");
        p.segment(0).batch(0, 0, 10).batch(2, 10, 10).batch(3, 20, 10);

        PartitionLogSummary s = only(inspect(logDir));

        assertThat(s.lastWrittenLeaderEpoch()).isEqualTo(2);
        assertThat(s.lastBatchLeaderEpoch()).isEqualTo(3);
        assertThat(s.notes()).anyMatch(n -> n.contains("the last batch has epoch 3 but"));
    }

    @Test
    void a_log_ending_before_its_checkpointed_start_is_restarted_there_without_epochs() {
        LogDirFixture logDir = LogDirFixture.formatted(tmp.resolve("b1"), 1).logStartOffsets("t 0 900");
        Partition p = logDir.partition("t", 0).leaderEpochs("0 0");
        p.segment(0).batch(0, 0, 10);

        PartitionLogSummary s = only(inspect(logDir));

        assertThat(s.logStartOffset()).isEqualTo(900);
        assertThat(s.logEndOffset()).isEqualTo(900);
        assertThat(s.lastWrittenLeaderEpoch()).isEqualTo(-1);
    }

    // ---- shutdown, identity, skipped directories, filters ----

    @Test
    void missing_clean_shutdown_marker_means_unclean_with_no_broker_epoch() {
        LogDirFixture logDir = LogDirFixture.formatted(tmp.resolve("b1"), 1);
        logDir.partition("t", 0).leaderEpochs("0 0").segment(0).batch(0, 0, 1);

        LogDirReport report = inspect(logDir);

        assertThat(report.cleanShutdown()).isFalse();
        assertThat(report.brokerEpoch()).isEqualTo(-1);
        assertThat(report.partitions().get(0).brokerEpoch()).isEqualTo(-1);
        assertThat(report.logDirs().get(0).notes()).anyMatch(n -> n.contains("did not stop cleanly"));
        assertThat(report.brokerId()).isEqualTo(1);
        assertThat(report.clusterId()).isEqualTo(LogDirFixture.CLUSTER_ID);
        assertThat(report.inspectedAt()).isEqualTo(NOW);
    }

    @Test
    void clean_shutdown_needs_the_same_broker_epoch_in_every_log_dir() {
        LogDirFixture a = LogDirFixture.formatted(tmp.resolve("a"), 4).cleanShutdown(31);
        LogDirFixture b = LogDirFixture.formatted(tmp.resolve("b"), 4).cleanShutdown(31);
        assertThat(inspect(a, b).cleanShutdown()).isTrue();
        assertThat(inspect(a, b).brokerEpoch()).isEqualTo(31);

        b.cleanShutdown(30);
        assertThat(inspect(a, b).cleanShutdown()).isFalse();
        assertThat(inspect(a, b).brokerEpoch()).isEqualTo(-1);
    }

    @Test
    void future_delete_stray_and_metadata_directories_are_skipped_with_reasons() {
        LogDirFixture logDir = LogDirFixture.formatted(tmp.resolve("b1"), 1);
        logDir.partition("orders", 0).leaderEpochs("0 0").segment(0).batch(0, 0, 5);
        logDir.mkdir("orders-0.6f1c2a0e9d8b4c7a8e5f3d2c1b0a9f8e-future");
        logDir.mkdir("orders-1.0a9f8e7d6c5b4a3928170f6e5d4c3b2a-delete");
        logDir.mkdir("orders-2.1b2c3d4e5f60718293a4b5c6d7e8f901-stray");
        logDir.mkdir("__cluster_metadata-0");
        logDir.mkdir("lost+found");

        LogDirReport report = inspect(logDir);

        assertThat(report.partitions()).extracting(PartitionLogSummary::topicPartition)
                .extracting(Object::toString).containsExactly("orders-0");
        assertThat(report.skipped()).extracting(SkippedDirectory::directory).containsExactly(
                "__cluster_metadata-0", "lost+found", "orders-0.6f1c2a0e9d8b4c7a8e5f3d2c1b0a9f8e-future",
                "orders-1.0a9f8e7d6c5b4a3928170f6e5d4c3b2a-delete", "orders-2.1b2c3d4e5f60718293a4b5c6d7e8f901-stray");
        assertThat(report.skipped()).extracting(SkippedDirectory::reason).allMatch(r -> !r.isBlank());
        assertThat(report.skipped().get(2).reason()).contains("future replica");
    }

    @Test
    void the_filter_picks_a_topic_and_partitions_and_hides_unrelated_skipped_directories() {
        LogDirFixture logDir = LogDirFixture.formatted(tmp.resolve("b1"), 1);
        for (int i = 0; i < 3; i++) {
            logDir.partition("orders", i).leaderEpochs("0 0").segment(0).batch(0, 0, 5);
            logDir.partition("orders.v2", i).leaderEpochs("0 0").segment(0).batch(0, 0, 5);
        }
        logDir.mkdir("orders-1.0a9f8e7d6c5b4a3928170f6e5d4c3b2a-delete");
        logDir.mkdir("orders-2.0a9f8e7d6c5b4a3928170f6e5d4c3b2a-delete");
        logDir.mkdir("lost+found");

        LogDirReport report = inspector.inspect(List.of(logDir.dir), PartitionFilter.partitions("orders", Set.of(0, 2)));

        assertThat(report.partitions()).extracting(p -> p.topicPartition().toString())
                .containsExactly("orders-0", "orders-2");
        assertThat(report.skipped()).extracting(SkippedDirectory::directory)
                .containsExactly("orders-2.0a9f8e7d6c5b4a3928170f6e5d4c3b2a-delete");
        assertThat(inspector.inspect(List.of(logDir.dir), PartitionFilter.topic("orders.v2")).partitions()).hasSize(3);
        assertThat(inspector.inspect(List.of(logDir.dir), PartitionFilter.exactly(Set.of(
                        new TopicPartition("orders", 1), new TopicPartition("orders.v2", 2)))).partitions())
                .extracting(p -> p.topicPartition().toString()).containsExactly("orders-1", "orders.v2-2");
    }

    @Test
    void a_partition_in_two_log_dirs_is_an_error_on_both_copies() {
        LogDirFixture a = LogDirFixture.formatted(tmp.resolve("a"), 1);
        LogDirFixture b = LogDirFixture.formatted(tmp.resolve("b"), 1);
        a.partition("t", 0).leaderEpochs("0 0").segment(0).batch(0, 0, 5);
        b.partition("t", 0).leaderEpochs("0 0").segment(0).batch(0, 0, 7);
        b.partition("t", 1).leaderEpochs("0 0").segment(0).batch(0, 0, 7);

        LogDirReport report = inspect(a, b);

        assertThat(report.partitions()).hasSize(3);
        assertThat(report.partitions().subList(0, 2)).allMatch(p -> p.error() != null && p.error().contains("several log dirs"));
        assertThat(report.partitions().get(2).isReadable()).isTrue();
    }

    @Test
    void log_dirs_of_two_brokers_are_refused() {
        LogDirFixture a = LogDirFixture.formatted(tmp.resolve("a"), 1);
        LogDirFixture b = LogDirFixture.formatted(tmp.resolve("b"), 2);

        assertThatThrownBy(() -> inspect(a, b)).isInstanceOf(LogDirReadException.class)
                .hasMessageContaining("different brokers").hasMessageContaining("once per broker");
    }

    @Test
    void a_path_that_is_not_a_log_dir_is_refused_with_what_to_pass() {
        assertThatThrownBy(() -> inspector.inspect(List.of(tmp.resolve("nope")), PartitionFilter.all()))
                .isInstanceOf(LogDirReadException.class).hasMessageContaining("does not exist")
                .hasMessageContaining("log.dirs");
    }

    @Test
    void a_log_dir_without_meta_properties_is_still_read_with_an_unknown_broker() throws IOException {
        LogDirFixture logDir = LogDirFixture.formatted(tmp.resolve("b1"), 1);
        Files.delete(logDir.dir.resolve("meta.properties"));
        logDir.partition("t", 0).leaderEpochs("0 0").segment(0).batch(0, 0, 5);

        LogDirReport report = inspect(logDir);

        assertThat(report.brokerId()).isEqualTo(-1);
        assertThat(report.logDirs().get(0).error()).contains("meta.properties is missing");
        assertThat(report.partitions().get(0).logEndOffset()).isEqualTo(5);
    }

    // ---- per-partition problems never stop the others ----

    @Test
    void missing_partition_metadata_is_a_note_not_an_error() throws IOException {
        LogDirFixture logDir = LogDirFixture.formatted(tmp.resolve("b1"), 1);
        Partition p = logDir.partition("t", 0).leaderEpochs("0 0");
        p.segment(0).batch(0, 0, 5);
        Files.delete(p.path("partition.metadata"));

        PartitionLogSummary s = only(inspect(logDir));

        assertThat(s.topicId()).isNull();
        assertThat(s.logEndOffset()).isEqualTo(5);
        assertThat(s.notes()).anyMatch(n -> n.contains("partition.metadata is missing"));
    }

    @Test
    void an_unreadable_segment_is_that_partitions_error_and_the_others_are_read() throws IOException {
        Assumptions.assumeFalse("root".equals(System.getProperty("user.name")), "root reads any file");
        LogDirFixture logDir = LogDirFixture.formatted(tmp.resolve("b1"), 1);
        Segment segment = logDir.partition("a", 0).leaderEpochs("0 0").segment(0).batch(0, 0, 5);
        logDir.partition("b", 0).leaderEpochs("0 0").segment(0).batch(0, 0, 6);
        Files.setPosixFilePermissions(segment.log, PosixFilePermissions.fromString("---------"));
        try {
            LogDirReport report = inspect(logDir);

            assertThat(report.partitions().get(0).error()).contains("permission denied").contains("user that runs Kafka");
            assertThat(report.partitions().get(1).logEndOffset()).isEqualTo(6);
        } finally {
            Files.setPosixFilePermissions(segment.log, PosixFilePermissions.fromString("rw-r--r--"));
        }
    }

    @Test
    void a_directory_named_like_a_segment_is_skipped_as_kafka_skips_it() throws IOException {
        LogDirFixture logDir = LogDirFixture.formatted(tmp.resolve("b1"), 1);
        Partition p = logDir.partition("a", 0).leaderEpochs("0 0");
        p.segment(0).batch(0, 0, 6);
        Files.createDirectory(p.path(String.format("%020d.log", 6)));

        PartitionLogSummary s = only(inspect(logDir));

        assertThat(s.logEndOffset()).isEqualTo(6);
        assertThat(s.notes()).anyMatch(n -> n.contains("00000000000000000006.log is a directory, not a regular file")
                && n.contains("skips it"));
    }

    @Test
    void permission_problems_are_described_with_what_to_do() {
        String line = PartitionLogReader.describe(new AccessDeniedException("/data/t-0/00000000000000000000.log"));

        assertThat(line).isEqualTo("permission denied reading /data/t-0/00000000000000000000.log — run inspect as the"
                + " user that runs Kafka, or with read access to the log dirs");
    }

    @Test
    void after_a_crash_kafka_recovers_from_the_segment_holding_the_recovery_point_and_so_does_inspect()
            throws IOException {
        LogDirFixture logDir = LogDirFixture.formatted(tmp.resolve("b1"), 1).recoveryPoints("t 0 50");
        Partition p = logDir.partition("t", 0).leaderEpochs("0 0");
        Segment first = p.segment(0).batch(0, 0, 40);
        long corruptAt = first.size();
        first.batch(0, 40, 60);
        Segment second = p.segment(100).batch(0, 100, 100);
        flipByte(first.log, corruptAt + 70);

        PartitionLogSummary s = only(inspect(logDir));

        assertThat(s.logEndOffset()).isEqualTo(40);
        assertThat(s.invalidTailBytes()).isEqualTo(first.size() - corruptAt + second.size());
        assertThat(s.notes()).anyMatch(n -> n.contains("fails its CRC check") && n.contains("delete the 1 later"));
    }

    // ---- helpers ----

    @AfterAll
    static void closeKafka() throws Exception {
        if (kafka != null) {
            kafka.close();
        }
    }

    /** What Kafka 4.4's own log loading makes of a copy of the partition (the test is skipped without the jars). */
    private KafkaLogLoading.Outcome kafkaLoads(Partition p, long recoveryPoint, boolean cleanShutdown) {
        return kafkaLoads(p, recoveryPoint, cleanShutdown, List.of());
    }

    private KafkaLogLoading.Outcome kafkaLoads(Partition p, long recoveryPoint, boolean cleanShutdown,
                                               List<Long> batchesAt) {
        if (kafka == null) {
            kafka = KafkaLogLoading.open();
        }
        try {
            Path copy = Files.createDirectories(tmp.resolve("kafka-" + System.nanoTime()).resolve(p.dir.getFileName()));
            try (var files = Files.list(p.dir)) {
                for (Path file : files.toList()) {
                    Files.copy(file, copy.resolve(file.getFileName()));
                }
            }
            return kafka.load(copy, 0, recoveryPoint, cleanShutdown, batchesAt);
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    private static SegmentTail tailOf(Segment segment) {
        try {
            return SegmentTailReader.read(segment.log, segment.baseOffset, segment.index,
                    segment.log.getParent().getParent());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static void truncate(Path file, long size) {
        try (var channel = FileChannel.open(file, StandardOpenOption.WRITE)) {
            channel.truncate(size);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static void flipByte(Path file, long position) throws IOException {
        try (var channel = FileChannel.open(file, StandardOpenOption.READ,
                StandardOpenOption.WRITE)) {
            var b = ByteBuffer.allocate(1);
            channel.read(b, position);
            b.put(0, (byte) (b.get(0) ^ 0x5a));
            b.rewind();
            channel.write(b, position);
        }
    }

    private static void writeInt(Path file, long position, int value) throws IOException {
        try (var channel = FileChannel.open(file, StandardOpenOption.WRITE)) {
            channel.write(ByteBuffer.allocate(4).putInt(0, value), position);
        }
    }

    /** One message in format v1 (magic 1), as Kafka 0.10 wrote it: offset, size, crc, magic, attributes, ... */
    private static byte[] legacyV1Message() {
        byte[] value = "legacy".getBytes(StandardCharsets.UTF_8);
        int size = 4 + 1 + 1 + 8 + 4 + 4 + value.length; // crc magic attributes timestamp keyLength valueLength value
        var buffer = ByteBuffer.allocate(12 + size);
        buffer.putLong(0).putInt(size).putInt(0).put((byte) 1).put((byte) 0).putLong(0).putInt(-1)
                .putInt(value.length).put(value);
        var crc = new CRC32();
        crc.update(buffer.array(), 16, size - 4);
        buffer.putInt(12, (int) crc.getValue());
        return buffer.array();
    }
}
