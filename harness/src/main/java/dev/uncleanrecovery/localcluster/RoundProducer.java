// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.localcluster;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringSerializer;

/** Writes one round of records to every given partition and waits until each is acknowledged. */
public final class RoundProducer {

    private RoundProducer() {
    }

    /**
     * @param acks            "all" (idempotent) or "1" (plain at-least-once: acks=1 with idempotence is refused)
     * @param round           names the records ("round-2-7") and the failure message
     * @param deliveryTimeout how long one record may take; thousands of partitions on a small machine need minutes
     */
    public static void produce(LocalKafkaCluster cluster, List<TopicPartition> tps, long count, String acks, String round,
                               Duration deliveryTimeout) {
        produce(cluster, tps, count, acks, round, deliveryTimeout, () -> { });
    }

    /**
     * @param beforeSending runs once the producer knows the partitions' leaders and before the first record: a fault
     *                      injected here (a frozen broker) cannot stall the producer's bootstrap
     */
    public static void produce(LocalKafkaCluster cluster, List<TopicPartition> tps, long count, String acks, String round,
                               Duration deliveryTimeout, Runnable beforeSending) {
        produce(cluster, tps, count, 0, acks, round, deliveryTimeout, beforeSending);
    }

    /**
     * As {@link #produce(LocalKafkaCluster, List, long, String, String, Duration)}, each value padded to
     * {@code valueBytes} bytes (uncompressed, a batch of its own): a large log in few records, quick to write.
     *
     * @param valueBytes at most about 1 MB: the producer's max.request.size and the broker's message.max.bytes
     */
    public static void produceLarge(LocalKafkaCluster cluster, List<TopicPartition> tps, long count, int valueBytes,
                                    String acks, String round, Duration deliveryTimeout) {
        produce(cluster, tps, count, valueBytes, acks, round, deliveryTimeout, () -> { });
    }

    private static void produce(LocalKafkaCluster cluster, List<TopicPartition> tps, long count, int valueBytes,
                                String acks, String round, Duration deliveryTimeout, Runnable beforeSending) {
        Properties props = new Properties();
        props.putAll(cluster.clientProperties());
        props.put(ProducerConfig.ACKS_CONFIG, acks);
        props.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "all".equals(acks) ? "true" : "false");
        props.put(ProducerConfig.LINGER_MS_CONFIG, "10");
        props.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, Long.toString(deliveryTimeout.toMillis()));
        // One request may take (nearly) the whole delivery timeout: an idempotent producer that gives up on a request
        // and sends the batch again can meet OutOfOrderSequenceException when the broker had appended it after all,
        // and then retries until the delivery timeout (seen on a fresh 5,000-partition cluster whose followers were
        // slow to start fetching). Errors the broker answers with (NOT_ENOUGH_REPLICAS, ...) are still retried.
        props.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, Long.toString(Math.max(1_000, deliveryTimeout.toMillis() - 1_000)));
        // A batch per partition is open at once: 5,000 partitions × the default 16 KiB batch outgrow the default
        // 32 MiB buffer, and send() then blocks until acknowledgements free some (BufferExhaustedException after
        // max.block.ms on a busy machine). The records are tiny: small batches, and a buffer that is a cap, not an
        // allocation.
        props.put(ProducerConfig.BATCH_SIZE_CONFIG, "4096");
        props.put(ProducerConfig.BUFFER_MEMORY_CONFIG, Long.toString(256L << 20));
        props.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, Long.toString(deliveryTimeout.toMillis()));
        KafkaProducer<String, String> producer = new KafkaProducer<>(props, new StringSerializer(), new StringSerializer());
        try {
            tps.stream().map(TopicPartition::topic).distinct().forEach(producer::partitionsFor);
            beforeSending.run();
            List<Future<RecordMetadata>> sends = new ArrayList<>();
            for (TopicPartition tp : tps) {
                for (long i = 0; i < count; i++) {
                    String value = "record " + i + " of " + round + " (acks=" + acks + ")";
                    sends.add(producer.send(new ProducerRecord<>(tp.topic(), tp.partition(), round + "-" + i,
                            value.length() >= valueBytes ? value : value + "x".repeat(valueBytes - value.length()))));
                }
            }
            for (Future<RecordMetadata> send : sends) {
                send.get();
            }
        } catch (ExecutionException e) {
            throw new LocalClusterException("producing " + round + " with acks=" + acks + " failed: " + e.getCause(), e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new LocalClusterException("interrupted", e);
        } finally {
            // Every record is acknowledged (or has failed): nothing is left to deliver. A plain close() would wait for
            // in-flight requests, and a metadata request the producer sent to a broker frozen by beforeSending is
            // answered only after request.timeout.ms, long enough for the frozen broker to lose its session.
            producer.close(Duration.ZERO);
        }
    }

    /**
     * A transactional producer that opens a transaction, writes {@code count} records to {@code tp} (idempotent,
     * acks=all) and dies without committing or aborting it: its coordinator aborts it once
     * {@code transactionTimeout} has passed, if it still can.
     */
    public static void openTransactionAndDie(LocalKafkaCluster cluster, TopicPartition tp, String transactionalId,
                                             int count, Duration transactionTimeout) {
        Properties props = new Properties();
        props.putAll(cluster.clientProperties());
        props.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, transactionalId);
        props.put(ProducerConfig.TRANSACTION_TIMEOUT_CONFIG, Long.toString(transactionTimeout.toMillis()));
        KafkaProducer<String, String> producer = new KafkaProducer<>(props, new StringSerializer(), new StringSerializer());
        try {
            producer.initTransactions();
            producer.beginTransaction();
            for (int i = 0; i < count; i++) {
                producer.send(new ProducerRecord<>(tp.topic(), tp.partition(), transactionalId + "-" + i, "open")).get();
            }
        } catch (ExecutionException e) {
            throw new LocalClusterException("the transaction of " + transactionalId + " failed: " + e.getCause(),
                    e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new LocalClusterException("interrupted", e);
        } finally {
            // no commit, no abort: closing without waiting leaves the transaction open
            producer.close(Duration.ZERO);
        }
    }
}
