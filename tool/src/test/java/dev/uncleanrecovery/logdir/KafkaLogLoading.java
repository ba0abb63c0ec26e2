// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.logdir;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.net.MalformedURLException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * Kafka 4.4's own log loading in this JVM, as the oracle of what a broker holds after it restarts on a disk: {@code
 * UnifiedLog.create} (LogLoader, log recovery, the leader epoch cache) on a partition directory, exactly as the
 * broker's LogManager calls it, from the stock server jars the build resolves ({@code target/kafka-server-4.4.0.classpath})
 * in a class loader of their own. Kafka's recovery writes to the directory (truncates, rebuilds indexes): give it a copy.
 */
final class KafkaLogLoading implements AutoCloseable {

    /**
     * What Kafka made of one partition directory.
     *
     * @param failure null when the log loaded; otherwise how Kafka's loading failed
     * @param cause   the exception Kafka's loading threw, for messages; null when it loaded
     * @param batches of the offsets asked, those the loaded log holds: the batch Kafka reads first from there
     */
    record Outcome(long logStartOffset, long logEndOffset, int latestEpoch, List<EpochEntry> epochs,
                   KafkaLoadFailure failure, String cause, Map<Long, LoggedBatch> batches) {

        /**
         * Where inspect's batches differ from what this loaded log reads: one it kept that Kafka reads otherwise, or,
         * when {@code complete}, one Kafka reads first at a latest epoch's start or at the log end that it did not keep;
         * null when none. (Keeping fewer only makes the plan count more as lost; keeping one Kafka does not read
         * there could make it count a lost record kept.)
         */
        String batchesDifferFrom(PartitionLogSummary inspected, boolean complete) {
            for (LoggedBatch kept : inspected.batches()) {
                if (!kept.equals(batches.get(kept.baseOffset()))) {
                    return "inspect kept " + kept + ", Kafka reads " + batches.get(kept.baseOffset());
                }
            }
            if (!complete) {
                return null;
            }
            List<Long> due = new ArrayList<>();
            List<EpochEntry> cache = inspected.leaderEpochs();
            cache.subList(Math.max(0, cache.size() - LoggedBatchReader.EPOCHS), cache.size())
                    .forEach(e -> due.add(e.startOffset()));
            due.add(inspected.logEndOffset() - 1);
            for (long offset : due) {
                LoggedBatch read = batches.get(offset);
                if (read != null && !inspected.batches().contains(read)) {
                    return "Kafka reads " + read + " at " + offset + ", which inspect did not keep: " + inspected.batches();
                }
            }
            return null;
        }
    }

    /**
     * Whether inspect must have kept the batches where a new leader may cut {@code inspected}, as {@code complete} of
     * {@link Outcome#batchesDifferFrom} asks, on a broker's own disk (no damage seeded): it keeps fewer only from a log
     * it has a note on (a torn end, an odd file, an unreadable header) or whose recovery cuts data. On seeded damage
     * it may keep fewer without a note (its reads stop at a zeroed page that Kafka's index steps over): fewer is the
     * larger loss statement, never a wrong one.
     */
    static boolean mustKeepBatches(PartitionLogSummary inspected) {
        return !inspected.batches().isEmpty() || inspected.notes().isEmpty() && inspected.recoveryCutsData() == null;
    }

    /** The offsets whose batches {@link Outcome#batchesDifferFrom} compares. */
    static List<Long> batchOffsets(PartitionLogSummary inspected) {
        List<Long> offsets = new ArrayList<>();
        inspected.batches().forEach(b -> offsets.add(b.baseOffset()));
        inspected.leaderEpochs().forEach(e -> offsets.add(e.startOffset()));
        if (inspected.logEndOffset() > 0) {
            offsets.add(inspected.logEndOffset() - 1);
        }
        return offsets;
    }

    private final URLClassLoader loader;
    private final Class<?> schedulerType;
    private final Class<?> fetchIsolation;
    private final Object upToLogEnd;
    private final Method batchesOf;
    private final Method baseOffset;
    private final Method lastOffset;
    private final Method checksum;
    private final Object topicStats;
    private final Method create;
    private final Class<?> logConfig;
    private final Class<?> failureChannel;
    private final Object time;
    private final Object producerStateConfig;

    private KafkaLogLoading(URLClassLoader loader) throws ReflectiveOperationException {
        this.loader = loader;
        Class<?> unifiedLog = type("org.apache.kafka.storage.internals.log.UnifiedLog");
        logConfig = type("org.apache.kafka.storage.internals.log.LogConfig");
        failureChannel = type("org.apache.kafka.storage.internals.log.LogDirFailureChannel");
        Class<?> scheduling = type("org.apache.kafka.server.util.Scheduler");
        Class<?> stats = type("org.apache.kafka.storage.log.metrics.BrokerTopicStats");
        Class<?> clock = type("org.apache.kafka.common.utils.Time");
        Class<?> producerState = type("org.apache.kafka.storage.internals.log.ProducerStateManagerConfig");
        create = unifiedLog.getMethod("create", File.class, logConfig, long.class, long.class, scheduling, stats, clock,
                int.class, producerState, int.class, failureChannel, boolean.class, Optional.class);
        schedulerType = type("org.apache.kafka.server.util.KafkaScheduler");
        fetchIsolation = type("org.apache.kafka.server.storage.log.FetchIsolation");
        upToLogEnd = fetchIsolation.getField("LOG_END").get(null);
        batchesOf = type("org.apache.kafka.common.record.internal.Records").getMethod("batches");
        Class<?> batch = type("org.apache.kafka.common.record.internal.RecordBatch");
        baseOffset = batch.getMethod("baseOffset");
        lastOffset = batch.getMethod("lastOffset");
        checksum = batch.getMethod("checksum");
        topicStats = stats.getConstructor().newInstance();
        time = clock.getField("SYSTEM").get(null);
        // Kafka's defaults: transactional.id.expiration / producer id expiration 1 day, no transaction verification
        producerStateConfig = producerState.getConstructor(int.class, boolean.class).newInstance(86_400_000, false);
    }

    /** @throws org.opentest4j.TestAbortedException when the build has not resolved the server jars */
    static KafkaLogLoading open() {
        // Kafka logs through log4j2 in its own loader: its recovery warnings are expected here, not news
        System.setProperty("org.apache.logging.log4j.level", System.getProperty("org.apache.logging.log4j.level", "OFF"));
        Path file = Path.of(System.getProperty("kafka.server.classpath.file", "target/kafka-server-4.4.0.classpath"));
        org.junit.jupiter.api.Assumptions.assumeTrue(Files.isRegularFile(file),
                "the Kafka 4.4 server classpath " + file + " (written by the build's kafka-servers module)");
        try {
            List<URL> jars = new ArrayList<>();
            for (String jar : Files.readString(file, StandardCharsets.UTF_8).trim().split(File.pathSeparator)) {
                jars.add(Path.of(jar).toUri().toURL());
            }
            return new KafkaLogLoading(new URLClassLoader("kafka-4.4-server", jars.toArray(URL[]::new),
                    ClassLoader.getPlatformClassLoader()));
        } catch (MalformedURLException e) {
            throw new IllegalStateException(e);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("Kafka 4.4's UnifiedLog.create is not what this oracle expects", e);
        }
    }

    /**
     * Loads {@code partitionDir} as the broker's LogManager would: with the log start offset and recovery point its
     * log dir's checkpoints give the partition (0 where they have none), and whether the log dir had a clean-shutdown
     * marker. Kafka's LogManager turns an IOException, or a KafkaStorageException over one, into a failed log dir and
     * lets any other exception stop the broker; so does this.
     */
    Outcome load(Path partitionDir, long logStartOffset, long recoveryPoint, boolean hadCleanShutdown,
                 Collection<Long> batchesAt) {
        Thread thread = Thread.currentThread();
        ClassLoader previous = thread.getContextClassLoader();
        thread.setContextClassLoader(loader);
        Object log = null;
        Object channel = null;
        Object scheduler = null;
        try {
            // a scheduler per load, stopped with it: Kafka writes a truncated epoch cache's checkpoint on it, after
            // the load returns, and nothing may write into the directory once the outcome is known
            scheduler = schedulerType.getConstructor(int.class).newInstance(1);
            scheduler.getClass().getMethod("startup").invoke(scheduler);
            channel = failureChannel.getConstructor(int.class).newInstance(1);
            Object config = logConfig.getConstructor(Map.class).newInstance(Map.of());
            log = create.invoke(null, partitionDir.toFile(), config, logStartOffset, recoveryPoint, scheduler,
                    topicStats, time, 900_000, producerStateConfig, 600_000, channel, hadCleanShutdown, Optional.empty());
            if (offline(channel, partitionDir)) {
                return failed(KafkaLoadFailure.LOG_DIR_OFFLINE, "the log dir was marked failed");
            }
            Class<?> type = log.getClass();
            @SuppressWarnings("unchecked")
            Optional<Integer> epoch = (Optional<Integer>) type.getMethod("latestEpoch").invoke(log);
            Object cache = type.getMethod("leaderEpochCache").invoke(log);
            List<EpochEntry> epochs = new ArrayList<>();
            for (Object entry : (List<?>) cache.getClass().getMethod("epochEntries").invoke(cache)) {
                epochs.add(new EpochEntry((int) entry.getClass().getMethod("epoch").invoke(entry),
                        (long) entry.getClass().getMethod("startOffset").invoke(entry)));
            }
            long logEnd = (long) type.getMethod("logEndOffset").invoke(log);
            Map<Long, LoggedBatch> batches = new TreeMap<>();
            for (long offset : batchesAt) {
                if (offset < logEnd) {
                    batchAt(log, offset).ifPresent(batch -> batches.put(offset, batch));
                }
            }
            return new Outcome((long) type.getMethod("logStartOffset").invoke(log), logEnd, epoch.orElse(-1),
                    List.copyOf(epochs), null, null, batches);
        } catch (InvocationTargetException e) {
            Throwable thrown = e.getCause();
            boolean storage = thrown instanceof IOException || (thrown.getClass().getSimpleName()
                    .equals("KafkaStorageException") && thrown.getCause() instanceof IOException);
            return failed(storage || offline(channel, partitionDir) ? KafkaLoadFailure.LOG_DIR_OFFLINE
                    : KafkaLoadFailure.BROKER_DOES_NOT_START, thrown.toString());
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException(e);
        } finally {
            if (log != null) {
                try {
                    log.getClass().getMethod("close").invoke(log);
                } catch (ReflectiveOperationException e) {
                    // the outcome is known; a log that does not close leaves only open files in a temporary dir
                }
            }
            if (scheduler != null) {
                try {
                    scheduler.getClass().getMethod("shutdown").invoke(scheduler); // waits for the tasks it runs
                } catch (ReflectiveOperationException e) {
                    // a scheduler that does not stop leaves a thread of this test JVM
                }
            }
            thread.setContextClassLoader(previous);
        }
    }

    /** The first batch Kafka's log reads from {@code offset} (a fetch up to the log end), as its header gives it. */
    private Optional<LoggedBatch> batchAt(Object log, long offset) throws ReflectiveOperationException {
        Method read = log.getClass().getMethod("read", long.class, int.class, fetchIsolation, boolean.class);
        Object info;
        try {
            info = read.invoke(log, offset, 1, upToLogEnd, true);
        } catch (InvocationTargetException e) {
            return Optional.empty(); // a batch Kafka cannot read there: none kept must be the answer
        }
        Object records = info.getClass().getField("records").get(info);
        for (Object batch : (Iterable<?>) batchesOf.invoke(records)) {
            return Optional.of(new LoggedBatch((long) baseOffset.invoke(batch), (long) lastOffset.invoke(batch),
                    (long) checksum.invoke(batch)));
        }
        return Optional.empty();
    }

    private static boolean offline(Object channel, Path partitionDir) {
        if (channel == null) {
            return false;
        }
        try {
            return (boolean) channel.getClass().getMethod("hasOfflineLogDir", String.class)
                    .invoke(channel, partitionDir.getParent().toString());
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException(e);
        }
    }

    private static Outcome failed(KafkaLoadFailure failure, String cause) {
        return new Outcome(-1, -1, -1, List.of(), failure, cause, Map.of());
    }

    private Class<?> type(String name) throws ClassNotFoundException {
        return Class.forName(name, true, loader);
    }

    @Override
    public void close() throws Exception {
        topicStats.getClass().getMethod("close").invoke(topicStats);
        loader.close();
    }
}
