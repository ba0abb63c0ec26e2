// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.localcluster;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.function.Supplier;
import java.util.stream.Collectors;
import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.common.acl.AccessControlEntry;
import org.apache.kafka.common.acl.AclBinding;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.acl.AclPermissionType;
import org.apache.kafka.common.resource.PatternType;
import org.apache.kafka.common.resource.ResourcePattern;
import org.apache.kafka.common.resource.ResourceType;

/**
 * Who may reach a secured cluster and what they may do: its SASL/PLAIN users and their client configurations or
 * {@code --command-config} files, the ACLs granted to them, and on a TLS cluster its certificates and listeners.
 * With {@link ClusterSecurity#SASL_PLAIN_WITH_ACLS} clients must log in and may do only what {@link #allow} granted
 * them; {@link ClusterSecurity#SASL_SSL_WITH_ACLS} does the same over TLS, with certificates the cluster makes at
 * start and more listeners for tests of TLS itself ({@link #bootstrapServers(TlsListener)}).
 *
 * <pre>{@code
 * cluster.access().allow(ClusterAccess.RECOVERY_USER, ResourceType.TOPIC, "orders", AclOperation.DESCRIBE);
 * Path commandConfig = cluster.access().writeCommandConfig(ClusterAccess.RECOVERY_USER);
 * }</pre>
 */
public final class ClusterAccess {

    /** The super user of a secured cluster; the harness's own clients log in as it. */
    public static final String ADMIN_USER = "admin";
    /** A user of a secured cluster meant to receive the tool's ACLs. */
    public static final String RECOVERY_USER = "recovery";
    /** A user of a secured cluster with no ACLs at all. */
    public static final String NOBODY_USER = "nobody";

    private final ClusterLayout layout;
    private final Supplier<String> clusterId;
    private final Supplier<Admin> harnessAdmin;

    ClusterAccess(ClusterLayout layout, Supplier<String> clusterId, Supplier<Admin> harnessAdmin) {
        this.layout = layout;
        this.clusterId = clusterId;
        this.harnessAdmin = harnessAdmin;
    }

    /** How clients authenticate and what they may do, as the builder chose. */
    public ClusterSecurity security() {
        return layout.security;
    }

    /**
     * {@code 127.0.0.1:p1,127.0.0.1:p2,...}: every broker's address on one listener of a TLS cluster
     * ({@link TlsListener#SASL_SSL} is {@link LocalKafkaCluster#bootstrapServers()}).
     */
    public String bootstrapServers(TlsListener listener) {
        return layout.brokers.keySet().stream().map(id -> listenerAddress(id, listener))
                .collect(Collectors.joining(","));
    }

    /** The broker's {@code host:port} on one listener of a TLS cluster. */
    public String listenerAddress(int brokerId, TlsListener listener) {
        requireTls("name a TLS listener");
        layout.broker(brokerId);
        return LoopbackPorts.HOST + ":" + layout.tlsPorts.get(brokerId).get(listener);
    }

    /** The CA, keystores and truststores of a TLS cluster (made when it starts). */
    public ClusterCertificates certificates() {
        return requireTls("give its certificates");
    }

    /** {@link LocalKafkaCluster#clientProperties()}: as {@value #ADMIN_USER} on a secured cluster. */
    Map<String, Object> clientProperties() {
        return layout.saslUsers == null
                ? Map.of(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG, layout.bootstrapServers())
                : clientProperties(ADMIN_USER);
    }

    /** The client configuration of a secured cluster logged in as {@code user} with its password. */
    public Map<String, Object> clientProperties(String user) {
        return clientProperties(user, saslPassword(user));
    }

    /** Like {@link #clientProperties(String)} with any password, right or wrong. */
    public Map<String, Object> clientProperties(String user, String password) {
        Map<String, Object> config = new HashMap<>(loginProperties(user, password));
        config.put(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG, layout.bootstrapServers());
        return Map.copyOf(config);
    }

    /** security.protocol, sasl.* and, on a TLS cluster, ssl.truststore.*: what a --command-config holds. */
    private Map<String, Object> loginProperties(String user, String password) {
        Map<String, Object> config = new HashMap<>(requireSasl("log in as " + user).clientProperties(user, password));
        if (layout.certificates != null) {
            config.putAll(layout.certificates.clientTruststoreProperties());
        }
        return config;
    }

    /** The SASL users of a secured cluster, {@value #ADMIN_USER} first. */
    public List<String> saslUsers() {
        return layout.saslUsers == null ? List.of() : layout.saslUsers.users();
    }

    /** The user's password on a secured cluster (always {@code <user>-secret}). */
    public String saslPassword(String user) {
        return requireSasl("give a password of " + user).password(user);
    }

    /**
     * Writes a {@code --command-config} file that logs in as {@code user} (security.protocol,
     * sasl.mechanism, sasl.jaas.config and on a TLS cluster ssl.truststore.*; no bootstrap servers) into the
     * cluster's directory.
     */
    public Path writeCommandConfig(String user) {
        return writeCommandConfig(user, saslPassword(user),
                layout.baseDirectory.resolve("command-config-" + user + ".properties"));
    }

    /** Writes a {@code --command-config} file for {@code user} with the given password (right or wrong) to {@code file}. */
    public Path writeCommandConfig(String user, String password, Path file) {
        Properties properties = new Properties();
        requireSasl("write a --command-config for " + user);
        loginProperties(user, password).forEach((key, value) -> properties.setProperty(key, String.valueOf(value)));
        try (var writer = Files.newBufferedWriter(file, StandardCharsets.UTF_8)) {
            properties.store(writer, "SASL/PLAIN login as " + user + " on the local cluster " + clusterId.get());
        } catch (IOException e) {
            throw new UncheckedIOException("could not write " + file, e);
        }
        return file;
    }

    /**
     * Grants {@code user} the operations on one resource (a literal name; the cluster is
     * {@code kafka-cluster}), as {@value #ADMIN_USER}. Returns once the controller has committed the
     * ACLs; brokers authorize with them a moment later, when they have replayed the records.
     */
    public void allow(String user, ResourceType resourceType, String resourceName, AclOperation... operations) {
        allow(user, resourceType, resourceName, PatternType.LITERAL, operations);
    }

    /** {@link #allow} on every resource whose name matches {@code resourceName} as {@code patternType} says. */
    public void allow(String user, ResourceType resourceType, String resourceName, PatternType patternType,
                      AclOperation... operations) {
        requireSasl("grant ACLs to " + user);
        List<AclBinding> acls = Arrays.stream(operations)
                .map(operation -> new AclBinding(new ResourcePattern(resourceType, resourceName, patternType),
                        new AccessControlEntry("User:" + user, "*", operation, AclPermissionType.ALLOW)))
                .toList();
        try {
            harnessAdmin.get().createAcls(acls).all().get();
        } catch (ExecutionException e) {
            throw new LocalClusterException("could not grant " + Arrays.toString(operations) + " on " + resourceType
                    + " " + resourceName + " to " + user + ": " + e.getCause(), e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new LocalClusterException("interrupted while granting ACLs", e);
        }
    }

    private SaslPlainUsers requireSasl(String action) {
        if (layout.saslUsers == null) {
            throw new IllegalStateException("cannot " + action + ": this cluster has no SASL users; build it with"
                    + " security(ClusterSecurity.SASL_PLAIN_WITH_ACLS) or SASL_SSL_WITH_ACLS");
        }
        return layout.saslUsers;
    }

    private ClusterCertificates requireTls(String action) {
        if (layout.certificates == null) {
            throw new IllegalStateException("cannot " + action + ": this cluster does not use TLS; build it with"
                    + " security(ClusterSecurity.SASL_SSL_WITH_ACLS)");
        }
        return layout.certificates;
    }
}
