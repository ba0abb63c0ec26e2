// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.salvage;

import dev.uncleanrecovery.UserInputException;
import dev.uncleanrecovery.formats.ReplayJournal;
import dev.uncleanrecovery.salvage.SalvageDirectory.SalvagedRange;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.BitSet;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;
import java.util.stream.IntStream;
import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * The salvaged records that earlier replays of a salvage directory put into a target topic: the ranges its journal
 * ({@link ReplayJournal}) says are complete, and, for the others, the records found in the target by their
 * {@code salvage.*} headers, read from where the first replay began. A replay that died halfway (killed, its broker
 * gone) may have had records written that it never saw acknowledged: only the target itself knows, so it is read.
 */
public final class EarlierReplays {

    private record Key(String topic, int partition, int broker) {
        static Key of(SalvagedRange range) {
            return new Key(range.range().partition().topic(), range.range().partition().partition(),
                    range.range().broker());
        }
    }

    private final Path journalFile;
    private final ReplayJournal journal;
    /** Per range, the offsets found in the target, relative to the copy's first offset. */
    private final Map<Key, BitSet> found;

    private EarlierReplays(Path journalFile, ReplayJournal journal, Map<Key, BitSet> found) {
        this.journalFile = journalFile;
        this.journal = journal;
        this.found = found;
    }

    /** For a dry run that does not look: no earlier replay known. */
    public static EarlierReplays notLooked(SalvageDirectory salvage, String toTopic) {
        return new EarlierReplays(ReplayJournal.pathFor(salvage.directory(), toTopic), null, Map.of());
    }

    /**
     * Reads the journal of {@code salvage}'s replays into {@code target} and, unless it says every range is complete,
     * the target's partitions from where the first replay began to their end now.
     *
     * @param timeout how long the target may give no record before the read fails
     * @throws UserInputException when the journal is of another topic of the same name, or retention deleted records
     *                            since the first replay began (what was replayed cannot be told)
     */
    public static EarlierReplays look(SalvageDirectory salvage, SalvageReplay.Target target, Properties clientProperties,
                                      Duration timeout) {
        Path file = ReplayJournal.pathFor(salvage.directory(), target.topic());
        Optional<ReplayJournal> read;
        try {
            read = ReplayJournal.readIfPresent(file);
        } catch (IOException e) {
            throw new UncheckedIOException(file + ": " + e.getMessage(), e);
        }
        if (read.isEmpty()) {
            return new EarlierReplays(file, null, Map.of());
        }
        ReplayJournal journal = read.get();
        if (journal.toTopicId() != null && !journal.toTopicId().equals(target.topicId().toString())) {
            throw new UserInputException(file + ": written for topic '" + target.topic() + "' of id "
                    + journal.toTopicId() + ", the topic now has id " + target.topicId() + " (deleted and created"
                    + " again): what was replayed went with the old one. Move " + file + " away to replay everything"
                    + " into the new topic");
        }
        EarlierReplays earlier = new EarlierReplays(file, journal, new HashMap<>());
        if (salvage.ranges().stream().allMatch(earlier::completed)) {
            return earlier;
        }
        earlier.readTarget(salvage, target, clientProperties, timeout);
        return earlier;
    }

    /** A journal written before the first record: nothing of this salvage is in the target yet. */
    EarlierReplays startedWith(ReplayJournal started) {
        return new EarlierReplays(journalFile, started, found);
    }

    public Path journalFile() {
        return journalFile;
    }

    /** The journal, when a replay into the target was begun before. */
    public Optional<ReplayJournal> journal() {
        return Optional.ofNullable(journal);
    }

    /** Every record of {@code range} is in the target, as the journal says. */
    public boolean completed(SalvagedRange range) {
        return journal != null && journal.completed().stream().anyMatch(c -> c.topic().equals(
                range.range().partition().topic()) && c.partition() == range.range().partition().partition()
                && c.broker() == range.range().broker() && c.manifestSha256().equals(range.manifestSha256()));
    }

    /** The record at {@code offset} of {@code range} is in the target already. */
    public boolean contains(SalvagedRange range, long offset) {
        if (completed(range)) {
            return true;
        }
        BitSet offsets = found.get(Key.of(range));
        long relative = offset - range.manifest().firstOffset();
        return offsets != null && relative >= 0 && relative < Integer.MAX_VALUE && offsets.get((int) relative);
    }

    private void readTarget(SalvageDirectory salvage, SalvageReplay.Target target, Properties clientProperties,
                            Duration timeout) {
        Map<Key, SalvagedRange> ranges = new HashMap<>();
        salvage.ranges().forEach(r -> ranges.put(Key.of(r), r));
        Map<Integer, Long> startedAt = new HashMap<>();
        journal.startOffsets().forEach(s -> startedAt.put(s.partition(), s.offset()));
        List<TopicPartition> partitions = IntStream.range(0, target.partitions())
                .mapToObj(p -> new TopicPartition(target.topic(), p)).toList();
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(consumerProperties(clientProperties))) {
            consumer.assign(partitions);
            Map<TopicPartition, Long> beginnings = consumer.beginningOffsets(partitions, timeout);
            Map<TopicPartition, Long> ends = consumer.endOffsets(partitions, timeout);
            Set<TopicPartition> unread = new HashSet<>();
            for (TopicPartition tp : partitions) {
                // a partition added since the first replay began holds only what came after: all of it is read
                long from = startedAt.getOrDefault(tp.partition(), beginnings.get(tp));
                if (beginnings.get(tp) > from) {
                    throw new UserInputException(tp + " now starts at offset " + beginnings.get(tp) + ", after offset "
                            + from + " where the first replay of this salvage into it began (" + journalFile + "):"
                            + " records it wrote may have been deleted (retention), so which were replayed cannot be"
                            + " told. Check by hand (each replayed record's salvage.* headers say where it came from);"
                            + " move " + journalFile + " away to replay everything again");
                }
                if (from < ends.get(tp)) {
                    consumer.seek(tp, from);
                    unread.add(tp);
                }
            }
            consumer.pause(partitions.stream().filter(tp -> !unread.contains(tp)).toList());
            long quietSince = System.nanoTime();
            while (!unread.isEmpty()) {
                var records = consumer.poll(Duration.ofMillis(200));
                for (ConsumerRecord<byte[], byte[]> record : records) {
                    note(record, ranges);
                }
                if (!records.isEmpty()) {
                    quietSince = System.nanoTime();
                }
                for (TopicPartition tp : List.copyOf(unread)) {
                    if (consumer.position(tp, timeout) >= ends.get(tp)) {
                        unread.remove(tp);
                        consumer.pause(List.of(tp));
                    }
                }
                if (!unread.isEmpty() && System.nanoTime() - quietSince > timeout.toNanos()) {
                    throw new TimeoutException("reading " + unread + " for the records an earlier replay wrote: no"
                            + " record within " + timeout.toMillis() + " ms");
                }
            }
        }
    }

    /** Records the offset a replayed record came from, when it is of one of this salvage's ranges. */
    private void note(ConsumerRecord<byte[], byte[]> record, Map<Key, SalvagedRange> ranges) {
        String topic = header(record, SalvageReplay.TOPIC_HEADER);
        String partition = header(record, SalvageReplay.PARTITION_HEADER);
        String broker = header(record, SalvageReplay.BROKER_HEADER);
        String offset = header(record, SalvageReplay.OFFSET_HEADER);
        if (topic == null || partition == null || broker == null || offset == null) {
            return;
        }
        try {
            Key key = new Key(topic, Integer.parseInt(partition), Integer.parseInt(broker));
            SalvagedRange range = ranges.get(key);
            if (range == null) {
                return;
            }
            long relative = Long.parseLong(offset) - range.manifest().firstOffset();
            if (relative >= 0 && relative <= range.manifest().lastOffset() - range.manifest().firstOffset()
                    && relative < Integer.MAX_VALUE) {
                found.computeIfAbsent(key, k -> new BitSet()).set((int) relative);
            }
        } catch (NumberFormatException e) {
            // not a header replay wrote
        }
    }

    private static String header(ConsumerRecord<byte[], byte[]> record, String key) {
        Header header = record.headers().lastHeader(key);
        return header == null || header.value() == null ? null : new String(header.value(), StandardCharsets.UTF_8);
    }

    private static Properties consumerProperties(Properties clientProperties) {
        Properties properties = new Properties();
        properties.putAll(clientProperties);
        properties.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        properties.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_uncommitted");
        properties.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        properties.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        properties.remove(ConsumerConfig.GROUP_ID_CONFIG);
        properties.putIfAbsent(CommonClientConfigs.CLIENT_ID_CONFIG, "kafka-unclean-recovery");
        return properties;
    }
}
