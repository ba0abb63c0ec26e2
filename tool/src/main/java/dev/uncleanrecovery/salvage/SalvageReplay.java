// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.salvage;

import dev.uncleanrecovery.connect.ClusterUnreachableException;
import dev.uncleanrecovery.UserInputException;
import dev.uncleanrecovery.formats.ReplayJournal;
import dev.uncleanrecovery.salvage.SalvageDirectory.SalvagedRange;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ListOffsetsResult;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.errors.InvalidTopicException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.record.internal.Record;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * {@code replay}: the salvaged records a consumer could have read, produced again into a topic the operator names,
 * each with its key, value, headers and timestamp and headers saying where it was salvaged from. Control records,
 * aborted transactions and transactions with no marker in the salvage are skipped, and so are the records an earlier
 * replay of the same salvage put into the topic ({@link EarlierReplays}): run again after a failure, replay writes
 * each record once.
 */
public final class SalvageReplay {

    public static final String TOPIC_HEADER = "salvage.topic";
    public static final String PARTITION_HEADER = "salvage.partition";
    public static final String OFFSET_HEADER = "salvage.offset";
    public static final String LEADER_EPOCH_HEADER = "salvage.leader.epoch";
    public static final String BROKER_HEADER = "salvage.broker";

    /** Which partition of the target topic a record goes to. */
    public enum PartitionMap {
        /** The partition number it was salvaged from. */
        SAME,
        /** The producer's partitioner's choice (by key). */
        HASH
    }

    /** A record replay would produce, for a dry run to show. */
    public record Sample(long offset, long timestamp, byte[] key, byte[] value) {
    }

    /**
     * What replay does with one salvaged range, in records.
     *
     * @param replay          records to produce (or produced)
     * @param alreadyReplayed records an earlier replay of this salvage put into the target: not produced again
     */
    public record RangeCounts(SalvagedRange range, long replay, long alreadyReplayed, long control, long aborted,
                              long noMarker, long beforeRange, List<Sample> samples) {
    }

    /** Records of a range produced so far (acknowledged or not), of {@code total} to produce. */
    public record Progress(SalvagedRange range, long sent, long total) {
    }

    /** The topic records are replayed into, as the cluster describes it. */
    public record Target(String topic, Uuid topicId, int partitions) {
    }

    private static final int PROGRESS_EVERY = 1000;

    private SalvageReplay() {
    }

    /**
     * Counts per range, with the first {@code samples} records that would be produced. Reads only the directory.
     *
     * @param earlier what earlier replays put into the target: counted apart, not produced again
     */
    public static List<RangeCounts> count(SalvageDirectory salvage, EarlierReplays earlier, int samples) {
        List<RangeCounts> counts = new ArrayList<>();
        for (SalvagedRange range : salvage.ranges()) {
            long[] byFate = new long[RecordFate.values().length];
            long[] already = {0};
            List<Sample> shown = new ArrayList<>();
            ReplayRecords.forEach(range, (batch, record, fate) -> {
                if (fate == RecordFate.REPLAY && earlier.contains(range, record.offset())) {
                    already[0]++;
                    return;
                }
                byFate[fate.ordinal()]++;
                if (fate == RecordFate.REPLAY && shown.size() < samples) {
                    shown.add(new Sample(record.offset(), record.timestamp(), bytes(record.key()), bytes(record.value())));
                }
            });
            counts.add(new RangeCounts(range, byFate[RecordFate.REPLAY.ordinal()], already[0],
                    byFate[RecordFate.CONTROL.ordinal()], byFate[RecordFate.ABORTED.ordinal()],
                    byFate[RecordFate.NO_MARKER.ordinal()], byFate[RecordFate.BEFORE_RANGE.ordinal()],
                    List.copyOf(shown)));
        }
        return counts;
    }

    /**
     * Replaying into the topic the records came from puts them after what the new leader kept, where consumers of
     * that topic read them as new: only on the operator's explicit word.
     */
    public static void refuseOriginalTopic(SalvageDirectory salvage, String toTopic, boolean intoOriginal) {
        if (!intoOriginal && salvage.ranges().stream().anyMatch(r -> r.range().partition().topic().equals(toTopic))) {
            throw new UserInputException("--to-topic " + toTopic + " is the topic these records were salvaged from;"
                    + " consumers would read them again after what the new leader kept. Pass --into-original to do it"
                    + " anyway, or replay into another topic");
        }
    }

    /** @throws UserInputException when the topic does not exist */
    public static Target describeTarget(Properties clientProperties, String topic, Duration timeout) {
        try (Admin admin = Admin.create(clientProperties)) {
            TopicDescription description = admin.describeTopics(List.of(topic)).allTopicNames()
                    .get(timeout.toMillis(), TimeUnit.MILLISECONDS).get(topic);
            return new Target(topic, description.topicId(), description.partitions().size());
        } catch (ExecutionException e) {
            if (e.getCause() instanceof UnknownTopicOrPartitionException || e.getCause() instanceof InvalidTopicException) {
                throw new UserInputException("unknown topic '" + topic + "': replay does not create topics; create it"
                        + " first (kafka-topics.sh --create)", e.getCause());
            }
            if (e.getCause() instanceof org.apache.kafka.common.errors.TimeoutException) {
                throw ClusterUnreachableException.noAnswer("describe topic " + topic,
                        clientProperties.getProperty(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG), timeout, e.getCause());
            }
            throw e.getCause() instanceof KafkaException k ? k : new KafkaException(e.getCause());
        } catch (TimeoutException e) {
            throw ClusterUnreachableException.noAnswer("describe topic " + topic,
                    clientProperties.getProperty(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG), timeout, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new org.apache.kafka.common.errors.InterruptException(e);
        }
    }


    /** {@code same} needs every salvaged partition number in the target topic. */
    public static void checkPartitions(SalvageDirectory salvage, Target target, PartitionMap map) {
        if (map != PartitionMap.SAME) {
            return;
        }
        salvage.ranges().stream().filter(r -> r.range().partition().partition() >= target.partitions()).findFirst()
                .ifPresent(r -> {
                    throw new UserInputException("--partition-map same: topic '" + target.topic() + "' has "
                            + target.partitions() + " partition(s), so none for " + r.range().partition()
                            + "; add partitions or use --partition-map hash");
                });
    }

    /**
     * Produces every range's records in offset order with an idempotent producer (acks=all, at most 5 requests in
     * flight: Kafka keeps the order per partition across retries), then waits for every acknowledgement; a range all
     * of whose records are acknowledged is added to the journal. Records {@code earlier} replays put into the target
     * are skipped. The journal is written before the first record: whatever happens after, a replay run again finds
     * what this one wrote.
     *
     * @param clientProperties bootstrap servers and the operator's client properties
     * @param tool             the tool and version, as the journal names it
     * @param progress         called every thousand records and at the end of each range
     * @return the counts of what was produced and skipped
     * @throws SalvageReplayException when a record was not acknowledged; the counts say how far it got
     */
    public static List<RangeCounts> produce(SalvageDirectory salvage, Target target, PartitionMap map,
                                            Properties clientProperties, EarlierReplays earlier, String tool,
                                            Consumer<Progress> progress) throws IOException {
        List<RangeCounts> counts = count(salvage, earlier, 0);
        ReplayJournal journal = earlier.journal().orElse(null);
        if (journal == null) {
            journal = new ReplayJournal(ReplayJournal.VERSION, tool, target.topic(), target.topicId().toString(),
                    Instant.now(), logEnds(clientProperties, target), List.of());
            ReplayJournal.create(earlier.journalFile(), journal);
        }
        AtomicReference<Exception> failure = new AtomicReference<>();
        AtomicLong acknowledged = new AtomicLong();
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(producerProperties(clientProperties))) {
            for (RangeCounts range : counts) {
                SalvagedRange salvaged = range.range();
                if (earlier.completed(salvaged)) {
                    continue;
                }
                long[] sent = {0};
                ReplayRecords.forEach(salvaged, (batch, record, fate) -> {
                    if (fate != RecordFate.REPLAY || failure.get() != null || earlier.contains(salvaged, record.offset())) {
                        return;
                    }
                    producer.send(record(target, map, salvaged, batch, record), (metadata, e) -> {
                        if (e != null) {
                            failure.compareAndSet(null, e);
                        } else {
                            acknowledged.incrementAndGet();
                        }
                    });
                    if (++sent[0] % PROGRESS_EVERY == 0) {
                        progress.accept(new Progress(salvaged, sent[0], range.replay()));
                    }
                });
                producer.flush();
                if (failure.get() != null) {
                    throw new SalvageReplayException("replay of " + salvaged.describe() + " into " + target.topic()
                            + " failed: " + failure.get().getMessage() + "; " + acknowledged.get() + " record(s) were"
                            + " acknowledged before it. Run the same replay again: what is in " + target.topic()
                            + " already is found there and not produced twice", failure.get());
                }
                journal = journal.completing(new ReplayJournal.CompletedRange(salvaged.range().partition().topic(),
                        salvaged.range().partition().partition(), salvaged.range().broker(),
                        salvaged.range().fromOffset(), salvaged.range().toOffset(), salvaged.manifestSha256(),
                        sent[0], Instant.now()));
                ReplayJournal.update(earlier.journalFile(), journal);
                progress.accept(new Progress(salvaged, sent[0], range.replay()));
            }
        }
        return counts;
    }

    /** Where each partition of the target ends now: what a replay writes lies at or after it. */
    private static List<ReplayJournal.StartOffset> logEnds(Properties clientProperties, Target target) {
        Map<TopicPartition, OffsetSpec> latest = new HashMap<>();
        for (int p = 0; p < target.partitions(); p++) {
            latest.put(new TopicPartition(target.topic(), p), OffsetSpec.latest());
        }
        try (Admin admin = Admin.create(clientProperties)) {
            Map<TopicPartition, ListOffsetsResult.ListOffsetsResultInfo> ends = admin.listOffsets(latest).all().get();
            return ends.entrySet().stream()
                    .map(e -> new ReplayJournal.StartOffset(e.getKey().partition(), e.getValue().offset()))
                    .sorted(Comparator.comparingInt(ReplayJournal.StartOffset::partition)).toList();
        } catch (ExecutionException e) {
            throw e.getCause() instanceof KafkaException k ? k : new KafkaException(e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new org.apache.kafka.common.errors.InterruptException(e);
        }
    }

    /** A record the producer could not deliver: replay stops there. */
    public static final class SalvageReplayException extends KafkaException {
        SalvageReplayException(String message, Throwable cause) {
            super(message, cause);
        }
    }

    private static ProducerRecord<byte[], byte[]> record(Target target, PartitionMap map, SalvagedRange salvaged,
                                                         RecordBatch batch, Record record) {
        RecordHeaders headers = new RecordHeaders();
        for (Header header : record.headers()) {
            headers.add(header);
        }
        headers.add(header(TOPIC_HEADER, salvaged.range().partition().topic()));
        headers.add(header(PARTITION_HEADER, Integer.toString(salvaged.range().partition().partition())));
        headers.add(header(OFFSET_HEADER, Long.toString(record.offset())));
        headers.add(header(LEADER_EPOCH_HEADER, Integer.toString(batch.partitionLeaderEpoch())));
        headers.add(header(BROKER_HEADER, Integer.toString(salvaged.range().broker())));
        Integer partition = map == PartitionMap.SAME ? salvaged.range().partition().partition() : null;
        Long timestamp = record.timestamp() == RecordBatch.NO_TIMESTAMP ? null : record.timestamp();
        return new ProducerRecord<>(target.topic(), partition, timestamp, bytes(record.key()), bytes(record.value()),
                headers);
    }

    private static Header header(String key, String value) {
        return new RecordHeader(key, value.getBytes(StandardCharsets.UTF_8));
    }

    private static Properties producerProperties(Properties clientProperties) {
        Properties properties = new Properties();
        properties.putAll(clientProperties);
        // An Admin setting of the shared client properties: the producer would warn it is unknown.
        properties.remove(CommonClientConfigs.DEFAULT_API_TIMEOUT_MS_CONFIG);
        properties.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
        properties.put(ProducerConfig.ACKS_CONFIG, "all");
        properties.put(ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION, "5");
        properties.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        properties.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        return properties;
    }

    private static byte[] bytes(ByteBuffer buffer) {
        if (buffer == null) {
            return null;
        }
        byte[] bytes = new byte[buffer.remaining()];
        buffer.duplicate().get(bytes);
        return bytes;
    }
}
