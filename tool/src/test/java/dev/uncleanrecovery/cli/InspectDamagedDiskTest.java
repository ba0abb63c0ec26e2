// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import dev.uncleanrecovery.logdir.LogDirFixture;
import dev.uncleanrecovery.formats.EvidenceFile;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.Arrays;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * inspect on the disk of a dead broker that is damaged or odd, as an operator finds it: every problem is the status of
 * one partition (or one log dir) naming the file, nothing hangs, nothing outside the log dir is read, nothing is read
 * without a bound, and the rest of the broker is inspected.
 */
class InspectDamagedDiskTest {

    /** A FIFO or a device left the old inspect blocked or reading forever: a run must end well within this. */
    private static final Duration NEVER_HANGS = Duration.ofSeconds(30);

    @TempDir
    Path tmp;

    private LogDirFixture brokerTwoAfterKill9(String name) {
        LogDirFixture logDir = LogDirFixture.formatted(tmp.resolve(name), 2);
        logDir.partition("orders", 0).leaderEpochs("0 0", "3 50").segment(0).batch(0, 0, 50).batch(3, 50, 20);
        logDir.partition("orders", 1).leaderEpochs("0 0").segment(0).batch(0, 0, 10);
        return logDir;
    }

    private CliRun inspect(LogDirFixture... logDirs) {
        Path evidence = tmp.resolve("evidence.json");
        String dirs = Arrays.stream(logDirs).map(d -> d.dir.toString()).collect(Collectors.joining(","));
        return assertTimeoutPreemptively(NEVER_HANGS,
                () -> CliRun.inspect("--log-dir", dirs, "--output-file", evidence.toString()));
    }

    private EvidenceFile evidence() throws IOException {
        return EvidenceFile.read(tmp.resolve("evidence.json"));
    }

    @Test
    void a_segment_named_beyond_a_64_bit_offset_is_that_partitions_error_and_the_others_are_inspected()
            throws IOException {
        LogDirFixture logDir = brokerTwoAfterKill9("data");
        Files.write(logDir.dir.resolve("orders-0").resolve("99999999999999999999.log"), new byte[0]);

        CliRun run = inspect(logDir);

        assertThat(run.exitCode()).as(run.out() + run.err()).isEqualTo(ExitCode.ATTENTION);
        assertThat(run.outWords()).containsPattern("orders +0 +- +- +- +0 +ERROR")
                .containsPattern("orders +1 +0 +10 +0 +0 +ok")
                .contains("99999999999999999999.log is named like a segment file, but '99999999999999999999' is not a"
                        + " base offset Kafka can read")
                .contains("the broker does not start");
        assertThat(evidence().partitions()).extracting(EvidenceFile.Partition::logEndOffset).containsExactly(null, 10L);
    }

    @Test
    void a_malformed_meta_properties_is_an_error_of_its_log_dir_only() throws IOException {
        LogDirFixture good = brokerTwoAfterKill9("data-a");
        LogDirFixture bad = LogDirFixture.formatted(tmp.resolve("data-b"), 2);
        bad.partition("payments", 0).leaderEpochs("0 0").segment(0).batch(0, 0, 5);
        Files.writeString(bad.dir.resolve("meta.properties"), "version=1\nnode.id=\\u12\ncluster.id="
                + LogDirFixture.CLUSTER_ID + "\n");

        CliRun run = inspect(good, bad);

        assertThat(run.exitCode()).as(run.out() + run.err()).isEqualTo(ExitCode.ATTENTION);
        assertThat(run.outWords()).contains("Broker 2 of cluster " + LogDirFixture.CLUSTER_ID)
                .contains("log dir " + bad.dir + ": meta.properties is unusable: " + bad.dir.resolve("meta.properties")
                        + " is not a valid properties file (Malformed \\uxxxx encoding.)")
                .containsPattern("orders +0 +0 +70 +3 +0 +ok")
                .containsPattern("orders +1 +0 +10 +0 +0 +ok")
                .containsPattern("payments +0 +- +- +- +0 +ERROR")
                .contains("loads none of its partitions");
        assertThat(evidence().brokerId()).isEqualTo(2);
    }

    @Test
    void a_fifo_named_like_a_segment_is_reported_and_never_opened() throws Exception {
        LogDirFixture logDir = brokerTwoAfterKill9("data");
        mkfifo(logDir.dir.resolve("orders-0").resolve("00000000000000999999.log"));

        CliRun run = inspect(logDir);

        assertThat(run.exitCode()).as(run.out() + run.err()).isEqualTo(ExitCode.OK);
        assertThat(run.outWords()).containsPattern("orders +0 +0 +70 +3 +0 +ok, see notes")
                .contains("orders-0: 00000000000000999999.log is a FIFO (named pipe), not a regular file: Kafka's log"
                        + " loading skips it, and inspect did not open it");
    }

    @Test
    void a_partition_directory_linked_out_of_the_log_dir_is_an_error_and_never_followed() throws IOException {
        LogDirFixture logDir = brokerTwoAfterKill9("data");
        LogDirFixture elsewhere = LogDirFixture.formatted(tmp.resolve("elsewhere"), 2);
        Path outside = elsewhere.partition("orders", 2).leaderEpochs("0 0").segment(0).batch(0, 0, 99).log.getParent();
        Files.createSymbolicLink(logDir.dir.resolve("orders-2"), outside);

        CliRun run = inspect(logDir);

        assertThat(run.exitCode()).as(run.out() + run.err()).isEqualTo(ExitCode.ATTENTION);
        assertThat(run.outWords()).containsPattern("orders +2 +- +- +- +0 +ERROR")
                .contains("orders-2 is a symbolic link to " + outside)
                .contains("inspect does not follow links out of the log dir")
                .doesNotContainPattern("orders +2 +0 +99");
        assertThat(evidence().partitions()).extracting(EvidenceFile.Partition::logEndOffset)
                .containsExactly(70L, 10L, null);
    }

    @Test
    void a_tail_half_zeroed_by_a_power_cut_is_an_invalid_tail_kafka_truncates_not_an_old_message_format()
            throws IOException {
        LogDirFixture logDir = brokerTwoAfterKill9("data");
        Path segment = logDir.dir.resolve("orders-0").resolve("00000000000000000000.log");
        byte[] whole = Files.readAllBytes(segment);
        // the next batch was written, but the page holding all of it after its length field never reached the disk
        byte[] torn = Arrays.copyOfRange(whole, LogDirFixture.positionOf(whole, 50), whole.length);
        Arrays.fill(torn, 12, torn.length, (byte) 0);
        Files.write(segment, torn, StandardOpenOption.APPEND);

        CliRun run = inspect(logDir);

        assertThat(run.exitCode()).as(run.out() + run.err()).isEqualTo(ExitCode.OK);
        assertThat(run.outWords()).containsPattern("orders +0 +0 +70 +3 +" + torn.length + " +ok, see notes")
                .contains("have magic 0 (below 2), so Kafka reads them as a message of format v0/v1")
                .contains("Kafka's log recovery will truncate them")
                .doesNotContain("ERROR");
    }

    @Test
    void checkpoints_and_metadata_that_never_end_are_refused_without_being_read() throws Exception {
        LogDirFixture logDir = brokerTwoAfterKill9("data");
        Path epochs = logDir.dir.resolve("orders-0").resolve("leader-epoch-checkpoint");
        Files.delete(epochs);
        mkfifo(epochs);
        try (RandomAccessFile huge = new RandomAccessFile(
                logDir.dir.resolve("orders-1").resolve("partition.metadata").toFile(), "rw")) {
            huge.setLength(3L << 30); // sparse: 3 GiB that take no disk
        }

        CliRun run = inspect(logDir);

        assertThat(run.exitCode()).as(run.out() + run.err()).isEqualTo(ExitCode.ATTENTION);
        assertThat(run.outWords()).containsPattern("orders +0 +- +- +- +0 +ERROR")
                .containsPattern("orders +1 +- +- +- +0 +ERROR")
                .contains(epochs + " is a FIFO (named pipe), not a regular file; inspect did not read it")
                .contains("partition.metadata holds 3221225472 bytes, more than the 65536 such a file can sensibly"
                        + " hold; it was not read");
    }

    @Test
    void a_log_dir_checkpoint_that_is_a_fifo_is_that_log_dirs_error_and_nothing_hangs() throws Exception {
        LogDirFixture logDir = brokerTwoAfterKill9("data");
        mkfifo(logDir.dir.resolve("recovery-point-offset-checkpoint"));

        CliRun run = inspect(logDir);

        assertThat(run.exitCode()).as(run.out() + run.err()).isEqualTo(ExitCode.ATTENTION);
        assertThat(run.outWords()).contains("log dir " + logDir.dir + ": " + logDir.dir.resolve("recovery-point-offset-checkpoint")
                        + " cannot be read (" + logDir.dir.resolve("recovery-point-offset-checkpoint")
                        + " is a FIFO (named pipe), not a regular file)")
                .containsPattern("orders +0 +- +- +- +0 +ERROR");
    }

    @Test
    void a_plan_that_is_a_device_is_refused_before_anything_is_read() {
        Assumptions.assumeTrue(Files.exists(Path.of("/dev/zero")), "a /dev/zero to give");
        LogDirFixture logDir = brokerTwoAfterKill9("data");

        CliRun run = assertTimeoutPreemptively(NEVER_HANGS, () -> CliRun.inspect("--log-dir",
                logDir.dir.toString(), "--salvage-beyond", "/dev/zero", "--salvage-dir", tmp.resolve("s").toString()));

        assertThat(run.exitCode()).isEqualTo(ExitCode.USAGE);
        assertThat(run.err()).contains("error: /dev/zero is a character device, not a regular file — give the file"
                + " itself");
    }

    private static void mkfifo(Path path) throws Exception {
        Assumptions.assumeTrue(new ProcessBuilder("mkfifo", path.toString()).start().waitFor() == 0,
                "mkfifo works here");
    }
}
