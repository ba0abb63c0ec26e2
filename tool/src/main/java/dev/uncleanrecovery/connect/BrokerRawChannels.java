// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.connect;

import dev.uncleanrecovery.protocol.ApiNames;
import dev.uncleanrecovery.support.Durations;
import dev.uncleanrecovery.wire.GetReplicaLogInfo;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntFunction;
import org.apache.kafka.clients.ClientUtils;
import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.message.RequestHeaderData;
import org.apache.kafka.common.message.ResponseHeaderData;
import org.apache.kafka.common.metrics.Metrics;
import org.apache.kafka.common.network.ByteBufferSend;
import org.apache.kafka.common.network.ChannelBuilder;
import org.apache.kafka.common.network.ChannelState;
import org.apache.kafka.common.network.KafkaChannel;
import org.apache.kafka.common.network.NetworkReceive;
import org.apache.kafka.common.network.NetworkSend;
import org.apache.kafka.common.network.Selectable;
import org.apache.kafka.common.network.Selector;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.protocol.ObjectSerializationCache;
import org.apache.kafka.common.utils.Time;
import org.apache.kafka.common.utils.internals.LogContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Connections for requests the tool frames itself: the companion patch's RPCs (api keys kafka-clients does not
 * know), the stock probe's ListOffsets and Fetch (written from the protocol schemas, to keep per-partition
 * cost low), and the ApiVersions handshake each channel opens with. NetworkClient cannot carry the first (its
 * request builders need the {@code ApiKeys} enum, and it correlates every answer it reads), so this class
 * drives a separate {@link Selector} built by the same
 * {@code ClientUtils.createChannelBuilder} Admin uses: TLS and SASL are done by kafka-clients before
 * a channel is ready, and only the request framing is ours.
 *
 * <p>One I/O thread, started on first use. One send at a time per connection (a Kafka channel
 * holds one pending send); answers are matched by correlation id.
 */
final class BrokerRawChannels implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(BrokerRawChannels.class);
    private static final short REQUEST_HEADER_VERSION = 2;
    private static final short RESPONSE_HEADER_VERSION = 1;
    private static final long MAX_POLL_MS = 100;

    private final Map<Integer, Node> brokers;
    private final String clientId;
    private final IntFunction<String> describe;
    private final String truststore;
    private final Time time = Time.SYSTEM;
    private final Metrics metrics = new Metrics();
    private final Selector selector;
    private final Thread ioThread;
    private final AtomicInteger correlationIds = new AtomicInteger();
    private final ConcurrentLinkedQueue<RawRequest> submitted = new ConcurrentLinkedQueue<>();
    private volatile boolean closing;

    // Owned by the I/O thread.
    private final Map<Integer, ArrayDeque<RawRequest>> waiting = new HashMap<>();
    private final Map<Integer, Map<Integer, RawRequest>> inFlightByBroker = new HashMap<>();

    /** @param truststore what the client trusts, as TLS failures name it */
    BrokerRawChannels(AdminClientConfig config, Map<Integer, Node> brokers, String clientId, IntFunction<String> describe,
                      String truststore) {
        this.brokers = brokers;
        this.truststore = truststore;
        this.clientId = clientId;
        this.describe = describe;
        LogContext logContext = new LogContext("[" + clientId + " raw broker channels] ");
        ChannelBuilder channelBuilder = ClientUtils.createChannelBuilder(config, time, logContext);
        this.selector = new Selector(config.getLong(CommonClientConfigs.CONNECTIONS_MAX_IDLE_MS_CONFIG), metrics, time,
                "unclean-recovery-raw", channelBuilder, logContext);
        this.ioThread = new Thread(this::runIoLoop, "unclean-recovery-raw-io");
        this.ioThread.setDaemon(true);
        this.ioThread.start();
    }

    /** Sends header (built here, flexible v2) + body; completes with the response body after its header (v1). */
    CompletableFuture<ByteBuffer> send(int brokerId, short apiKey, short apiVersion, ByteBuffer body, long deadlineMs) {
        return enqueue(brokerId, apiKey, correlationId -> {
            RequestHeaderData header = new RequestHeaderData()
                    .setRequestApiKey(apiKey)
                    .setRequestApiVersion(apiVersion)
                    .setCorrelationId(correlationId)
                    .setClientId(clientId);
            ObjectSerializationCache cache = new ObjectSerializationCache();
            ByteBuffer headerBytes = ByteBuffer.allocate(header.size(cache, REQUEST_HEADER_VERSION));
            header.write(new ByteBufferAccessor(headerBytes), cache, REQUEST_HEADER_VERSION);
            // Header and body go out as two buffers: the body (a thousand partitions) is not copied.
            return new ByteBuffer[] {headerBytes.flip(), body.duplicate()};
        }, true, deadlineMs);
    }

    /**
     * Sends a whole request frame (header and body, no size prefix) that the caller builds for the
     * correlation id given to it; completes with the whole response frame (header and body).
     */
    CompletableFuture<ByteBuffer> sendFrame(int brokerId, short apiKey, IntFunction<ByteBuffer> frameForCorrelationId,
                                            long deadlineMs) {
        return enqueue(brokerId, apiKey, correlationId -> new ByteBuffer[] {frameForCorrelationId.apply(correlationId)},
                false, deadlineMs);
    }

    private CompletableFuture<ByteBuffer> enqueue(int brokerId, short apiKey, IntFunction<ByteBuffer[]> frameFor,
                                                  boolean bodyOnly, long deadlineMs) {
        CompletableFuture<ByteBuffer> future = new CompletableFuture<>();
        if (closing) {
            future.completeExceptionally(closed(brokerId));
            return future;
        }
        int correlationId = correlationIds.incrementAndGet();
        ByteBuffer[] frame;
        try {
            frame = frameFor.apply(correlationId);
        } catch (RuntimeException e) {
            future.completeExceptionally(e);
            return future;
        }
        long now = time.milliseconds();
        if (LOG.isDebugEnabled()) {
            // The same words as kafka-clients' NetworkClient, so one request log counts both channels.
            LOG.debug("Sending {} request with header (raw frame: api key {}, correlation id {}) and timeout {} to node {}",
                    apiName(apiKey), apiKey, correlationId, Math.max(0, deadlineMs - now), brokerId);
        }
        submitted.add(new RawRequest(brokerId, apiKey, correlationId, frame, bodyOnly, deadlineMs, now, future));
        selector.wakeup();
        if (closing) {
            future.completeExceptionally(closed(brokerId));
        }
        return future;
    }

    private static String apiName(short apiKey) {
        if (apiKey == GetReplicaLogInfo.apiKey()) {
            return "GET_REPLICA_LOG_INFO";
        }
        return ApiKeys.hasId(apiKey) ? ApiKeys.forId(apiKey).name() : "API_KEY_" + apiKey;
    }

    @Override
    public void close() {
        closing = true;
        selector.wakeup();
        if (Thread.currentThread() != ioThread) {
            try {
                ioThread.join(10_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    private void runIoLoop() {
        try {
            while (!closing) {
                long now = time.milliseconds();
                RawRequest request;
                while ((request = submitted.poll()) != null) {
                    waiting.computeIfAbsent(request.brokerId, id -> new ArrayDeque<>()).add(request);
                }
                Set<Integer> active = new HashSet<>(waiting.keySet());
                active.addAll(inFlightByBroker.keySet());
                long nextWakeUp = now + MAX_POLL_MS;
                for (int brokerId : active) {
                    nextWakeUp = Math.min(nextWakeUp, service(brokerId, now));
                }
                selector.poll(Math.max(0, nextWakeUp - now));
                handleReceives();
                handleDisconnects();
            }
        } catch (Throwable t) {
            LOG.error("raw broker channel I/O thread stopped", t);
        } finally {
            closing = true;
            List<RawRequest> all = new ArrayList<>();
            waiting.values().forEach(all::addAll);
            inFlightByBroker.values().forEach(m -> all.addAll(m.values()));
            RawRequest request;
            while ((request = submitted.poll()) != null) {
                all.add(request);
            }
            all.forEach(r -> r.future.completeExceptionally(closed(r.brokerId)));
            try {
                selector.close();
            } catch (RuntimeException e) {
                LOG.debug("closing the raw selector", e);
            }
            metrics.close();
        }
    }

    private long service(int brokerId, long now) {
        String connectionId = Integer.toString(brokerId);
        ArrayDeque<RawRequest> queue = waiting.getOrDefault(brokerId, new ArrayDeque<>());
        Map<Integer, RawRequest> inFlight = inFlightByBroker.getOrDefault(brokerId, Map.of());
        long next = Long.MAX_VALUE;

        for (Iterator<RawRequest> it = queue.iterator(); it.hasNext(); ) {
            RawRequest request = it.next();
            if (request.deadlineMs <= now) {
                it.remove();
                request.future.completeExceptionally(new BrokerRequestException(brokerId, true, describe.apply(brokerId)
                        + " did not accept a connection for " + ApiNames.of(request.apiKey) + " within "
                        + Durations.human(now - request.createdMs) + " (connecting, TLS or SASL did not finish)"));
            }
        }
        boolean timedOut = inFlight.values().stream().anyMatch(r -> r.deadlineMs <= now);
        if (timedOut) {
            // The connection may still deliver the late answer; closing it keeps answers and requests paired.
            failInFlight(brokerId, r -> new BrokerRequestException(brokerId, true, describe.apply(brokerId)
                    + " did not answer " + ApiNames.of(r.apiKey) + " within " + Durations.human(now - r.createdMs)));
            selector.close(connectionId);
        }
        if (!queue.isEmpty()) {
            KafkaChannel channel = selector.channel(connectionId);
            if (channel == null) {
                Node node = brokers.get(brokerId);
                try {
                    selector.connect(connectionId, new InetSocketAddress(node.host(), node.port()),
                            Selectable.USE_DEFAULT_BUFFER_SIZE, Selectable.USE_DEFAULT_BUFFER_SIZE);
                } catch (IOException | RuntimeException e) {
                    BrokerRequestException failure = new BrokerRequestException(brokerId, true,
                            "cannot connect to " + describe.apply(brokerId) + ": " + e.getMessage(), e);
                    queue.forEach(r -> r.future.completeExceptionally(failure));
                    queue.clear();
                }
            } else if (selector.isChannelReady(connectionId) && !channel.hasSend()) {
                RawRequest request = queue.poll();
                inFlightByBroker.computeIfAbsent(brokerId, id -> new HashMap<>()).put(request.correlationId, request);
                selector.send(new NetworkSend(connectionId, sizePrefixed(request.frame)));
            }
        }
        if (queue.isEmpty()) {
            waiting.remove(brokerId);
        }
        for (RawRequest r : queue) {
            next = Math.min(next, r.deadlineMs);
        }
        for (RawRequest r : inFlightByBroker.getOrDefault(brokerId, Map.of()).values()) {
            next = Math.min(next, r.deadlineMs);
        }
        if (inFlightByBroker.getOrDefault(brokerId, Map.of()).isEmpty()) {
            inFlightByBroker.remove(brokerId);
        }
        // A freshly readied channel can take the next queued send on the next turn.
        return queue.isEmpty() ? next : Math.min(next, now + 10);
    }

    private void handleReceives() {
        for (NetworkReceive receive : selector.completedReceives()) {
            int brokerId = Integer.parseInt(receive.source());
            ByteBuffer payload = receive.payload();
            if (payload.remaining() < Integer.BYTES) {
                LOG.warn("{} sent a response too short for a header; closing the connection", describe.apply(brokerId));
                failInFlight(brokerId, r -> new BrokerRequestException(brokerId, true, describe.apply(brokerId)
                        + " sent a response without a header for " + ApiNames.of(r.apiKey)));
                selector.close(receive.source());
                continue;
            }
            // Every response header version starts with the correlation id.
            int correlationId = payload.getInt(payload.position());
            Map<Integer, RawRequest> inFlight = inFlightByBroker.get(brokerId);
            RawRequest request = inFlight == null ? null : inFlight.remove(correlationId);
            if (request == null) {
                LOG.debug("{} answered correlation id {} that no request waits for", describe.apply(brokerId), correlationId);
                continue;
            }
            if (LOG.isDebugEnabled()) {
                LOG.debug("Received {} response from node {} (raw frame: correlation id {}) after {} ms", apiName(request.apiKey),
                        brokerId, correlationId, time.milliseconds() - request.createdMs);
            }
            try {
                if (request.bodyOnly) {
                    new ResponseHeaderData(new ByteBufferAccessor(payload), RESPONSE_HEADER_VERSION);
                }
                // The receive's buffer is this answer's alone (the selector's memory pool is MemoryPool.NONE: it
                // allocates per receive and never reuses), so it is handed over, not copied.
                request.future.complete(payload.slice());
            } catch (RuntimeException e) {
                request.future.completeExceptionally(new BrokerRequestException(brokerId, true, describe.apply(brokerId)
                        + " sent an unreadable response header for " + ApiNames.of(request.apiKey) + ": " + e.getMessage(), e));
            }
        }
    }

    private void handleDisconnects() {
        for (Map.Entry<String, ChannelState> entry : selector.disconnected().entrySet()) {
            int brokerId = Integer.parseInt(entry.getKey());
            ChannelState state = entry.getValue();
            BrokerRequestException failure;
            if (state.exception() != null) {
                failure = BrokerRequestException.authenticationFailed(brokerId, describe.apply(brokerId), state.exception(),
                        truststore);
            } else if (inFlightByBroker.containsKey(brokerId)) {
                failure = new BrokerRequestException(brokerId, true, describe.apply(brokerId)
                        + " closed the connection before answering");
            } else {
                // As for NetworkClient's connections: the probe settles a fenced broker that refuses at once.
                failure = BrokerRequestException.refused(brokerId, "cannot connect to " + describe.apply(brokerId)
                        + ": connection refused or closed during setup (is the broker running and is this its listener?)");
            }
            failInFlight(brokerId, r -> failure);
            // Queued requests fail too, so the caller's backoff (not a tight reconnect loop) paces the next try.
            ArrayDeque<RawRequest> queue = waiting.remove(brokerId);
            if (queue != null) {
                queue.forEach(r -> r.future.completeExceptionally(failure));
            }
        }
    }

    private void failInFlight(int brokerId, java.util.function.Function<RawRequest, BrokerRequestException> failure) {
        Map<Integer, RawRequest> inFlight = inFlightByBroker.remove(brokerId);
        if (inFlight != null) {
            inFlight.values().forEach(r -> r.future.completeExceptionally(failure.apply(r)));
        }
    }

    private BrokerRequestException closed(int brokerId) {
        return new BrokerRequestException(brokerId, false, "request to " + describe.apply(brokerId)
                + " abandoned: broker connections were closed");
    }

    /** The frame's parts behind its int32 size, written out without joining them first. */
    private static ByteBufferSend sizePrefixed(ByteBuffer[] parts) {
        int size = 0;
        for (ByteBuffer part : parts) {
            size += part.remaining();
        }
        ByteBuffer[] all = new ByteBuffer[parts.length + 1];
        all[0] = ByteBuffer.allocate(Integer.BYTES).putInt(0, size);
        System.arraycopy(parts, 0, all, 1, parts.length);
        return new ByteBufferSend(all);
    }

    /** @param frame the request frame in parts (header, body), without the size prefix */
    private record RawRequest(int brokerId, short apiKey, int correlationId, ByteBuffer[] frame, boolean bodyOnly,
                              long deadlineMs, long createdMs, CompletableFuture<ByteBuffer> future) {
    }
}
