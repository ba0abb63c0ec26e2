// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.execute;

import dev.uncleanrecovery.cluster.ClusterSnapshot;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import org.apache.kafka.common.TopicPartition;

/** The last phase: the elector is given every partition still going; a dry run only says what it would elect. */
final class ElectPhase {

    /**
     * @param electedBy         how, for the output and the result file ("none (dry run)")
     * @param leadersShownAfter see {@link DesignatedElector#leadersShownAfter}; null when nothing was elected
     * @param metadataLag       see {@link DesignatedElector#metadataLag}
     * @param verdicts          each partition given to the elector, done
     */
    record Election(String electedBy, Duration leadersShownAfter, List<MetadataLag> metadataLag,
                    Map<TopicPartition, Verdict> verdicts) {

        /**
         * The elections of a run's batches as one: how the first that elected anything elected; the leaders shown
         * after the last batch's election, or null when some batch's were not all shown; each lagging broker once,
         * with what it did not show in every batch.
         */
        static Election together(List<Election> batches) {
            if (batches.size() == 1) {
                return batches.get(0);
            }
            Map<TopicPartition, Verdict> verdicts = new LinkedHashMap<>();
            batches.forEach(b -> verdicts.putAll(b.verdicts()));
            String electedBy = batches.stream().map(Election::electedBy).filter(by -> !by.startsWith("none"))
                    .findFirst().orElse(batches.get(0).electedBy());
            List<Election> electing = batches.stream().filter(b -> b.leadersShownAfter() != null
                    || !b.metadataLag().isEmpty()).toList();
            Duration shown = electing.isEmpty() || electing.stream().anyMatch(b -> b.leadersShownAfter() == null)
                    ? null : electing.get(electing.size() - 1).leadersShownAfter();
            Map<Integer, MetadataLag> lag = new java.util.TreeMap<>();
            batches.stream().flatMap(b -> b.metadataLag().stream()).forEach(l -> lag.merge(l.broker(), l,
                    (a, b) -> new MetadataLag(a.broker(), a.notShown() + b.notShown(), a.elected() + b.elected(),
                            a.waited().compareTo(b.waited()) >= 0 ? a.waited() : b.waited(),
                            b.lastError() != null ? b.lastError() : a.lastError())));
            return new Election(electedBy, shown, List.copyOf(lag.values()), verdicts);
        }
    }

    private final DesignatedElector elector;
    private final boolean dryRun;
    private final Consumer<String> progress;

    ElectPhase(DesignatedElector elector, boolean dryRun, Consumer<String> progress) {
        this.elector = elector;
        this.dryRun = dryRun;
        this.progress = progress;
    }

    /** Lets the elector set itself up (changing nothing) while the second look goes on, when something may be elected. */
    void prepare(List<Candidate> going) {
        if (!going.isEmpty() && !dryRun) {
            elector.prepare();
        }
    }

    /** @param beforeFirstChange runs right before the first change, or at once when there is nothing to elect */
    Election elect(List<Candidate> going, ClusterSnapshot now, Runnable beforeFirstChange) {
        Map<TopicPartition, Verdict> verdicts = new LinkedHashMap<>();
        if (going.isEmpty()) {
            beforeFirstChange.run();
            return new Election("none (nothing to elect)", null, List.of(), verdicts);
        }
        if (dryRun) {
            for (Candidate c : going) {
                ElectionTarget t = c.target();
                verdicts.put(c.topicPartition(), new Verdict.Done(new PartitionOutcome(t.topicPartition(),
                        t.designatedLeader(), Outcome.WOULD_ELECT, "would elect " + t.designatedLeader() + " (epoch "
                        + t.plannedLastWrittenLeaderEpoch() + ", LEO " + t.plannedLogEndOffset() + "); nothing changed",
                        c.state(), null)));
            }
            return new Election("none (dry run)", null, List.of(), verdicts);
        }
        progress.accept(elector.describe());
        String electedBy = elector.describe();
        List<ElectionTarget> targets = new ArrayList<>(going.stream().map(Candidate::target).toList());
        elector.elect(targets, now, beforeFirstChange).forEach(o -> verdicts.put(o.topicPartition(), new Verdict.Done(o)));
        return new Election(electedBy, elector.leadersShownAfter(), elector.metadataLag(), verdicts);
    }
}
