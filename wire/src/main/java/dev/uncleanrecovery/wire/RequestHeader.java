// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.wire;

import java.util.List;

/**
 * Kafka request header v2, the one every flexible request version uses:
 * <pre>
 * RequestHeader v2 =&gt; RequestApiKey:INT16 RequestApiVersion:INT16 CorrelationId:INT32
 *                     ClientId:NULLABLE_STRING TAG_BUFFER
 * </pre>
 * ClientId stays a classic int16-length string even in v2 (Kafka kept it so that a broker can
 * always read it, whatever the version), while the header still ends with a tagged-field section.
 *
 * @param apiKey              which RPC the body is
 * @param apiVersion          which version of it
 * @param correlationId       echoed in the response header, to match answers to requests
 * @param clientId            the client's name for logs and quotas, or null
 * @param unknownTaggedFields tags from a newer sender, written back unchanged
 */
public record RequestHeader(
        short apiKey,
        short apiVersion,
        int correlationId,
        String clientId,
        List<UnknownTaggedField> unknownTaggedFields) {

    /** Header versions are not carried on the wire; this is the version of the layout above. */
    public static final short VERSION = 2;

    static final String MESSAGE = "request header";

    public RequestHeader {
        unknownTaggedFields = List.copyOf(unknownTaggedFields);
    }

    public RequestHeader(short apiKey, short apiVersion, int correlationId, String clientId) {
        this(apiKey, apiVersion, correlationId, clientId, List.of());
    }

    void write(WireWriter out) {
        out.writeInt16(apiKey);
        out.writeInt16(apiVersion);
        out.writeInt32(correlationId);
        out.writeNullableString("ClientId", clientId);
        out.writeTaggedFields(unknownTaggedFields);
    }

    /** The rest of the header, after the caller has read the key and version to decide it is v2. */
    static RequestHeader readAfterKeyAndVersion(WireReader in, short apiKey, short apiVersion) {
        int correlationId = in.readInt32("CorrelationId");
        String clientId = in.readNullableString("ClientId");
        List<UnknownTaggedField> tags = in.readTaggedFields(MESSAGE);
        return new RequestHeader(apiKey, apiVersion, correlationId, clientId, tags);
    }
}
