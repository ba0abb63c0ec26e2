// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.localcluster;

import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The server properties and JVM flags every node starts from, before the builder's own properties: listeners on the
 * node's address (loopback, or its own host's), a static quorum, short sessions and small internal topics, sized for
 * several nodes on a 2-core machine.
 */
final class NodeDefaults {

    /** Small heaps, serial GC and C1 only: several nodes and the tests beside them fit on a 2-core machine. */
    static final List<String> SMALL_JVM_FLAGS = List.of(
            "-Xmx128m", "-Xms32m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1",
            "-XX:ReservedCodeCacheSize=64m", "-XX:MaxMetaspaceSize=128m", "-Djava.awt.headless=true");

    private NodeDefaults() {
    }

    static Map<String, String> controller(int id, String host, int port, String quorumVoters, int brokerCount,
                                          Path logDir) {
        Map<String, String> config = common(id, NodeRole.CONTROLLER, quorumVoters, logDir);
        config.put("listeners", "CONTROLLER://" + host + ":" + port);
        // A kill -9'd broker is fenced once its session times out (default 9 s); too short a session fences a
        // CPU-starved broker that is still starting.
        config.put("broker.session.timeout.ms", "6000");
        // In KRaft the controller, not the broker, applies these defaults when a topic is created.
        config.put("num.partitions", "1");
        config.put("default.replication.factor", String.valueOf(internalTopicReplication(brokerCount)));
        return config;
    }

    static Map<String, String> broker(int id, String host, int port, String quorumVoters, int brokerCount,
                                      Path logDir) {
        Map<String, String> config = common(id, NodeRole.BROKER, quorumVoters, logDir);
        String listener = "PLAINTEXT://" + host + ":" + port;
        config.put("listeners", listener);
        config.put("advertised.listeners", listener);
        config.put("inter.broker.listener.name", "PLAINTEXT");
        config.put("broker.heartbeat.interval.ms", "500");
        config.put("group.initial.rebalance.delay.ms", "0");
        // A broker restarted after kill -9 reads its high watermarks from this checkpoint (default every 5 s): tests
        // that count committed records on such a broker need it close to the real one.
        config.put("replica.high.watermark.checkpoint.interval.ms", "200");
        int replication = internalTopicReplication(brokerCount);
        String minIsr = String.valueOf(Math.min(2, replication));
        config.put("offsets.topic.replication.factor", String.valueOf(replication));
        config.put("transaction.state.log.replication.factor", String.valueOf(replication));
        config.put("transaction.state.log.min.isr", minIsr);
        config.put("share.coordinator.state.topic.replication.factor", String.valueOf(replication));
        config.put("share.coordinator.state.topic.min.isr", minIsr);
        // Internal topics get few partitions: fewer replicas to create, fence and recover in tests.
        config.put("offsets.topic.num.partitions", "3");
        config.put("transaction.state.log.num.partitions", "3");
        return config;
    }

    /**
     * The ZooKeeper server of a ZooKeeper-mode cluster: standalone, its client port on the node's address only, no
     * AdminServer (its Jetty would bind 0.0.0.0:8080). A 500 ms tick allows sessions of 1 to 10 s (2 to 20 ticks).
     */
    static Map<String, String> zookeeperServer(String host, int port, Path dataDir) {
        Map<String, String> config = new HashMap<>();
        config.put("dataDir", dataDir.toString());
        config.put("clientPort", String.valueOf(port));
        config.put("clientPortAddress", host);
        config.put("tickTime", "500");
        config.put("admin.enableServer", "false");
        config.put("maxClientCnxns", "0");
        return config;
    }

    /**
     * A ZooKeeper-mode broker: the KRaft broker's settings without the quorum's, registered in ZooKeeper. It leaves
     * the cluster when its ZooKeeper session expires, which the controller broker sees as a broker change: the
     * ZooKeeper-mode counterpart of fencing, after 6 s as there.
     */
    static Map<String, String> zookeeperBroker(int id, String host, int port, String zookeeperConnect, int brokerCount,
                                               Path logDir) {
        Map<String, String> config = broker(id, host, port, "", brokerCount, logDir);
        List.of("process.roles", "node.id", "controller.quorum.voters", "controller.listener.names",
                "broker.heartbeat.interval.ms").forEach(config::remove);
        config.put("broker.id", String.valueOf(id));
        config.put("listener.security.protocol.map", "PLAINTEXT:PLAINTEXT");
        config.put("zookeeper.connect", zookeeperConnect);
        config.put("zookeeper.session.timeout.ms", "6000");
        // In ZooKeeper mode the broker that creates a topic applies these defaults, not a controller.
        config.put("num.partitions", "1");
        config.put("default.replication.factor", String.valueOf(internalTopicReplication(brokerCount)));
        return config;
    }

    private static Map<String, String> common(int id, NodeRole role, String quorumVoters, Path logDir) {
        Map<String, String> config = new HashMap<>();
        config.put("process.roles", role.processRoles());
        config.put("node.id", String.valueOf(id));
        // A static quorum: format needs neither --standalone nor --initial-controllers.
        config.put("controller.quorum.voters", quorumVoters);
        config.put("controller.listener.names", "CONTROLLER");
        config.put("listener.security.protocol.map", "CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT");
        config.put("log.dirs", logDir.toString());
        // The cleaner allocates this buffer on the heap at start-up; the 128 MiB default does not fit -Xmx128m.
        config.put("log.cleaner.dedupe.buffer.size", "4194304");
        return config;
    }

    static Map<String, String> secured(Map<String, String> defaults, Map<String, String> security) {
        Map<String, String> config = new HashMap<>(defaults);
        config.putAll(security);
        return config;
    }

    static int internalTopicReplication(int brokerCount) {
        return Math.max(1, Math.min(3, brokerCount));
    }
}
