// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.connect;

import static org.assertj.core.api.Assertions.assertThat;

import java.security.cert.CertPathBuilderException;
import java.security.cert.CertPathValidatorException;
import java.security.cert.CertificateException;
import java.security.cert.CertificateExpiredException;
import java.security.cert.CertificateNotYetValidException;
import java.util.Map;
import java.util.Properties;
import javax.net.ssl.SSLException;
import javax.net.ssl.SSLHandshakeException;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.common.errors.SaslAuthenticationException;
import org.apache.kafka.common.errors.SslAuthenticationException;
import org.junit.jupiter.api.Test;

/**
 * The reason a TLS handshake failed, read from the causes the JDK and kafka-clients chain together (here as they
 * chain them; TlsClusterTest makes real brokers' handshakes fail).
 */
class TlsHandshakeExceptionTest {

    private static final String BROKER = "broker 3 (10.0.0.3:9093)";

    @Test
    void a_certificate_path_to_no_trusted_ca_names_the_truststore_to_set() {
        Throwable failure = handshakeFailed("PKIX path building failed: unable to find valid certification path to"
                + " requested target", new CertPathBuilderException("unable to find valid certification path to requested target"));

        assertThat(TlsHandshakeException.explain(BROKER, failure, "ssl.truststore.location /etc/kafka/old.p12"))
                .isEqualTo("TLS handshake with broker 3 (10.0.0.3:9093) failed: its certificate is not signed by a CA"
                        + " this client trusts (ssl.truststore.location /etc/kafka/old.p12) — set ssl.truststore.location"
                        + " (and ssl.truststore.password, ssl.truststore.type) in --command-config to a truststore that"
                        + " holds the CA of the brokers' certificates");
        assertThat(TlsHandshakeException.explain(BROKER, failure, null))
                .contains("(the truststore of --command-config)");
    }

    @Test
    void an_expired_certificate_says_when_it_expired() {
        Throwable failure = handshakeFailed("PKIX path validation failed: validity check failed",
                new CertPathValidatorException("validity check failed",
                        new CertificateExpiredException("NotAfter: Tue Dec 01 12:00:00 UTC 2026")));

        assertThat(TlsHandshakeException.explain(BROKER, failure, null)).isEqualTo("TLS handshake with broker 3"
                + " (10.0.0.3:9093) failed: its certificate has expired (NotAfter: Tue Dec 01 12:00:00 UTC 2026) — the"
                + " broker needs a renewed certificate in its keystore (ssl.keystore.location); if it was renewed, check"
                + " this machine's clock");
    }

    @Test
    void a_certificate_not_valid_yet_points_at_the_clocks() {
        Throwable failure = handshakeFailed("PKIX path validation failed: validity check failed",
                new CertPathValidatorException("validity check failed",
                        new CertificateNotYetValidException("NotBefore: Tue Dec 01 12:00:00 UTC 2099")));

        assertThat(TlsHandshakeException.explain(BROKER, failure, null)).endsWith("its certificate is not valid yet"
                + " (NotBefore: Tue Dec 01 12:00:00 UTC 2099) — check this machine's clock against the broker's");
    }

    @Test
    void a_certificate_for_other_names_quotes_the_jdks_host_name_check() {
        Throwable failure = handshakeFailed("No subject alternative DNS name matching kafka-3.internal found.",
                new CertificateException("No subject alternative DNS name matching kafka-3.internal found."));

        assertThat(TlsHandshakeException.explain(BROKER, failure, null)).isEqualTo("TLS handshake with broker 3"
                + " (10.0.0.3:9093) failed: its certificate is not issued for the address connected to (No subject"
                + " alternative DNS name matching kafka-3.internal found) — connect by a name the certificate holds (in"
                + " --bootstrap-server and the brokers' advertised.listeners), or set ssl.endpoint.identification.algorithm="
                + " (empty) in --command-config to skip the host name check");
    }

    @Test
    void any_other_tls_failure_quotes_the_jdk_and_points_at_security_protocol() {
        Throwable failure = new SslAuthenticationException("SSL handshake failed",
                new SSLException("Unsupported or unrecognized SSL message"));

        assertThat(TlsHandshakeException.explain(BROKER, failure, null)).isEqualTo("TLS handshake with broker 3"
                + " (10.0.0.3:9093) failed: Unsupported or unrecognized SSL message — is that listener TLS? Check"
                + " security.protocol and ssl.* in --command-config");
    }

    @Test
    void the_truststore_is_named_as_the_client_properties_give_it() {
        assertThat(TlsHandshakeException.truststoreOf(config(Map.of("ssl.truststore.location", "/etc/kafka/trust.p12"))))
                .isEqualTo("ssl.truststore.location /etc/kafka/trust.p12");
        assertThat(TlsHandshakeException.truststoreOf(config(Map.of("ssl.truststore.type", "PEM",
                "ssl.truststore.certificates", "-----BEGIN CERTIFICATE-----"))))
                .isEqualTo("ssl.truststore.certificates");
        assertThat(TlsHandshakeException.truststoreOf(config(Map.of())))
                .isEqualTo("no ssl.truststore.location: the JDK's default CAs");
    }

    @Test
    void only_a_failed_tls_handshake_becomes_a_tls_handshake_exception() {
        BrokerRequestException tls = BrokerRequestException.authenticationFailed(3, BROKER,
                new SslAuthenticationException("SSL handshake failed"), null);
        BrokerRequestException sasl = BrokerRequestException.authenticationFailed(3, BROKER,
                new SaslAuthenticationException("Authentication failed: Invalid username or password"), null);

        assertThat(tls).isInstanceOf(TlsHandshakeException.class);
        assertThat(tls.isRetriable()).isFalse();
        assertThat(sasl).isNotInstanceOf(TlsHandshakeException.class);
        assertThat(sasl.isRetriable()).isFalse();
        assertThat(sasl.getMessage()).isEqualTo("authentication to broker 3 (10.0.0.3:9093) failed: Authentication"
                + " failed: Invalid username or password; check security.protocol, sasl.* and ssl.* in --command-config");
    }

    /** kafka-clients' exception around the JDK's, around the trust manager's reason. */
    private static Throwable handshakeFailed(String jdkMessage, Throwable reason) {
        SSLHandshakeException handshake = new SSLHandshakeException(jdkMessage);
        handshake.initCause(new CertificateException(jdkMessage, reason));
        return new SslAuthenticationException("SSL handshake failed", handshake);
    }

    private static AdminClientConfig config(Map<String, String> settings) {
        Properties properties = new Properties();
        properties.put("bootstrap.servers", "10.0.0.3:9093");
        properties.putAll(settings);
        return new AdminClientConfig(properties);
    }
}
