// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.cli;

import java.io.BufferedReader;
import java.io.Closeable;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import dev.uncleanrecovery.localcluster.ClusterNetwork;
import dev.uncleanrecovery.localcluster.NetworkHost;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * A producer in a JVM of its own on a host of a cluster of hosts (the clients', say): it keeps the metadata it read at
 * start, so it goes on writing to a leader that a network partition cut off from the controller, as an application
 * would until that leader answers with an error. Each acknowledged write is printed as {@code ACK <offset> <value>};
 * a line on its standard input stops it.
 */
public final class HostProducer implements Closeable {

    /** A write the partition's leader acknowledged. */
    public record Ack(long offset, String value) {
    }

    private final Process process;
    private final List<Ack> acks = new CopyOnWriteArrayList<>();
    private final Thread reader;

    private HostProducer(Process process) {
        this.process = process;
        this.reader = new Thread(this::readAcks, "host-producer-acks");
        reader.setDaemon(true);
        reader.start();
    }

    /**
     * Starts writing {@code prefix-0}, {@code prefix-1}, ... to {@code tp} from {@code host}, one record every
     * {@code pause}, with {@code acks} ("1" or "all").
     */
    public static HostProducer start(ClusterNetwork network, NetworkHost host, String bootstrap, TopicPartition tp,
                                     String acks, String prefix, Duration pause) throws IOException {
        List<String> command = List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx128m", "-cp", System.getProperty("java.class.path"), HostProducer.class.getName(), bootstrap,
                tp.topic(), String.valueOf(tp.partition()), acks, prefix, String.valueOf(pause.toMillis()));
        return new HostProducer(new ProcessBuilder(network.commandOn(host, command)).redirectErrorStream(true).start());
    }

    /** The writes acknowledged so far, in the order the answers came. */
    public List<Ack> acknowledged() {
        return List.copyOf(acks);
    }

    /** Waits until at least {@code count} writes were acknowledged. */
    public void awaitAcks(int count, Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (acks.size() < count) {
            if (System.nanoTime() > deadline || !process.isAlive()) {
                throw new AssertionError("the producer on its host had " + acks.size() + " writes acknowledged, not "
                        + count + ", within " + timeout.toSeconds() + " s (alive: " + process.isAlive() + ")");
            }
            Thread.sleep(50);
        }
    }

    /** Stops writing; what was in flight is answered or dropped, and only answers before the end count. */
    @Override
    public void close() {
        try (PrintWriter stop = new PrintWriter(new OutputStreamWriter(process.getOutputStream(),
                StandardCharsets.UTF_8))) {
            stop.println("stop");
        }
        try {
            if (!process.waitFor(30, TimeUnit.SECONDS)) {
                process.destroyForcibly();
            }
            reader.join(10_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            process.destroyForcibly();
        }
    }

    private void readAcks() {
        try (BufferedReader lines = new BufferedReader(new InputStreamReader(process.getInputStream(),
                StandardCharsets.UTF_8))) {
            for (String line = lines.readLine(); line != null; line = lines.readLine()) {
                if (line.startsWith("ACK ")) {
                    String[] parts = line.split(" ", 3);
                    acks.add(new Ack(Long.parseLong(parts[1]), parts[2]));
                }
            }
        } catch (IOException e) {
            // the process ended
        }
    }

    /** The producer's JVM: bootstrap topic partition acks prefix pauseMillis. */
    public static void main(String[] args) throws Exception {
        TopicPartition tp = new TopicPartition(args[1], Integer.parseInt(args[2]));
        Properties config = new Properties();
        config.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, args[0]);
        config.put(ProducerConfig.ACKS_CONFIG, args[3]);
        config.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, String.valueOf(args[3].equals("all")));
        config.put(ProducerConfig.LINGER_MS_CONFIG, 0);
        config.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, 4_000);
        config.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, 8_000);
        config.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, 4_000);
        String prefix = args[4];
        long pause = Long.parseLong(args[5]);
        AtomicBoolean writing = new AtomicBoolean(true);
        Thread stop = new Thread(() -> {
            try {
                new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8)).readLine();
            } catch (IOException e) {
                // stdin gone: stop as well
            }
            writing.set(false);
        });
        stop.setDaemon(true);
        stop.start();
        PrintWriter out = new PrintWriter(new OutputStreamWriter(System.out, StandardCharsets.UTF_8), true);
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(config, new StringSerializer(),
                new StringSerializer())) {
            for (long n = 0; writing.get(); n++) {
                String value = prefix + "-" + n;
                try {
                    producer.send(new ProducerRecord<>(tp.topic(), tp.partition(), value, value), (metadata, error) -> {
                        if (error == null) {
                            synchronized (out) {
                                out.println("ACK " + metadata.offset() + " " + value);
                            }
                        }
                    });
                } catch (RuntimeException e) {
                    // no metadata within max.block.ms: nobody answers for the partition; the next write tries again
                }
                Thread.sleep(pause);
            }
            producer.close(Duration.ZERO);
        }
    }
}
