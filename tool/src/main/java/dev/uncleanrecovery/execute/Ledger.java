// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.execute;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.TopicPartition;

/**
 * What a run has settled so far per partition of the plan, what it said of each on the way, and which are still
 * going: each phase's verdicts are entered here, so a run that stops midway still knows every outcome reached.
 */
final class Ledger {

    private final Map<TopicPartition, Candidate> going = new LinkedHashMap<>();
    private final Map<TopicPartition, PartitionOutcome> outcomes = new HashMap<>();
    private final Map<TopicPartition, String> notes;

    /**
     * @param partitions every partition of the plan, before the first phase
     * @param earlierNotes said of partitions before this run looked at them (what an interrupted run left)
     */
    Ledger(List<Candidate> partitions, Map<TopicPartition, String> earlierNotes) {
        partitions.forEach(c -> going.put(c.topicPartition(), c));
        notes = new HashMap<>(earlierNotes);
    }

    /** The partitions no phase has refused or settled yet, in plan order. */
    synchronized List<Candidate> going() {
        return List.copyOf(going.values());
    }

    /**
     * Enters one phase's verdicts: a refused or done partition gets its outcome and goes no further.
     *
     * @param verdicts one per partition still going
     * @return the partitions still going
     */
    synchronized List<Candidate> settle(Map<TopicPartition, Verdict> verdicts) {
        return settle(going(), verdicts);
    }

    /**
     * Enters one phase's verdicts on a batch of the partitions still going (the phases of another batch may run
     * meanwhile).
     *
     * @param verdicts one per partition of {@code batch}
     * @return the partitions of the batch still going
     */
    synchronized List<Candidate> settle(List<Candidate> batch, Map<TopicPartition, Verdict> verdicts) {
        List<TopicPartition> unjudged = new ArrayList<>();
        List<Candidate> stillGoing = new ArrayList<>();
        for (Candidate c : batch) {
            TopicPartition tp = c.topicPartition();
            Verdict verdict = verdicts.get(tp);
            if (verdict == null) {
                unjudged.add(tp);
                continue;
            }
            verdict.notes().forEach(note -> note(tp, note));
            if (verdict instanceof Verdict.Proceed proceed) {
                going.put(tp, proceed.candidate());
                stillGoing.add(proceed.candidate());
            } else if (verdict instanceof Verdict.Refused refused) {
                going.remove(tp);
                outcomes.put(tp, c.refused(refused.reason()));
            } else if (verdict instanceof Verdict.Done done) {
                going.remove(tp);
                outcomes.put(tp, done.outcome());
            }
        }
        if (!unjudged.isEmpty()) {
            throw new IllegalStateException("no verdict for " + unjudged);
        }
        return List.copyOf(stillGoing);
    }

    /** Said in the partition's outcome, after what was said before. */
    synchronized void note(TopicPartition tp, String note) {
        notes.merge(tp, note, (first, second) -> first + "; " + second);
    }

    synchronized long count(Outcome outcome) {
        return outcomes.values().stream().filter(o -> o.outcome() == outcome).count();
    }

    /** The partition's outcome so far; null when it has none yet. */
    synchronized PartitionOutcome outcome(TopicPartition tp) {
        return outcomes.get(tp);
    }

    /** {@code o} with everything said of its partition. */
    synchronized PartitionOutcome withNotes(PartitionOutcome o) {
        String said = notes.get(o.topicPartition());
        return said == null ? o : o.withNote(said);
    }

    /** Every outcome, with its notes, in {@code order}: once every partition has one. */
    synchronized List<PartitionOutcome> outcomes(Collection<TopicPartition> order) {
        return order.stream().map(outcomes::get).map(this::withNotes).toList();
    }
}
