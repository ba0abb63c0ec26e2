// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.localcluster;

import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.common.config.SaslConfigs;

/**
 * The users of a {@link ClusterSecurity#SASL_PLAIN_WITH_ACLS} or {@link ClusterSecurity#SASL_SSL_WITH_ACLS}
 * cluster and the server and client settings that follow from them: the broker listener's PLAIN JAAS entry lists
 * every user ({@code user_<name>="<password>"}), and a client logs in as one of them.
 */
final class SaslPlainUsers {

    static final String AUTHORIZER = "org.apache.kafka.metadata.authorizer.StandardAuthorizer";
    private static final String PLAIN_LOGIN_MODULE = "org.apache.kafka.common.security.plain.PlainLoginModule";
    // JAAS option values are quoted; a user name is also a property-name suffix and an ACL principal.
    private static final Pattern USER_NAME = Pattern.compile("[A-Za-z0-9_-]+");

    private final Map<String, String> passwords = new LinkedHashMap<>();
    /** The broker listener's name and security protocol: SASL_PLAINTEXT or SASL_SSL. */
    private final String listener;

    SaslPlainUsers(List<String> users, String listener) {
        this.listener = listener;
        for (String user : users) {
            if (!USER_NAME.matcher(user).matches()) {
                throw new IllegalArgumentException("SASL user name '" + user + "' must match " + USER_NAME.pattern());
            }
            passwords.put(user, user + "-secret");
        }
        if (!passwords.containsKey(ClusterAccess.ADMIN_USER)) {
            throw new IllegalArgumentException("the SASL users must include the super user " + ClusterAccess.ADMIN_USER);
        }
    }

    List<String> users() {
        return List.copyOf(passwords.keySet());
    }

    String password(String user) {
        String password = passwords.get(user);
        if (password == null) {
            throw new IllegalArgumentException("no SASL user '" + user + "' in this cluster; its users are " + users()
                    + " (add one with ClusterBuilder.saslUser)");
        }
        return password;
    }

    /** security.protocol, sasl.mechanism and sasl.jaas.config for a client logged in as {@code user}. */
    Map<String, Object> clientProperties(String user, String password) {
        Map<String, Object> config = new HashMap<>();
        config.put(CommonClientConfigs.SECURITY_PROTOCOL_CONFIG, listener);
        config.put(SaslConfigs.SASL_MECHANISM, "PLAIN");
        config.put(SaslConfigs.SASL_JAAS_CONFIG, PLAIN_LOGIN_MODULE + " required username=\"" + user
                + "\" password=\"" + password + "\";");
        return config;
    }

    /** The controller keeps its PLAINTEXT listener; brokers reach it as User:ANONYMOUS. */
    Map<String, String> controllerConfig() {
        Map<String, String> config = authorizerConfig();
        config.put("listener.security.protocol.map", "CONTROLLER:PLAINTEXT," + listener + ":" + listener);
        // Broker registrations, heartbeats and forwarded requests arrive on the PLAINTEXT controller
        // listener as User:ANONYMOUS and need CLUSTER_ACTION; forwarded requests are then authorized
        // as the principal inside the envelope.
        config.put("super.users", "User:" + ClusterAccess.ADMIN_USER + ";User:ANONYMOUS");
        return config;
    }

    /** One SASL listener for clients and replication; the brokers log in to each other as admin. */
    Map<String, String> brokerConfig(String host, int port) {
        Map<String, String> config = authorizerConfig();
        String address = listener + "://" + host + ":" + port;
        config.put("listeners", address);
        config.put("advertised.listeners", address);
        config.put("inter.broker.listener.name", listener);
        config.put("listener.security.protocol.map", "CONTROLLER:PLAINTEXT," + listener + ":" + listener);
        config.put("sasl.enabled.mechanisms", "PLAIN");
        config.put("sasl.mechanism.inter.broker.protocol", "PLAIN");
        StringBuilder jaas = new StringBuilder(PLAIN_LOGIN_MODULE).append(" required username=\"")
                .append(ClusterAccess.ADMIN_USER).append("\" password=\"")
                .append(password(ClusterAccess.ADMIN_USER)).append('"');
        passwords.forEach((user, password) -> jaas.append(" user_").append(user).append("=\"").append(password).append('"'));
        config.put("listener.name." + listener.toLowerCase(java.util.Locale.ROOT) + ".plain.sasl.jaas.config",
                jaas.append(';').toString());
        config.put("super.users", "User:" + ClusterAccess.ADMIN_USER);
        return config;
    }

    private static Map<String, String> authorizerConfig() {
        Map<String, String> config = new HashMap<>();
        config.put("authorizer.class.name", AUTHORIZER);
        config.put("allow.everyone.if.no.acl.found", "false");
        return config;
    }
}
