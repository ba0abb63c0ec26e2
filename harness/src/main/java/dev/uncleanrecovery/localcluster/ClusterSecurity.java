// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.localcluster;

/** How clients reach the brokers of a {@link LocalKafkaCluster} and what they may do there. */
public enum ClusterSecurity {
    /** PLAINTEXT listeners, no authorizer: any client may do anything (the default). */
    NONE,
    /**
     * The broker listener is SASL_PLAINTEXT with mechanism PLAIN, and the controller and brokers run
     * KRaft's StandardAuthorizer with {@code allow.everyone.if.no.acl.found=false}: a principal may do
     * only what ACLs grant it. Users (password {@code <user>-secret}): {@code admin} (super user; the
     * brokers' own inter-broker login and the harness's client), {@code recovery} and {@code nobody}
     * (no ACLs until a test grants some), plus any the builder adds. The controller listener stays
     * PLAINTEXT; brokers reach it as {@code User:ANONYMOUS}, a super user of the controller only.
     */
    SASL_PLAIN_WITH_ACLS,
    /**
     * {@link #SASL_PLAIN_WITH_ACLS} over TLS: the brokers' listener for clients and replication is SASL_SSL, with
     * certificates of a CA the cluster makes when it starts ({@link ClusterCertificates}); its clients trust them
     * through the truststore that {@code clientProperties} and {@code writeCommandConfig} name. Every broker also
     * listens on three SSL listeners without SASL ({@link TlsListener}): one that works, for clients that are
     * {@code User:ANONYMOUS}, and two whose certificates a client must refuse (expired, for another host).
     */
    SASL_SSL_WITH_ACLS;

    /** Whether clients log in with SASL/PLAIN and the authorizer applies ACLs. */
    boolean hasSaslUsers() {
        return this != NONE;
    }

    /** Whether the brokers' client listener is TLS. */
    boolean usesTls() {
        return this == SASL_SSL_WITH_ACLS;
    }
}
