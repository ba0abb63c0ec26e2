// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.execute;

import dev.uncleanrecovery.cluster.HangingTransactions;
import java.util.Optional;
import dev.uncleanrecovery.salvage.SalvagedFile;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.TopicPartition;

/**
 * What {@code execute} did with a plan: per partition the state before, the action, the state after.
 *
 * @param elector how elections were made (stock reorder + UNCLEAN, or native ElectLeaders v3)
 * @param hanging the hanging transactions found on the elected partitions afterwards; null when not looked for
 * @param salvageDir where doomed ranges were copied; null with --no-salvage or when salvage was not asked for
 * @param salvageNote what the operator must know of the salvage as a whole ("--no-salvage: nothing was kept"); or null
 * @param salvaged per partition whose doomed ranges were copied before electing, the files
 * @param unknownLoss per partition that was (or in a dry run would be) elected, the replicas whose loss is not known,
 *                    with why
 * @param unknownLossAccepted --accept-unknown-loss: such a loss does not need the operator's attention
 * @param leadersShownAfter how long after the controller's answer to the last election the brokers' metadata showed
 *                          every new leader (see {@link DesignatedElector#leadersShownAfter}); null when not all were
 * @param metadataLag       the live brokers whose metadata still showed no leader for some elected partition when the
 *                          verify timeout ran out: clients asking them see those partitions offline
 */
public record ExecutionResult(String clusterId, String planFile, Instant startedAt, Duration elapsed,
                              String elector, List<PartitionOutcome> partitions, HangingTransactions.Result hanging,
                              Map<TopicPartition, List<MeasuredTruncation>> truncations, String salvageDir,
                              String salvageNote, Map<TopicPartition, List<SalvagedFile>> salvaged,
                              Map<TopicPartition, Map<Integer, String>> unknownLoss, boolean unknownLossAccepted,
                              Duration leadersShownAfter, List<MetadataLag> metadataLag) {

    public ExecutionResult {
        metadataLag = List.copyOf(metadataLag);
        partitions = List.copyOf(partitions);
        truncations = Map.copyOf(truncations);
        salvaged = Map.copyOf(salvaged);
        unknownLoss = Map.copyOf(unknownLoss);
    }

    public ExecutionResult(String clusterId, String planFile, Instant startedAt, Duration elapsed, String elector,
                           List<PartitionOutcome> partitions) {
        this(clusterId, planFile, startedAt, elapsed, elector, partitions, null, Map.of(), null, null, Map.of(), Map.of(),
                false, null, List.of());
    }

    public ExecutionResult withHanging(HangingTransactions.Result found) {
        return new ExecutionResult(clusterId, planFile, startedAt, elapsed, elector, partitions, found, truncations,
                salvageDir, salvageNote, salvaged, unknownLoss, unknownLossAccepted, leadersShownAfter, metadataLag);
    }

    /** How long the brokers' metadata took to show every new leader, and which lagged, as the elector measured it. */
    public ExecutionResult withLeadersShown(Duration shown, List<MetadataLag> lagging) {
        return new ExecutionResult(clusterId, planFile, startedAt, elapsed, elector, partitions, hanging, truncations,
                salvageDir, salvageNote, salvaged, unknownLoss, unknownLossAccepted, shown, lagging);
    }

    /** What the other replicas of each elected partition lose, planned and measured after the election. */
    public ExecutionResult withTruncations(Map<TopicPartition, List<MeasuredTruncation>> measured) {
        return new ExecutionResult(clusterId, planFile, startedAt, elapsed, elector, partitions, hanging, measured,
                salvageDir, salvageNote, salvaged, unknownLoss, unknownLossAccepted, leadersShownAfter, metadataLag);
    }

    /** Where the doomed ranges were copied before electing, and what was. */
    public ExecutionResult withSalvage(String directory, String note, Map<TopicPartition, List<SalvagedFile>> files) {
        return new ExecutionResult(clusterId, planFile, startedAt, elapsed, elector, partitions, hanging, truncations,
                directory, note, files, unknownLoss, unknownLossAccepted, leadersShownAfter, metadataLag);
    }

    /** The replicas whose loss is not known, per partition that proceeded to the election. */
    public ExecutionResult withUnknownLoss(Map<TopicPartition, Map<Integer, String>> unknown, boolean accepted) {
        return new ExecutionResult(clusterId, planFile, startedAt, elapsed, elector, partitions, hanging, truncations,
                salvageDir, salvageNote, salvaged, unknown, accepted, leadersShownAfter, metadataLag);
    }

    /** The partitions elected (or, in a dry run, that would be) with a replica whose loss is not known. */
    public List<TopicPartition> electedWithUnknownLoss() {
        return partitions.stream().filter(p -> unknownLoss.containsKey(p.topicPartition()))
                .filter(p -> p.outcome() == Outcome.ELECTED || p.outcome() == Outcome.ELECTED_OTHER
                        || p.outcome() == Outcome.WOULD_ELECT)
                .map(PartitionOutcome::topicPartition).toList();
    }

    public long count(Outcome outcome) {
        return partitions.stream().filter(p -> p.outcome() == outcome).count();
    }

    public boolean anyUncleanElection() {
        return count(Outcome.ELECTED) + count(Outcome.ELECTED_OTHER) > 0;
    }

    /** Some partition was refused, or an election's loss is not known and that was not accepted. */
    public boolean needsAttention() {
        return partitions.stream().anyMatch(p -> p.outcome().needsAttention())
                || (!unknownLossAccepted && !electedWithUnknownLoss().isEmpty());
    }

    /** How a warning begins that names partitions not looked at for hanging transactions (and why). */
    public static final String NOT_CHECKED_FOR_HANGING = "Not checked for hanging transactions: ";

    /** What the operator must act on after this run. */
    public List<String> warnings(String bootstrapServer) {
        List<String> warnings = new java.util.ArrayList<>();
        if (hanging != null) {
            for (HangingTransactions.Hanging h : hanging.hanging()) {
                Optional<HangingTransactions.Abort> abort = hanging.abortOf(h);
                if (abort.isPresent() && abort.get().aborted()) {
                    continue; // closed by this run: nothing left to act on
                }
                warnings.add("Hanging transaction on " + h.topicPartition() + " (producer id " + h.producerId()
                        + ", epoch " + h.producerEpoch() + ", from offset " + h.startOffset() + "): " + h.why()
                        + "; read_committed consumers stop at offset " + h.startOffset() + ". Abort it with: "
                        + h.abortCommand(bootstrapServer)
                        + abort.map(a -> " (--abort-hanging-transactions did not: " + a.detail() + ")").orElse(""));
            }
            hanging.unreadable().forEach(line -> warnings.add(NOT_CHECKED_FOR_HANGING + line));
        }
        if (anyUncleanElection() && (hanging == null || !hanging.unreadable().isEmpty())) {
            warnings.add("Unclean elections happened: transactions whose markers were lost may hang and block"
                    + " read_committed consumers. Check with: kafka-transactions.sh --bootstrap-server " + bootstrapServer
                    + " find-hanging --broker-id <each broker id>");
        }
        metadataLag.forEach(lag -> warnings.add(lag.describe()));
        List<TopicPartition> unknown = electedWithUnknownLoss();
        if (!unknown.isEmpty()) {
            warnings.add(unknown.size() + " partition(s) " + (count(Outcome.WOULD_ELECT) > 0 ? "would be" : "were")
                    + " elected while what some replica loses is NOT KNOWN: " + unknown.stream().limit(5)
                    .map(tp -> tp + " (broker(s) " + unknownLoss.get(tp).keySet().stream().sorted().map(String::valueOf)
                            .collect(java.util.stream.Collectors.joining(", ")) + ")")
                    .collect(java.util.stream.Collectors.joining(", ")) + (unknown.size() > 5 ? ", ..." : "")
                    + ". Their brokers were down or did not answer, and no 'inspect' evidence says what they hold:"
                    + " before they restart and follow the new leaders, copy what they would lose with 'inspect"
                    + " --salvage-beyond <plan>' on their hosts" + (unknownLossAccepted
                            ? " (--accept-unknown-loss)" : "; exit 3 unless --accept-unknown-loss"));
        }
        if (anyElectedOther()) {
            warnings.add("The controller elected a replica other than the designated one for some partitions"
                    + " (ELECTED_OTHER): check them now; their log may be shorter than the one the plan chose.");
        }
        return warnings;
    }

    public dev.uncleanrecovery.formats.ResultFile toResultFile(String tool, String bootstrapServer) {
        return new dev.uncleanrecovery.formats.ResultFile(dev.uncleanrecovery.formats.ResultFile.VERSION, clusterId, planFile, tool,
                startedAt, elapsed.toMillis(), elector,
                new dev.uncleanrecovery.formats.ResultFile.Summary(count(Outcome.ELECTED), count(Outcome.ALREADY_RECOVERED),
                        count(Outcome.REFUSED), count(Outcome.ELECTED_OTHER), count(Outcome.FAILED),
                        count(Outcome.WOULD_ELECT)),
                resultPartitions(),
                warnings(bootstrapServer),
                hanging == null ? null : hanging.hanging().stream().map(h -> new dev.uncleanrecovery.formats.ResultFile.HangingTransaction(
                        h.topicPartition().topic(), h.topicPartition().partition(), h.producerId(), h.producerEpoch(),
                        h.startOffset(), h.why(), h.abortCommand(bootstrapServer),
                        hanging.abortOf(h).map(HangingTransactions.Abort::aborted).orElse(null),
                        hanging.abortOf(h).map(HangingTransactions.Abort::detail).orElse(null))).toList(),
                salvageDir, salvageNote, leadersShownAfter == null ? null : leadersShownAfter.toMillis());
    }

    /**
     * The result file's entries as a view of the outcomes: each is made when it is read, so writing the file goes
     * through them one at a time and nothing holds them all (with 100,000 partitions, the outcomes already are).
     */
    private List<dev.uncleanrecovery.formats.ResultFile.Partition> resultPartitions() {
        return new java.util.AbstractList<>() {
            @Override
            public dev.uncleanrecovery.formats.ResultFile.Partition get(int index) {
                return resultPartition(partitions.get(index));
            }

            @Override
            public int size() {
                return partitions.size();
            }
        };
    }

    private dev.uncleanrecovery.formats.ResultFile.Partition resultPartition(PartitionOutcome p) {
        return new dev.uncleanrecovery.formats.ResultFile.Partition(p.topicPartition().topic(),
                p.topicPartition().partition(), p.designatedLeader(), p.outcome().name(), p.detail(),
                state(p.before()), state(p.after()),
                truncations.containsKey(p.topicPartition()) ? truncations.get(p.topicPartition()).stream()
                        .map(t -> new dev.uncleanrecovery.formats.ResultFile.Truncation(t.broker(),
                                t.plannedFrom() < 0 ? null : t.plannedFrom(),
                                t.isMeasured() ? t.measuredFrom() : null, t.logEnd()))
                        .toList() : null,
                salvaged.containsKey(p.topicPartition()) ? salvaged.get(p.topicPartition()).stream()
                        .map(ExecutionResult::salvaged).toList() : null,
                unknownLoss.containsKey(p.topicPartition())
                        ? unknownLoss.get(p.topicPartition()).keySet().stream().sorted().toList() : null);
    }

    private static dev.uncleanrecovery.formats.ResultFile.Salvaged salvaged(SalvagedFile f) {
        return new dev.uncleanrecovery.formats.ResultFile.Salvaged(f.range().broker(), f.range().fromOffset(),
                f.range().toOffset(), f.records(), f.batches(), f.bytes(), f.sources().stream().map(Enum::name).toList(),
                f.segment().toString(), f.manifest().toString(), f.manifestSha256());
    }

    private static dev.uncleanrecovery.formats.ResultFile.State state(dev.uncleanrecovery.cluster.TopicPartitionState s) {
        return s == null ? null : new dev.uncleanrecovery.formats.ResultFile.State(s.leader(), s.leaderEpoch(), s.replicas(),
                s.isr(), s.eligibleLeaderReplicas(), s.lastKnownElr());
    }

    /** The controller elected someone else somewhere: the worst case, exit 1. */
    public boolean anyElectedOther() {
        return count(Outcome.ELECTED_OTHER) > 0;
    }
}
