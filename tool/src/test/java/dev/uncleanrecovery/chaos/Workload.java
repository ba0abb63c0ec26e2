// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.chaos;

import dev.uncleanrecovery.localcluster.LocalKafkaCluster;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.Properties;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.consumer.CloseOptions;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * The real clients of a trial: an acks=all (idempotent) producer and an acks=1 producer writing unique values
 * round-robin to every partition of the plain topics, a transactional producer committing small transactions to the
 * transactional topic, and one consumer in each of two groups reading along and committing. Every write a broker
 * acknowledged (a committed transaction's records once the commit returned) is recorded with its offset.
 */
final class Workload implements AutoCloseable {

    enum Acks { ALL, ONE, TRANSACTIONAL }

    record AckedWrite(Acks acks, TopicPartition partition, long offset, String value) {
    }

    static final List<String> GROUPS = List.of("chaos-readers-a", "chaos-readers-b");

    private static final Duration SEND_PAUSE = Duration.ofMillis(4);
    private static final int TRANSACTION_RECORDS = 5;

    private final LocalKafkaCluster cluster;
    private final long seed;
    private final List<TopicPartition> plainPartitions;
    private final List<TopicPartition> transactionalPartitions;
    private final AtomicBoolean writing = new AtomicBoolean(true);
    private final AtomicBoolean reading = new AtomicBoolean(true);
    private final Collection<AckedWrite> acked = new CopyOnWriteArrayList<>();
    private final Map<String, AtomicLong> consumed = new ConcurrentHashMap<>();
    /** Per group, the records it read and committed past ({@link #readRecord}): the history it has read. */
    private final Map<String, Set<String>> read = new ConcurrentHashMap<>();
    /** Per group, records read whose commit got no answer: the offset may or may not have been committed past them. */
    private final Map<String, Set<String>> uncertain = new ConcurrentHashMap<>();
    private final List<Thread> writers = new ArrayList<>();
    private final List<Thread> readers = new ArrayList<>();

    Workload(LocalKafkaCluster cluster, long seed, List<TopicPartition> plainPartitions,
             List<TopicPartition> transactionalPartitions) {
        this.cluster = cluster;
        this.seed = seed;
        this.plainPartitions = List.copyOf(plainPartitions);
        this.transactionalPartitions = List.copyOf(transactionalPartitions);
    }

    void start() {
        writers.add(thread("acks-all", () -> produce(Acks.ALL)));
        writers.add(thread("acks-1", () -> produce(Acks.ONE)));
        writers.add(thread("transactional", this::produceTransactions));
        for (String group : GROUPS) {
            consumed.put(group, new AtomicLong());
            read.put(group, ConcurrentHashMap.newKeySet());
            uncertain.put(group, ConcurrentHashMap.newKeySet());
            readers.add(thread(group, () -> consume(group)));
        }
    }

    /** Stops the producers; writes still in flight count only if acknowledged before this returns. */
    void stopWriting() {
        writing.set(false);
        join(writers);
    }

    List<AckedWrite> acknowledged() {
        return List.copyOf(acked);
    }

    long consumedBy(String group) {
        return consumed.get(group).get();
    }

    /** Stops the consumers; each group has left or will leave its group once its session times out. */
    void stopReading() {
        reading.set(false);
        join(readers);
    }

    /** The records {@code group} read and committed an offset past, each as {@link #readRecord} names it. */
    Set<String> readBy(String group) {
        return Set.copyOf(read.get(group));
    }

    /** The records {@code group} read whose commit failed or got no answer: read past or not, nobody can tell. */
    Set<String> uncertainFor(String group) {
        Set<String> unknown = new java.util.HashSet<>(uncertain.get(group));
        unknown.removeAll(read.get(group));
        return unknown;
    }

    /** "orders-0@12=s7-acks1-40": a record at its offset, so that one written twice by a retry is told apart. */
    static String readRecord(TopicPartition tp, long offset, String value) {
        return tp + "@" + offset + "=" + value;
    }

    @Override
    public void close() {
        writing.set(false);
        reading.set(false);
        join(writers);
        join(readers);
    }

    private void produce(Acks acks) {
        String name = acks == Acks.ALL ? "all" : "1";
        Properties props = producerProperties();
        props.put(ProducerConfig.ACKS_CONFIG, name);
        props.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, Boolean.toString(acks == Acks.ALL));
        long n = 0;
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(props, new StringSerializer(),
                new StringSerializer())) {
            while (writing.get()) {
                TopicPartition tp = plainPartitions.get((int) (n % plainPartitions.size()));
                String value = "s" + seed + "-acks" + name + "-" + n++;
                try {
                    producer.send(new ProducerRecord<>(tp.topic(), tp.partition(), value, value), (metadata, error) -> {
                        if (error == null) {
                            acked.add(new AckedWrite(acks, tp, metadata.offset(), value));
                        }
                    });
                } catch (RuntimeException e) {
                    // no metadata within max.block.ms: the partition is offline; its next turn tries again
                }
                pause(SEND_PAUSE);
            }
            // what is in flight now is answered by the brokers or expires; only answers before this close count
            producer.close(Duration.ZERO);
        }
    }

    private void produceTransactions() {
        long n = 0;
        while (writing.get()) {
            Properties props = producerProperties();
            props.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, "chaos-" + seed);
            props.put(ProducerConfig.TRANSACTION_TIMEOUT_CONFIG, "10000");
            KafkaProducer<String, String> producer = new KafkaProducer<>(props, new StringSerializer(),
                    new StringSerializer());
            try {
                producer.initTransactions();
                while (writing.get()) {
                    producer.beginTransaction();
                    List<Future<RecordMetadata>> sends = new ArrayList<>();
                    List<String> values = new ArrayList<>();
                    List<TopicPartition> tps = new ArrayList<>();
                    for (int i = 0; i < TRANSACTION_RECORDS; i++) {
                        TopicPartition tp = transactionalPartitions.get((int) (n % transactionalPartitions.size()));
                        String value = "s" + seed + "-txn-" + n++;
                        values.add(value);
                        tps.add(tp);
                        sends.add(producer.send(new ProducerRecord<>(tp.topic(), tp.partition(), value, value)));
                    }
                    producer.commitTransaction();
                    // commitTransaction returns only once the coordinator has written the commit: every send succeeded
                    for (int i = 0; i < sends.size(); i++) {
                        acked.add(new AckedWrite(Acks.TRANSACTIONAL, tps.get(i), sends.get(i).get().offset(),
                                values.get(i)));
                    }
                    pause(SEND_PAUSE.multipliedBy(TRANSACTION_RECORDS));
                }
            } catch (Exception e) {
                // a fenced or timed-out transaction is not acknowledged; a new producer starts over
                pause(Duration.ofMillis(500));
            } finally {
                producer.close(Duration.ZERO);
            }
        }
    }

    private void consume(String group) {
        Properties props = new Properties();
        props.putAll(cluster.clientProperties());
        props.put(ConsumerConfig.GROUP_ID_CONFIG, group);
        props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        props.put(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG, "10000");
        props.put(ConsumerConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, "5000");
        props.put(ConsumerConfig.REQUEST_TIMEOUT_MS_CONFIG, "5000");
        List<String> topics = new ArrayList<>();
        plainPartitions.forEach(tp -> { if (!topics.contains(tp.topic())) topics.add(tp.topic()); });
        transactionalPartitions.forEach(tp -> { if (!topics.contains(tp.topic())) topics.add(tp.topic()); });
        KafkaConsumer<String, String> consumer = new KafkaConsumer<>(props, new StringDeserializer(),
                new StringDeserializer());
        List<String> pending = new ArrayList<>();
        try {
            consumer.subscribe(topics);
            while (reading.get()) {
                try {
                    ConsumerRecords<String, String> records = consumer.poll(Duration.ofMillis(200));
                    records.forEach(r -> pending.add(readRecord(new TopicPartition(r.topic(), r.partition()),
                            r.offset(), r.value())));
                    if (!records.isEmpty()) {
                        // commitSync() commits each position with the epoch of the last record read (KIP-320)
                        consumer.commitSync(Duration.ofSeconds(3));
                        consumed.get(group).addAndGet(records.count());
                        read.get(group).addAll(pending);
                        pending.clear();
                    }
                } catch (RuntimeException e) {
                    pause(Duration.ofMillis(500)); // a coordinator gone: the next poll finds the new one
                }
            }
        } finally {
            uncertain.get(group).addAll(pending);
            // the outage has taken the group's coordinator: leaving the group would wait out the default 30 s
            consumer.close(CloseOptions.timeout(Duration.ofSeconds(2)));
        }
    }

    private Properties producerProperties() {
        Properties props = new Properties();
        props.putAll(cluster.clientProperties());
        props.put(ProducerConfig.LINGER_MS_CONFIG, "5");
        props.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, "12000");
        props.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, "4000");
        props.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, "3000");
        props.put(ProducerConfig.RECONNECT_BACKOFF_MAX_MS_CONFIG, "500");
        props.put(ProducerConfig.RETRY_BACKOFF_MAX_MS_CONFIG, "500");
        return props;
    }

    private static Thread thread(String name, Runnable body) {
        Thread thread = new Thread(body, "chaos-" + name);
        thread.setDaemon(true);
        thread.start();
        return thread;
    }

    private static void join(List<Thread> threads) {
        for (Thread thread : threads) {
            try {
                thread.join(Duration.ofSeconds(30).toMillis());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }

    private static void pause(Duration duration) {
        try {
            Thread.sleep(duration.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
