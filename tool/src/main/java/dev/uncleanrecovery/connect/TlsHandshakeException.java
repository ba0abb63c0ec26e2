// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.connect;

import dev.uncleanrecovery.support.Causes;
import java.security.cert.CertPathBuilderException;
import java.security.cert.CertificateException;
import java.security.cert.CertificateExpiredException;
import java.security.cert.CertificateNotYetValidException;
import javax.net.ssl.SSLException;
import org.apache.kafka.common.config.AbstractConfig;
import org.apache.kafka.common.config.SslConfigs;
import org.apache.kafka.common.config.types.Password;
import org.apache.kafka.common.errors.SslAuthenticationException;

/**
 * The TLS handshake with a broker failed: this client refused the certificate the broker showed (signed by no CA it
 * trusts, expired, issued for another host) or the two could not agree on TLS at all. The message says which, with
 * whom, and what to change. Never worth asking again within a run.
 */
public final class TlsHandshakeException extends BrokerRequestException {

    private static final long serialVersionUID = 1L;

    TlsHandshakeException(int brokerId, String whom, SslAuthenticationException failure, String truststore) {
        super(brokerId, false, explain(whom, failure, truststore), failure);
    }

    /**
     * One line: the handshake with {@code whom} failed, why, and the setting to change.
     *
     * @param whom       {@code bootstrap server 10.0.0.1:9093}, {@code broker 3 (10.0.0.3:9093)}
     * @param failure    kafka-clients' {@link SslAuthenticationException}, with the JDK's reason among its causes
     * @param truststore what the client trusts ({@link #truststoreOf}), or null when not known
     */
    public static String explain(String whom, Throwable failure, String truststore) {
        String failed = "TLS handshake with " + whom + " failed: ";
        CertificateExpiredException expired = Causes.firstOf(failure, CertificateExpiredException.class);
        if (expired != null) {
            return failed + "its certificate has expired (" + expired.getMessage() + ") — the broker needs a renewed"
                    + " certificate in its keystore (ssl.keystore.location); if it was renewed, check this machine's clock";
        }
        CertificateNotYetValidException notYetValid = Causes.firstOf(failure, CertificateNotYetValidException.class);
        if (notYetValid != null) {
            return failed + "its certificate is not valid yet (" + notYetValid.getMessage() + ") — check this"
                    + " machine's clock against the broker's";
        }
        if (Causes.firstOf(failure, CertPathBuilderException.class) != null) {
            return failed + "its certificate is not signed by a CA this client trusts ("
                    + (truststore == null ? "the truststore of --command-config" : truststore) + ") — set"
                    + " ssl.truststore.location (and ssl.truststore.password, ssl.truststore.type) in --command-config"
                    + " to a truststore that holds the CA of the brokers' certificates";
        }
        String otherHost = hostNameMismatch(failure);
        if (otherHost != null) {
            return failed + "its certificate is not issued for the address connected to (" + otherHost + ") — connect"
                    + " by a name the certificate holds (in --bootstrap-server and the brokers' advertised.listeners),"
                    + " or set ssl.endpoint.identification.algorithm= (empty) in --command-config to skip the host"
                    + " name check";
        }
        SSLException tls = Causes.firstOf(failure, SSLException.class);
        String reason = tls != null && tls.getMessage() != null ? tls.getMessage() : String.valueOf(failure.getMessage());
        return failed + reason + " — is that listener TLS? Check security.protocol and ssl.* in --command-config";
    }

    /** What a client of these properties trusts, as the TLS messages name it. */
    static String truststoreOf(AbstractConfig config) {
        String location = config.getString(SslConfigs.SSL_TRUSTSTORE_LOCATION_CONFIG);
        if (location != null && !location.isBlank()) {
            return "ssl.truststore.location " + location;
        }
        Password certificates = config.getPassword(SslConfigs.SSL_TRUSTSTORE_CERTIFICATES_CONFIG);
        if (certificates != null) {
            return "ssl.truststore.certificates";
        }
        return "no ssl.truststore.location: the JDK's default CAs";
    }

    // The JDK's host name check (sun.security.util.HostnameChecker) says "No subject alternative names matching IP
    // address 127.0.0.1 found", "No subject alternative DNS name matching broker-1 found." or "No name matching ...".
    private static String hostNameMismatch(Throwable failure) {
        for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
            String message = cause.getMessage();
            if (cause instanceof CertificateException && message != null
                    && (message.startsWith("No subject alternative") || message.startsWith("No name matching"))) {
                return message.endsWith(".") ? message.substring(0, message.length() - 1) : message;
            }
        }
        return null;
    }
}
