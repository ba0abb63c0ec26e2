// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
/**
 * Real Kafka 4.4.0 clusters on this machine, made to be broken: the process harness behind the
 * real-cluster tests and the {@code demo} command. {@link dev.uncleanrecovery.localcluster.LocalKafkaCluster}
 * runs one KRaft controller and N brokers as separate JVMs on 127.0.0.1, from the Kafka jars the build
 * resolved (no download at run time); it kills ({@code kill -9}) or stops nodes, restarts them with their
 * data, cuts a stopped replica's log on disk ({@link dev.uncleanrecovery.localcluster.DiskFaults}), and reports
 * partitions with their ISR, ELR and LastKnownELR ({@link dev.uncleanrecovery.localcluster.ClusterMetadata}).
 * {@link dev.uncleanrecovery.localcluster.ClusterBackend#CONTAINERS} runs the same nodes in Docker containers;
 * {@link dev.uncleanrecovery.localcluster.NodeNetwork#HOSTS} makes each node a host of its own, in a network namespace,
 * with the partitions, one-way cuts and lossy links of {@link dev.uncleanrecovery.localcluster.ClusterNetwork}
 * between them.
 */
package dev.uncleanrecovery.localcluster;
