// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.logdir;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.uncleanrecovery.logdir.LogDirFixture.Batches;
import dev.uncleanrecovery.logdir.LogDirFixture.Partition;
import dev.uncleanrecovery.logdir.LogDirFixture.Segment;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.zip.CRC32;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SegmentRangeCopyTest {

    @TempDir
    Path tmp;

    @Test
    void a_range_across_two_segments_is_the_segments_bytes_from_the_batch_holding_its_start() throws IOException {
        Partition p = LogDirFixture.formatted(tmp.resolve("data"), 1).partition("story", 0).leaderEpochs("0 0", "2 20");
        Segment first = p.segment(0).batch(0, 0, 10).batch(0, 10, 10);
        Segment second = p.segment(20).batch(2, 20, 10).batch(2, 30, 10);
        byte[] firstBytes = Files.readAllBytes(first.log);
        int batchTenAt = LogDirFixture.positionOf(firstBytes, 10);

        Copied copy = read(p.dir, 15, 40, (b, r) -> { });

        assertThat(copy.copy().stoppedBy()).isNull();
        assertThat(copy.copy().segments()).containsExactly(0L, 20L);
        assertThat(copy.reads()).as("a read per segment").hasSize(2);
        assertThat(copy.reads().get(0)).isEqualTo(Arrays.copyOfRange(firstBytes, batchTenAt, firstBytes.length));
        assertThat(copy.reads().get(1)).isEqualTo(Files.readAllBytes(second.log));
        assertThat(copy.copy().firstOffset()).isEqualTo(10);
        assertThat(copy.copy().lastOffset()).isEqualTo(39);
        assertThat(copy.copy().records()).isEqualTo(30);
        assertThat(copy.copy().batches()).isEqualTo(3);
        assertThat(copy.copy().bytes()).isEqualTo(firstBytes.length - batchTenAt + Files.size(second.log));
        assertThat(copy.copy().firstBatchEpoch()).isZero();
        assertThat(copy.copy().lastBatchEpoch()).isEqualTo(2);
    }

    @Test
    void the_offset_index_gives_the_start_and_the_copy_ends_with_the_batch_holding_the_last_offset() throws IOException {
        Partition p = LogDirFixture.formatted(tmp.resolve("data"), 1).partition("big", 0).leaderEpochs("0 0");
        Segment segment = p.segment(0);
        Batches.many(0, 0, 200, 5).forEach(segment::append);
        byte[] all = Files.readAllBytes(segment.log);
        assertThat(Files.size(segment.index)).as("the fixture wrote index entries").isPositive();
        List<Long> progress = new ArrayList<>();

        Copied copy = read(p.dir, 702, 853, (b, r) -> progress.add(r));

        assertThat(copy.copy().stoppedBy()).isNull();
        assertThat(copy.copy().firstOffset()).isEqualTo(700);
        assertThat(copy.copy().lastOffset()).isEqualTo(854);
        assertThat(copy.bytes()).isEqualTo(Arrays.copyOfRange(all, LogDirFixture.positionOf(all, 700),
                LogDirFixture.positionOf(all, 855)));
        assertThat(progress).endsWith(155L).hasSize(31);
    }

    @Test
    void a_torn_last_batch_is_left_out() throws IOException {
        Partition p = LogDirFixture.formatted(tmp.resolve("data"), 1).partition("torn", 0).leaderEpochs("0 0");
        Segment segment = p.segment(0).batch(0, 0, 10).batch(0, 10, 10);
        long valid = segment.size();
        MemoryRecords next = Batches.records(0, 20, 10, org.apache.kafka.common.compress.Compression.NONE);
        byte[] torn = Arrays.copyOf(bytes(next.buffer()), next.sizeInBytes() - 7);
        segment.appendRaw(torn);

        Copied copy = read(p.dir, 10, 20, (b, r) -> { });

        assertThat(copy.copy().stoppedBy()).isNull();
        assertThat(copy.copy().lastOffset()).isEqualTo(19);
        assertThat(copy.copy().bytes()).isEqualTo(valid - LogDirFixture.positionOf(Files.readAllBytes(segment.log), 10));
        // asked for the torn batch's offsets, it says the log ends before them
        Copied beyond = read(p.dir, 10, 30, (b, r) -> { });
        assertThat(beyond.copy().lastOffset()).isEqualTo(19);
        assertThat(beyond.copy().stoppedBy()).contains("torn batch");
    }

    @Test
    void a_corrupt_batch_inside_the_range_stops_the_copy_there() throws IOException {
        Partition p = LogDirFixture.formatted(tmp.resolve("data"), 1).partition("corrupt", 0).leaderEpochs("0 0");
        Segment segment = p.segment(0).batch(0, 0, 10).batch(0, 10, 10).batch(0, 20, 10);
        int at = LogDirFixture.positionOf(Files.readAllBytes(segment.log), 10) + 70;
        try (FileChannel channel = FileChannel.open(segment.log, StandardOpenOption.WRITE)) {
            channel.write(ByteBuffer.wrap(new byte[] {(byte) 0xFF}), at);
        }

        Copied copy = read(p.dir, 5, 30, (b, r) -> { });

        assertThat(copy.copy().lastOffset()).isEqualTo(9);
        assertThat(copy.copy().stoppedBy()).contains("fails its CRC check");
    }

    @Test
    void a_compaction_gap_at_the_start_begins_the_copy_at_the_next_batch() throws IOException {
        Partition p = LogDirFixture.formatted(tmp.resolve("data"), 1).partition("compacted", 0).leaderEpochs("0 0");
        Segment segment = p.segment(0).append(Batches.compacted(0, 9, 0, 4)).batch(0, 20, 5);

        Copied copy = read(p.dir, 12, 25, (b, r) -> { });

        assertThat(copy.copy().stoppedBy()).isNull();
        assertThat(copy.copy().firstOffset()).isEqualTo(20);
        assertThat(copy.bytes()).isEqualTo(Arrays.copyOfRange(Files.readAllBytes(segment.log),
                LogDirFixture.positionOf(Files.readAllBytes(segment.log), 20), (int) segment.size()));
    }

    @Test
    void message_format_v0_is_refused() throws IOException {
        Partition p = LogDirFixture.formatted(tmp.resolve("data"), 1).partition("old", 0);
        byte[] legacy = new byte[40];
        ByteBuffer.wrap(legacy).putLong(0).putInt(28).putInt(0).put((byte) 0);
        // a real v0 message: its CRC-32 from the magic byte on, else Kafka's recovery would cut it as corrupt
        CRC32 crc = new CRC32();
        crc.update(legacy, 16, 24);
        ByteBuffer.wrap(legacy).putInt(12, (int) crc.getValue());
        p.segment(0).appendRaw(legacy);

        assertThatThrownBy(() -> read(p.dir, 0, 1, (b, r) -> { }))
                .isInstanceOf(LogDirReadException.class).hasMessageContaining("format v0");
    }

    @Test
    void copying_leaves_the_log_dir_as_it_found_it() throws IOException {
        LogDirFixture logDir = LogDirFixture.formatted(tmp.resolve("data"), 1);
        Partition p = logDir.partition("story", 0).leaderEpochs("0 0");
        p.segment(0).batch(0, 0, 10);
        Segment active = p.segment(10);
        Batches.many(0, 10, 100, 5).forEach(active::append);
        active.preallocateIndex(64 * 1024).appendRaw(new byte[] {0, 0, 0, 0, 0, 0, 0, 9, 0, 0});
        InspectIsReadOnlyTest.ageEverything(tmp);
        Map<String, String> before = InspectIsReadOnlyTest.snapshot(tmp);

        Copied copy = read(p.dir, 3, 510, (b, r) -> { });

        assertThat(copy.copy().stoppedBy()).isNull();
        assertThat(InspectIsReadOnlyTest.snapshot(tmp)).isEqualTo(before);
    }

    @Test
    void a_range_larger_than_a_read_is_handed_over_a_megabyte_at_a_time() throws IOException {
        Segment segment = largeBatches("big", 40);
        byte[] all = Files.readAllBytes(segment.log);

        Copied copy = read(segment.log.getParent(), 0, 160, (b, r) -> { });

        assertThat(copy.copy().stoppedBy()).isNull();
        assertThat(copy.bytes()).isEqualTo(all);
        assertThat(copy.reads()).hasSizeGreaterThan(3)
                .allSatisfy(read -> assertThat(read.length).isLessThanOrEqualTo(1 << 20));
    }

    @Test
    void a_segment_truncated_under_the_copy_ends_it_with_an_io_error_not_a_fault() throws IOException {
        // a broker restarted mid-copy recovers its log and truncates the segment: a mapped copy would fault (SIGBUS)
        Segment segment = largeBatches("restarted", 8);
        SegmentRangeCopy.Progress truncateAtTheLastBatch = (bytes, records) -> {
            if (records == 32) {
                try (FileChannel log = FileChannel.open(segment.log, StandardOpenOption.WRITE)) {
                    log.truncate(4096);
                } catch (IOException e) {
                    throw new java.io.UncheckedIOException(e);
                }
            }
        };

        assertThatThrownBy(() -> read(segment.log.getParent(), 0, 32, truncateAtTheLastBatch))
                .isInstanceOf(IOException.class)
                .hasMessageContaining("file ended at position");
    }

    /** One segment of {@code batches} batches of 4 records of 25 kB, 100 kB a batch. */
    private Segment largeBatches(String topic, int batches) {
        Partition p = LogDirFixture.formatted(tmp.resolve("data"), 1).partition(topic, 0).leaderEpochs("0 0");
        Segment segment = p.segment(0);
        for (int b = 0; b < batches; b++) {
            segment.append(Batches.large(0, b * 4L, 4, 25_000));
        }
        return segment;
    }

    /** A copy and its reads, each as it was handed over. */
    private record Copied(SegmentRangeCopy copy, List<byte[]> reads) {
        byte[] bytes() {
            ByteArrayOutputStream all = new ByteArrayOutputStream();
            reads.forEach(all::writeBytes);
            return all.toByteArray();
        }
    }

    private static Copied read(Path dir, long from, long to, SegmentRangeCopy.Progress progress) throws IOException {
        List<byte[]> reads = new ArrayList<>();
        SegmentRangeCopy copy = SegmentRangeCopy.read(dir, from, to, progress, batches -> reads.add(bytes(batches)));
        return new Copied(copy, reads);
    }

    static byte[] bytes(ByteBuffer buffer) {
        ByteBuffer view = buffer.duplicate();
        byte[] bytes = new byte[view.remaining()];
        view.get(bytes);
        return bytes;
    }
}
