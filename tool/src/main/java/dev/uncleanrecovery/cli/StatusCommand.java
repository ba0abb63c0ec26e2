// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.cli;

import dev.uncleanrecovery.cluster.ClusterDiscovery;
import dev.uncleanrecovery.cluster.ClusterSnapshot;
import dev.uncleanrecovery.cluster.TopicPartitionState;
import dev.uncleanrecovery.cluster.UnreadableTopic;
import dev.uncleanrecovery.connect.BrokerNativeSupport;
import dev.uncleanrecovery.connect.BrokerState;
import dev.uncleanrecovery.formats.Json;
import dev.uncleanrecovery.view.Table;
import java.io.PrintWriter;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.stream.Collectors;
import org.apache.kafka.common.TopicPartition;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.Spec;

@Command(name = "status", mixinStandardHelpOptions = true, sortOptions = false,
        header = "Show offline and at-risk partitions, fenced brokers and the ELR state; never changes the cluster.",
        description = {"Offline partitions (leader -1) and at-risk ones (ISR below min.insync.replicas) with leader epoch, "
                + "replicas, ISR, ELR, LastKnownELR and offline replicas; fenced brokers; ELR feature level. Never "
                + "changes the cluster."},
        exitCodeListHeading = ExitCode.HELP_HEADING,
        exitCodeList = {"0:nothing is offline", ExitCode.FAILURE_HELP, ExitCode.USAGE_HELP
                + ", or grant DESCRIBE on a topic that could not be read, or name one that exists",
            "3:something is offline, or a topic could not be read (deleted meanwhile, no leader yet)",
            ExitCode.UNREACHABLE_HELP})
public class StatusCommand implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    @ParentCommand
    RootCommand root;

    @Mixin
    SelectionOptions select;

    @Mixin
    ConnectionOptions connection;

    private static final java.time.Duration NATIVE_RPCS_TIMEOUT = java.time.Duration.ofSeconds(5);

    @Override
    public Integer call() throws Exception {
        var selection = select.selection();
        ClusterSnapshot snapshot;
        BrokerNativeSupport nativeRpcs;
        try (ClusterDiscovery discovery = connection.discovery(root.global)) {
            // a topic the cluster will not describe is shown, not left out: its offline partitions are unknown
            snapshot = discovery.describeListingUnreadableTopics(selection);
            // Cheap: the describe above already asked these brokers, and ApiVersions answers are cached.
            List<Integer> live = snapshot.brokers().stream().filter(b -> !b.fenced()).map(BrokerState::id).toList();
            nativeRpcs = BrokerNativeSupport.survey(discovery.connections(snapshot.brokers()), live, NATIVE_RPCS_TIMEOUT);
        }
        StatusReport report = StatusReport.of(snapshot, nativeRpcs);
        PrintWriter out = spec.commandLine().getOut();
        if (root.global.output == GlobalOptions.OutputFormat.json) {
            out.println(Json.mapper().writeValueAsString(report));
        } else {
            printText(report, out);
        }
        return ExitCode.withUnreadableTopics(report.offline().isEmpty() ? ExitCode.OK : ExitCode.ATTENTION,
                report.unreadableTopics());
    }

    /**
     * What {@code status --output json} prints.
     *
     * @param elrSupported     false on Kafka 3.x, whose brokers know no ELR feature
     * @param zooKeeperMode    true when the brokers run in ZooKeeper mode (3.x): their controller is one of them
     * @param elrFeatureLevel  null where not supported; -1 when it could not be read
     * @param nativeRpcs       which live brokers advertise the companion patch's RPCs
     * @param unreadableTopics topics the cluster answered with an error instead of their partitions (version 2)
     */
    record StatusReport(int version, String clusterId, boolean elrEnabled, boolean elrSupported, boolean zooKeeperMode,
                        Short elrFeatureLevel,
                        List<BrokerState> brokers, List<Integer> fencedBrokers,
                        List<TopicPartitionState> offline, List<TopicPartitionState> atRisk,
                        List<String> reassigning, int partitionsChecked, NativeRpcs nativeRpcs,
                        List<UnreadableTopic> unreadableTopics) {

        /** The format of {@code status --output json}: 2 adds unreadableTopics, 3 zooKeeperMode. */
        static final int VERSION = 3;

        static StatusReport of(ClusterSnapshot s, BrokerNativeSupport nativeRpcs) {
            return new StatusReport(VERSION, s.clusterId(), s.isElrEnabled(), s.isElrSupported(), s.isZooKeeperMode(),
                    s.isElrSupported() ? Short.valueOf(s.elrFeatureLevel()) : null,
                    s.brokers(), s.fencedBrokers().stream().sorted().toList(),
                    s.offlinePartitions(), s.atRiskPartitions(),
                    s.reassigning().stream().map(TopicPartition::toString).sorted().toList(),
                    s.partitions().size(), new NativeRpcs(nativeRpcs.getReplicaLogInfo(), nativeRpcs.electLeadersV3(),
                            nativeRpcs.unanswered().keySet().stream().sorted().toList()), s.unreadableTopics());
        }
    }

    /** Live brokers advertising GetReplicaLogInfo, ElectLeaders v3, and those that did not answer ApiVersions. */
    record NativeRpcs(List<Integer> getReplicaLogInfo, List<Integer> electLeadersV3, List<Integer> unanswered) {
    }

    private static void printText(StatusReport r, PrintWriter out) {
        out.printf("Cluster %s, %d partitions checked%n", r.clusterId(), r.partitionsChecked());
        out.println("Brokers: " + r.brokers().stream()
                .map(b -> b.id() + (b.fenced() ? " FENCED" : " up") + " (" + b.address() + ")")
                .collect(Collectors.joining(", ")));
        if (r.elrEnabled()) {
            out.println("Eligible Leader Replicas (KIP-966): enabled (" + ClusterDiscovery.ELR_FEATURE + "="
                    + r.elrFeatureLevel() + ")");
        } else if (r.zooKeeperMode()) {
            out.println("Eligible Leader Replicas (KIP-966): none in ZooKeeper mode (KRaft only); balanced waits for"
                    + " the leaderless ISR, commitment is judged by the replicas' high watermarks");
        } else if (!r.elrSupported()) {
            out.println("Eligible Leader Replicas (KIP-966): not in Kafka 3.x (upgrade to 4.0+ first);"
                    + " balanced waits for the leaderless ISR");
        } else if (r.elrFeatureLevel() < 0) {
            out.println("Eligible Leader Replicas (KIP-966): unknown (DescribeFeatures failed)");
        } else {
            out.println("Eligible Leader Replicas (KIP-966): DISABLED — enable with: kafka-features.sh"
                    + " --bootstrap-server <broker> upgrade --feature " + ClusterDiscovery.ELR_FEATURE
                    + "=1 (needs metadata.version 4.0-IV1 or later)");
        }
        out.println("Native RPCs (GetReplicaLogInfo / ElectLeaders v3): "
                + BrokerNativeSupport.brokers(r.nativeRpcs().getReplicaLogInfo()) + " / "
                + BrokerNativeSupport.brokers(r.nativeRpcs().electLeadersV3())
                + (r.nativeRpcs().unanswered().isEmpty() ? ""
                        : " (" + BrokerNativeSupport.brokers(r.nativeRpcs().unanswered()) + " did not answer ApiVersions)"));
        out.println();
        Set<Integer> up = r.brokers().stream().filter(b -> !b.fenced()).map(BrokerState::id)
                .collect(Collectors.toSet());
        printPartitions("Offline partitions (no leader)", r.offline(), up, out);
        printPartitions("At-risk partitions (ISR below min.insync.replicas)", r.atRisk(), up, out);
        printUnreadable(r.unreadableTopics(), out);
        out.println("Reassignments in progress: " + (r.reassigning().isEmpty() ? "none" : String.join(", ", r.reassigning())));
        if (!r.offline().isEmpty()) {
            out.println();
            out.println(r.offline().size() + " partition(s) offline. Next: 'plan' to see which replica to elect"
                    + " (it changes nothing).");
        }
    }

    /** Only when there are some: their partitions, offline ones included, are not in the lists above. */
    private static void printUnreadable(List<UnreadableTopic> unreadable, PrintWriter out) {
        if (unreadable.isEmpty()) {
            return;
        }
        out.println("Topics not read (their partitions are unknown, offline ones included): " + unreadable.size());
        Table table = new Table("TOPIC", "ERROR");
        unreadable.forEach(t -> table.row(t.topic(), t.error()).note(t.reason()));
        table.print(out);
        out.println();
    }

    /**
     * @param up the brokers that are up: a replica offline on one of them has its log directory offline (Kafka's
     *           metadata lists a replica offline when its broker is fenced or gone, or its directory failed)
     */
    private static void printPartitions(String title, List<TopicPartitionState> partitions, Set<Integer> up,
                                        PrintWriter out) {
        out.println(title + ": " + (partitions.isEmpty() ? "none" : partitions.size()));
        if (partitions.isEmpty()) {
            return;
        }
        Table table = new Table("TOPIC", "PARTITION", "LEADER", "LEADER-EPOCH", "REPLICAS", "ISR", "ELR",
                "LAST-KNOWN-ELR", "OFFLINE-REPLICAS");
        for (TopicPartitionState p : partitions) {
            table.row(p.topic(), p.partition(), p.isOffline() ? "none" : p.leader(),
                    p.leaderEpoch() < 0 ? "?" : p.leaderEpoch(), Table.ids(p.replicas()), Table.ids(p.isr()),
                    Table.ids(p.eligibleLeaderReplicas()), Table.ids(p.lastKnownElr()), Table.ids(p.offlineReplicas()));
            List<Integer> onFailedDirs = p.offlineReplicas().stream().filter(up::contains).toList();
            if (!onFailedDirs.isEmpty()) {
                table.note("replica(s) on " + Table.ids(onFailedDirs) + " offline while the broker is up: a failed log"
                        + " directory; 'inspect --log-dir' on it, if it can still be read, gives the log");
            }
        }
        table.print(out);
        out.println();
    }
}
