// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.bench;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.ApiVersionsResponseData;
import org.apache.kafka.common.message.FetchRequestData;
import org.apache.kafka.common.message.FetchResponseData;
import org.apache.kafka.common.message.ListOffsetsRequestData;
import org.apache.kafka.common.message.ListOffsetsResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.protocol.ObjectSerializationCache;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.requests.AbstractRequest;
import org.apache.kafka.common.requests.FetchRequest;
import org.apache.kafka.common.requests.ListOffsetsRequest;
import org.apache.kafka.common.requests.RequestHeader;
import org.apache.kafka.common.requests.ResponseHeader;

/**
 * One simulated broker on a 127.0.0.1 ephemeral port, speaking the real wire protocol through kafka-clients'
 * own message classes: ApiVersions, ListOffsets (the replica's log end offset) and Fetch (the DivergingEpoch
 * answer of {@link SimulatedLayout}). A thread per connection reads size-prefixed frames; each answer is
 * written {@code latencyMs} after its request arrived, in order, by the connection's own scheduler — so
 * pipelined requests overlap like on a real network.
 */
final class SimulatedBroker implements AutoCloseable {

    private static final boolean TRACE = Boolean.getBoolean("bench.trace");
    private static final long T0 = System.nanoTime();
    private final int id;
    private final long latencyMs;
    private final ServerSocket server;
    private final Thread acceptor;
    final AtomicLong requests = new AtomicLong();

    SimulatedBroker(int id, long latencyMs) throws IOException {
        this.id = id;
        this.latencyMs = latencyMs;
        this.server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        this.acceptor = new Thread(this::acceptLoop, "sim-broker-" + id);
        this.acceptor.setDaemon(true);
        this.acceptor.start();
    }

    int port() {
        return server.getLocalPort();
    }

    private void acceptLoop() {
        while (!server.isClosed()) {
            try {
                Socket socket = server.accept();
                Thread t = new Thread(() -> serve(socket), "sim-broker-" + id + "-conn");
                t.setDaemon(true);
                t.start();
            } catch (IOException e) {
                return; // closed
            }
        }
    }

    private void serve(Socket socket) {
        ScheduledExecutorService writer = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "sim-broker-" + id + "-writer");
            t.setDaemon(true);
            return t;
        });
        try (socket; DataInputStream in = new DataInputStream(socket.getInputStream())) {
            socket.setTcpNoDelay(true);
            DataOutputStream out = new DataOutputStream(socket.getOutputStream());
            while (true) {
                int size = in.readInt();
                byte[] frame = new byte[size];
                in.readFully(frame);
                long arrived = System.nanoTime();
                requests.incrementAndGet();
                if (TRACE) {
                    System.err.printf("%d ms broker %d frame %d bytes%n", (arrived - T0) / 1_000_000, id, size);
                }
                ByteBuffer buffer = ByteBuffer.wrap(frame);
                RequestHeader header = RequestHeader.parse(buffer);
                AbstractRequest request = AbstractRequest.parseRequest(header.apiKey(), header.apiVersion(),
                        new ByteBufferAccessor(buffer)).request;
                if (TRACE) {
                    System.err.printf("%d ms broker %d parsed %s v%d%n", (System.nanoTime() - T0) / 1_000_000, id,
                            header.apiKey(), header.apiVersion());
                }
                ApiMessage response = answer(header, request);
                ByteBuffer bytes = serialize(header, response);
                long delay = Math.max(0, latencyMs * 1_000_000 - (System.nanoTime() - arrived));
                writer.schedule(() -> {
                    try {
                        out.write(bytes.array(), 0, bytes.limit());
                        out.flush();
                        if (TRACE) {
                            System.err.printf("%d ms broker %d answered %s (%d bytes)%n", (System.nanoTime() - T0) / 1_000_000,
                                    id, header.apiKey(), bytes.limit());
                        }
                    } catch (IOException e) {
                        // the client went away
                    }
                }, delay, TimeUnit.NANOSECONDS);
            }
        } catch (IOException e) {
            // connection closed
        } finally {
            writer.shutdownNow();
        }
    }

    private ApiMessage answer(RequestHeader header, AbstractRequest request) {
        return switch (header.apiKey()) {
            case API_VERSIONS -> apiVersions();
            case LIST_OFFSETS -> listOffsets(((ListOffsetsRequest) request).data());
            case FETCH -> fetch(((FetchRequest) request).data());
            default -> throw new IllegalStateException("the simulator does not serve " + header.apiKey());
        };
    }

    private static ApiVersionsResponseData apiVersions() {
        ApiVersionsResponseData.ApiVersionCollection keys = new ApiVersionsResponseData.ApiVersionCollection();
        for (ApiKeys key : new ApiKeys[] {ApiKeys.API_VERSIONS, ApiKeys.LIST_OFFSETS, ApiKeys.FETCH}) {
            keys.add(new ApiVersionsResponseData.ApiVersion().setApiKey(key.id)
                    .setMinVersion(key.oldestVersion()).setMaxVersion(key.latestVersion()));
        }
        return new ApiVersionsResponseData().setErrorCode(Errors.NONE.code()).setApiKeys(keys);
    }

    private ListOffsetsResponseData listOffsets(ListOffsetsRequestData request) {
        ListOffsetsResponseData response = new ListOffsetsResponseData();
        for (ListOffsetsRequestData.ListOffsetsTopic topic : request.topics()) {
            int t = SimulatedLayout.topicIndex(topic.name());
            ListOffsetsResponseData.ListOffsetsTopicResponse out =
                    new ListOffsetsResponseData.ListOffsetsTopicResponse().setName(topic.name());
            for (ListOffsetsRequestData.ListOffsetsPartition p : topic.partitions()) {
                out.partitions().add(new ListOffsetsResponseData.ListOffsetsPartitionResponse()
                        .setPartitionIndex(p.partitionIndex()).setErrorCode(Errors.NONE.code()).setTimestamp(-1)
                        .setOffset(SimulatedLayout.logEndOffset(t, p.partitionIndex(), id))
                        .setLeaderEpoch(SimulatedLayout.METADATA_EPOCH));
            }
            response.topics().add(out);
        }
        return response;
    }

    private FetchResponseData fetch(FetchRequestData request) {
        FetchResponseData response = new FetchResponseData().setErrorCode(Errors.NONE.code());
        for (FetchRequestData.FetchTopic topic : request.topics()) {
            boolean byId = !Uuid.ZERO_UUID.equals(topic.topicId());
            int t = byId ? SimulatedLayout.topicIndex(topic.topicId()) : SimulatedLayout.topicIndex(topic.topic());
            FetchResponseData.FetchableTopicResponse out = new FetchResponseData.FetchableTopicResponse()
                    .setTopicId(topic.topicId()).setTopic(byId ? "" : topic.topic());
            for (FetchRequestData.FetchPartition p : topic.partitions()) {
                int latest = SimulatedLayout.latestEpoch(t, p.partition(), id);
                int asked = p.lastFetchedEpoch();
                FetchResponseData.PartitionData data = new FetchResponseData.PartitionData()
                        .setPartitionIndex(p.partition()).setRecords(MemoryRecords.EMPTY)
                        .setHighWatermark(-1).setLastStableOffset(-1).setLogStartOffset(0);
                if (asked > latest) {
                    data.setErrorCode(Errors.OFFSET_OUT_OF_RANGE.code());
                } else {
                    long end = asked == latest ? SimulatedLayout.logEndOffset(t, p.partition(), id)
                            : SimulatedLayout.endOffsetOfEpoch(asked);
                    data.setDivergingEpoch(new FetchResponseData.EpochEndOffset().setEpoch(asked).setEndOffset(end));
                }
                out.partitions().add(data);
            }
            response.responses().add(out);
        }
        return response;
    }

    private static ByteBuffer serialize(RequestHeader header, ApiMessage body) {
        ResponseHeader responseHeader = header.toResponseHeader();
        short headerVersion = responseHeader.headerVersion();
        ObjectSerializationCache cache = new ObjectSerializationCache();
        int size = responseHeader.data().size(cache, headerVersion) + body.size(cache, header.apiVersion());
        ByteBuffer buffer = ByteBuffer.allocate(4 + size);
        ByteBufferAccessor accessor = new ByteBufferAccessor(buffer);
        accessor.writeInt(size);
        responseHeader.data().write(accessor, cache, headerVersion);
        body.write(accessor, cache, header.apiVersion());
        buffer.flip();
        return buffer;
    }

    @Override
    public void close() throws IOException {
        server.close();
    }
}
