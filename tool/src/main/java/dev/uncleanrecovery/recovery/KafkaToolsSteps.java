// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.recovery;

import dev.uncleanrecovery.execute.ElectionTarget;
import dev.uncleanrecovery.execute.PlanExecution;
import dev.uncleanrecovery.formats.Json;
import dev.uncleanrecovery.formats.Plan;
import dev.uncleanrecovery.formats.PlannedElection;
import dev.uncleanrecovery.support.DurableFiles;
import dev.uncleanrecovery.support.RunFiles;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * The plan's designated elections done with Kafka's own tools alone ({@code plan --kafka-tools DIR}), for operators
 * who may not run this tool against the cluster. kafka-leader-election.sh --election-type unclean elects the first
 * live replica in assignment order, so each designated replica is put first with kafka-reassign-partitions.sh (the
 * same replica set in another order: no data moves), elected, and the order restored: what {@code execute}'s stock
 * elector does, with the same re-checks, as commands to paste.
 */
public final class KafkaToolsSteps {

    public static final String REORDER = "1-reorder-best-first.json";
    public static final String ELECT = "2-elect.json";
    public static final String RESTORE = "3-restore-order.json";
    public static final String STEPS = "STEPS.txt";
    /** Every file written into the directory, each new. */
    public static final List<String> FILES = List.of(REORDER, ELECT, RESTORE, STEPS);

    /** kafka-reassign-partitions.sh's --reassignment-json-file format. */
    record Reassignment(int version, List<Assignment> partitions) {
    }

    record Assignment(String topic, int partition, List<Integer> replicas) {
    }

    /** kafka-leader-election.sh's --path-to-json-file format. */
    record Election(List<Partition> partitions) {
    }

    record Partition(String topic, int partition) {
    }

    private KafkaToolsSteps() {
    }

    /** What was written: the steps file, and the partitions Kafka's tools cannot do, with why. */
    public record Written(Path steps, int partitions, Map<String, String> impossible) {
    }

    /**
     * Writes the three JSON files and the steps into {@code dir}, never over existing files: when any of them is there,
     * none is written.
     *
     * @param listed the brokers DescribeCluster lists (registered and unfenced): kafka-reassign-partitions.sh refuses
     *               an assignment that names any other ("Unknown broker id"), so a partition with a replica on a
     *               fenced or lost broker cannot be reordered with it, and Kafka's tools cannot elect its designated
     *               replica at all
     * @param commandConfig the run's {@code --command-config}, given to every command as is (the secrets stay in it);
     *                      null when the run had none
     */
    public static Written write(Plan plan, Path planFile, String bootstrapServers, Path commandConfig, Set<Integer> listed,
            Path dir) throws IOException {
        List<Assignment> bestFirst = new ArrayList<>();
        List<Assignment> original = new ArrayList<>();
        List<Partition> elect = new ArrayList<>();
        TreeSet<String> topics = new TreeSet<>();
        Map<String, String> impossible = new LinkedHashMap<>();
        for (PlannedElection p : plan.partitions()) {
            ElectionTarget target = PlanExecution.toTarget(p);
            List<Integer> unlisted = target.expectedReplicas().stream().filter(r -> !listed.contains(r)).toList();
            if (!unlisted.isEmpty()) {
                impossible.put(p.topic() + "-" + p.partition(), "replica(s) on broker(s) " + unlisted + " that"
                        + " DescribeCluster does not list (fenced or gone): kafka-reassign-partitions.sh refuses to"
                        + " reorder them (\"Unknown broker id\"); use 'execute', whose Admin calls the controller accepts");
                continue;
            }
            bestFirst.add(new Assignment(p.topic(), p.partition(), target.replicasBestFirst()));
            original.add(new Assignment(p.topic(), p.partition(), target.expectedReplicas()));
            elect.add(new Partition(p.topic(), p.partition()));
            topics.add(p.topic());
        }
        new RunFiles().createsIn("--kafka-tools", dir, FILES).check();
        DurableFiles.createDirectories(dir);
        StringBuilder s = new StringBuilder();
        s.append("# The designated elections of ").append(planFile).append(" with Kafka's own tools: ")
                .append(elect.size()).append(" of ").append(plan.partitions().size()).append(" partition(s).\n");
        impossible.forEach((partition, why) -> s.append("# NOT ").append(partition).append(": ").append(why).append("\n"));
        if (!elect.isEmpty()) {
            create(dir.resolve(REORDER), Json.mapper().writeValueAsString(new Reassignment(1, bestFirst)));
            create(dir.resolve(ELECT), Json.mapper().writeValueAsString(new Election(elect)));
            create(dir.resolve(RESTORE), Json.mapper().writeValueAsString(new Reassignment(1, original)));
            steps(s, bootstrapServers, commandConfig, dir, topics);
        }
        create(dir.resolve(STEPS), s.toString());
        return new Written(dir.resolve(STEPS), elect.size(), impossible);
    }

    private static void steps(StringBuilder s, String bootstrap, Path commandConfig, Path dir, TreeSet<String> topics) {
        String b = "--bootstrap-server " + bootstrap;
        // kafka-leader-election.sh names the same file --admin.config on every release from 3.7 to 4.4 (4.x also
        // accepts --command-config, which 3.x refuses); the other two tools call it --command-config.
        String election = b;
        if (commandConfig != null) {
            String config = commandConfig.toAbsolutePath().toString();
            election = b + " --admin.config " + config;
            b = b + " --command-config " + config;
        }
        s.append("#\n")
                .append("# kafka-leader-election.sh --election-type unclean elects the FIRST LIVE REPLICA IN ASSIGNMENT ORDER,\n")
                .append("# whatever file it is given: each designated replica is put first, elected, and the order restored.\n")
                .append("# Run the commands in order; stop at any check that does not hold, and plan again.\n\n");
        String describe = "kafka-topics.sh " + b + " --describe --topic " + String.join(",", topics);
        s.append("# 0. Check: every partition of the plan still has no leader (Leader: none) and the Replicas of the plan.\n")
                .append(describe).append("\n\n")
                .append("# 1. Put each designated replica first (the same replicas in another order: no data moves).\n")
                .append("kafka-reassign-partitions.sh ").append(b).append(" --execute --reassignment-json-file ")
                .append(dir.resolve(REORDER)).append("\n")
                .append("# Check: Replicas now start with the designated replica, Leader is still none.\n")
                .append(describe).append("\n\n")
                .append("# 2. Elect: the first live replica is now the designated one.\n")
                .append("kafka-leader-election.sh ").append(election).append(" --election-type unclean --path-to-json-file ")
                .append(dir.resolve(ELECT)).append("\n")
                .append("# Check: Leader is the designated replica of each partition.\n")
                .append(describe).append("\n\n")
                .append("# 3. Restore the replica order of the plan (a leader stays leader while it is a replica).\n")
                .append("kafka-reassign-partitions.sh ").append(b).append(" --execute --reassignment-json-file ")
                .append(dir.resolve(RESTORE)).append("\n")
                .append("# Check: Replicas are in the plan's order again, Leader unchanged.\n")
                .append(describe).append("\n");
    }

    private static void create(Path file, String content) throws IOException {
        DurableFiles.writeNew(file, ByteBuffer.wrap((content.endsWith("\n") ? content : content + "\n")
                .getBytes(StandardCharsets.UTF_8)));
    }
}
