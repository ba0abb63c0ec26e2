// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.networknt.schema.JsonSchema;
import com.networknt.schema.JsonSchemaFactory;
import com.networknt.schema.SpecVersion;
import dev.uncleanrecovery.evidence.EvidenceSource;
import dev.uncleanrecovery.formats.AuditLine;
import dev.uncleanrecovery.formats.EvidenceFile;
import dev.uncleanrecovery.formats.Json;
import dev.uncleanrecovery.formats.Plan;
import dev.uncleanrecovery.formats.PlanApproval;
import dev.uncleanrecovery.formats.PlanEvidence;
import dev.uncleanrecovery.formats.PlanFile;
import dev.uncleanrecovery.formats.PlanTruncation;
import dev.uncleanrecovery.formats.PlannedElection;
import dev.uncleanrecovery.formats.ResultFile;
import dev.uncleanrecovery.formats.SalvageManifest;
import dev.uncleanrecovery.formats.Sha256;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;
import org.apache.kafka.common.TopicPartition;

/**
 * The files one incident leaves, as examples/ holds them: the evidence {@code inspect} read off the dead broker's
 * disk, the plan made with it, its approval, the result of executing it, the audit log of that run, and the copy
 * {@code inspect --salvage-beyond} made of what the dead broker holds beyond the new log end. Each follows its
 * schema in docs/schema and reads with the tool's own reader, and they agree with each other: the result is of that
 * plan, the approval and the audit log name its bytes, the evidence is the plan's evidence of the dead broker, the
 * salvage is of the cut the plan states for it.
 */
final class ExampleFiles {

    static final TopicPartition ORDERS_0 = new TopicPartition("orders", 0);
    /** The last leader: dead, its disk read by inspect. */
    static final int DEAD = 1;
    static final String PLAN = "plan.json";
    static final String EVIDENCE = "evidence-broker-1.json";
    static final String APPROVAL = "plan-approval.json";
    static final String RESULT = "plan-result.json";
    static final String AUDIT_LOG = AuditLine.FILE_NAME;
    static final String ALLOWED_SIGNERS = "allowed_signers";
    static final Path MANIFEST = Path.of("plan-salvage", "orders-0", "broker-1", SalvageManifest.FILE_NAME);

    /** Every file of an incident, in the order it is made. */
    static final List<String> FILES = List.of(EVIDENCE, PLAN, APPROVAL, ALLOWED_SIGNERS, RESULT, AUDIT_LOG,
            MANIFEST.toString());

    private ExampleFiles() {
    }

    static void assertConsistent(Path dir) throws IOException {
        for (String name : FILES) {
            assertThat(dir.resolve(name)).as(name).isRegularFile();
        }
        assertFollowsItsSchema(dir.resolve(PLAN), "plan.schema.json");
        assertFollowsItsSchema(dir.resolve(EVIDENCE), "evidence.schema.json");
        assertFollowsItsSchema(dir.resolve(APPROVAL), "approval.schema.json");
        assertFollowsItsSchema(dir.resolve(RESULT), "result.schema.json");
        assertFollowsItsSchema(dir.resolve(MANIFEST), "salvage-manifest.schema.json");
        JsonSchema auditLine = schema("audit-line.schema.json");
        List<String> lines = Files.readAllLines(dir.resolve(AUDIT_LOG));
        assertThat(lines).hasSizeGreaterThanOrEqualTo(2);
        for (String line : lines) {
            assertThat(auditLine.validate(Json.mapper().readTree(line))).as(line).isEmpty();
        }

        PlanFile.Hashed hashed = PlanFile.readHashed(dir.resolve(PLAN));
        Plan plan = hashed.plan();
        PlannedElection election = plan.partitions().stream().filter(p -> p.topicPartition().equals(ORDERS_0))
                .findFirst().orElseThrow();
        // the evidence is what the plan says of the dead broker's log
        EvidenceFile evidence = EvidenceFile.read(dir.resolve(EVIDENCE));
        assertThat(evidence.brokerId()).isEqualTo(DEAD);
        assertThat(evidence.clusterId()).isEqualTo(plan.clusterId());
        EvidenceFile.Partition onDisk = evidence.partitions().stream()
                .filter(p -> p.topic().equals(ORDERS_0.topic()) && p.partition() == ORDERS_0.partition())
                .findFirst().orElseThrow();
        PlanEvidence planned = election.evidence().stream()
                .filter(e -> e.broker() == DEAD && e.source() == EvidenceSource.DISK).findFirst().orElseThrow();
        assertThat(planned.logEndOffset()).isEqualTo(onDisk.logEndOffset());
        assertThat(planned.lastWrittenLeaderEpoch()).isEqualTo(onDisk.lastWrittenLeaderEpoch());

        // the approval is of these bytes
        PlanApproval approval = PlanApproval.read(dir.resolve(APPROVAL));
        assertThat(approval.planSha256()).isEqualTo(hashed.sha256());
        assertThat(Files.readString(dir.resolve(ALLOWED_SIGNERS))).startsWith(approval.by() + " ");

        // the result is of this plan
        ResultFile result = ResultFile.read(dir.resolve(RESULT));
        assertThat(result.clusterId()).isEqualTo(plan.clusterId());
        assertThat(Path.of(result.planFile()).getFileName()).hasToString(PLAN);
        Set<TopicPartition> elected = Set.copyOf(plan.partitions().stream().map(PlannedElection::topicPartition)
                .toList());
        assertThat(result.partitions()).isNotEmpty().allSatisfy(p -> {
            assertThat(elected).contains(new TopicPartition(p.topic(), p.partition()));
            assertThat(p.designatedLeader()).isEqualTo(plan.partitions().stream()
                    .filter(e -> e.topic().equals(p.topic()) && e.partition() == p.partition()).findFirst()
                    .orElseThrow().designatedLeader());
        });

        // the audit log of that run names the plan's bytes, its approval and its result
        List<AuditLine> audit = AuditLine.readAll(dir.resolve(AUDIT_LOG));
        assertThat(audit).extracting(AuditLine::event).containsExactly(AuditLine.Event.STARTED,
                AuditLine.Event.FINISHED);
        assertThat(audit).allSatisfy(line -> {
            assertThat(line.command()).isEqualTo("execute");
            assertThat(line.planSha256()).isEqualTo(hashed.sha256());
            assertThat(line.approval().by()).isEqualTo(approval.by());
        });
        AuditLine finished = audit.get(1);
        assertThat(Path.of(finished.resultFile()).getFileName()).hasToString(RESULT);
        assertThat(finished.exitCode()).isEqualTo(ExitCode.OK);

        // the copy off the dead broker's disk starts where the plan cuts its log
        SalvageManifest manifest = SalvageManifest.read(dir.resolve(MANIFEST));
        assertThat(manifest.plan().clusterId()).isEqualTo(plan.clusterId());
        assertThat(manifest.plan().createdAt()).isEqualTo(plan.createdAt());
        assertThat(manifest.broker()).isEqualTo(DEAD);
        assertThat(new TopicPartition(manifest.topic(), manifest.partition())).isEqualTo(ORDERS_0);
        PlanTruncation cut = election.expectedTruncation().stream().filter(t -> t.broker() == DEAD).findFirst()
                .orElseThrow();
        assertThat(manifest.fromOffset()).isEqualTo(cut.fromOffset());
        assertThat(manifest.toOffset()).isEqualTo(cut.toOffset());
        for (SalvageManifest.SegmentFile segment : manifest.files()) {
            Path file = dir.resolve(MANIFEST).resolveSibling(segment.name());
            assertThat(Sha256.hex(Files.readAllBytes(file))).as(file.toString()).isEqualTo(segment.sha256());
        }
    }

    /** The JSON files of an incident, and the audit log's lines: where a run's directory shows in them. */
    static List<Path> textFiles(Path dir) throws IOException {
        try (Stream<Path> files = Files.walk(dir)) {
            return files.filter(Files::isRegularFile).filter(f -> !f.getFileName().toString().endsWith(".log"))
                    .sorted().toList();
        }
    }

    private static void assertFollowsItsSchema(Path file, String schema) throws IOException {
        JsonNode json = Json.mapper().readTree(file.toFile());
        assertThat(schema(schema).validate(json)).as(file + " against docs/schema/" + schema).isEmpty();
    }

    private static JsonSchema schema(String name) throws IOException {
        return JsonSchemaFactory.getInstance(SpecVersion.VersionFlag.V202012)
                .getSchema(Files.readString(Path.of("docs", "schema", name)));
    }
}
