// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.chaos;

import dev.uncleanrecovery.localcluster.ClusterNetwork;
import dev.uncleanrecovery.localcluster.LocalKafkaCluster;
import dev.uncleanrecovery.localcluster.NetworkHost;
import dev.uncleanrecovery.localcluster.LogTailCut;
import dev.uncleanrecovery.localcluster.StopMode;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;
import java.util.Random;
import java.util.function.Consumer;
import java.util.stream.Stream;
import org.apache.kafka.common.TopicPartition;

/**
 * The faults of one seed: a few of every kind, one at a time while the clients write, each healed before the next,
 * then the outage that ends the schedule. Everything random here comes from the seed; how the cluster reacts (which
 * replica is in the ISR when a fault lands) depends on timing, which is why a trial judges what the disks hold.
 *
 * @param steps        the faults while the clients write
 * @param killOrder    the final outage: kill -9 of these brokers one after another, with writes in between
 * @param gapsMillis   the writes after each kill of {@link #killOrder}
 * @param deadDiskLost whether the last broker killed, the one that stays down, lost its disk
 * @param network      whether the nodes are hosts of their own and the steps include network faults
 */
record FaultSchedule(List<Step> steps, List<Integer> killOrder, List<Long> gapsMillis, boolean deadDiskLost,
                     boolean network) {

    enum Fault {
        /** kill -9, then an unclean restart a moment later (before or after the session timeout). */
        KILL_AND_RESTART,
        /** a controlled shutdown and a clean restart. */
        CLEAN_RESTART,
        /** SIGSTOP shorter than broker.session.timeout.ms (6 s), then SIGCONT: the broker is never fenced. */
        SHORT_PAUSE,
        /** SIGSTOP longer than the session timeout: the controller fences it; SIGCONT brings it back. */
        LONG_PAUSE,
        /** kill -9, the tail of one of its replicas' last segment cut on disk, an unclean restart. */
        TAIL_CUT,
        /** kill -9, its log dir emptied but for meta.properties (a replaced disk), a restart once fenced. */
        DISK_LOST,
        /** kill -9 of the active controller of the three, restarted a moment later. */
        ACTIVE_CONTROLLER_KILLED,
        /** The broker cut off from every other host, the clients' included; it runs on, and is fenced if held long. */
        FULL_PARTITION,
        /** The broker cut off from the controllers only: it goes on leading for clients and followers it reaches. */
        QUORUM_CUT,
        /** The broker and another broker cut apart: followers of one stop fetching from the other. */
        BROKER_CUT,
        /** The clients (the harness's host) cut off from the broker, the cluster whole. */
        CLIENTS_CUT,
        /**
         * One direction only: with an even {@code partitionPick} the broker's packets to the controllers (its
         * heartbeats) are lost, with an odd one another broker's packets to it.
         */
        ONE_WAY,
        /** Every link of the broker loses 10 to 40% of its packets. */
        LOSSY;

        /** Faults of the network between hosts, as opposed to those of processes and disks. */
        boolean isNetwork() {
            return ordinal() >= FULL_PARTITION.ordinal();
        }

        static List<Fault> ofProcessesAndDisks() {
            return Arrays.stream(values()).filter(f -> !f.isNetwork()).toList();
        }
    }

    /** One fault: {@code node} -1 for the active controller, whichever it is when the fault lands. */
    record Step(Fault fault, int node, long holdMillis, long writesAfterMillis, long cutBytes, int partitionPick) {

        String describe() {
            String target = fault == Fault.ACTIVE_CONTROLLER_KILLED ? "active controller" : "broker " + node;
            String what = switch (fault) {
                case TAIL_CUT -> ", " + cutBytes + " bytes cut";
                case BROKER_CUT -> " from broker " + peer(node, partitionPick);
                case ONE_WAY -> partitionPick % 2 == 0 ? ": its packets to the controllers"
                        : ": broker " + peer(node, partitionPick) + "'s packets to it";
                case LOSSY -> ", " + lossPercent() + "% of packets";
                default -> "";
            };
            return fault.name().toLowerCase(java.util.Locale.ROOT).replace('_', ' ') + " of " + target
                    + " for " + holdMillis + " ms" + what;
        }

        int lossPercent() {
            return 10 + partitionPick % 31;
        }
    }

    /** Another broker of the trial's than {@code broker}, drawn by {@code pick}. */
    static int peer(int broker, int pick) {
        List<Integer> others = ChaosTrial.BROKERS.stream().filter(b -> b != broker).toList();
        return others.get(pick % others.size());
    }

    static FaultSchedule of(long seed, List<Integer> brokers, boolean shortRun) {
        return of(seed, brokers, shortRun, false);
    }

    /**
     * @param network mix the network faults in, at least one per seed (the nodes must be hosts); without, a seed
     *                draws exactly the schedule it always drew
     */
    static FaultSchedule of(long seed, List<Integer> brokers, boolean shortRun, boolean network) {
        Random random = new Random(seed);
        List<Fault> kinds = new ArrayList<>(network ? Arrays.asList(Fault.values()) : Fault.ofProcessesAndDisks());
        Collections.shuffle(kinds, random);
        if (network && kinds.subList(0, shortRun ? 3 : 4).stream().noneMatch(Fault::isNetwork)) {
            Fault first = kinds.stream().filter(Fault::isNetwork).findFirst().orElseThrow();
            kinds.remove(first);
            kinds.add(0, first);
        }
        int count = shortRun ? 3 : 4 + random.nextInt(3);
        List<Step> steps = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            Fault fault = kinds.get(i % kinds.size());
            long hold = switch (fault) {
                case SHORT_PAUSE -> 1_500 + random.nextInt(2_500);
                case LONG_PAUSE -> 7_500 + random.nextInt(3_000);
                case KILL_AND_RESTART -> 500 + random.nextInt(8_000);
                // healed before or after broker.session.timeout.ms (6 s): fenced or not
                case FULL_PARTITION, QUORUM_CUT, BROKER_CUT, CLIENTS_CUT, ONE_WAY, LOSSY ->
                        2_000 + random.nextInt(9_000);
                default -> 500 + random.nextInt(2_500);
            };
            steps.add(new Step(fault, brokers.get(random.nextInt(brokers.size())), hold,
                    (shortRun ? 500 : 1_000) + random.nextInt(2_000), 1 + random.nextInt(400), random.nextInt(1 << 16)));
        }
        List<Integer> order = new ArrayList<>(brokers);
        Collections.shuffle(order, random);
        List<Long> gaps = List.of(1_000L + random.nextInt(2_000), 1_000L + random.nextInt(2_000),
                500L + random.nextInt(1_500));
        return new FaultSchedule(steps, order.subList(0, 3), gaps, random.nextInt(4) == 0, network);
    }

    /** The broker that stays down after the final outage: the last leader of the partitions it leaves offline. */
    int deadBroker() {
        return killOrder.get(2);
    }

    /** The brokers of the final outage restarted uncleanly, which lost the latest writes. */
    List<Integer> restartedBehind() {
        return killOrder.subList(0, 2);
    }

    String describe() {
        StringBuilder text = new StringBuilder();
        steps.forEach(s -> text.append(s.describe()).append("; "));
        return text.append("then kill -9 of ").append(killOrder).append(", ").append(restartedBehind())
                .append(" restarted, ").append(deadBroker()).append(" stays down")
                .append(deadDiskLost ? " with its disk lost" : " with its disk intact").toString();
    }

    /** Runs the faults, one at a time, each healed before the writes that follow it. */
    void injectFaults(LocalKafkaCluster cluster, List<TopicPartition> partitions, Consumer<String> log) {
        for (Step step : steps) {
            log.accept(step.describe());
            int broker = step.node();
            switch (step.fault()) {
                case KILL_AND_RESTART -> {
                    cluster.stopBroker(broker, StopMode.ABRUPT);
                    sleep(step.holdMillis());
                    cluster.startBroker(broker);
                }
                case CLEAN_RESTART -> {
                    cluster.stopBroker(broker, StopMode.CLEAN);
                    sleep(step.holdMillis());
                    cluster.startBroker(broker);
                }
                case SHORT_PAUSE, LONG_PAUSE -> {
                    cluster.pauseBroker(broker);
                    sleep(step.holdMillis());
                    cluster.resumeBroker(broker);
                    cluster.metadata().awaitBrokerUnfenced(broker);
                }
                case TAIL_CUT -> {
                    cluster.stopBroker(broker, StopMode.ABRUPT);
                    List<TopicPartition> held = partitions.stream()
                            .filter(tp -> Files.isDirectory(cluster.disk().replicaDirectory(broker, tp))).toList();
                    if (!held.isEmpty()) {
                        TopicPartition tp = held.get(step.partitionPick() % held.size());
                        var cut = cluster.disk().truncateReplicaLog(tp, broker, LogTailCut.dropBytes(step.cutBytes()));
                        log.accept("  cut " + tp + " on broker " + broker + ": " + cut);
                    }
                    sleep(step.holdMillis());
                    cluster.startBroker(broker);
                }
                case DISK_LOST -> {
                    cluster.stopBroker(broker, StopMode.ABRUPT);
                    cluster.metadata().awaitBrokerFenced(broker);
                    emptyLogDir(cluster.logDir(broker));
                    sleep(step.holdMillis());
                    cluster.startBroker(broker);
                }
                case ACTIVE_CONTROLLER_KILLED -> {
                    int controller = cluster.controllers().activeId();
                    log.accept("  the active controller is " + controller);
                    cluster.controllers().stop(controller, StopMode.ABRUPT);
                    sleep(step.holdMillis());
                    cluster.controllers().start(controller);
                }
                case FULL_PARTITION, QUORUM_CUT, BROKER_CUT, CLIENTS_CUT, ONE_WAY, LOSSY -> {
                    cutTheNetwork(cluster.network(), cluster.controllers().ids(), step);
                    sleep(step.holdMillis());
                    cluster.network().heal();
                    log.accept("  healed; the router dropped " + cluster.network().droppedPackets()
                            + " packets so far");
                    ChaosTrial.BROKERS.forEach(b -> cluster.metadata().awaitBrokerUnfenced(b));
                }
            }
            sleep(step.writesAfterMillis());
        }
    }

    /** The network fault of the step, on the links of its broker. */
    private static void cutTheNetwork(ClusterNetwork network, List<Integer> controllers, Step step) {
        int broker = step.node();
        NetworkHost host = network.node(broker);
        List<NetworkHost> quorum = controllers.stream().map(network::node).toList();
        NetworkHost peer = network.node(peer(broker, step.partitionPick()));
        switch (step.fault()) {
            case FULL_PARTITION -> network.isolate(broker);
            case QUORUM_CUT -> network.partition(List.of(host), quorum);
            case BROKER_CUT -> network.partition(List.of(host), List.of(peer));
            case CLIENTS_CUT -> network.partition(List.of(network.harness(), network.clients()), List.of(host));
            case ONE_WAY -> {
                if (step.partitionPick() % 2 == 0) {
                    quorum.forEach(controller -> network.cutOneWay(host, controller));
                } else {
                    network.cutOneWay(peer, host);
                }
            }
            case LOSSY -> network.lossy(host, step.lossPercent());
            default -> throw new IllegalArgumentException(step.fault() + " is not a network fault");
        }
    }

    /** The final outage: brokers die one after another while the clients write; the last one stays down. */
    void driveOffline(LocalKafkaCluster cluster, Consumer<String> log) {
        for (int i = 0; i < killOrder.size(); i++) {
            int broker = killOrder.get(i);
            log.accept("kill -9 broker " + broker);
            cluster.stopBroker(broker, StopMode.ABRUPT);
            cluster.metadata().awaitBrokerFenced(broker);
            sleep(gapsMillis.get(i));
        }
    }

    /**
     * A replaced disk: every partition and the metadata log gone, meta.properties kept, so the broker starts with
     * the same node and directory id and nothing else.
     */
    static void emptyLogDir(Path logDir) {
        try (Stream<Path> entries = Files.list(logDir)) {
            for (Path entry : entries.filter(p -> !p.getFileName().toString().equals("meta.properties")).toList()) {
                deleteRecursively(entry);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static void deleteRecursively(Path path) {
        if (!Files.exists(path)) {
            return;
        }
        try (Stream<Path> all = Files.walk(path)) {
            for (Path p : all.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(p);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(Duration.ofMillis(millis).toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }
}
