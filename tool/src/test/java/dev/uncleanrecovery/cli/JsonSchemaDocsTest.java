// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.github.victools.jsonschema.generator.Option;
import com.github.victools.jsonschema.generator.OptionPreset;
import com.github.victools.jsonschema.generator.SchemaGenerator;
import com.github.victools.jsonschema.generator.SchemaGeneratorConfigBuilder;
import com.github.victools.jsonschema.generator.SchemaVersion;
import com.github.victools.jsonschema.module.jackson.JacksonModule;
import com.github.victools.jsonschema.module.jackson.JacksonOption;
import com.networknt.schema.JsonSchema;
import com.networknt.schema.JsonSchemaFactory;
import com.networknt.schema.SpecVersion;
import com.networknt.schema.ValidationMessage;
import dev.uncleanrecovery.election.Strategy;
import dev.uncleanrecovery.evidence.EvidenceSource;
import dev.uncleanrecovery.formats.EvidenceFile;
import dev.uncleanrecovery.formats.Json;
import dev.uncleanrecovery.formats.Plan;
import dev.uncleanrecovery.formats.ResultFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.common.Uuid;
import org.junit.jupiter.api.Test;

/**
 * The JSON formats in docs/schema/ are generated from the very types the tool writes and reads, and must match them:
 * a changed format without its schema fails here. {@code -Dschema.write=true} writes them anew.
 */
class JsonSchemaDocsTest {

    private static final Path DIR = Path.of("docs", "schema");

    static Map<String, Class<?>> formats() {
        Map<String, Class<?>> formats = new LinkedHashMap<>();
        formats.put("plan.schema.json", Plan.class);
        formats.put("result.schema.json", ResultFile.class);
        formats.put("evidence.schema.json", EvidenceFile.class);
        formats.put("status.schema.json", StatusCommand.StatusReport.class);
        formats.put("salvage-manifest.schema.json", dev.uncleanrecovery.formats.SalvageManifest.class);
        formats.put("replay-journal.schema.json", dev.uncleanrecovery.formats.ReplayJournal.class);
        formats.put("reorder-journal.schema.json", dev.uncleanrecovery.formats.ReorderJournal.class);
        formats.put("audit-line.schema.json", dev.uncleanrecovery.formats.AuditLine.class);
        formats.put("offset-reset-record.schema.json", dev.uncleanrecovery.formats.OffsetResetRecord.class);
        formats.put("approval.schema.json", dev.uncleanrecovery.formats.PlanApproval.class);
        return formats;
    }

    static JsonNode schemaOf(Class<?> type) {
        SchemaGeneratorConfigBuilder config = new SchemaGeneratorConfigBuilder(Json.mapper(), SchemaVersion.DRAFT_2020_12,
                OptionPreset.PLAIN_JSON)
                .with(new JacksonModule(JacksonOption.RESPECT_JSONPROPERTY_REQUIRED, JacksonOption.RESPECT_JSONPROPERTY_ORDER))
                .with(Option.FORBIDDEN_ADDITIONAL_PROPERTIES_BY_DEFAULT);
        // written as Json writes them: topic ids in Kafka's base64 form, times as ISO-8601, the two lower-case enums
        config.forTypesInGeneral().withCustomDefinitionProvider((javaType, context) -> {
            Class<?> erased = javaType.getErasedType();
            ObjectNode node = context.getGeneratorConfig().createObjectNode();
            if (erased == Uuid.class) {
                node.put("type", "string").put("pattern", "^[A-Za-z0-9_-]{22}$")
                        .put("description", "Kafka's base64 form of a topic or cluster id");
            } else if (erased == Instant.class) {
                node.put("type", "string").put("format", "date-time");
            } else if (erased == Strategy.class || erased == EvidenceSource.class) {
                node.put("type", "string");
                var values = node.putArray("enum");
                Arrays.stream(erased.getEnumConstants()).map(e -> ((Enum<?>) e).name().toLowerCase(Locale.ROOT))
                        .forEach(values::add);
            } else {
                return null;
            }
            return new com.github.victools.jsonschema.generator.CustomDefinition(node);
        });
        JsonNode schema = new SchemaGenerator(config.build()).generateSchema(type);
        ((ObjectNode) schema).put("title", type.getSimpleName());
        return schema;
    }

    @Test
    void the_documented_schemas_are_those_of_the_formats() throws Exception {
        boolean write = Boolean.getBoolean("schema.write");
        for (var format : formats().entrySet()) {
            String generated = Json.mapper().writeValueAsString(schemaOf(format.getValue())) + "\n";
            Path file = DIR.resolve(format.getKey());
            if (write) {
                Files.createDirectories(DIR);
                Files.writeString(file, generated);
            }
            assertThat(file).as("run the test with -Dschema.write=true to write it").exists();
            assertThat(Files.readString(file)).as(file + " (run with -Dschema.write=true after a format change)")
                    .isEqualTo(generated);
        }
    }

    @Test
    void the_example_plan_and_a_written_plan_follow_the_plan_schema() throws Exception {
        JsonSchema schema = JsonSchemaFactory.getInstance(SpecVersion.VersionFlag.V202012)
                .getSchema(Files.readString(DIR.resolve("plan.schema.json")));

        for (String example : List.of("examples/plan.json")) {
            Set<ValidationMessage> problems = schema.validate(Json.mapper().readTree(Path.of(example).toFile()));
            assertThat(problems).as(example).isEmpty();
        }
        Set<ValidationMessage> written = schema.validate(Json.mapper().valueToTree(dev.uncleanrecovery.formats.PlanFile
                .read(Path.of("examples/plan.json"))));
        assertThat(written).isEmpty();
        // and the schema does refuse what the tool refuses
        ObjectNode typo = (ObjectNode) Json.mapper().readTree(Path.of("examples/plan.json").toFile());
        typo.put("designatedLeaders", 2);
        assertThat(schema.validate(typo)).isNotEmpty();
    }

    @Test
    void a_written_reorder_journal_follows_its_schema() throws Exception {
        JsonSchema schema = JsonSchemaFactory.getInstance(SpecVersion.VersionFlag.V202012)
                .getSchema(Files.readString(DIR.resolve("reorder-journal.schema.json")));
        var journal = new dev.uncleanrecovery.formats.ReorderJournal(
                dev.uncleanrecovery.formats.ReorderJournal.VERSION, "cluster-1", "/plans/p.json", "0".repeat(64),
                Instant.EPOCH, "bastion", 4242, "6c841718-5c4b-49ba-bab5-62cab637f453", 4026531836L, 55456L,
                List.of(new dev.uncleanrecovery.formats.ReorderJournal.Reorder("orders", 0, 2, 7, List.of(1, 3, 2),
                        List.of(2, 3, 1))));

        assertThat(schema.validate(Json.mapper().valueToTree(journal))).isEmpty();
    }
}
