// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.salvage;

import static dev.uncleanrecovery.salvage.SalvageFixture.BROKER;
import static dev.uncleanrecovery.salvage.SalvageFixture.PARTITION;
import static dev.uncleanrecovery.salvage.SalvageFixture.PLAN;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.uncleanrecovery.UserInputException;
import dev.uncleanrecovery.formats.SalvageManifest;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.List;
import org.apache.kafka.common.record.internal.DefaultRecordBatch;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SalvageStoreTest {

    private static final java.util.Set<PosixFilePermission> OWNER_ONLY_DIRECTORY =
            PosixFilePermissions.fromString("rwx------");
    private static final java.util.Set<PosixFilePermission> OWNER_READ_WRITE = PosixFilePermissions.fromString("rw-------");

    @TempDir
    Path dir;

    @Test
    void a_copy_is_written_byte_for_byte_with_a_manifest_and_read_back_checked() throws Exception {
        CopiedBatches copied = SalvageFixture.copied();
        byte[] original = SalvageFixture.bytes(SalvageFixture.concat(SalvageFixture.batches()));

        SalvagedFile file = copied.writeTo(SalvageStore.open(dir, PLAN, "kafka-unclean-recovery 0.1.0"));

        Path rangeDir = dir.resolve("orders-2").resolve("broker-3");
        assertThat(file.segment()).isEqualTo(rangeDir.resolve("00000000000000000000.log"));
        assertThat(file.manifest()).isEqualTo(rangeDir.resolve("manifest.json"));
        assertThat(Files.readAllBytes(file.segment())).isEqualTo(original);
        assertThat(file.firstOffset()).isZero();
        assertThat(file.lastOffset()).isEqualTo(12);
        assertThat(file.batches()).isEqualTo(7);
        assertThat(file.records()).isEqualTo(13);
        assertThat(file.bytes()).isEqualTo(original.length);
        assertThat(file.sha256()).isEqualTo(HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(original)));
        try (var leftovers = Files.list(rangeDir)) {
            assertThat(leftovers.map(p -> p.getFileName().toString())).containsExactlyInAnyOrder(
                    "00000000000000000000.log", "manifest.json");
        }

        SalvageManifest manifest = SalvageManifest.read(file.manifest());
        assertThat(manifest.version()).isEqualTo(1);
        assertThat(manifest.tool()).isEqualTo("kafka-unclean-recovery 0.1.0");
        assertThat(manifest.plan()).isEqualTo(new SalvageManifest.PlanReference("/ops/plan.json", "cluster-1",
                PLAN.planCreatedAt()));
        assertThat(manifest.topic()).isEqualTo("orders");
        assertThat(manifest.topicId()).isEqualTo("m0uMP1nXQ4mAkRTb3e6u1Q");
        assertThat(manifest.partition()).isEqualTo(2);
        assertThat(manifest.broker()).isEqualTo(BROKER);
        assertThat(manifest.sources()).containsExactly("fetch_debug_replica", "fetch_future_replica");
        assertThat(List.of(manifest.fromOffset(), manifest.toOffset(), manifest.firstOffset(), manifest.lastOffset()))
                .containsExactly(1L, 13L, 0L, 12L);
        assertThat(List.of(manifest.lastWrittenLeaderEpoch(), manifest.firstBatchLeaderEpoch(),
                manifest.lastBatchLeaderEpoch())).containsExactly(4, 3, 4);
        assertThat(manifest.records()).isEqualTo(13);
        assertThat(manifest.batches()).isEqualTo(7);
        assertThat(manifest.files()).containsExactly(new SalvageManifest.SegmentFile("00000000000000000000.log",
                original.length, file.sha256()));
        assertThat(manifest.salvagedAt()).isNotNull();

        String manifestSha256 = HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256")
                .digest(Files.readAllBytes(file.manifest())));
        assertThat(file.manifestSha256()).as("what the result file records").isEqualTo(manifestSha256);

        SalvageDirectory salvage = SalvageDirectory.read(dir);
        assertThat(salvage.ranges()).hasSize(1);
        SalvageDirectory.SalvagedRange range = salvage.ranges().get(0);
        assertThat(range.range()).isEqualTo(SalvageFixture.range());
        assertThat(range.sources()).isEqualTo(copied.sources());
        assertThat(range.segments()).containsExactly(file.segment());
        assertThat(range.manifestSha256()).isEqualTo(manifestSha256);
        assertThat(range.asSalvagedFile().manifestSha256()).isEqualTo(manifestSha256);
    }

    @Test
    void the_salvage_is_private_its_directories_0700_and_its_files_0600() throws Exception {
        Path store = dir.resolve("plan-salvage");

        SalvagedFile file = SalvageFixture.copied().writeTo(SalvageStore.open(store, PLAN));

        assertThat(Files.getPosixFilePermissions(store)).as(store.toString()).isEqualTo(OWNER_ONLY_DIRECTORY);
        assertThat(Files.getPosixFilePermissions(store.resolve("orders-2"))).isEqualTo(OWNER_ONLY_DIRECTORY);
        assertThat(Files.getPosixFilePermissions(file.segment().getParent())).isEqualTo(OWNER_ONLY_DIRECTORY);
        assertThat(Files.getPosixFilePermissions(file.segment())).isEqualTo(OWNER_READ_WRITE);
        assertThat(Files.getPosixFilePermissions(file.manifest())).isEqualTo(OWNER_READ_WRITE);
    }

    @Test
    void a_salvage_directory_others_may_write_is_refused_for_writing_and_for_replay() throws Exception {
        SalvageFixture.copied().writeTo(SalvageStore.open(dir, PLAN));
        Path shared = dir.resolve("orders-2");
        Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwxrwxr-x"));
        Files.setPosixFilePermissions(shared, PosixFilePermissions.fromString("rwxrwxrwx"));
        try {
            assertThatThrownBy(() -> SalvageStore.open(dir, PLAN)).isInstanceOf(UserInputException.class)
                    .hasMessage("salvage directory " + dir + " is writable by its group (mode rwxrwxr-x): another user"
                            + " could change or remove the salvaged records. Use a directory that only you own and may"
                            + " write (chmod go-w " + dir + ", or a new --salvage-dir, which the tool creates 0700)");
            assertThatThrownBy(() -> SalvageDirectory.read(dir)).isInstanceOf(UserInputException.class)
                    .hasMessageStartingWith("salvage directory " + dir + " is writable by its group");

            // a directory below the store's that others may write: the copy into it fails, naming it
            Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwx------"));
            DoomedRange other = new DoomedRange(PARTITION, SalvageFixture.TOPIC_ID, 4, SalvageFixture.FROM,
                    SalvageFixture.TO, SalvageFixture.LAST_EPOCH);
            assertThatThrownBy(() -> copy(other, SalvageFixture.concat(SalvageFixture.batches()))
                    .writeTo(SalvageStore.open(dir, PLAN)))
                    .isInstanceOf(SalvageException.class)
                    .hasMessageContaining(shared + " is writable by every user (mode rwxrwxrwx)");
            assertThat(shared.resolve("broker-4")).doesNotExist();
        } finally {
            Files.setPosixFilePermissions(shared, PosixFilePermissions.fromString("rwx------"));
            Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwx------"));
        }
    }

    @Test
    void a_topic_name_that_is_not_kafkas_never_becomes_a_path() {
        assertThatThrownBy(() -> new DoomedRange(new org.apache.kafka.common.TopicPartition("../../etc", 0),
                SalvageFixture.TOPIC_ID, 1, 0, 1, 0))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("topic '../../etc' is not a Kafka topic name");
    }

    @Test
    void replay_counts_skip_markers_aborted_and_unmarked_transactions_and_what_the_leader_keeps() throws Exception {
        SalvageFixture.copied().writeTo(SalvageStore.open(dir, PLAN));

        SalvageDirectory salvage = SalvageDirectory.read(dir);
        SalvageReplay.RangeCounts counts = SalvageReplay.count(salvage, EarlierReplays.notLooked(salvage, "replayed"),
                10).get(0);

        assertThat(counts.replay()).isEqualTo(6);
        assertThat(counts.control()).isEqualTo(2);
        assertThat(counts.aborted()).isEqualTo(2);
        assertThat(counts.noMarker()).isEqualTo(2);
        assertThat(counts.beforeRange()).isEqualTo(1);
        assertThat(counts.samples()).extracting(SalvageReplay.Sample::offset).containsExactly(1L, 2L, 3L, 4L, 11L, 12L);
        SalvageReplay.Sample tombstone = counts.samples().get(5);
        assertThat(tombstone.key()).isNull();
        assertThat(tombstone.value()).isNull();
        assertThat(new String(counts.samples().get(1).value(), StandardCharsets.UTF_8)).isEqualTo("value-2");
        assertThat(counts.samples().get(1).timestamp()).isEqualTo(SalvageFixture.TIMESTAMP + 2);
    }

    @Test
    void a_second_write_of_the_same_copy_returns_the_one_already_there() throws Exception {
        SalvageStore store = SalvageStore.open(dir, PLAN);
        SalvagedFile first = SalvageFixture.copied().writeTo(store);
        byte[] manifest = Files.readAllBytes(first.manifest());

        SalvagedFile again = SalvageFixture.copied().writeTo(store);

        assertThat(again).isEqualTo(first);
        assertThat(Files.readAllBytes(first.manifest())).isEqualTo(manifest);
    }

    @Test
    void a_segment_left_without_its_manifest_is_completed_when_it_holds_the_same_bytes() throws Exception {
        SalvagedFile first = SalvageFixture.copied().writeTo(SalvageStore.open(dir, PLAN));
        Files.delete(first.manifest());

        SalvagedFile again = SalvageFixture.copied().writeTo(SalvageStore.open(dir, PLAN));

        assertThat(again.sha256()).isEqualTo(first.sha256());
        assertThat(SalvageDirectory.read(dir).ranges()).hasSize(1);
    }

    @Test
    void another_copy_of_the_same_replica_is_refused_and_nothing_is_written() throws Exception {
        SalvagedFile first = SalvageFixture.copied().writeTo(SalvageStore.open(dir, PLAN));
        byte[] segment = Files.readAllBytes(first.segment());
        byte[] manifest = Files.readAllBytes(first.manifest());
        // the same offsets, one record's value different
        List<ByteBuffer> batches = SalvageFixture.batches();
        batches.set(6, org.apache.kafka.common.record.internal.MemoryRecords.withRecords(11L,
                org.apache.kafka.common.compress.Compression.NONE, 4,
                new org.apache.kafka.common.record.internal.SimpleRecord("other".getBytes(StandardCharsets.UTF_8)),
                new org.apache.kafka.common.record.internal.SimpleRecord("other".getBytes(StandardCharsets.UTF_8))).buffer());
        CopiedBatches other = new CopiedBatches(SalvageFixture.range(), List.of(SalvageSource.DISK),
                List.of(SalvageFixture.concat(batches)));

        assertThatThrownBy(() -> other.writeTo(SalvageStore.open(dir, PLAN)))
                .isInstanceOf(SalvageException.class)
                .hasMessageStartingWith("broker 3 orders-2: " + first.manifest() + " already describes another copy");
        Files.delete(first.manifest());
        assertThatThrownBy(() -> other.writeTo(SalvageStore.open(dir, PLAN)))
                .isInstanceOf(SalvageException.class)
                .hasMessageStartingWith("broker 3 orders-2: " + first.segment() + " already exists with other bytes");
        assertThat(Files.readAllBytes(first.segment())).isEqualTo(segment);
        assertThat(first.manifest()).doesNotExist();
        assertThat(manifest).isNotEmpty();
    }

    @Test
    void a_batch_whose_crc_does_not_match_is_refused() {
        ByteBuffer all = SalvageFixture.concat(SalvageFixture.batches());
        // the first record's bytes, after the 61-byte batch header the CRC covers from its attributes on
        int at = DefaultRecordBatch.RECORD_BATCH_OVERHEAD + 3;
        all.put(at, (byte) (all.get(at) ^ 0x01));

        assertThatThrownBy(() -> copy(all).writeTo(SalvageStore.open(dir, PLAN)))
                .isInstanceOf(SalvageException.class)
                .hasMessageStartingWith("broker 3 orders-2: the batch at offsets [0, 2] is corrupt");
        assertThat(dir.resolve("orders-2/broker-3/00000000000000000000.log")).doesNotExist();
    }

    @Test
    void a_copy_that_ends_short_of_the_log_end_is_refused() {
        DoomedRange longer = new DoomedRange(PARTITION, SalvageFixture.TOPIC_ID, BROKER, 1, 30, -1);

        assertThatThrownBy(() -> copy(longer, SalvageFixture.concat(SalvageFixture.batches()))
                .writeTo(SalvageStore.open(dir, PLAN)))
                .isInstanceOf(SalvageException.class)
                .hasMessage("broker 3 orders-2: the copy ends at offset 13, the log at 30");
    }

    @Test
    void a_copy_cut_inside_its_last_batch_is_refused() {
        ByteBuffer all = SalvageFixture.concat(SalvageFixture.batches());
        all.limit(all.limit() - 5);

        assertThatThrownBy(() -> copy(all).writeTo(SalvageStore.open(dir, PLAN)))
                .isInstanceOf(SalvageException.class)
                .hasMessageStartingWith("broker 3 orders-2: the copy ends in a partial batch (")
                .hasMessageContaining("after offset 10");
    }

    @Test
    void a_copy_whose_last_batch_is_of_a_newer_epoch_than_probed_is_refused() {
        DoomedRange epochThree = new DoomedRange(PARTITION, SalvageFixture.TOPIC_ID, BROKER, 1, 13, 3);

        assertThatThrownBy(() -> copy(epochThree, SalvageFixture.concat(SalvageFixture.batches()))
                .writeTo(SalvageStore.open(dir, PLAN)))
                .isInstanceOf(SalvageException.class)
                .hasMessage("broker 3 orders-2: the copy's last batch is of leader epoch 4, newer than the log's 3 the"
                        + " plan saw; it is not the log the plan saw");
    }

    @Test
    void a_copy_whose_last_batch_is_of_an_older_epoch_than_probed_is_taken() throws Exception {
        // a replica made leader of epoch 5 caches the epoch at once, before it writes a batch of it
        DoomedRange epochFive = new DoomedRange(PARTITION, SalvageFixture.TOPIC_ID, BROKER, 1, 13, 5);

        SalvagedFile file = copy(epochFive, SalvageFixture.concat(SalvageFixture.batches()))
                .writeTo(SalvageStore.open(dir, PLAN));

        assertThat(file.lastOffset()).isEqualTo(12);
    }

    @Test
    void a_copy_that_starts_after_the_range_because_compaction_left_a_gap_is_taken() throws Exception {
        List<ByteBuffer> batches = SalvageFixture.batches();
        DoomedRange fromZero = new DoomedRange(PARTITION, SalvageFixture.TOPIC_ID, BROKER, 0, 13, 4);

        SalvagedFile file = copy(fromZero, SalvageFixture.concat(batches.subList(1, batches.size())))
                .writeTo(SalvageStore.open(dir, PLAN));

        assertThat(file.firstOffset()).isEqualTo(3);
        assertThat(file.segment().getFileName().toString()).isEqualTo("00000000000000000003.log");
    }

    @Test
    void a_copy_that_starts_before_the_batch_holding_the_first_offset_is_refused() {
        DoomedRange fromFive = new DoomedRange(PARTITION, SalvageFixture.TOPIC_ID, BROKER, 5, 13, 4);

        assertThatThrownBy(() -> copy(fromFive, SalvageFixture.concat(SalvageFixture.batches()))
                .writeTo(SalvageStore.open(dir, PLAN)))
                .isInstanceOf(SalvageException.class)
                .hasMessage("broker 3 orders-2: the copy starts with the batch [0, 2], which ends before offset 5 where"
                        + " the range starts");
    }

    @Test
    void a_copy_larger_than_a_file_goes_into_several_segment_files_named_by_their_first_offset() throws Exception {
        SalvagedFile file = SalvageFixture.copied().writeTo(SalvageStore.open(dir, PLAN, null, 300));

        SalvageManifest manifest = SalvageManifest.read(file.manifest());
        assertThat(manifest.files()).hasSizeGreaterThan(1);
        assertThat(manifest.files().get(0).name()).isEqualTo("00000000000000000000.log");
        assertThat(manifest.files().stream().mapToLong(SalvageManifest.SegmentFile::bytes).sum()).isEqualTo(file.bytes());
        assertThat(file.sha256()).as("of the files joined").isEqualTo(HexFormat.of().formatHex(MessageDigest
                .getInstance("SHA-256").digest(SalvageFixture.bytes(SalvageFixture.concat(SalvageFixture.batches())))));
        SalvageDirectory salvage = SalvageDirectory.read(dir);
        SalvageReplay.RangeCounts counts = SalvageReplay.count(salvage, EarlierReplays.notLooked(salvage, "replayed"),
                0).get(0);
        assertThat(counts.replay()).isEqualTo(6);
        assertThat(counts.control() + counts.aborted() + counts.noMarker() + counts.beforeRange()).isEqualTo(7);
    }

    @Test
    void a_copy_that_fails_midway_leaves_no_file_behind() throws Exception {
        List<ByteBuffer> batches = SalvageFixture.batches();
        ByteBuffer rest = SalvageFixture.concat(batches.subList(4, batches.size()));
        rest.put(rest.limit() - 1, (byte) (rest.get(rest.limit() - 1) ^ 0x01));

        try (RangeWriter writer = SalvageStore.open(dir, PLAN).writer(SalvageFixture.range())) {
            writer.append(SalvageFixture.concat(batches.subList(0, 4)));
            assertThat(filesIn(dir.resolve("orders-2/broker-3"))).as("written under a temporary name")
                    .singleElement().satisfies(name -> assertThat(name).startsWith(".").endsWith(".tmp"));
            assertThatThrownBy(() -> writer.append(rest))
                    .isInstanceOf(SalvageException.class)
                    .hasMessageStartingWith("broker 3 orders-2: the batch at offsets [11, 12] is corrupt");
        }

        assertThat(filesIn(dir.resolve("orders-2/broker-3"))).isEmpty();
    }

    @Test
    void a_copy_refused_at_its_second_file_takes_its_first_back() throws Exception {
        SalvagedFile elsewhere = SalvageFixture.copied().writeTo(SalvageStore.open(dir.resolve("elsewhere"), PLAN,
                null, 300));
        List<String> names = SalvageManifest.read(elsewhere.manifest()).files().stream()
                .map(SalvageManifest.SegmentFile::name).toList();
        Path rangeDir = Files.createDirectories(dir.resolve("here/orders-2/broker-3"));
        Files.write(rangeDir.resolve(names.get(1)), new byte[] {1, 2, 3});

        assertThatThrownBy(() -> SalvageFixture.copied().writeTo(SalvageStore.open(dir.resolve("here"), PLAN, null,
                300)))
                .isInstanceOf(SalvageException.class)
                .hasMessageStartingWith("broker 3 orders-2: " + rangeDir.resolve(names.get(1))
                        + " already exists with other bytes (3 bytes");

        assertThat(filesIn(rangeDir)).containsExactly(names.get(1));
    }

    @Test
    void a_segment_changed_after_it_was_salvaged_is_bad_input() throws Exception {
        SalvagedFile file = SalvageFixture.copied().writeTo(SalvageStore.open(dir, PLAN));
        byte[] bytes = Files.readAllBytes(file.segment());
        bytes[bytes.length - 1] ^= 0x01;
        Files.write(file.segment(), bytes);

        assertThatThrownBy(() -> SalvageDirectory.read(dir))
                .isInstanceOf(UserInputException.class)
                .hasMessage(file.segment() + ": SHA-256 differs from the manifest's; the file changed after it was"
                        + " salvaged, not replaying it");
        Files.write(file.segment(), java.util.Arrays.copyOf(bytes, bytes.length - 1));
        assertThatThrownBy(() -> SalvageDirectory.read(dir))
                .isInstanceOf(UserInputException.class)
                .hasMessageStartingWith(file.segment() + ": " + (bytes.length - 1) + " bytes, the manifest says "
                        + bytes.length);
        Files.delete(file.segment());
        assertThatThrownBy(() -> SalvageDirectory.read(dir))
                .isInstanceOf(UserInputException.class)
                .hasMessage(file.segment() + ": missing, but " + file.manifest() + " names it");
    }

    @Test
    void a_directory_without_manifests_is_bad_input() {
        assertThatThrownBy(() -> SalvageDirectory.read(dir))
                .isInstanceOf(UserInputException.class)
                .hasMessageContaining("holds no manifest.json");
        assertThatThrownBy(() -> SalvageDirectory.read(dir.resolve("missing")))
                .isInstanceOf(UserInputException.class)
                .hasMessageContaining("is not a directory");
    }

    private static List<String> filesIn(Path directory) throws java.io.IOException {
        try (var files = Files.list(directory)) {
            return files.map(f -> f.getFileName().toString()).toList();
        }
    }

    private static CopiedBatches copy(ByteBuffer bytes) {
        return copy(SalvageFixture.range(), bytes);
    }

    private static CopiedBatches copy(DoomedRange range, ByteBuffer bytes) {
        return new CopiedBatches(range, List.of(SalvageSource.DISK), List.of(bytes));
    }
}
