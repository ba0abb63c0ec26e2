// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.recovery;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import dev.uncleanrecovery.UserInputException;
import dev.uncleanrecovery.formats.Json;
import dev.uncleanrecovery.formats.Plan;
import dev.uncleanrecovery.formats.PlanFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The files {@code plan --kafka-tools} writes, in Kafka's tools' own formats. */
class KafkaToolsStepsTest {

    @TempDir
    Path dir;

    private static Plan example() throws Exception {
        return PlanFile.read(Path.of("examples/plan.json"));
    }

    @Test
    void with_every_broker_listed_the_steps_reorder_elect_and_restore_in_kafkas_formats() throws Exception {
        Plan plan = example();

        KafkaToolsSteps.Written written = KafkaToolsSteps.write(plan, Path.of("plan.json"), "b:9092", null, Set.of(1, 2, 3),
                dir);

        assertThat(written.impossible()).isEmpty();
        assertThat(written.partitions()).isEqualTo(plan.partitions().size());
        JsonNode reorder = Json.mapper().readTree(dir.resolve(KafkaToolsSteps.REORDER).toFile());
        JsonNode restore = Json.mapper().readTree(dir.resolve(KafkaToolsSteps.RESTORE).toFile());
        JsonNode elect = Json.mapper().readTree(dir.resolve(KafkaToolsSteps.ELECT).toFile());
        for (int i = 0; i < plan.partitions().size(); i++) {
            var p = plan.partitions().get(i);
            assertThat(reorder.get("version").asInt()).isEqualTo(1);
            assertThat(reorder.get("partitions").get(i).get("replicas").get(0).asInt()).isEqualTo(p.designatedLeader());
            assertThat(restore.get("partitions").get(i).get("replicas").toString().replace(" ", ""))
                    .isEqualTo(p.expected().replicas().toString().replace(" ", ""));
            assertThat(elect.get("partitions").get(i).get("topic").asText()).isEqualTo(p.topic());
            assertThat(elect.get("partitions").get(i).get("partition").asInt()).isEqualTo(p.partition());
        }
        String steps = Files.readString(written.steps());
        assertThat(steps.lines().filter(l -> !l.isBlank() && !l.startsWith("#")).map(l -> l.split(" ")[0]))
                .containsExactly("kafka-topics.sh", "kafka-reassign-partitions.sh", "kafka-topics.sh",
                        "kafka-leader-election.sh", "kafka-topics.sh", "kafka-reassign-partitions.sh", "kafka-topics.sh");
        assertThat(steps).contains("--election-type unclean --path-to-json-file " + dir.resolve(KafkaToolsSteps.ELECT),
                "FIRST LIVE REPLICA IN ASSIGNMENT ORDER");
    }

    @Test
    void every_command_reads_the_runs_command_config_under_its_own_tools_option_name() throws Exception {
        Path config = dir.resolve("admin.properties");

        KafkaToolsSteps.Written written = KafkaToolsSteps.write(example(), Path.of("plan.json"), "b:9092", config,
                Set.of(1, 2, 3), dir.resolve("steps"));

        var commands = Files.readString(written.steps()).lines().filter(l -> !l.isBlank() && !l.startsWith("#")).toList();
        assertThat(commands).hasSize(7).allSatisfy(c -> assertThat(c).contains("--bootstrap-server b:9092 --"
                + (c.startsWith("kafka-leader-election.sh") ? "admin.config " : "command-config ") + config));
    }

    @Test
    void the_files_of_an_earlier_run_are_never_overwritten() throws Exception {
        KafkaToolsSteps.write(example(), Path.of("plan.json"), "b:9092", null, Set.of(1, 2, 3), dir);
        Files.delete(dir.resolve(KafkaToolsSteps.REORDER));
        byte[] steps = Files.readAllBytes(dir.resolve(KafkaToolsSteps.STEPS));

        assertThatThrownBy(() -> KafkaToolsSteps.write(example(), Path.of("plan.json"), "b:9092", null, Set.of(1, 2, 3), dir))
                .isInstanceOf(UserInputException.class).hasMessage("--kafka-tools " + dir + " holds "
                        + KafkaToolsSteps.ELECT + " already; the tool never writes over a file: name a new or empty"
                        + " directory");
        assertThat(Files.readAllBytes(dir.resolve(KafkaToolsSteps.STEPS))).isEqualTo(steps);
        assertThat(dir.resolve(KafkaToolsSteps.REORDER)).as("none is written when one is there").doesNotExist();
    }
}
