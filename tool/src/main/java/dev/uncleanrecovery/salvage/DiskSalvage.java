// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.salvage;

import dev.uncleanrecovery.election.TruncationEstimate;
import dev.uncleanrecovery.evidence.EvidenceStatus;
import dev.uncleanrecovery.logdir.LogDirReadException;
import dev.uncleanrecovery.logdir.LogDirReport;
import dev.uncleanrecovery.logdir.PartitionLogSummary;
import dev.uncleanrecovery.logdir.SegmentRangeCopy;
import dev.uncleanrecovery.formats.Plan;
import dev.uncleanrecovery.formats.PlanEvidence;
import dev.uncleanrecovery.formats.PlanTruncation;
import dev.uncleanrecovery.formats.PlannedElection;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;

/**
 * Copies, off a stopped broker's disk, the records each partition of a plan will truncate there: when that broker
 * restarts and follows the new leader it cuts its log at the leader's end (KIP-101/KIP-320), so whatever it holds
 * beyond is gone unless copied first. Reads the log dirs through {@link SegmentRangeCopy}, strictly read-only, and
 * writes each range as it is read through the store's {@link RangeWriter}, the one live salvage uses.
 */
public final class DiskSalvage {

    /** What happened to one partition of the plan. */
    public enum Status {
        /** The doomed range is in the salvage directory. */
        COPIED,
        /** The log on disk ends at or before the truncation point: nothing to lose. */
        NOTHING_BEYOND,
        /** Not this broker's to copy (not on its disk, not a replica, the designated leader itself). */
        SKIPPED,
        /** Not copied although it may hold records nobody else has: the broker must not be restarted yet. */
        NEEDS_ATTENTION
    }

    /** Where the truncation point came from. */
    public enum FromSource {
        /** The plan's EXACT expectedTruncation of this broker. */
        PLANNED_TRUNCATION,
        /** The designated leader's log end offset in the plan's evidence. */
        LEADER_LOG_END
    }

    /**
     * @param fromOffset  where the broker's log will be cut; -1 when not known
     * @param logEndOffset this broker's log end offset on disk; -1 when not known
     * @param file        the salvaged range, when COPIED
     * @param notes       what else the operator should know (a torn tail left out, an AT_LEAST estimate, ...)
     */
    public record Outcome(TopicPartition partition, Status status, String detail, FromSource fromSource,
                          long fromOffset, long logEndOffset, SalvagedFile file, List<String> notes) {

        public Outcome {
            notes = List.copyOf(notes);
        }
    }

    /** Called while a range is copied, with its totals so far. */
    @FunctionalInterface
    public interface Progress {
        void copied(TopicPartition partition, long bytes, long records);
    }

    private final Plan plan;
    private final LogDirReport report;
    private final SalvageStore store;
    private final Progress progress;

    /**
     * @param report what {@code inspect} read from the broker's log dirs, every partition of {@code plan} selected
     */
    public DiskSalvage(Plan plan, LogDirReport report, SalvageStore store, Progress progress) {
        this.plan = plan;
        this.report = report;
        this.store = store;
        this.progress = progress;
    }

    /** One outcome per partition the plan elects, in the plan's order. */
    public List<Outcome> run() {
        List<Outcome> outcomes = new ArrayList<>();
        for (PlannedElection election : plan.partitions()) {
            outcomes.add(salvage(election));
        }
        return outcomes;
    }

    private Outcome salvage(PlannedElection election) {
        TopicPartition tp = election.topicPartition();
        int broker = report.brokerId();
        List<String> notes = new ArrayList<>();
        List<PartitionLogSummary> onDisk = report.partitions().stream()
                .filter(p -> p.topicPartition().equals(tp)).toList();
        if (onDisk.isEmpty()) {
            return skipped(tp, "not on this broker's disk", notes);
        }
        PartitionLogSummary log = onDisk.get(0);
        if (!election.expected().replicas().contains(broker)) {
            return skipped(tp, "broker " + broker + " is not one of its replicas " + election.expected().replicas()
                    + " in the plan", notes);
        }
        if (election.designatedLeader() == broker) {
            return skipped(tp, "broker " + broker + " is the designated leader: it keeps its log", notes);
        }
        if (!log.isReadable()) {
            return attention(tp, null, -1, -1, "cannot read the log: " + log.error(), notes);
        }
        if (log.recoveryCutsData() != null) {
            // not the election's loss: the restart's own recovery deletes valid records after a corrupt batch
            return attention(tp, null, -1, log.logEndOffset(), log.recoveryCutsData() + "; a restart deletes the"
                    + " records after it whatever the election — copy them by hand (kafka-dump-log.sh) first", notes);
        }
        Optional<String> mismatch = topicIdMismatch(election, log, notes);
        if (mismatch.isPresent()) {
            return new Outcome(tp, Status.SKIPPED, mismatch.get(), null, -1, log.logEndOffset(), null, notes);
        }

        Optional<PlanTruncation> exact = election.expectedTruncation().stream()
                .filter(t -> t.broker() == broker && t.estimate() == TruncationEstimate.EXACT).findFirst();
        Optional<PlanEvidence> leader = election.evidence().stream()
                .filter(e -> e.broker() == election.designatedLeader() && e.status() == EvidenceStatus.OK).findFirst();
        FromSource source;
        long from;
        if (exact.isPresent()) {
            source = FromSource.PLANNED_TRUNCATION;
            from = exact.get().fromOffset();
        } else if (leader.isPresent()) {
            source = FromSource.LEADER_LOG_END;
            from = leader.get().logEndOffset();
            election.expectedTruncation().stream()
                    .filter(t -> t.broker() == broker && t.estimate() == TruncationEstimate.AT_LEAST).findFirst()
                    .ifPresent(t -> notes.add("the plan's truncation of broker " + broker + " is AT_LEAST from "
                            + t.fromOffset() + " (another last written epoch): the cut may come earlier than "
                            + from + ", and records before it are not copied"));
        } else {
            return attention(tp, null, -1, log.logEndOffset(), "the plan has neither an EXACT truncation of broker "
                    + broker + " nor a log end offset of designated leader " + election.designatedLeader(), notes);
        }
        long leo = log.logEndOffset();
        Optional<Long> planned = exact.map(PlanTruncation::toOffset).or(() -> election.evidence().stream()
                .filter(e -> e.broker() == broker && e.status() == EvidenceStatus.OK).findFirst()
                .map(PlanEvidence::logEndOffset));
        planned.filter(end -> end != leo).ifPresent(end -> notes.add("the plan saw broker " + broker + "'s log end at "
                + end + ", the disk holds it at " + leo + ": the copy goes to the disk's"));
        if (log.invalidTailBytes() > 0) {
            notes.add("left out " + log.invalidTailBytes() + " bytes after offset " + (log.logEndOffset() - 1)
                    + " (a torn write): Kafka's log recovery truncates them at start-up");
        }
        if (leo <= from) {
            return new Outcome(tp, Status.NOTHING_BEYOND, "the log ends at " + leo + ", at or before " + from
                    + ": nothing to copy", source, from, leo, null, notes);
        }
        long start = from;
        if (log.logStartOffset() > from) {
            notes.add("the log starts at " + log.logStartOffset() + ": offsets " + from + ".." + (log.logStartOffset() - 1)
                    + " are no longer on disk");
            start = log.logStartOffset();
        }
        DoomedRange range = new DoomedRange(tp, topicIdOf(election, log), broker, start, leo,
                log.lastBatchLeaderEpoch());
        SegmentRangeCopy copy;
        try (RangeWriter writer = store.writer(range)) {
            try {
                copy = SegmentRangeCopy.read(log.logDir().resolve(tp.topic() + "-" + tp.partition()), start, leo,
                        (bytes, records) -> progress.copied(tp, bytes, records), writer::append);
            } catch (IOException | LogDirReadException e) {
                return attention(tp, source, from, leo, "cannot read the segments: " + e.getMessage(), notes);
            }
            if (copy.stoppedBy() != null) {
                return attention(tp, source, from, leo, "the copy stops at offset " + copy.lastOffset() + ", not "
                        + (leo - 1) + ": " + copy.stoppedBy(), notes);
            }
            SalvagedFile file = writer.finish(List.of(SalvageSource.DISK));
            return new Outcome(tp, Status.COPIED, "copied " + file.records() + " records in " + file.batches()
                    + " batches", source, from, leo, file, notes);
        } catch (SalvageException e) {
            return attention(tp, source, from, leo, "salvage failed: " + e.getMessage(), notes);
        }
    }

    /** A partition directory of another topic that had this name must not be copied as this one. */
    private static Optional<String> topicIdMismatch(PlannedElection election, PartitionLogSummary log,
                                                    List<String> notes) {
        if (election.topicId() == null) {
            notes.add("the plan names no topic id: a topic re-created under this name cannot be told apart");
            return Optional.empty();
        }
        if (log.topicId() == null) {
            notes.add("partition.metadata gives no topic id: a topic re-created under this name cannot be told apart");
            return Optional.empty();
        }
        if (!log.topicId().toString().equals(election.topicId())) {
            return Optional.of("topic id on disk " + log.topicId() + " is not the plan's " + election.topicId()
                    + ": another topic of that name");
        }
        return Optional.empty();
    }

    private static Uuid topicIdOf(PlannedElection election, PartitionLogSummary log) {
        if (log.topicId() != null) {
            return log.topicId();
        }
        return election.topicId() == null ? Uuid.ZERO_UUID : Uuid.fromString(election.topicId());
    }

    private static Outcome skipped(TopicPartition tp, String why, List<String> notes) {
        return new Outcome(tp, Status.SKIPPED, why, null, -1, -1, null, notes);
    }

    private static Outcome attention(TopicPartition tp, FromSource source, long from, long leo, String why,
                                     List<String> notes) {
        return new Outcome(tp, Status.NEEDS_ATTENTION, why, source, from, leo, null, notes);
    }
}
