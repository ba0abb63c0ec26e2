// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.localcluster;

/** What a node's JVM runs, and the line it logs once it serves requests. */
enum NodeProgram {
    /** KafkaRaftServer logs this once the node serves requests; a broker only after it is unfenced. */
    KRAFT_NODE("kafka.Kafka", "Kafka Server started"),
    /** KafkaServer (ZooKeeper mode) logs "[KafkaServer id=N] started" once registered and serving. */
    ZOOKEEPER_BROKER("kafka.Kafka", "] started (kafka.server.KafkaServer)"),
    /** What Kafka 3.x's zookeeper-server-start.sh runs; standalone, it logs this once its database is loaded. */
    ZOOKEEPER_SERVER("org.apache.zookeeper.server.quorum.QuorumPeerMain", "PrepRequestProcessor (sid:");

    private final String mainClass;
    private final String startedLine;

    NodeProgram(String mainClass, String startedLine) {
        this.mainClass = mainClass;
        this.startedLine = startedLine;
    }

    String mainClass() {
        return mainClass;
    }

    String startedLine() {
        return startedLine;
    }

    /** Whether the JVM's storage is formatted first ({@code kafka-storage.sh format}): KRaft nodes only. */
    boolean formatsStorage() {
        return this == KRAFT_NODE;
    }
}
