// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.uncleanrecovery.recovery.KafkaToolsSteps;
import dev.uncleanrecovery.formats.PlanFile;
import dev.uncleanrecovery.salvage.SalvageFixture;
import dev.uncleanrecovery.salvage.SalvageStore;
import dev.uncleanrecovery.salvage.SalvagedFile;
import dev.uncleanrecovery.support.DurableFiles;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Set;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What the tool writes is its operator's alone and never replaces what is there: directories it creates are 0700 and
 * files 0600; the request log is a new file, never an existing one nor one reached through a symbolic link; a salvage
 * directory others may write is refused; a topic name from a file becomes a path only when Kafka would accept it.
 */
class PrivateFilesTest {

    private static final Set<PosixFilePermission> OWNER_ONLY_DIRECTORY = PosixFilePermissions.fromString("rwx------");
    private static final Set<PosixFilePermission> OWNER_READ_WRITE = PosixFilePermissions.fromString("rw-------");
    private static final String EARLIER_RUN = "12:00:00.000 Sending METADATA request of an earlier run\n";

    @TempDir
    Path dir;

    @Test
    void directories_the_tool_creates_are_0700_and_its_files_0600() throws Exception {
        Path nested = dir.resolve("a").resolve("b");

        DurableFiles.createDirectories(nested);
        DurableFiles.writeNew(nested.resolve("written-new.json"), out -> out.write('{'));
        DurableFiles.update(nested.resolve("replaced.json"), out -> out.write('{'));
        Path free = DurableFiles.writeUnderFreeName(n -> nested.resolve("result-" + n + ".json"), out -> out.write('{'));
        try (DurableFiles.NewFile parts = DurableFiles.create(nested.resolve("00000000000000000000.log"))) {
            parts.write(java.nio.ByteBuffer.wrap(new byte[] {1, 2, 3}));
            parts.publish();
        }

        assertThat(Files.getPosixFilePermissions(dir.resolve("a"))).isEqualTo(OWNER_ONLY_DIRECTORY);
        assertThat(Files.getPosixFilePermissions(nested)).isEqualTo(OWNER_ONLY_DIRECTORY);
        for (Path file : java.util.List.of(nested.resolve("written-new.json"), nested.resolve("replaced.json"), free,
                nested.resolve("00000000000000000000.log"))) {
            assertThat(Files.getPosixFilePermissions(file)).as(file.toString()).isEqualTo(OWNER_READ_WRITE);
        }
    }

    @Test
    void the_kafka_tools_steps_directory_is_private() throws Exception {
        Path steps = dir.resolve("steps");

        KafkaToolsSteps.write(PlanFile.read(Path.of("examples", "plan.json")), Path.of("plan.json"), "b:9092",
                null, Set.of(1, 2, 3), steps);

        assertThat(Files.getPosixFilePermissions(steps)).isEqualTo(OWNER_ONLY_DIRECTORY);
        try (var files = Files.list(steps)) {
            assertThat(files.toList()).isNotEmpty()
                    .allSatisfy(f -> assertThat(Files.getPosixFilePermissions(f)).isEqualTo(OWNER_READ_WRITE));
        }
    }

    @Test
    void the_request_log_is_a_new_private_file_in_a_private_directory() throws Exception {
        Path requestLog = dir.resolve("logs").resolve("requests.log");

        CliRun run = CliRun.withRequestLog(requestLog, "--version");

        assertThat(run.exitCode()).as(run.err()).isEqualTo(ExitCode.OK);
        assertThat(Files.getPosixFilePermissions(requestLog)).isEqualTo(OWNER_READ_WRITE);
        assertThat(Files.getPosixFilePermissions(requestLog.getParent())).isEqualTo(OWNER_ONLY_DIRECTORY);
    }

    @Test
    void an_existing_request_log_is_never_overwritten_the_run_stops_with_exit_2() throws Exception {
        Path requestLog = Files.writeString(dir.resolve("requests.log"), EARLIER_RUN);

        CliRun run = CliRun.withRequestLog(requestLog, "--version");

        assertThat(run.exitCode()).isEqualTo(ExitCode.USAGE);
        assertThat(run.err().strip()).isEqualTo("error: -Dkafka.unclean.recovery.request.log=" + requestLog + ": the"
                + " file exists; the request log is always a new file (never overwritten nor appended to): name a new"
                + " file, or move the old one away");
        assertThat(run.out()).isEmpty();
        assertThat(Files.readString(requestLog)).isEqualTo(EARLIER_RUN);
    }

    @Test
    void a_request_log_that_is_a_symbolic_link_is_never_followed() throws Exception {
        Path elsewhere = Files.writeString(dir.resolve("someone-elses.conf"), EARLIER_RUN);
        Path link = Files.createSymbolicLink(dir.resolve("requests.log"), elsewhere);
        Path dangling = Files.createSymbolicLink(dir.resolve("dangling.log"), dir.resolve("not-yet"));

        CliRun toFile = CliRun.withRequestLog(link, "--version");
        CliRun toNothing = CliRun.withRequestLog(dangling, "--version");

        assertThat(toFile.exitCode()).isEqualTo(ExitCode.USAGE);
        assertThat(toFile.err()).startsWith("error: -Dkafka.unclean.recovery.request.log=" + link + ": is a symbolic"
                + " link, and the request log is never written through one;");
        assertThat(Files.readString(elsewhere)).isEqualTo(EARLIER_RUN);
        assertThat(toNothing.exitCode()).isEqualTo(ExitCode.USAGE);
        assertThat(dir.resolve("not-yet")).doesNotExist();
    }

    @Test
    void execute_refuses_a_salvage_directory_others_may_write_before_it_asks_the_cluster_anything() throws Exception {
        Path plan = Files.copy(Path.of("examples", "plan.json"), dir.resolve("plan.json"));
        Path salvage = Files.createDirectory(dir.resolve("plan-salvage"));
        Files.setPosixFilePermissions(salvage, PosixFilePermissions.fromString("rwxrwxrwx"));

        CliRun run = CliRun.of("--bootstrap-server", "127.0.0.1:1", "--admin-timeout-ms", "2000", "execute", "--reason", "test", "--plan",
                plan.toString());

        assertThat(run.exitCode()).as(run.err()).isEqualTo(ExitCode.USAGE);
        assertThat(run.err().strip()).startsWith("error: salvage directory " + salvage + " is writable by every user"
                + " (mode rwxrwxrwx): another user could change or remove the salvaged records.");
    }

    @Test
    void execute_refuses_a_salvage_directory_another_user_owns() throws Exception {
        // Only root can give a directory to another user; CI runs as root.
        Assumptions.assumeTrue(Integer.valueOf(0).equals(Files.getAttribute(dir, "unix:uid")),
                "needs root to chown a directory");
        Path plan = Files.copy(Path.of("examples", "plan.json"), dir.resolve("plan.json"));
        Path salvage = Files.createDirectory(dir.resolve("plan-salvage"));
        Files.setPosixFilePermissions(salvage, PosixFilePermissions.fromString("rwx------"));
        Files.setAttribute(salvage, "unix:uid", 65534);

        CliRun run = CliRun.of("--bootstrap-server", "127.0.0.1:1", "--admin-timeout-ms", "2000", "execute", "--reason", "test", "--plan",
                plan.toString());

        assertThat(run.exitCode()).as(run.err()).isEqualTo(ExitCode.USAGE);
        assertThat(run.err().strip()).startsWith("error: salvage directory " + salvage + " is owned by ")
                .contains(", not by the user running the tool");
    }

    @Test
    void a_topic_name_in_a_plan_that_kafka_would_refuse_never_becomes_a_path() throws Exception {
        // <dir>/ops/plan-salvage/../../etc-0 is <dir>/etc-0
        Path plan = Files.createDirectory(dir.resolve("ops")).resolve("plan.json");
        Files.writeString(plan, Files.readString(Path.of("examples", "plan.json"))
                .replaceFirst("\"topic\" : \"orders\"", "\"topic\" : \"../../etc\""));
        Path logDir = Files.createDirectory(dir.resolve("data"));

        CliRun execute = CliRun.of("--bootstrap-server", "127.0.0.1:1", "--admin-timeout-ms", "2000", "execute", "--reason", "test",
                "--plan", plan.toString());
        CliRun salvageBeyond = CliRun.of("inspect", "--log-dir", logDir.toString(), "--salvage-beyond", plan.toString());

        String refusal = "error: " + plan + ": partitions[0].topic '../../etc' is not a Kafka topic name (";
        assertThat(execute.exitCode()).as(execute.err()).isEqualTo(ExitCode.USAGE);
        assertThat(execute.err()).startsWith(refusal);
        assertThat(salvageBeyond.exitCode()).as(salvageBeyond.err()).isEqualTo(ExitCode.USAGE);
        assertThat(salvageBeyond.err()).startsWith(refusal);
        assertThat(dir.resolve("etc-0")).doesNotExist();
        assertThat(dir.resolve("ops")).isDirectoryNotContaining(p -> !p.equals(plan));
    }

    @Test
    void a_topic_name_in_a_salvage_manifest_that_kafka_would_refuse_is_bad_input() throws Exception {
        Path salvage = dir.resolve("plan-salvage");
        SalvagedFile file = SalvageFixture.copied().writeTo(SalvageStore.open(salvage, SalvageFixture.PLAN));
        Files.writeString(file.manifest(), Files.readString(file.manifest())
                .replace("\"topic\" : \"orders\"", "\"topic\" : \"../../../../etc/cron.d\""), StandardCharsets.UTF_8);

        CliRun run = CliRun.of("replay", "--salvage-dir", salvage.toString(), "--to-topic", "replayed");

        assertThat(run.exitCode()).as(run.err()).isEqualTo(ExitCode.USAGE);
        assertThat(run.err()).startsWith("error: " + file.manifest() + ": topic '../../../../etc/cron.d' is not a Kafka"
                + " topic name (");
    }
}
