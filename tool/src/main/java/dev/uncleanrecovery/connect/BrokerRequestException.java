// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.connect;

import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.errors.AuthenticationException;
import org.apache.kafka.common.errors.SslAuthenticationException;

/**
 * A request to one broker got no answer: it could not connect, TLS or authentication failed, the broker
 * closed the connection, or it did not answer in time. The message names the broker and its
 * address. Per-partition errors inside an answer are not this exception: they arrive in the answer.
 */
public class BrokerRequestException extends KafkaException {

    private static final long serialVersionUID = 1L;

    private final int brokerId;
    private final boolean retriable;
    private final boolean refused;

    public BrokerRequestException(int brokerId, boolean retriable, String message, Throwable cause) {
        this(brokerId, retriable, false, message, cause);
    }

    private BrokerRequestException(int brokerId, boolean retriable, boolean refused, String message, Throwable cause) {
        super(message, cause);
        this.brokerId = brokerId;
        this.retriable = retriable;
        this.refused = refused;
    }

    /** No connection: refused (nothing listens there) or closed before TLS/SASL finished. Worth asking again. */
    public static BrokerRequestException refused(int brokerId, String message) {
        return new BrokerRequestException(brokerId, true, true, message, null);
    }

    /**
     * The broker did not let this client in: a TLS handshake that failed ({@link TlsHandshakeException}) or a SASL
     * login it refused. Not retriable.
     *
     * @param whom       the broker as messages name it
     * @param truststore what the client trusts, for a TLS failure ({@link TlsHandshakeException#truststoreOf})
     */
    static BrokerRequestException authenticationFailed(int brokerId, String whom, AuthenticationException failure,
                                                       String truststore) {
        if (failure instanceof SslAuthenticationException tls) {
            return new TlsHandshakeException(brokerId, whom, tls, truststore);
        }
        return new BrokerRequestException(brokerId, false, "authentication to " + whom + " failed: "
                + failure.getMessage() + "; check security.protocol, sasl.* and ssl.* in --command-config", failure);
    }

    public BrokerRequestException(int brokerId, boolean retriable, String message) {
        this(brokerId, retriable, message, null);
    }

    public int brokerId() {
        return brokerId;
    }

    /**
     * False when asking again cannot help within this run: authentication or authorization
     * failed, the broker is not registered, or it does not support the request at all.
     */
    public boolean isRetriable() {
        return retriable;
    }

    /** True when no connection could be made at all (see {@link #refused}). */
    public boolean isConnectionRefused() {
        return refused;
    }
}
