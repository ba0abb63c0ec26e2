// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.localcluster;

/**
 * Where a local cluster keeps its metadata: a KRaft controller quorum (every version), or ZooKeeper (Kafka 3.x only:
 * 4.0 removed it), where one ZooKeeper server stands in the controllers' place and one broker is the controller.
 */
public enum MetadataMode {
    KRAFT,
    ZOOKEEPER
}
