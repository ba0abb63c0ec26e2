// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.connect;

import dev.uncleanrecovery.protocol.ApiNames;
import dev.uncleanrecovery.support.Durations;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.function.IntFunction;
import org.apache.kafka.clients.ApiVersions;
import org.apache.kafka.clients.ClientRequest;
import org.apache.kafka.clients.ClientResponse;
import org.apache.kafka.clients.ClientUtils;
import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.clients.DefaultHostResolver;
import org.apache.kafka.clients.ManualMetadataUpdater;
import org.apache.kafka.clients.NetworkClient;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.errors.AuthenticationException;
import org.apache.kafka.common.metrics.Metrics;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractRequest;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.ApiVersionsRequest;
import org.apache.kafka.common.requests.ApiVersionsResponse;
import org.apache.kafka.common.requests.RequestHeader;
import org.apache.kafka.common.utils.Time;
import org.apache.kafka.common.utils.internals.LogContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Sends requests to one chosen broker at a time, the way Admin would reach it: same client
 * properties (bootstrap servers plus {@code --command-config}: {@code security.protocol},
 * {@code ssl.*}, {@code sasl.*}), same network layer (kafka-clients' {@link NetworkClient}), so TLS,
 * SASL and ApiVersions negotiation behave exactly as for Admin. Admin itself cannot do this: it
 * routes ListOffsets to the leader with ReplicaId -1, and an offline partition has no leader.
 *
 * <p>Thread model: one I/O thread owns the NetworkClient (which is not thread-safe) and polls it;
 * callers on any thread queue requests and get a {@link CompletableFuture}. Futures complete on
 * the I/O thread, so callbacks must not block. Each broker has at most
 * {@link Settings#maxInFlightRequestsPerBroker()} requests on the wire; the rest wait in a queue.
 *
 * <p>A request that gets no answer fails with a {@link BrokerRequestException} naming the broker
 * and its address: connection refused, the TLS handshake failed ({@link TlsHandshakeException}), authentication
 * failed, connection closed, or no answer within the request's timeout.
 */
public final class BrokerConnections implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(BrokerConnections.class);

    /** How long the I/O thread sleeps at most when nothing happens; bounds the delay of a timeout. */
    private static final long MAX_POLL_MS = 100;
    /** ApiVersions v3 (Kafka 2.4+): flexible, names the client software; every KRaft broker answers it. */
    private static final short API_VERSIONS_VERSION = 3;

    /**
     * @param maxInFlightRequestsPerBroker requests on the wire to one broker at once
     * @param defaultRequestTimeout        for {@link #apiVersions(int)} and sends without a timeout
     */
    public record Settings(int maxInFlightRequestsPerBroker, Duration defaultRequestTimeout) {

        public Settings {
            if (maxInFlightRequestsPerBroker < 1) {
                throw new IllegalArgumentException("maxInFlightRequestsPerBroker must be at least 1");
            }
        }

        public static Settings defaults() {
            return new Settings(5, Duration.ofSeconds(30));
        }
    }

    private final Map<Integer, Node> brokers;
    private final AdminClientConfig config;
    /** What this client trusts, as TLS failures name it. */
    private final String truststore;
    private final String clientId;
    private final Settings settings;
    private final Time time = Time.SYSTEM;
    private final Metrics metrics = new Metrics();
    private final NetworkClient client;
    private final Thread ioThread;
    private final ConcurrentLinkedQueue<PendingRequest<?>> submitted = new ConcurrentLinkedQueue<>();
    private final ConcurrentHashMap<Integer, CompletableFuture<BrokerApiVersions>> apiVersions = new ConcurrentHashMap<>();
    private volatile boolean closing;
    private BrokerRawChannels rawChannels;

    // Owned by the I/O thread.
    private final Map<Integer, ArrayDeque<PendingRequest<?>>> waiting = new HashMap<>();
    private final Set<PendingRequest<?>> inFlight = new HashSet<>();

    private BrokerConnections(Properties clientProperties, Collection<BrokerState> brokers, Settings settings) {
        Map<Integer, Node> nodes = new TreeMap<>();
        for (BrokerState b : brokers) {
            nodes.put(b.id(), new Node(b.id(), b.host(), b.port(), b.rack(), b.fenced()));
        }
        this.brokers = new ConcurrentHashMap<>(nodes);
        this.settings = settings;
        this.config = new AdminClientConfig(clientProperties);
        this.truststore = TlsHandshakeException.truststoreOf(config);
        String configuredClientId = config.getString(CommonClientConfigs.CLIENT_ID_CONFIG);
        this.clientId = configuredClientId == null || configuredClientId.isBlank()
                ? "kafka-unclean-recovery" : configuredClientId;
        LogContext logContext = new OwnNetworkClientLog("[" + clientId + " broker connections] ");
        // ManualMetadataUpdater: the node list is fixed (from DescribeCluster with fenced brokers),
        // and no Metadata request is ever needed to route a request to a broker id.
        this.client = ClientUtils.createNetworkClient(config,
                config.getList(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG),
                "unclean-recovery-broker", metrics, clientId, logContext, new ApiVersions(), time,
                settings.maxInFlightRequestsPerBroker(), (int) settings.defaultRequestTimeout().toMillis(),
                null, new ManualMetadataUpdater(new ArrayList<>(this.brokers.values())),
                new DefaultHostResolver(), null, null);
        this.ioThread = new Thread(this::runIoLoop, "unclean-recovery-broker-io");
        this.ioThread.setDaemon(true);
        this.ioThread.start();
    }

    /**
     * @param clientProperties the same properties Admin is built from ({@link ClientProperties#load})
     * @param brokers          every broker that may be asked, fenced ones included
     */
    public static BrokerConnections open(Properties clientProperties, Collection<BrokerState> brokers) {
        return open(clientProperties, brokers, Settings.defaults());
    }

    public static BrokerConnections open(Properties clientProperties, Collection<BrokerState> brokers, Settings settings) {
        return new BrokerConnections(clientProperties, brokers, settings);
    }

    public Set<Integer> brokerIds() {
        return brokers.keySet().stream().filter(id -> id >= 0).collect(java.util.stream.Collectors.toUnmodifiableSet());
    }

    /**
     * Makes more brokers askable, or updates their address. Bootstrap addresses are opened as brokers
     * with ids -1, -2, …, before DescribeCluster names the real ones.
     */
    public void addBrokers(Collection<BrokerState> more) {
        for (BrokerState b : more) {
            brokers.put(b.id(), new Node(b.id(), b.host(), b.port(), b.rack(), b.fenced()));
        }
    }

    /** {@code broker 3 (10.0.0.3:9092)}, the way every message of the tool names a broker. */
    public String describe(int brokerId) {
        Node node = brokers.get(brokerId);
        if (node != null && brokerId < 0) {
            return "bootstrap server " + node.host() + ":" + node.port();
        }
        return node == null ? "broker " + brokerId : "broker " + brokerId + " (" + node.host() + ":" + node.port() + ")";
    }

    public Settings settings() {
        return settings;
    }

    /**
     * Sends one request to one broker. The NetworkClient picks the highest version in the
     * builder's range that the broker advertised.
     *
     * @param timeout how long the request may wait for a connection plus its answer
     * @return the broker's answer (which may hold per-partition errors), or a failed future with a
     *         {@link BrokerRequestException}
     */
    public <R extends AbstractResponse> CompletableFuture<R> send(int brokerId, AbstractRequest.Builder<?> request,
                                                                  Class<R> responseType, Duration timeout) {
        CompletableFuture<R> future = new CompletableFuture<>();
        if (!brokers.containsKey(brokerId)) {
            future.completeExceptionally(notRegistered(brokerId));
            return future;
        }
        if (closing) {
            future.completeExceptionally(closedException(brokerId));
            return future;
        }
        long timeoutMs = Math.max(1, timeout.toMillis());
        submitted.add(new PendingRequest<>(brokerId, request, responseType, future, time.milliseconds() + timeoutMs));
        client.wakeup();
        if (closing) {
            // close() may have drained the queue before this request landed in it.
            future.completeExceptionally(closedException(brokerId));
        }
        return future;
    }

    public <R extends AbstractResponse> CompletableFuture<R> send(int brokerId, AbstractRequest.Builder<?> request,
                                                                  Class<R> responseType) {
        return send(brokerId, request, responseType, settings.defaultRequestTimeout());
    }

    /**
     * The api keys and versions the broker advertises, including keys kafka-clients does not know.
     * Asked once per broker with our own ApiVersionsRequest (NetworkClient's negotiated copy hides
     * unknown keys); a failed ask is not cached, so the next call asks again.
     */
    public CompletableFuture<BrokerApiVersions> apiVersions(int brokerId) {
        return apiVersions(brokerId, settings.defaultRequestTimeout());
    }

    /**
     * {@link #apiVersions(int)}, waiting at most {@code timeout} when the broker has not been asked yet. Asked on the
     * raw channel, whose connection then carries the probe's and the election's requests: one round trip before the
     * first of them (NetworkClient would first make its own ApiVersions round trip on a new connection).
     */
    public CompletableFuture<BrokerApiVersions> apiVersions(int brokerId, Duration timeout) {
        return apiVersions.compute(brokerId, (id, cached) -> {
            if (cached != null && !cached.isCompletedExceptionally()) {
                return cached;
            }
            if (!brokers.containsKey(id)) {
                return CompletableFuture.failedFuture(notRegistered(id));
            }
            long deadlineMs = time.milliseconds() + Math.max(1, timeout.toMillis());
            return rawChannels().sendFrame(id, ApiKeys.API_VERSIONS.id, correlationId ->
                                    new ApiVersionsRequest.Builder().build(API_VERSIONS_VERSION).serializeWithHeader(
                                            new RequestHeader(ApiKeys.API_VERSIONS, API_VERSIONS_VERSION, clientId, correlationId)),
                            deadlineMs)
                    .thenApply(frame -> {
                        frame.getInt(); // response header v0, whatever the version: the correlation id only
                        ApiVersionsResponse response = ApiVersionsResponse.parse(new ByteBufferAccessor(frame),
                                API_VERSIONS_VERSION);
                        Errors error = Errors.forCode(response.data().errorCode());
                        if (error != Errors.NONE) {
                            throw new BrokerRequestException(id, true, describe(id)
                                    + " answered ApiVersions with " + error.name() + ": " + error.message());
                        }
                        return BrokerApiVersions.from(id, response.data());
                    });
        });
    }

    /**
     * Sends a request the tool encoded itself (the companion patch's RPCs, the stock probe's ListOffsets and
     * Fetch) over a separate connection with the same TLS/SASL setup, and returns the response body after its
     * header. The broker must advertise {@code apiKey} at {@code apiVersion} in ApiVersions, else
     * nothing is sent: a stock broker closes the connection on an unknown api key.
     *
     * <p>Headers are the flexible ones (request header v2, response header v1), as for every RPC
     * added since KIP-482.
     *
     * @param requestBody the request body without header, positioned at its first byte
     */
    public CompletableFuture<ByteBuffer> sendRaw(int brokerId, short apiKey, short apiVersion,
                                                 ByteBuffer requestBody, Duration timeout) {
        long deadlineMs = time.milliseconds() + Math.max(1, timeout.toMillis());
        return apiVersions(brokerId).thenCompose(versions -> {
            if (!versions.advertises(apiKey, apiVersion)) {
                return CompletableFuture.failedFuture(notAdvertised(brokerId, apiKey, apiVersion));
            }
            return rawChannels().send(brokerId, apiKey, apiVersion, requestBody, deadlineMs);
        });
    }

    /**
     * Like {@link #sendRaw}, for callers that frame requests themselves (the {@code wire}
     * module's {@code Frames}): {@code frameForCorrelationId} builds the whole request frame
     * (header and body, without the size prefix) for the correlation id it is given, and the
     * future completes with the whole response frame (header and body). The broker must advertise
     * {@code apiKey} at {@code apiVersion}, else nothing is sent.
     */
    public CompletableFuture<ByteBuffer> sendRawFrame(int brokerId, short apiKey, short apiVersion,
                                                      IntFunction<ByteBuffer> frameForCorrelationId, Duration timeout) {
        long deadlineMs = time.milliseconds() + Math.max(1, timeout.toMillis());
        return apiVersions(brokerId).thenCompose(versions -> {
            if (!versions.advertises(apiKey, apiVersion)) {
                return CompletableFuture.failedFuture(notAdvertised(brokerId, apiKey, apiVersion));
            }
            return rawChannels().sendFrame(brokerId, apiKey, frameForCorrelationId, deadlineMs);
        });
    }

    private static BrokerRequestException notRegistered(int brokerId) {
        return new BrokerRequestException(brokerId, false, "broker " + brokerId
                + " is not registered with the controller (DescribeCluster did not list it), so it cannot be asked");
    }

    private BrokerRequestException notAdvertised(int brokerId, short apiKey, short apiVersion) {
        return new BrokerRequestException(brokerId, false, describe(brokerId)
                + " does not advertise " + ApiNames.of(apiKey) + " version " + apiVersion
                + " in ApiVersions, so the request was not sent (a broker closes the connection on api keys it does not know)");
    }

    private synchronized BrokerRawChannels rawChannels() {
        if (closing) {
            throw new IllegalStateException("broker connections are closed");
        }
        if (rawChannels == null) {
            rawChannels = new BrokerRawChannels(config, brokers, clientId, this::describe, truststore);
        }
        return rawChannels;
    }

    /** Fails every request still waiting or on the wire, closes all connections, stops the I/O threads. */
    @Override
    public void close() {
        closing = true;
        client.wakeup();
        if (Thread.currentThread() != ioThread) {
            try {
                ioThread.join(10_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        BrokerRawChannels raw;
        synchronized (this) {
            raw = rawChannels;
        }
        if (raw != null) {
            raw.close();
        }
    }

    private void runIoLoop() {
        try {
            while (!closing) {
                long now = time.milliseconds();
                drainSubmitted();
                long nextWakeUp = now + MAX_POLL_MS;
                for (Map.Entry<Integer, ArrayDeque<PendingRequest<?>>> entry : waiting.entrySet()) {
                    if (!entry.getValue().isEmpty()) {
                        nextWakeUp = Math.min(nextWakeUp, dispatch(entry.getKey(), entry.getValue(), now));
                    }
                }
                client.poll(Math.max(0, nextWakeUp - now), now);
            }
        } catch (Throwable t) {
            LOG.error("broker connection I/O thread stopped", t);
            failEverything(t);
        } finally {
            closing = true;
            failEverything(null);
            try {
                client.close();
            } catch (Exception e) {
                LOG.debug("closing the network client", e);
            }
            metrics.close();
        }
    }

    private void drainSubmitted() {
        PendingRequest<?> request;
        while ((request = submitted.poll()) != null) {
            waiting.computeIfAbsent(request.brokerId, id -> new ArrayDeque<>()).add(request);
        }
    }

    /** Sends what the broker can take now; returns when this broker next needs attention. */
    private long dispatch(int brokerId, ArrayDeque<PendingRequest<?>> queue, long now) {
        Node node = brokers.get(brokerId);
        for (Iterator<PendingRequest<?>> it = queue.iterator(); it.hasNext(); ) {
            PendingRequest<?> request = it.next();
            if (request.future.isDone()) {
                it.remove();
            } else if (request.deadlineMs <= now) {
                it.remove();
                request.fail(new BrokerRequestException(brokerId, true, describe(brokerId) + " did not accept a connection for "
                        + request.apiName() + " within " + Durations.human(request.timeoutMs(now)) + " (connecting, TLS or SASL did not finish)"));
            }
        }
        // ready() also starts a connection (and its TLS/SASL/ApiVersions steps) when there is none;
        // it stays false while maxInFlightRequestsPerBroker requests are on the wire.
        while (!queue.isEmpty() && client.ready(node, now)) {
            PendingRequest<?> request = queue.poll();
            send(node, request, now);
        }
        if (!queue.isEmpty() && client.connectionFailed(node)) {
            AuthenticationException authFailure = client.authenticationException(node);
            BrokerRequestException failure = authFailure != null
                    ? BrokerRequestException.authenticationFailed(brokerId, describe(brokerId), authFailure, truststore)
                    : BrokerRequestException.refused(brokerId, "cannot connect to " + describe(brokerId)
                            + ": connection refused or closed during setup (is the broker running and is this its listener?)");
            while (!queue.isEmpty()) {
                queue.poll().fail(failure);
            }
        }
        long next = Long.MAX_VALUE;
        for (PendingRequest<?> request : queue) {
            next = Math.min(next, request.deadlineMs);
        }
        return next;
    }

    private void send(Node node, PendingRequest<?> request, long now) {
        int timeoutMs = (int) Math.min(Integer.MAX_VALUE, Math.max(1, request.deadlineMs - now));
        try {
            ClientRequest clientRequest = client.newClientRequest(node.idString(), request.builder, now, true,
                    timeoutMs, response -> onResponse(request, response));
            inFlight.add(request);
            client.send(clientRequest, now);
            if (LOG.isDebugEnabled()) {
                // The words of kafka-clients' NetworkClient, without the body: one request log counts every channel.
                LOG.debug("Sending {} request with header (correlation id {}) and timeout {} to node {}", request.builder.apiKey(),
                        clientRequest.correlationId(), timeoutMs, request.brokerId);
            }
        } catch (RuntimeException e) {
            inFlight.remove(request);
            request.fail(new BrokerRequestException(request.brokerId, false, "cannot send " + request.apiName() + " to "
                    + describe(request.brokerId) + ": " + e.getMessage(), e));
        }
    }

    private void onResponse(PendingRequest<?> request, ClientResponse response) {
        inFlight.remove(request);
        if (LOG.isDebugEnabled()) {
            LOG.debug("Received {} response from node {} (correlation id {}) after {} ms", request.builder.apiKey(), request.brokerId,
                    response.requestHeader().correlationId(), response.requestLatencyMs());
        }
        int id = request.brokerId;
        String api = request.apiName();
        if (response.authenticationException() != null) {
            request.fail(BrokerRequestException.authenticationFailed(id, describe(id), response.authenticationException(),
                    truststore));
        } else if (response.versionMismatch() != null) {
            request.fail(new BrokerRequestException(id, false, describe(id) + " supports no version of " + api
                    + " this tool can send: " + response.versionMismatch().getMessage(), response.versionMismatch()));
        } else if (response.wasTimedOut()) {
            request.fail(new BrokerRequestException(id, true, describe(id) + " did not answer " + api + " within "
                    + Durations.human(response.requestLatencyMs())));
        } else if (response.wasDisconnected()) {
            request.fail(new BrokerRequestException(id, true, describe(id) + " closed the connection before answering " + api));
        } else {
            request.complete(response.responseBody());
        }
    }

    private void failEverything(Throwable cause) {
        List<PendingRequest<?>> all = new ArrayList<>(inFlight);
        inFlight.clear();
        waiting.values().forEach(all::addAll);
        waiting.clear();
        PendingRequest<?> request;
        while ((request = submitted.poll()) != null) {
            all.add(request);
        }
        for (PendingRequest<?> r : all) {
            BrokerRequestException failure = cause == null ? closedException(r.brokerId)
                    : new BrokerRequestException(r.brokerId, false, "broker connections failed: " + cause, cause);
            r.fail(failure);
        }
    }

    private BrokerRequestException closedException(int brokerId) {
        return new BrokerRequestException(brokerId, false, "request to " + describe(brokerId)
                + " abandoned: broker connections were closed");
    }

    private static final class PendingRequest<R extends AbstractResponse> {
        final int brokerId;
        final AbstractRequest.Builder<?> builder;
        final Class<R> responseType;
        final CompletableFuture<R> future;
        final long deadlineMs;
        final long createdMs;

        PendingRequest(int brokerId, AbstractRequest.Builder<?> builder, Class<R> responseType,
                       CompletableFuture<R> future, long deadlineMs) {
            this.brokerId = brokerId;
            this.builder = builder;
            this.responseType = responseType;
            this.future = future;
            this.deadlineMs = deadlineMs;
            this.createdMs = Time.SYSTEM.milliseconds();
        }

        String apiName() {
            return builder.apiKey().name;
        }

        long timeoutMs(long now) {
            return Math.max(0, now - createdMs);
        }

        void complete(AbstractResponse body) {
            if (responseType.isInstance(body)) {
                future.complete(responseType.cast(body));
            } else {
                future.completeExceptionally(new BrokerRequestException(brokerId, false, "broker " + brokerId
                        + " answered " + apiName() + " with an unexpected " + (body == null ? "empty answer" : body.getClass().getSimpleName())));
            }
        }

        void fail(Throwable t) {
            future.completeExceptionally(t);
        }
    }

    /**
     * kafka-clients' NetworkClient logs every request and answer at DEBUG with its whole body, formatted before the
     * logging library sees it (a 0.4–0.7 MB line per DescribeTopicPartitions answer at 5,000 partitions, on the thread
     * that waits for the answers). Ours logs under a name of its own, so the request log (see the cli's LogbackSetup)
     * can take Admin's lines without these; {@link #send} and {@link #onResponse} log a short line instead. With
     * {@code --verbose} it still logs everything, under org.apache.kafka like the rest of kafka-clients.
     */
    private static final class OwnNetworkClientLog extends LogContext {

        static final String NAME = "org.apache.kafka.clients.BrokerConnections-NetworkClient";

        OwnNetworkClientLog(String prefix) {
            super(prefix);
        }

        @Override
        public Logger logger(Class<?> type) {
            return type == NetworkClient.class ? logger(NAME) : super.logger(type);
        }
    }
}
