// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.localcluster;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.Comparator;
import java.util.Optional;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Faults on a broker's disk: a log directory that fails under the running broker; and on a stopped broker's
 * disk: the tail of a replica's log cut as if the last writes never reached it, the
 * clean-shutdown marker deleted so the next start counts as unclean, and a start on a disk Kafka refuses. Each needs
 * the broker stopped: a running broker keeps its segments open and recovers its log only at start-up.
 */
public final class DiskFaults {

    private static final Logger LOG = LoggerFactory.getLogger(LocalKafkaCluster.class);
    private static final String CLEAN_SHUTDOWN_MARKER = ".kafka_cleanshutdown";
    private static final Pattern SEGMENT_FILE = Pattern.compile("\\d{20}\\.log");

    private final ClusterLayout layout;
    private final NodeLifecycle lifecycle;

    DiskFaults(ClusterLayout layout, NodeLifecycle lifecycle) {
        this.layout = layout;
        this.lifecycle = lifecycle;
    }

    /** Where the broker keeps its replica of {@code partition}: {@code <log.dirs>/<topic>-<partition>}. */
    public Path replicaDirectory(int brokerId, TopicPartition partition) {
        return layout.node(brokerId).dataDirectory().resolve(partition.topic() + "-" + partition.partition());
    }

    /**
     * Cuts the tail of the last segment of {@code brokerId}'s replica of {@code partition}, as if the
     * last writes never reached the disk. Only while the broker is stopped: a running broker keeps
     * the segment open, and log recovery, which notices the cut, runs only at start-up (after an
     * unclean shutdown, or once the clean-shutdown marker is deleted).
     */
    public SegmentTruncation truncateReplicaLog(TopicPartition partition, int brokerId, LogTailCut cut) {
        synchronized (lifecycle) {
            return truncateStopped(partition, brokerId, cut);
        }
    }

    private SegmentTruncation truncateStopped(TopicPartition partition, int brokerId, LogTailCut cut) {
        KafkaNode broker = lifecycle.requireStopped(layout.broker(brokerId), "cut its log");
        Path partitionDirectory = replicaDirectory(brokerId, partition);
        if (!Files.isDirectory(partitionDirectory)) {
            throw new LocalClusterException(broker.name() + " holds no replica of " + partition + ": "
                    + partitionDirectory + " does not exist; check the partition's replicas");
        }
        Path lastSegment;
        try (Stream<Path> files = Files.list(partitionDirectory)) {
            lastSegment = files.filter(file -> SEGMENT_FILE.matcher(file.getFileName().toString()).matches())
                    .max(Comparator.comparing(file -> file.getFileName().toString()))
                    .orElseThrow(() -> new LocalClusterException("no *.log segment in " + partitionDirectory));
        } catch (IOException e) {
            throw new UncheckedIOException("could not list " + partitionDirectory, e);
        }
        try (FileChannel segment = FileChannel.open(lastSegment, StandardOpenOption.WRITE)) {
            long before = segment.size();
            long after = cut.newLength(before);
            segment.truncate(after);
            segment.force(true);
            LOG.info("cut {} from {} to {} bytes", lastSegment, before, after);
            return new SegmentTruncation(lastSegment, before, after);
        } catch (IOException e) {
            throw new UncheckedIOException("could not truncate " + lastSegment, e);
        }
    }

    /** The broker's second log directory, on a disk of its own ({@link ClusterBuilder#failableLogDir}). */
    public Path failableLogDir(int brokerId) {
        return loopDisk(brokerId).logDir();
    }

    /**
     * Fails the broker's second log directory under the running broker, as a disk's I/O error does (see
     * {@link LoopDisk}), and returns once the broker has logged that it stopped serving the replicas there: Kafka
     * marks a directory offline at its first failed write (the high watermark checkpoint writes to every directory
     * within {@code replica.high.watermark.checkpoint.interval.ms}). The broker stays up; its replicas there go
     * offline. The directory stays readable.
     */
    public Path failLogDir(int brokerId, Duration timeout) {
        LoopDisk disk = loopDisk(brokerId);
        KafkaNode broker = layout.broker(brokerId);
        String stopped = "Stopped serving replicas in dir " + disk.logDir();
        synchronized (lifecycle) {
            if (!broker.isRunning()) {
                throw new IllegalStateException(broker.name() + " is not running: a log directory fails under a"
                        + " running broker");
            }
            disk.fail();
        }
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!broker.log().readSince(broker.logLengthAtStart()).contains(stopped)) {
            if (System.nanoTime() > deadline) {
                throw new LocalClusterException(broker.name() + " did not log '" + stopped + "' within "
                        + timeout.toSeconds() + " s of its disk failing; last lines of " + broker.log().file() + ":\n"
                        + NodeLifecycle.tailText(broker));
            }
            NodeLifecycle.pollPause();
        }
        LOG.info("{} stopped serving the replicas in {}", broker.name(), disk.logDir());
        return disk.logDir();
    }

    /**
     * Repairs the broker's failed second log directory while the broker is stopped (its file system checked and
     * mounted read-write again, its files as the failure left them), so that its next start loads the replicas there.
     */
    public void repairLogDir(int brokerId) {
        synchronized (lifecycle) {
            lifecycle.requireStopped(layout.broker(brokerId), "repair its log directory");
            loopDisk(brokerId).repair();
        }
    }

    private LoopDisk loopDisk(int brokerId) {
        LoopDisk disk = layout.loopDisks.get(brokerId);
        if (disk == null) {
            throw new IllegalArgumentException("broker " + brokerId + " has no failable log directory; give it one"
                    + " with ClusterBuilder.failableLogDir or @KafkaClusterTest(failableLogDirOn = ...)");
        }
        return disk;
    }

    /**
     * Deletes the broker's {@code .kafka_cleanshutdown} marker so that its next start counts as
     * unclean: log recovery runs and the controller drops it from ELR (KIP-966). Only while stopped.
     *
     * @return whether a marker existed
     */
    public boolean deleteCleanShutdownMarker(int brokerId) {
        synchronized (lifecycle) {
            KafkaNode broker = lifecycle.requireStopped(layout.broker(brokerId), "delete its clean-shutdown marker");
            try {
                return Files.deleteIfExists(broker.dataDirectory().resolve(CLEAN_SHUTDOWN_MARKER));
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    }

    /** Whether the broker's log directory holds a clean-shutdown marker (written by a CLEAN stop). */
    public boolean hasCleanShutdownMarker(int brokerId) {
        return Files.exists(layout.broker(brokerId).dataDirectory().resolve(CLEAN_SHUTDOWN_MARKER));
    }

    /**
     * Starts the broker on a disk its log loading is expected to fail on (the broker does not start, or shuts down
     * once every log dir is marked failed), and returns what it logged once its JVM has exited by itself.
     *
     * @throws LocalClusterException when it still runs after {@code timeout}: Kafka did not refuse the disk (the
     *                               broker is then killed, so the cluster is left as the caller found it)
     */
    public String startBrokerExpectingExit(int brokerId, Duration timeout) {
        synchronized (lifecycle) {
            return startExpectingExit(layout.broker(brokerId), timeout);
        }
    }

    private String startExpectingExit(KafkaNode broker, Duration timeout) {
        if (lifecycle.isClosed()) {
            throw new IllegalStateException("this local cluster is closed");
        }
        if (broker.isRunning()) {
            throw new IllegalStateException(broker.name() + " is already running (pid " + broker.process().pid() + ")");
        }
        lifecycle.launch(broker, lifecycle.nodeLoggingConfig());
        RunningNode process = broker.process();
        Optional<Integer> status = process.awaitExit(timeout);
        String log = broker.log().readSince(broker.logLengthAtStart());
        if (status.isEmpty()) {
            process.kill();
            broker.stopped(StopMode.ABRUPT, layout.controller.log().length());
            throw new LocalClusterException(broker.name() + " still ran " + timeout.toSeconds() + " s after it started,"
                    + " so Kafka did not refuse its disk; it was killed; last lines of " + broker.log().file() + ":\n"
                    + NodeLifecycle.tailText(broker));
        }
        process.release();
        broker.stopped(StopMode.ABRUPT, layout.controller.log().length());
        LOG.info("{} exited with status {} as expected, refusing its disk", broker.name(), status.get());
        return log;
    }
}
