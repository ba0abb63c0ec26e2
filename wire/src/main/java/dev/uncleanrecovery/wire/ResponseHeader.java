// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.wire;

import java.util.List;

/**
 * Kafka response header v1, the one every flexible response version uses (except ApiVersions,
 * which none of ours is):
 * <pre>
 * ResponseHeader v1 =&gt; CorrelationId:INT32 TAG_BUFFER
 * </pre>
 *
 * @param correlationId       the request's correlation id, echoed
 * @param unknownTaggedFields tags from a newer sender, written back unchanged
 */
public record ResponseHeader(int correlationId, List<UnknownTaggedField> unknownTaggedFields) {

    /** Header versions are not carried on the wire; this is the version of the layout above. */
    public static final short VERSION = 1;

    static final String MESSAGE = "response header";

    public ResponseHeader {
        unknownTaggedFields = List.copyOf(unknownTaggedFields);
    }

    public ResponseHeader(int correlationId) {
        this(correlationId, List.of());
    }

    void write(WireWriter out) {
        out.writeInt32(correlationId);
        out.writeTaggedFields(unknownTaggedFields);
    }

    static ResponseHeader read(WireReader in) {
        int correlationId = in.readInt32("CorrelationId");
        List<UnknownTaggedField> tags = in.readTaggedFields(MESSAGE);
        return new ResponseHeader(correlationId, tags);
    }
}
