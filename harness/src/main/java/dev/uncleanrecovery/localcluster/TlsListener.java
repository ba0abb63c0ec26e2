// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.localcluster;

import java.nio.file.Path;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * The listeners of every broker of a {@link ClusterSecurity#SASL_SSL_WITH_ACLS} cluster, each on a port of its own.
 * All but {@link #SASL_SSL} are for tests of TLS itself: SSL without SASL, and two listeners whose certificate a
 * client must refuse, so that a test can make real TLS handshakes fail for a reason it chose.
 */
public enum TlsListener {

    /** Clients and replication, SASL/PLAIN over TLS: what {@code bootstrapServers()} names. */
    SASL_SSL("SASL_SSL", "SASL_SSL", ClusterCertificates.BrokerCertificate.VALID),
    /** TLS without SASL and without client certificates: clients are {@code User:ANONYMOUS}, allowed what ACLs grant it. */
    SSL("SSL", "SSL", ClusterCertificates.BrokerCertificate.VALID),
    /** SSL with a certificate of the cluster's CA for 127.0.0.1 and localhost that expired two days ago. */
    EXPIRED_CERTIFICATE("EXPIRED_CERT", "SSL", ClusterCertificates.BrokerCertificate.EXPIRED),
    /** SSL with a valid certificate of the cluster's CA that names only {@value ClusterCertificates#OTHER_HOST}. */
    OTHER_HOST_CERTIFICATE("OTHER_HOST_CERT", "SSL", ClusterCertificates.BrokerCertificate.OTHER_HOST);

    private final String listenerName;
    private final String securityProtocol;
    private final ClusterCertificates.BrokerCertificate certificate;

    TlsListener(String listenerName, String securityProtocol, ClusterCertificates.BrokerCertificate certificate) {
        this.listenerName = listenerName;
        this.securityProtocol = securityProtocol;
        this.certificate = certificate;
    }

    /** The listener's name in the broker's configuration. */
    public String listenerName() {
        return listenerName;
    }

    /** What a client sets as {@code security.protocol} to reach it. */
    public String securityProtocol() {
        return securityProtocol;
    }

    /**
     * The listeners of one broker: {@link #SASL_SSL} (its SASL settings come from {@link SaslPlainUsers}) and the
     * SSL ones, each with its keystore, and the truststore the brokers check each other's certificates with.
     *
     * @param sasl  the SASL_SSL listener's configuration, whose listeners this extends
     * @param ports every listener's port
     */
    static Map<String, String> brokerConfig(Map<String, String> sasl, Map<TlsListener, Integer> ports,
                                            ClusterCertificates certificates) {
        Map<String, String> config = new HashMap<>(sasl);
        String listeners = ports.entrySet().stream()
                .map(e -> e.getKey().listenerName + "://" + LoopbackPorts.HOST + ":" + e.getValue())
                .collect(Collectors.joining(","));
        config.put("listeners", listeners);
        config.put("advertised.listeners", listeners);
        config.put("listener.security.protocol.map", "CONTROLLER:PLAINTEXT," + ports.keySet().stream()
                .map(l -> l.listenerName + ":" + l.securityProtocol).collect(Collectors.joining(",")));
        config.put("ssl.truststore.location", certificates.truststore().toString());
        config.put("ssl.truststore.password", ClusterCertificates.PASSWORD);
        config.put("ssl.truststore.type", ClusterCertificates.STORE_TYPE);
        config.put("ssl.keystore.password", ClusterCertificates.PASSWORD);
        config.put("ssl.key.password", ClusterCertificates.PASSWORD);
        config.put("ssl.keystore.type", ClusterCertificates.STORE_TYPE);
        for (TlsListener listener : ports.keySet()) {
            // Only the inter-broker listener's keystore is checked against the truststore at start-up: the
            // others may hold a certificate no client accepts.
            Path keystore = certificates.keystore(listener.certificate);
            config.put("listener.name." + listener.listenerName.toLowerCase(Locale.ROOT) + ".ssl.keystore.location",
                    keystore.toString());
        }
        return config;
    }
}
