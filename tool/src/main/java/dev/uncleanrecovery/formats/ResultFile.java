// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.formats;

import com.fasterxml.jackson.annotation.JsonInclude;
import dev.uncleanrecovery.support.DurableFiles;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;

/**
 * The result file {@code execute} writes next to the plan: per partition the state before, what was done, the
 * state after; a summary; and the warnings an operator must act on.
 *
 * @param hangingTransactions found on the elected partitions after electing; null when not looked for (a dry run, or
 *                            a file written before version 2)
 * @param salvageDir          where the doomed ranges were copied before electing; null with --no-salvage (and before
 *                            version 3)
 * @param salvage             what to know of the salvage as a whole ("--no-salvage: nothing was kept"); or null
 * @param leadersShownMs      how long after the controller answered the last election request the brokers' metadata
 *                            showed a leader for every partition elected; null when nothing was elected, some showed
 *                            none, or the file is older than version 6
 * @param runLock             what became of the run lock at the end of the run (version 8); null in a dry run and in
 *                            older files
 */
public record ResultFile(int version, String clusterId, String planFile, String tool, Instant startedAt,
                         long elapsedMs, String elector, Summary summary, List<Partition> partitions,
                         List<String> warnings, List<HangingTransaction> hangingTransactions, String salvageDir,
                         String salvage, Long leadersShownMs,
                         @JsonInclude(JsonInclude.Include.NON_NULL) List<ConsumerOffsetReset> consumerOffsetResets,
                         @JsonInclude(JsonInclude.Include.NON_NULL) RunLockFate runLock) {

    /** A result without consumer offset resets. */
    public ResultFile(int version, String clusterId, String planFile, String tool, Instant startedAt, long elapsedMs,
                      String elector, Summary summary, List<Partition> partitions, List<String> warnings,
                      List<HangingTransaction> hangingTransactions, String salvageDir, String salvage,
                      Long leadersShownMs) {
        this(version, clusterId, planFile, tool, startedAt, elapsedMs, elector, summary, partitions, warnings,
                hangingTransactions, salvageDir, salvage, leadersShownMs, null);
    }

    /** A result without the run lock's fate. */
    public ResultFile(int version, String clusterId, String planFile, String tool, Instant startedAt, long elapsedMs,
                      String elector, Summary summary, List<Partition> partitions, List<String> warnings,
                      List<HangingTransaction> hangingTransactions, String salvageDir, String salvage,
                      Long leadersShownMs, List<ConsumerOffsetReset> consumerOffsetResets) {
        this(version, clusterId, planFile, tool, startedAt, elapsedMs, elector, summary, partitions, warnings,
                hangingTransactions, salvageDir, salvage, leadersShownMs, consumerOffsetResets, null);
    }

    /** The same result, at this version, with the consumer offset resets made (or shown) for it. */
    public ResultFile withConsumerOffsetResets(List<ConsumerOffsetReset> resets) {
        return new ResultFile(VERSION, clusterId, planFile, tool, startedAt, elapsedMs, elector, summary, partitions,
                warnings, hangingTransactions, salvageDir, salvage, leadersShownMs, List.copyOf(resets), runLock);
    }

    /** The same result, at this version, with the hanging transactions as a later abort left them. */
    public ResultFile withHangingTransactions(List<HangingTransaction> hanging) {
        return new ResultFile(VERSION, clusterId, planFile, tool, startedAt, elapsedMs, elector, summary, partitions,
                warnings, List.copyOf(hanging), salvageDir, salvage, leadersShownMs, consumerOffsetResets, runLock);
    }

    /** The same result with what became of the run lock; null leaves it out (a dry run takes none). */
    public ResultFile withRunLock(RunLockFate fate) {
        return new ResultFile(version, clusterId, planFile, tool, startedAt, elapsedMs, elector, summary, partitions,
                warnings, hangingTransactions, salvageDir, salvage, leadersShownMs, consumerOffsetResets, fate);
    }

    /**
     * 2 adds the hanging transactions and the measured truncations; 3 the salvage; 4 the replicas of unknown loss; 5 each
     * salvage manifest's SHA-256; 6 how long the new leaders took to show (leadersShownMs); 7 the consumer offset
     * resets; 8 what became of the run lock (runLock) and the groups an earlier run had set back (ALREADY_RESET).
     */
    public static final int VERSION = 8;

    private static final StrictJsonFile<ResultFile> FORMAT = new StrictJsonFile<>(ResultFile.class, "result file", 1,
            VERSION, "'kafka-unclean-recovery.sh execute'", PlanFormatException::new);

    /**
     * One doomed range copied before the election: offsets {@code [fromOffset, toOffset)} of {@code broker}.
     *
     * @param sources        how it was read (FETCH_DEBUG_REPLICA, FETCH_FUTURE_REPLICA, DISK), in order
     * @param segment        the Kafka segment file of the original batches; {@code manifest} describes it
     * @param manifestSha256 SHA-256 of the manifest file as written (lower-case hex), which holds each segment file's:
     *                       {@code replay} checks the salvage against it (version 5; null in older files)
     */
    public record Salvaged(int broker, long fromOffset, long toOffset, long records, int batches, long bytes,
                           List<String> sources, String segment, String manifest, String manifestSha256) {
    }

    /**
     * An open transaction on an elected partition that nothing will close (see {@code kafka-transactions.sh
     * find-hanging}): read_committed consumers stop at {@code startOffset} until {@code abortCommand} is run.
     *
     * @param aborted    {@code --abort-hanging-transactions}: true when the run wrote its abort marker, false when it
     *                   did not ({@code abortError} says why); null when not asked (and in older files)
     * @param abortError why the run did not abort it; null otherwise
     */
    public record HangingTransaction(String topic, int partition, long producerId, int producerEpoch, long startOffset,
                                     String why, String abortCommand, Boolean aborted, String abortError) {
        public HangingTransaction {
            Checks.topic(topic, "topic");
        }
    }

    /** @param wouldElect dry runs only: partitions that passed every check (absent from older files: 0) */
    public record Summary(long elected, long alreadyRecovered, long refused, long electedOther, long failed,
                          Long wouldElect) {
        public Summary {
            wouldElect = wouldElect == null ? 0L : wouldElect;
        }
    }

    /**
     * @param outcome     ELECTED, ALREADY_RECOVERED, REFUSED, ELECTED_OTHER, FAILED or (dry run) WOULD_ELECT
     * @param truncations elected partitions only: what each other replica loses, planned and measured (version 2)
     * @param salvaged    the doomed ranges copied before electing; null when nothing was (version 3)
     * @param unknownLoss the replicas whose loss the run could not know (their brokers down, no evidence of their log),
     *                    of a partition it elected; null when none (version 4)
     */
    public record Partition(String topic, int partition, int designatedLeader, String outcome, String detail,
                            State before, State after, List<Truncation> truncations, List<Salvaged> salvaged,
                            @JsonInclude(JsonInclude.Include.NON_NULL) List<Integer> unknownLoss) {
        public Partition {
            Checks.topic(topic, "topic");
        }
    }

    /**
     * One replica's loss under the elected leader: offsets {@code [from, toOffset)}.
     *
     * @param plannedFromOffset  what the plan said; absent when it did not know
     * @param measuredFromOffset what the brokers answered after the election (the look-up the follower makes before
     *                           it truncates); absent when they did not answer
     * @param toOffset           the replica's log end offset before the election
     */
    public record Truncation(int broker, Long plannedFromOffset, Long measuredFromOffset, long toOffset) {
    }

    /** The partition as the controller described it. */
    public record State(int leader, int leaderEpoch, List<Integer> replicas, List<Integer> isr,
                        List<Integer> eligibleLeaderReplicas, List<Integer> lastKnownElr) {
    }

    /**
     * Written whole or not at all, on the disk before the tool says it is, and never over an earlier result: it is
     * the record of what was done to the cluster: under the first free name ({@code file}, then {@code <name>-2.json},
     * {@code -3}, ...).
     *
     * @return where it was written
     */
    public static Path write(Path file, ResultFile result) throws IOException {
        Path first = file.toAbsolutePath();
        return DurableFiles.writeUnderFreeName(n -> n == 1 ? first : numbered(first, n), Json.fileContent(result));
    }

    /** {@code plan-result.json} → {@code plan-result-2.json}. */
    private static Path numbered(Path file, int n) {
        String name = file.getFileName().toString();
        int dot = name.endsWith(".json") ? name.length() - 5 : name.length();
        return file.resolveSibling(name.substring(0, dot) + "-" + n + name.substring(dot));
    }

    /**
     * Reads a result file of any version this tool wrote, checking each topic name.
     *
     * @throws PlanFormatException with the file, the JSON path and what is wrong, in one line
     */
    public static ResultFile read(Path file) throws IOException {
        return FORMAT.read(file);
    }
}
