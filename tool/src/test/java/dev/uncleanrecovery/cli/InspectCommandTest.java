// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.uncleanrecovery.logdir.LogDirFixture;
import dev.uncleanrecovery.formats.EvidenceFile;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class InspectCommandTest {

    @TempDir
    Path tmp;

    private LogDirFixture brokerTwoAfterKill9() {
        LogDirFixture logDir = LogDirFixture.formatted(tmp.resolve("data"), 2);
        logDir.partition("orders", 0).leaderEpochs("0 0", "3 50").segment(0).batch(0, 0, 50).batch(3, 50, 20)
                .appendRaw(new byte[] {0, 0, 0, 0, 0, 0, 0, 7, 0, 0, 1}); // a torn write
        logDir.partition("orders", 1).leaderEpochs("0 0").segment(0).batch(0, 0, 10);
        logDir.partition("payments", 0).leaderEpochs("0 0").segment(0).batch(0, 0, 5);
        return logDir;
    }

    @Test
    void inspect_writes_evidence_and_prints_a_table_of_what_the_broker_will_hold() throws IOException {
        LogDirFixture logDir = brokerTwoAfterKill9();
        Path evidence = tmp.resolve("broker-2.json");

        CliRun run = CliRun.inspect("--log-dir", logDir.dir.toString(), "--topic", "orders",
                "--output-file", evidence.toString());

        assertThat(run.exitCode()).as(run.err()).isEqualTo(ExitCode.OK);
        assertThat(run.out())
                .contains("Broker 2 of cluster " + LogDirFixture.CLUSTER_ID + ", topic orders: did NOT stop cleanly")
                .containsPattern("orders +0 +0 +70 +3 +11 +ok, see notes")
                .containsPattern("orders +1 +0 +10 +0 +0 +ok")
                .contains("orders-0: 11 bytes after the last valid batch")
                .doesNotContain("payments")
                .contains("Evidence written to " + evidence);
        EvidenceFile file = EvidenceFile.read(evidence);
        assertThat(file.brokerId()).isEqualTo(2);
        assertThat(file.partitions()).extracting(EvidenceFile.Partition::logEndOffset).containsExactly(70L, 10L);
    }

    @Test
    void every_line_fits_120_columns_with_a_topic_name_as_long_as_kafka_allows() throws IOException {
        // Kafka allows 249 characters; a partition directory's name, "<topic>-<partition>", must stay a file name
        String topic = "orders.eu-west-1.payments-service.v2." + "settlement-events-".repeat(11);
        LogDirFixture logDir = LogDirFixture.formatted(tmp.resolve("data"), 2);
        logDir.partition(topic, 0).leaderEpochs("0 0", "3 50").segment(0).batch(0, 0, 50).batch(3, 50, 20)
                .appendRaw(new byte[] {0, 0, 0, 0, 0, 0, 0, 7, 0, 0, 1}); // a torn write
        Path evidence = tmp.resolve("broker-2.json");

        CliRun run = CliRun.inspect("--log-dir", logDir.dir.toString(), "--topic", topic, "--output-file",
                evidence.toString());

        assertThat(run.exitCode()).as(run.err()).isEqualTo(ExitCode.OK);
        // a name longer than a line is cut where the line ends, the rest on the next
        assertThat(run.outWords()).contains("did NOT stop cleanly Kafka will run log recovery",
                ": 11 bytes after the last valid batch", "Evidence written to " + evidence);
        assertThat(run.out().replaceAll("\\n +", "")).contains(topic + "-0: 11 bytes after");
    }

    @Test
    void json_output_prints_the_evidence_file() throws IOException {
        LogDirFixture logDir = brokerTwoAfterKill9().cleanShutdown(17);
        Path evidence = tmp.resolve("broker-2.json");

        CliRun run = CliRun.of("--output", "json", "inspect", "--log-dir", logDir.dir.toString(),
                "--output-file", evidence.toString());

        assertThat(run.exitCode()).as(run.err()).isEqualTo(ExitCode.OK);
        assertThat(run.out()).isEqualTo(Files.readString(evidence));
        assertThat(EvidenceFile.read(evidence).brokerEpoch()).isEqualTo(17);
    }

    @Test
    void an_unreadable_partition_means_exit_3_with_the_reason() throws IOException {
        LogDirFixture logDir = brokerTwoAfterKill9();
        Files.createDirectory(logDir.dir.resolve("broken-0"));
        Files.createSymbolicLink(logDir.dir.resolve("broken-0").resolve("00000000000000000000.log"), Path.of("/dev/null"));

        CliRun run = CliRun.inspect("--log-dir", logDir.dir.toString(), "--output-file", tmp.resolve("e.json").toString());

        assertThat(run.exitCode()).isEqualTo(ExitCode.ATTENTION);
        assertThat(run.out()).containsPattern("broken +0 +- +- +- +0 +ERROR").contains("broken-0 (" + logDir.dir + "): ERROR");
    }

    @Test
    void the_evidence_is_never_written_inside_a_log_dir() {
        LogDirFixture logDir = brokerTwoAfterKill9();

        CliRun run = CliRun.inspect("--log-dir", logDir.dir.toString(),
                "--output-file", logDir.dir.resolve("evidence.json").toString());

        assertThat(run.exitCode()).isEqualTo(ExitCode.USAGE);
        assertThat(run.err()).contains("is inside log dir").contains("never writes there");
        assertThat(logDir.dir.resolve("evidence.json")).doesNotExist();
    }

    @Test
    void a_wrong_log_dir_or_an_existing_output_file_is_a_usage_error() throws IOException {
        CliRun missing = CliRun.inspect("--log-dir", tmp.resolve("nope").toString());
        assertThat(missing.exitCode()).isEqualTo(ExitCode.USAGE);
        assertThat(missing.err()).startsWith("error: log dir ").contains("does not exist");

        Path existing = Files.writeString(tmp.resolve("taken.json"), "{}");
        CliRun clobber = CliRun.inspect("--log-dir", brokerTwoAfterKill9().dir.toString(),
                "--output-file", existing.toString());
        assertThat(clobber.exitCode()).isEqualTo(ExitCode.USAGE);
        assertThat(clobber.err()).contains("already exists");
        assertThat(Files.readString(existing)).isEqualTo("{}");
    }

    @Test
    void log_dir_is_required() {
        CliRun run = CliRun.inspect();

        assertThat(run.exitCode()).isEqualTo(ExitCode.USAGE);
        assertThat(run.err()).contains("--log-dir");
    }
}
