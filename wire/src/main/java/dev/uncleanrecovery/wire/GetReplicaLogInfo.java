// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.wire;

import org.apache.kafka.common.protocol.ApiKeys;

/**
 * The GetReplicaLogInfo RPC (KIP-966): a replica's broker reports, per partition, the log end
 * offset, the last written leader epoch and the current leader epoch, plus its broker epoch.
 * Messages: {@link GetReplicaLogInfoRequest} and {@link GetReplicaLogInfoResponse}, version 0
 * only, flexible (request header v2, response header v1).
 *
 * <h2>Api key</h2>
 * No Kafka release has this RPC, so it travels under a private api key, {@value #DEFAULT_API_KEY}
 * unless the system property {@value #API_KEY_PROPERTY} says otherwise. The tool and the broker
 * agent both call {@link #apiKey()} and nothing else, so setting the same property on both sides
 * (for example {@code -Dkafka.unclean.recovery.getReplicaLogInfo.apiKey=1967} in the tool's
 * {@code JAVA_OPTS} and in every broker's {@code KAFKA_OPTS}) moves them together. The tool only
 * sends it to brokers whose ApiVersions answer lists that key.
 *
 * <p>Why not upstream's number: upstream's own GetReplicaLogInfo key has moved between drafts,
 * and the number it had collides with Kafka 4.4.0's key 93 (StreamsGroupTopologyDescriptionUpdate).
 * A private number far above Kafka's range (4.4.0 ends at 94) keeps a stock client or broker from
 * ever taking our bytes for a real Kafka RPC; 1966 echoes KIP-966.
 */
public final class GetReplicaLogInfo {

    /** How messages name the RPC (kafka-clients' ApiKeys, which names the others, does not know it). */
    public static final String NAME = "GetReplicaLogInfo";

    /** The api key used when {@value #API_KEY_PROPERTY} is not set. */
    public static final short DEFAULT_API_KEY = 1966;

    /** System property that overrides the api key, on the tool and on the broker agent alike. */
    public static final String API_KEY_PROPERTY = "kafka.unclean.recovery.getReplicaLogInfo.apiKey";

    /** The only version: flexible from the start, like every RPC added after KIP-482. */
    public static final short VERSION = 0;

    /**
     * A broker answers at most this many partitions per request, the first ones in request order,
     * and sets HasMoreData when it was asked for more; the caller asks again for the rest.
     */
    public static final int MAX_PARTITIONS_PER_REQUEST = 1000;

    private GetReplicaLogInfo() {
    }

    /**
     * The api key in force in this JVM: {@value #API_KEY_PROPERTY} if set, else {@value #DEFAULT_API_KEY}.
     *
     * @throws ProtocolException if the property is not a number from 0 to 32767 or names an api
     *                           that stock Kafka already uses
     */
    public static short apiKey() {
        return apiKeyFrom(System.getProperty(API_KEY_PROPERTY));
    }

    /** {@link #apiKey()} for a given property value; null means not set. */
    static short apiKeyFrom(String propertyValue) {
        if (propertyValue == null || propertyValue.isBlank()) {
            return DEFAULT_API_KEY;
        }
        int key;
        try {
            key = Integer.parseInt(propertyValue.trim());
        } catch (NumberFormatException e) {
            throw unusableKey(propertyValue, "it is not a whole number");
        }
        if (key < 0 || key > Short.MAX_VALUE) {
            throw unusableKey(propertyValue, "api keys go from 0 to 32767");
        }
        // A stock key would make brokers without the agent parse our bytes as their own RPC.
        if (ApiKeys.hasId(key)) {
            throw unusableKey(propertyValue, "Kafka already uses it for " + ApiKeys.forId(key).name);
        }
        return (short) key;
    }

    private static ProtocolException unusableKey(String propertyValue, String why) {
        return new ProtocolException("system property " + API_KEY_PROPERTY + "=" + propertyValue
                + " is not a usable GetReplicaLogInfo api key: " + why
                + "; unset it to use " + DEFAULT_API_KEY + ", or set the same free key on the tool and every broker agent");
    }
}
