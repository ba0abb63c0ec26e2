// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.demo;

import dev.uncleanrecovery.UserInputException;
import dev.uncleanrecovery.cli.DemoCommand;
import dev.uncleanrecovery.cli.ExitCode;
import dev.uncleanrecovery.cli.Main;
import dev.uncleanrecovery.view.Table;
import dev.uncleanrecovery.localcluster.LastReplicaStandingOutage;
import dev.uncleanrecovery.localcluster.LocalClusterException;
import dev.uncleanrecovery.localcluster.ClusterBuilder;
import dev.uncleanrecovery.localcluster.LocalKafkaCluster;
import dev.uncleanrecovery.localcluster.RecordCount;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;

/**
 * {@code demo}'s run: a local real Kafka cluster broken as in KIP-966's "last replica standing" outage, then recovered
 * by the tool's own commands, with the records counted before and after.
 */
public final class LastReplicaStandingDemo implements DemoCommand.Demo {

    private static final String TOPIC = "orders";

    private DemoCommand.Settings settings;

    @Override
    public int run(DemoCommand.Settings settings, PrintWriter out, PrintWriter err) throws Exception {
        this.settings = settings;
        int partitions = settings.partitions();
        int records = settings.records();
        long started = System.nanoTime();
        LocalKafkaCluster cluster = cluster(kafkaHome());
        Thread onCtrlC = new Thread(cluster::close, "demo-cluster-stop");
        Runtime.getRuntime().addShutdownHook(onCtrlC);
        try {
            step(out, "Starting a local Kafka " + cluster.kafkaVersion() + " cluster" + (kafkaHome() == null ? ""
                    : " from " + kafkaHome().resolve("libs")) + ": controller 1000 and brokers 1, 2, 3 on 127.0.0.1");
            cluster.start();
            out.println("    bootstrap: " + cluster.bootstrapServers());

            step(out, "Reproducing KIP-966's 'last replica standing' outage on topic '" + TOPIC + "' (replicas [1,3,2],"
                    + " min.insync.replicas=2, unclean.leader.election.enable=false)");
            LastReplicaStandingOutage.Result outage = LastReplicaStandingOutage.reproduce(cluster, TOPIC, partitions,
                    records, records / 10, s -> said(out, s));
            said(out, String.format("acknowledged to producers: %d records per partition (%d acks=all, %d acks=1 on the"
                    + " last leader)", outage.acknowledged(), 2 * outage.ackedByAll(), outage.ackedByLeaderOnly()));
            said(out, String.format("now: broker 2 holds %d records, broker 3 holds %d, broker 1 (the last leader) is gone."
                    + " Kafka's own unclean election would pick broker 3, the first live replica.",
                    outage.survivorLogEndOffsets().get(2), outage.survivorLogEndOffsets().get(3)));
            out.flush();

            String bootstrap = cluster.bootstrapServers();
            if (settings.practice()) {
                step(out, "The cluster is broken and stays so: rehearse the runbook (docs/runbook.md) against it");
                out.println("    --bootstrap-server " + bootstrap);
                said(out, "start with: kafka-unclean-recovery.sh status --bootstrap-server " + bootstrap);
                said(out, "stop it with Ctrl-C here, or: kill " + ProcessHandle.current().pid()
                        + " (stops every Kafka process this demo started and deletes their directories)");
                out.flush();
                new CountDownLatch(1).await();
            }
            step(out, "kafka-unclean-recovery.sh --bootstrap-server " + bootstrap + " status");
            runCommand(out, err, "--bootstrap-server", bootstrap, "status");

            Path workDir = Files.createTempDirectory("kafka-unclean-recovery-demo-");
            Path plan = workDir.resolve("plan.json");
            step(out, "kafka-unclean-recovery.sh ... plan --strategy proactive --output-file " + plan
                    + "   (balanced would wait for broker 1, the LastKnownELR member, which never comes back)");
            runCommand(out, err, "--bootstrap-server", bootstrap, "plan", "--strategy", "proactive",
                    "--probe-timeout-ms", "3000", "--output-file", plan.toString());

            step(out, "kafka-unclean-recovery.sh ... execute --plan " + plan + " --accept-unknown-loss --reason demo"
                    + "   (broker 1's disk is not inspected here: what it loses is unknown, which alone would exit 3)");
            int executed = runCommand(out, err, "--bootstrap-server", bootstrap, "execute", "--plan", plan.toString(),
                    "--accept-unknown-loss", "--reason", "demo");

            step(out, "kafka-unclean-recovery.sh ... status   (after)");
            runCommand(out, err, "--bootstrap-server", bootstrap, "status", "--topic", TOPIC);

            step(out, "Counting the records a consumer reads now");
            long readable = RecordCount.readable(cluster, outage.topicPartitions(), Duration.ofSeconds(60));
            long acknowledged = outage.acknowledged() * partitions;
            said(out, String.format("before the outage: %d records acknowledged; readable now: %d; lost: %d (the acks=1"
                    + " records only the dead last leader had).", acknowledged, readable, acknowledged - readable));
            said(out, String.format("Kafka's own unclean election (broker 3 first) would have kept %d and lost %d.",
                    outage.ackedByAll() * partitions, acknowledged - outage.ackedByAll() * partitions));
            out.printf("Demo done in %d s.%n", Duration.ofNanos(System.nanoTime() - started).toSeconds());
            if (settings.keepRunning()) {
                out.println("The cluster keeps running: --bootstrap-server " + bootstrap + "  (Ctrl-C stops it)");
                out.flush();
                new CountDownLatch(1).await();
            }
            return executed == ExitCode.OK ? ExitCode.OK : ExitCode.FAILURE;
        } finally {
            cluster.close();
            try {
                Runtime.getRuntime().removeShutdownHook(onCtrlC);
            } catch (IllegalStateException shuttingDown) {
                // Ctrl-C: the hook is already running and stops the cluster.
            }
        }
    }

    /**
     * --kafka-home, else KAFKA_HOME where the build's server classpath is absent (the release archive): a checkout
     * runs the Kafka its build resolved, whatever a developer's environment says.
     */
    private Path kafkaHome() {
        if (settings.kafkaHome() != null) {
            return settings.kafkaHome();
        }
        String environment = System.getenv("KAFKA_HOME");
        return environment == null || environment.isBlank() || Files.isRegularFile(buildClasspathFile()) ? null
                : Path.of(environment);
    }

    /** The build's server classpath of Kafka 4.4.0, which the launcher names in a source checkout only. */
    private static Path buildClasspathFile() {
        return Path.of(System.getProperty("kafka.server.classpath.file", "target/kafka-server-4.4.0.classpath"));
    }

    private static LocalKafkaCluster cluster(Path kafkaHome) {
        if (kafkaHome == null && !Files.isRegularFile(buildClasspathFile())) {
            // the release archive bundles the tool, not a Kafka to break
            throw new UserInputException("demo needs an installed Kafka to run: --kafka-home DIR (or KAFKA_HOME), the"
                    + " directory a Kafka release was unpacked into");
        }
        try {
            ClusterBuilder builder = LocalKafkaCluster.builder().brokers(3);
            return (kafkaHome == null ? builder : builder.kafkaHome(kafkaHome)).build();
        } catch (LocalClusterException e) {
            throw new UserInputException(e.getMessage(), e);
        }
    }

    private int runCommand(PrintWriter out, PrintWriter err, String... args) {
        int code = Main.run(out, err, args);
        out.println("    (exit code " + code + ")");
        out.flush();
        return code;
    }

    private static void step(PrintWriter out, String what) {
        out.println();
        Table.printWrapped(out, "==> " + what, 4);
        out.flush();
    }

    private static void said(PrintWriter out, String what) {
        Table.printWrapped(out, "    " + what, 4);
    }
}
