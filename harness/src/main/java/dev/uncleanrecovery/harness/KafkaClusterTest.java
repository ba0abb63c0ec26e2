// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.harness;

import dev.uncleanrecovery.localcluster.ClusterBuilder;
import dev.uncleanrecovery.localcluster.ClusterSecurity;
import dev.uncleanrecovery.localcluster.MetadataMode;
import dev.uncleanrecovery.localcluster.NodeNetwork;
import dev.uncleanrecovery.localcluster.NodeRole;
import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The test class needs a real local Kafka cluster: a {@code LocalKafkaCluster} parameter of any
 * test method, {@code @BeforeAll}/{@code @BeforeEach} method or constructor receives it. One cluster
 * per test class, started on first use and stopped after the class; tests of a class share it, so a
 * test that breaks the cluster restores it (restarts what it stopped) or is the only one. When a test fails, node logs are
 * kept under {@code target/cluster-logs/<TestClass>/<test>/} and their last lines printed.
 * {@code -DskipClusterTests=true} skips such classes.
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Inherited
@Tag("kafka-cluster")
@ExtendWith(KafkaClusterExtension.class)
public @interface KafkaClusterTest {

    /** Brokers, with ids 1..brokers, besides the controller (id 1000). */
    int brokers() default 3;

    /**
     * The Kafka version the nodes run, from 3.7.2 to 4.4.0 (any version whose server classpath the build resolves,
     * see kafka-servers/). Empty: system property {@code kafka.test.version}, else 4.4.0.
     */
    String kafkaVersion() default "";

    /**
     * {@link MetadataMode#ZOOKEEPER}: a Kafka 3.x cluster on one ZooKeeper server (id 1000) instead of a KRaft
     * controller; the brokers elect their controller among themselves. KRaft by default.
     */
    MetadataMode metadataMode() default MetadataMode.KRAFT;

    /** Controllers in the KRaft quorum (1 or 3), with ids 1000, 1001, ...: 3 to fail the active one over. */
    int controllers() default 1;

    /**
     * Feature levels the storage is formatted with, as {@code name=level}; {@code eligible.leader.replicas.version=0}
     * gives a cluster without ELR (like every cluster upgraded from 3.x until ELR is enabled).
     */
    String[] formatFeatures() default {};

    /** Tiered storage on every node, with a remote storage that keeps nothing (see ClusterBuilder). */
    boolean tieredStorage() default false;

    /** Server properties for every broker, as {@code key=value}. */
    String[] brokerProperties() default {};

    /** Server properties for the controller, as {@code key=value}. */
    String[] controllerProperties() default {};

    /**
     * Roles whose nodes load the companion kafka-patch agent (the jar named by system property
     * {@code kafka.patch.agent.file}, which surefire sets). None by default: stock Kafka.
     */
    NodeRole[] patchAgentOn() default {};

    /** Brokers that run WITHOUT the agent although {@link #patchAgentOn()} names the broker role (mixed clusters). */
    int[] brokersWithoutPatchAgent() default {};

    /** Brokers with a second log directory on a disk of their own that the test can fail (as root). */
    int[] failableLogDirOn() default {};

    /** Options passed to the agent ({@code -javaagent:jar=options}). */
    String patchAgentOptions() default "";

    /**
     * PLAINTEXT and no authorizer by default. {@link ClusterSecurity#SASL_PLAIN_WITH_ACLS}: SASL/PLAIN
     * broker listener, StandardAuthorizer, users {@code admin} (super user, the cluster's default
     * client), {@code recovery}, {@code nobody} and {@link #saslUsers()}; see
     * {@code cluster.access().clientProperties(user)} and {@code writeCommandConfig(user)}.
     * {@link ClusterSecurity#SASL_SSL_WITH_ACLS}: the same over TLS (SASL_SSL), certificates made at start,
     * and SSL listeners beside it ({@code TlsListener}).
     */
    ClusterSecurity security() default ClusterSecurity.NONE;

    /** More SASL users (password {@code <user>-secret}, no ACLs) for a secured cluster. */
    String[] saslUsers() default {};

    /** JVM options for every broker after the harness's small-footprint ones ({@code -Xmx1g} for many partitions). */
    String[] brokerJvmArgs() default {};

    /** JVM options for the controllers, as {@link #brokerJvmArgs()}. */
    String[] controllerJvmArgs() default {};

    /**
     * {@link NodeNetwork#HOSTS}: every node, the clients and the test JVM a host of its own (network namespaces), so
     * that {@code cluster.network()} can partition them. The class is skipped, with the reason, where this machine
     * cannot make namespaces (not root, no {@code ip netns}, no {@code iptables}) or the nodes run in containers.
     */
    NodeNetwork network() default NodeNetwork.LOOPBACK;

    /** How long the cluster and each restarted broker may take to start (a broker unfenced). */
    int startupTimeoutSeconds() default 90;
}
