// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.wire;

import java.nio.ByteBuffer;
import java.util.Objects;

/**
 * Whole requests and responses as a Kafka connection carries them: header then body. A frame
 * here excludes the int32 size prefix, because kafka-clients adds and strips it: send with
 * {@code ByteBufferSend.sizePrefixed(frame)} on a raw {@code Selector}, and parse
 * {@code NetworkReceive.payload()}.
 *
 * <p>A raw Selector is needed on the tool side because kafka-clients' NetworkClient only sends
 * api keys its {@code ApiKeys} enum knows, and it knows neither our GetReplicaLogInfo key nor
 * ElectLeaders v3.
 */
public final class Frames {

    private Frames() {
    }

    /** A decoded request frame: the header and the body it announced. */
    public record ReceivedRequest(RequestHeader header, NativeRequest body) {

        public ReceivedRequest {
            Objects.requireNonNull(header, "header");
            Objects.requireNonNull(body, "body");
        }
    }

    /** A decoded response frame; the caller matches {@code header().correlationId()} to its request. */
    public record ReceivedResponse<T extends NativeResponse>(ResponseHeader header, T body) {

        public ReceivedResponse {
            Objects.requireNonNull(header, "header");
            Objects.requireNonNull(body, "body");
        }
    }

    /**
     * Request header v2 (with {@code body.apiKey()}, no tagged fields) followed by the body in
     * {@code version}, positioned at 0 and ready to send.
     *
     * @throws ProtocolException if the body cannot be expressed in {@code version}
     */
    public static ByteBuffer request(NativeRequest body, short version, int correlationId, String clientId) {
        ByteBuffer bodyBytes = body.serialize(version);
        WireWriter header = new WireWriter(RequestHeader.MESSAGE);
        new RequestHeader(body.apiKey(), version, correlationId, clientId).write(header);
        return concat(header.toByteBuffer(), bodyBytes);
    }

    /**
     * Decodes a request frame on the receiving side: the header first, then the body its api key
     * and version announce. Accepts {@link GetReplicaLogInfo#apiKey()} v0 and ElectLeaders v2–v3.
     * Reads from {@code frame}'s position to its limit, which must hold exactly one request; on
     * success the position moves to the limit.
     *
     * @throws ProtocolException if the bytes are not such a request
     */
    public static ReceivedRequest parseRequest(ByteBuffer frame) {
        WireReader in = WireReader.of(frame, RequestHeader.MESSAGE);
        short apiKey = in.readInt16("RequestApiKey");
        short apiVersion = in.readInt16("RequestApiVersion");
        short getReplicaLogInfoKey = GetReplicaLogInfo.apiKey();
        // Check key and version before reading on: only flexible versions use header v2.
        if (apiKey == getReplicaLogInfoKey) {
            GetReplicaLogInfoRequest.checkSupported(apiVersion);
        } else if (apiKey == ElectLeaders.API_KEY) {
            ElectLeaders.checkSupported(apiVersion, "request");
        } else {
            throw new ProtocolException(String.format(
                    "request header at position 0 has api key %d, which is neither GetReplicaLogInfo (%d) nor ElectLeaders (%d)",
                    apiKey, getReplicaLogInfoKey, ElectLeaders.API_KEY));
        }
        RequestHeader header = RequestHeader.readAfterKeyAndVersion(in, apiKey, apiVersion);
        WireReader bodyIn;
        NativeRequest body;
        if (apiKey == getReplicaLogInfoKey) {
            bodyIn = in.describing(GetReplicaLogInfoRequest.MESSAGE);
            body = GetReplicaLogInfoRequest.read(bodyIn);
        } else {
            bodyIn = in.describing(ElectLeadersRequest.message(apiVersion));
            body = ElectLeadersRequest.read(bodyIn, apiVersion);
        }
        bodyIn.expectEnd();
        bodyIn.consumedTo(frame);
        return new ReceivedRequest(header, body);
    }

    /**
     * Response header v1 (no tagged fields) followed by the body in {@code version}, positioned
     * at 0 and ready to send.
     */
    public static ByteBuffer response(NativeResponse body, short version, int correlationId) {
        ByteBuffer bodyBytes = body.serialize(version);
        WireWriter header = new WireWriter(ResponseHeader.MESSAGE);
        new ResponseHeader(correlationId).write(header);
        return concat(header.toByteBuffer(), bodyBytes);
    }

    /**
     * Decodes a GetReplicaLogInfo v0 response frame, from {@code frame}'s position to its limit.
     *
     * @throws ProtocolException if the bytes are not such a response
     */
    public static ReceivedResponse<GetReplicaLogInfoResponse> parseGetReplicaLogInfoResponse(ByteBuffer frame) {
        WireReader in = WireReader.of(frame, ResponseHeader.MESSAGE);
        ResponseHeader header = ResponseHeader.read(in);
        WireReader bodyIn = in.describing(GetReplicaLogInfoResponse.MESSAGE);
        GetReplicaLogInfoResponse body = GetReplicaLogInfoResponse.read(bodyIn);
        bodyIn.expectEnd();
        bodyIn.consumedTo(frame);
        return new ReceivedResponse<>(header, body);
    }

    /**
     * Decodes an ElectLeaders response frame of {@code version} (2 or 3, the version the request
     * was sent in), from {@code frame}'s position to its limit.
     *
     * @throws ProtocolException if the bytes are not such a response
     */
    public static ReceivedResponse<ElectLeadersResponse> parseElectLeadersResponse(ByteBuffer frame, short version) {
        ElectLeaders.checkSupported(version, "response");
        WireReader in = WireReader.of(frame, ResponseHeader.MESSAGE);
        ResponseHeader header = ResponseHeader.read(in);
        WireReader bodyIn = in.describing(ElectLeadersResponse.message(version));
        ElectLeadersResponse body = ElectLeadersResponse.read(bodyIn);
        bodyIn.expectEnd();
        bodyIn.consumedTo(frame);
        return new ReceivedResponse<>(header, body);
    }

    private static ByteBuffer concat(ByteBuffer header, ByteBuffer body) {
        ByteBuffer frame = ByteBuffer.allocate(header.remaining() + body.remaining());
        frame.put(header).put(body).flip();
        return frame;
    }
}
