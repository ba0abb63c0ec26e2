// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.harness;

import dev.uncleanrecovery.localcluster.LocalKafkaCluster;
import java.nio.file.Path;
import java.util.stream.Collectors;

/**
 * The main class of a throwaway JVM for {@link NodeReapingTest}: starts a controller-only local
 * cluster in the directory given as argument, prints its node PIDs and waits to be killed.
 */
public final class ClusterOwnerJvm {

    static final String PIDS_LINE = "NODE PIDS:";

    private ClusterOwnerJvm() {
    }

    public static void main(String[] args) throws InterruptedException {
        LocalKafkaCluster cluster = LocalKafkaCluster.builder().brokers(0).classDataSharing(false)
                .baseDirectory(Path.of(args[0])).build().start();
        System.out.println(PIDS_LINE + " " + cluster.nodes().ids().stream()
                .map(id -> String.valueOf(cluster.nodes().pid(id).orElseThrow()))
                .collect(Collectors.joining(" ")));
        System.out.flush();
        Thread.sleep(Long.MAX_VALUE);
    }
}
