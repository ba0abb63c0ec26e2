// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.localcluster;

import java.nio.file.Path;

/**
 * The main class of a throwaway JVM for {@link ClusterNetworkTest}: builds a cluster of hosts in the directory given
 * as argument (its namespaces are made at build), prints a line once they are, and waits to be killed.
 */
public final class NetworkOwnerJvm {

    static final String READY_LINE = "HOSTS MADE:";

    private NetworkOwnerJvm() {
    }

    public static void main(String[] args) throws InterruptedException {
        LocalKafkaCluster cluster = LocalKafkaCluster.builder().brokers(1).classDataSharing(false)
                .network(NodeNetwork.HOSTS).baseDirectory(Path.of(args[0])).build();
        System.out.println(READY_LINE + " " + cluster.network().hosts());
        System.out.flush();
        Thread.sleep(Long.MAX_VALUE);
    }
}
