// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.execute;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import org.apache.kafka.common.TopicPartition;

/**
 * Where one partition of the plan stands after a phase of the run: it goes on to the next phase, it is refused (and
 * nothing more is done with it), or its outcome is settled. Notes are said of the partition in its outcome, whatever
 * the verdict.
 */
sealed interface Verdict {

    List<String> notes();

    /** A phase that judges each partition on its own: the verdict of each, in the order given. */
    static Map<TopicPartition, Verdict> each(List<Candidate> going, Function<Candidate, Verdict> judge) {
        Map<TopicPartition, Verdict> verdicts = new LinkedHashMap<>();
        going.forEach(c -> verdicts.put(c.topicPartition(), judge.apply(c)));
        return verdicts;
    }

    /** On to the next phase, as this one leaves it (decided again, measured, salvaged). */
    record Proceed(Candidate candidate, List<String> notes) implements Verdict {
        public Proceed {
            notes = List.copyOf(notes);
        }

        Proceed(Candidate candidate) {
            this(candidate, List.of());
        }
    }

    /** Not touched, and why: its outcome is REFUSED with this reason. */
    record Refused(String reason, List<String> notes) implements Verdict {
        public Refused {
            notes = List.copyOf(notes);
        }

        Refused(String reason) {
            this(reason, List.of());
        }
    }

    /** Settled: already recovered, elected (or not) by the elector, or in a dry run, would be elected. */
    record Done(PartitionOutcome outcome) implements Verdict {
        @Override
        public List<String> notes() {
            return List.of();
        }
    }
}
