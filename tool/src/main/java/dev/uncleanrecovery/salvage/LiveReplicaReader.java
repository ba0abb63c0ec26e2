// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.salvage;

import dev.uncleanrecovery.connect.BrokerConnections;
import dev.uncleanrecovery.support.Futures;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.Consumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.FetchResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.MutableRecordBatch;
import org.apache.kafka.common.record.internal.Record;
import org.apache.kafka.common.requests.FetchRequest;
import org.apache.kafka.common.requests.FetchResponse;

/**
 * Copies doomed ranges out of live replicas with Fetch, as the replica stores them. Below a replica's high watermark
 * ReplicaId -2 (DEBUGGING): from Fetch v11 a follower or a leaderless replica serves it, bounded by its own high
 * watermark. Above it ReplicaId -3, the id of a broker's own future replica: Kafka reads it with isolation LOG_END from
 * any replica with only topic READ. Undocumented, so every use of it is said. Sessionless Fetches, MaxWaitMs 0, many
 * partitions of one broker per request; the brokers are read at the same time.
 *
 * <p>Each answer is written into the salvage store as it arrives ({@link RangeWriter}), on a thread of the broker's
 * own: the network thread never waits for a disk, and memory holds at most the two Fetch answers in flight per broker
 * ({@link Settings}), however large a range is.
 */
public final class LiveReplicaReader {

    /** Kafka's {@code FetchRequest.DEBUGGING_CONSUMER_ID}. */
    static final int DEBUGGING_REPLICA_ID = -2;
    /** Kafka's {@code FetchRequest.FUTURE_LOCAL_REPLICA_ID}. */
    static final int FUTURE_REPLICA_ID = -3;
    /** v11 is the first a non-leader serves to ReplicaId -2 (KIP-392); v13 the first with topic ids. */
    private static final short FIRST_VERSION = 11;
    private static final short LAST_VERSION_WITH_NAMES = 12;
    /** A progress line per broker at most this often, and the first only once a copy has taken this long. */
    private static final long PROGRESS_EVERY_MS = 2_000;

    /**
     * @param requestMaxBytes   per Fetch; Kafka still returns a first batch larger than it (KIP-74)
     * @param partitionMaxBytes per partition of a Fetch
     * @param requestTimeout    per Fetch
     * @param deadline          for the whole copy
     */
    public record Settings(int requestMaxBytes, int partitionMaxBytes, Duration requestTimeout, Duration deadline) {
        public static Settings defaults() {
            return new Settings(16 << 20, 4 << 20, Duration.ofSeconds(30), Duration.ofMinutes(30));
        }
    }

    /** One range: where its copy now lies, or why it could not be copied whole. */
    public record Read(DoomedRange range, SalvagedFile file, SalvageException failure) {
        public boolean isWhole() {
            return file != null;
        }
    }

    private final BrokerConnections connections;
    private final Settings settings;
    private final Consumer<String> progress;

    public LiveReplicaReader(BrokerConnections connections, Settings settings, Consumer<String> progress) {
        this.connections = connections;
        this.settings = settings;
        this.progress = progress;
    }

    /**
     * Reads every range from the broker that holds it into {@code store}; one broker's failure fails only its ranges.
     * A range that fails leaves nothing in the store.
     */
    public List<Read> read(Collection<DoomedRange> ranges, SalvageStore store) {
        Map<Integer, List<Copy>> byBroker = new TreeMap<>();
        List<Copy> all = new ArrayList<>();
        for (DoomedRange range : ranges) {
            Copy copy = new Copy(store.writer(range));
            all.add(copy);
            byBroker.computeIfAbsent(range.broker(), b -> new ArrayList<>()).add(copy);
        }
        List<CompletableFuture<Void>> brokers = new ArrayList<>();
        byBroker.forEach((broker, copies) -> brokers.add(new BrokerCopy(broker, copies).run()));
        Futures.awaitAll(brokers, settings.deadline());
        List<Read> reads = new ArrayList<>();
        for (Copy c : all) {
            synchronized (c) {
                if (c.failure == null && c.file == null) {
                    c.failure = new SalvageException("broker " + c.range.broker() + " did not serve " + describe(c.range)
                            + " within " + settings.deadline().toSeconds() + " s (copied up to offset " + c.next + ")");
                }
                c.writer.close();
                reads.add(new Read(c.range, c.file, c.failure));
            }
        }
        return reads;
    }

    static String describe(DoomedRange r) {
        return r.partition() + " [" + r.fromOffset() + ".." + r.toOffset() + ")";
    }

    /** The state of one range's copy; guarded by itself (a broker's thread writes it, the caller reads it). */
    private static final class Copy {
        final DoomedRange range;
        final RangeWriter writer;
        final List<SalvageSource> sources = new ArrayList<>();
        long next;
        long highWatermark = -1;
        boolean aboveHighWatermark;
        /** Fetches in a row that returned it nothing: it goes first in the next one. */
        int emptyAnswers;
        SalvagedFile file;
        SalvageException failure;

        Copy(RangeWriter writer) {
            this.range = writer.range();
            this.writer = writer;
            this.next = range.fromOffset();
        }

        boolean active() {
            return file == null && failure == null;
        }
    }

    /** Fetch rounds against one broker until each of its ranges is copied or failed. */
    private final class BrokerCopy {
        private final int broker;
        private final List<Copy> copies;
        /** Where this broker's answers are checked and written, one at a time. */
        private final ExecutorService writing;
        private final long startedAt = System.currentTimeMillis();
        private long lastProgress = startedAt;
        private long bytes;
        private long records;

        BrokerCopy(int broker, List<Copy> copies) {
            this.broker = broker;
            this.copies = copies;
            this.writing = Executors.newSingleThreadExecutor(task -> {
                Thread thread = new Thread(task, "salvage-broker-" + broker);
                thread.setDaemon(true);
                return thread;
            });
        }

        CompletableFuture<Void> run() {
            return round().whenComplete((v, t) -> {
                writing.shutdown();
                if (System.currentTimeMillis() - startedAt >= PROGRESS_EVERY_MS) {
                    say("done");
                }
            });
        }

        private CompletableFuture<Void> round() {
            // the ranges that got nothing last time go first: Kafka returns a batch larger than the limits only for
            // the first partition of a Fetch
            List<Copy> below = new ArrayList<>();
            List<Copy> above = new ArrayList<>();
            // a Fetch names a partition once: a second range of it waits for the next round
            Set<TopicPartition> inBelow = new HashSet<>();
            Set<TopicPartition> inAbove = new HashSet<>();
            copies.stream().filter(Copy::active).sorted((a, b) -> Integer.compare(b.emptyAnswers, a.emptyAnswers))
                    .forEach(c -> {
                        if (c.aboveHighWatermark ? inAbove.add(c.range.partition()) : inBelow.add(c.range.partition())) {
                            (c.aboveHighWatermark ? above : below).add(c);
                        }
                    });
            if (below.isEmpty() && above.isEmpty()) {
                return CompletableFuture.completedFuture(null);
            }
            List<CompletableFuture<Void>> sent = new ArrayList<>();
            if (!below.isEmpty()) {
                sent.add(fetch(DEBUGGING_REPLICA_ID, below));
            }
            if (!above.isEmpty()) {
                sent.add(fetch(FUTURE_REPLICA_ID, above));
            }
            return CompletableFuture.allOf(sent.toArray(CompletableFuture[]::new)).thenCompose(v -> {
                long now = System.currentTimeMillis();
                if (now - lastProgress >= PROGRESS_EVERY_MS) {
                    lastProgress = now;
                    say("copying");
                }
                return round();
            });
        }

        private void say(String what) {
            long ranges = copies.size();
            long failed = copies.stream().filter(c -> c.failure != null).count();
            progress.accept("salvage: broker " + broker + " " + what + ": " + bytes + " bytes, " + records
                    + " records of " + ranges + " range(s)" + (failed > 0 ? ", " + failed + " failed" : ""));
        }

        private CompletableFuture<Void> fetch(int replicaId, List<Copy> batch) {
            Map<TopicPartition, FetchRequest.PartitionData> data = new LinkedHashMap<>();
            boolean names = false;
            for (Copy c : batch) {
                names |= Uuid.ZERO_UUID.equals(c.range.topicId());
                data.put(c.range.partition(), new FetchRequest.PartitionData(c.range.topicId(), c.next, -1L,
                        settings.partitionMaxBytes(), Optional.empty(), Optional.empty()));
            }
            // without a topic id for every partition, v12 and names
            short last = names ? LAST_VERSION_WITH_NAMES : ApiKeys.FETCH.latestVersion();
            FetchRequest.Builder request = new FetchRequest.Builder(FIRST_VERSION, last, replicaId, -1L, 0, 1, data)
                    .setMaxBytes(settings.requestMaxBytes());
            return connections.send(broker, request, FetchResponse.class, settings.requestTimeout())
                    .handleAsync((response, failure) -> {
                        if (failure != null) {
                            Throwable cause = failure instanceof CompletionException && failure.getCause() != null
                                    ? failure.getCause() : failure;
                            batch.forEach(c -> fail(c, "broker " + broker + " did not serve " + describe(c.range)
                                    + ": " + cause.getMessage(), cause));
                        } else {
                            try {
                                answer(replicaId, batch, response);
                            } catch (RuntimeException e) {
                                // an answer that cannot be read fails its ranges now, not at the deadline
                                batch.forEach(c -> fail(c, "broker " + broker + "'s answer for " + describe(c.range)
                                        + " could not be read: " + e, e));
                            }
                        }
                        return null;
                    }, writing);
        }

        private void answer(int replicaId, List<Copy> batch, FetchResponse response) {
            if (response.error() != Errors.NONE) {
                batch.forEach(c -> fail(c, "broker " + broker + " answered " + response.error().name() + " to the Fetch of "
                        + describe(c.range), null));
                return;
            }
            // v13+ answers with topic ids, v12 with names
            Map<String, Copy> byId = new LinkedHashMap<>();
            Map<String, Copy> byName = new LinkedHashMap<>();
            for (Copy c : batch) {
                byId.put(c.range.topicId() + "-" + c.range.partition().partition(), c);
                byName.put(c.range.partition().toString(), c);
            }
            Set<Copy> answered = Collections.newSetFromMap(new IdentityHashMap<>());
            for (FetchResponseData.FetchableTopicResponse topic : response.data().responses()) {
                for (FetchResponseData.PartitionData p : topic.partitions()) {
                    Copy c = Uuid.ZERO_UUID.equals(topic.topicId())
                            ? byName.get(new TopicPartition(topic.topic(), p.partitionIndex()).toString())
                            : byId.get(topic.topicId() + "-" + p.partitionIndex());
                    if (c != null && answered.add(c)) {
                        synchronized (c) {
                            take(replicaId, c, p, c == batch.get(0));
                        }
                    }
                }
            }
            batch.stream().filter(c -> !answered.contains(c)).forEach(c -> fail(c, "broker " + broker + " left "
                    + describe(c.range) + " out of its Fetch answer", null));
        }

        /** @param first the first partition of its Fetch: Kafka returns it a batch, however large, if there is one */
        private void take(int replicaId, Copy c, FetchResponseData.PartitionData p, boolean first) {
            if (!c.active()) {
                return; // failed meanwhile, at the deadline or by an earlier answer
            }
            DoomedRange r = c.range;
            Errors error = Errors.forCode(p.errorCode());
            if (error != Errors.NONE) {
                fail(c, "broker " + broker + " answered " + error.name() + " for " + describe(r) + " at offset " + c.next
                        + (replicaId == FUTURE_REPLICA_ID ? " (Fetch ReplicaId -3)" : ""), null);
                return;
            }
            c.highWatermark = p.highWatermark();
            MemoryRecords fetched = (MemoryRecords) FetchResponse.recordsOrFail(p);
            // the whole batches from the one holding c.next to the last that starts in the range; a batch cut short at
            // the end of the answer is not among them (Kafka's iterator stops before it)
            int start = -1;
            int end = 0;
            int position = 0;
            long next = c.next;
            long taken = 0;
            for (MutableRecordBatch batch : fetched.batches()) {
                if (batch.baseOffset() >= r.toOffset()) {
                    break;
                }
                if (start < 0 && batch.lastOffset() < c.next) {
                    position += batch.sizeInBytes();
                    continue;
                }
                start = start < 0 ? position : start;
                position += batch.sizeInBytes();
                end = position;
                next = batch.nextOffset();
                taken += count(batch);
            }
            if (start >= 0) {
                ByteBuffer buffer = fetched.buffer();
                int at = buffer.position();
                try {
                    c.writer.append(buffer.duplicate().position(at + start).limit(at + end));
                } catch (SalvageException e) {
                    fail(c, e);
                    return;
                }
                SalvageSource source = replicaId == FUTURE_REPLICA_ID ? SalvageSource.FETCH_FUTURE_REPLICA
                        : SalvageSource.FETCH_DEBUG_REPLICA;
                if (c.sources.isEmpty() || c.sources.get(c.sources.size() - 1) != source) {
                    c.sources.add(source);
                }
                bytes += end - start;
                records += taken;
                c.next = next;
                c.emptyAnswers = 0;
            } else {
                c.emptyAnswers++;
            }
            if (c.next >= r.toOffset()) {
                finish(c);
            } else if (!c.aboveHighWatermark && start < 0 && c.next >= c.highWatermark) {
                // ReplicaId -2 serves no further than this replica's high watermark
                c.aboveHighWatermark = true;
                c.emptyAnswers = 0;
                progress.accept("salvage: broker " + broker + " " + r.partition() + ": offsets [" + c.next + ".."
                        + r.toOffset() + ") lie above its high watermark " + c.highWatermark + "; reading them with Fetch"
                        + " ReplicaId -3 (the id of a broker's own future replica, served up to the log end offset;"
                        + " undocumented Kafka behaviour)");
            } else if (first && start < 0) {
                fail(c, "broker " + broker + " returned no whole batch of " + describe(r) + " at offset " + c.next
                        + " (high watermark " + c.highWatermark + ", log start " + p.logStartOffset() + ")", null);
            }
        }

        /** Publishes the copy; the writer checks it ends at the range's end in an epoch the probe saw. */
        private void finish(Copy c) {
            try {
                c.file = c.writer.finish(c.sources);
            } catch (SalvageException e) {
                fail(c, e);
            } finally {
                c.writer.close();
            }
        }

        private void fail(Copy c, String why, Throwable cause) {
            fail(c, cause == null ? new SalvageException(why) : new SalvageException(why, cause));
        }

        /** The first failure is the one reported; what the copy wrote so far is removed at once. */
        private void fail(Copy c, SalvageException failure) {
            synchronized (c) {
                if (c.active()) {
                    c.failure = failure;
                }
                c.writer.close();
            }
        }
    }

    private static long count(MutableRecordBatch batch) {
        Integer count = batch.countOrNull();
        if (count != null) {
            return count;
        }
        long n = 0;
        for (Record ignored : batch) {
            n++;
        }
        return n;
    }
}
