// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.patch.wire;

import dev.uncleanrecovery.patch.AgentMain;
import dev.uncleanrecovery.wire.GetReplicaLogInfo;
import dev.uncleanrecovery.wire.GetReplicaLogInfoRequest;
import dev.uncleanrecovery.wire.GetReplicaLogInfoResponse;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.MessageSizeAccumulator;
import org.apache.kafka.common.protocol.ObjectSerializationCache;
import org.apache.kafka.common.protocol.Readable;
import org.apache.kafka.common.protocol.Writable;
import org.apache.kafka.common.protocol.types.RawTaggedField;

/**
 * A GetReplicaLogInfo body as Kafka's request pipeline handles messages ({@link ApiMessage}),
 * encoded and decoded by the tool's codec: Kafka sizes, writes and reads the bytes our records
 * produce. Unknown tagged fields stay inside the records.
 *
 * @param <T> {@link GetReplicaLogInfoRequest} or {@link GetReplicaLogInfoResponse}
 */
public final class ReplicaLogInfoMessage<T> implements ApiMessage {

    private final Function<ByteBuffer, T> parser;
    private final Serializer<T> serializer;
    private T body;
    private ByteBuffer encoded;

    interface Serializer<T> {
        ByteBuffer serialize(T body, short version);
    }

    private ReplicaLogInfoMessage(T body, Function<ByteBuffer, T> parser, Serializer<T> serializer) {
        this.body = body;
        this.parser = parser;
        this.serializer = serializer;
    }

    public static ReplicaLogInfoMessage<GetReplicaLogInfoRequest> request(GetReplicaLogInfoRequest body) {
        return new ReplicaLogInfoMessage<>(body, bytes -> GetReplicaLogInfoRequest.parse(bytes, GetReplicaLogInfo.VERSION),
                GetReplicaLogInfoRequest::serialize);
    }

    public static ReplicaLogInfoMessage<GetReplicaLogInfoResponse> response(GetReplicaLogInfoResponse body) {
        return new ReplicaLogInfoMessage<>(body, bytes -> GetReplicaLogInfoResponse.parse(bytes, GetReplicaLogInfo.VERSION),
                GetReplicaLogInfoResponse::serialize);
    }

    /** The decoded body; null for a message Kafka created empty and has not read into yet. */
    public T body() {
        return body;
    }

    void body(T body) {
        this.body = body;
        this.encoded = null;
    }

    @Override
    public short apiKey() {
        return AgentMain.apiKey();
    }

    @Override
    public short lowestSupportedVersion() {
        return GetReplicaLogInfo.VERSION;
    }

    @Override
    public short highestSupportedVersion() {
        return GetReplicaLogInfo.VERSION;
    }

    @Override
    public void read(Readable readable, short version) {
        // Kafka hands the rest of the frame after the header: exactly one body.
        body(parser.apply(readable.readByteBuffer(readable.remaining())));
    }

    @Override
    public void addSize(MessageSizeAccumulator size, ObjectSerializationCache cache, short version) {
        size.addBytes(encoded(version).remaining());
    }

    @Override
    public void write(Writable writable, ObjectSerializationCache cache, short version) {
        writable.writeByteBuffer(encoded(version).duplicate());
    }

    private ByteBuffer encoded(short version) {
        if (encoded == null) {
            encoded = serializer.serialize(body, version);
        }
        return encoded;
    }

    @Override
    public List<RawTaggedField> unknownTaggedFields() {
        return new ArrayList<>();
    }

    @Override
    public ReplicaLogInfoMessage<T> duplicate() {
        return new ReplicaLogInfoMessage<>(body, parser, serializer);
    }

    @Override
    public String toString() {
        return String.valueOf(body);
    }
}
