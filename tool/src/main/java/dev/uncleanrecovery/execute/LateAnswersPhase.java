// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.execute;

import dev.uncleanrecovery.cluster.ClusterSnapshot;
import dev.uncleanrecovery.evidence.EvidenceSource;
import dev.uncleanrecovery.evidence.EvidenceStatus;
import dev.uncleanrecovery.evidence.ReplicaEvidence;
import dev.uncleanrecovery.formats.PlannedElection;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.apache.kafka.common.TopicPartition;

/**
 * The answers of replicas that had no live answer in the plan: one that holds no more than the designated replica is
 * noted; one that holds more refuses the partition, unless {@code recover} decides again and the new designation
 * passes the re-validation.
 */
final class LateAnswersPhase {

    /** Without one, a better late answer refuses its partition: a reviewed plan is never changed behind the reviewer. */
    private final Redecision redecision;

    /** @param redecision what to do when a late answer holds more; null refuses the partition */
    LateAnswersPhase(Redecision redecision) {
        this.redecision = redecision;
    }

    /** @param going partitions with their second look */
    Map<TopicPartition, Verdict> judge(List<Candidate> going, ClusterSnapshot now) {
        return Verdict.each(going, c -> judge(c, now));
    }

    private Verdict judge(Candidate c, ClusterSnapshot now) {
        ElectionTarget t = c.target();
        PlannedElection p = c.entry();
        List<ReplicaEvidence> late = c.secondLook().stream()
                .filter(e -> e.broker() != t.designatedLeader() && e.isAnswered())
                .filter(e -> !answeredInPlan(p, e.broker()))
                .toList();
        if (late.isEmpty()) {
            return new Verdict.Proceed(c);
        }
        ReplicaEvidence designated = c.answerOf(t.designatedLeader());
        long designatedEnd = designated != null && designated.isAnswered() ? designated.logEndOffset()
                : t.plannedLogEndOffset();
        int designatedEpoch = designated != null && designated.isAnswered() ? designated.lastWrittenLeaderEpoch()
                : t.plannedLastWrittenLeaderEpoch();
        List<ReplicaEvidence> better = late.stream()
                .filter(e -> e.lastWrittenLeaderEpoch() > designatedEpoch
                        || (e.lastWrittenLeaderEpoch() == designatedEpoch && e.logEndOffset() > designatedEnd))
                .toList();
        if (better.isEmpty()) {
            String lateNote = late.stream().map(e -> "broker " + e.broker() + " answered after the plan: epoch "
                    + e.lastWrittenLeaderEpoch() + ", LEO " + e.logEndOffset())
                    .collect(Collectors.joining("; "));
            return new Verdict.Proceed(c, List.of(lateNote + " (not more than designated " + t.designatedLeader()
                    + ": epoch " + designatedEpoch + ", LEO " + designatedEnd + ")"));
        }
        String why = better.stream().map(e -> "broker " + e.broker() + " answered after the plan and holds more:"
                + " epoch " + e.lastWrittenLeaderEpoch() + ", LEO " + e.logEndOffset() + " against epoch "
                + designatedEpoch + ", LEO " + designatedEnd + " on designated " + t.designatedLeader())
                .collect(Collectors.joining("; "));
        Redecision.Outcome again = redecision == null ? new Redecision.Outcome.Refuse(why + "; plan again")
                : redecision.redecide(p, c.state(), now, late);
        if (again instanceof Redecision.Outcome.Elect elect) {
            Candidate redecided = c.decidedAgain(elect.planned());
            if (Revalidation.check(redecided, now) instanceof Verdict.Proceed) {
                return new Verdict.Proceed(redecided, List.of("decided again: " + why + "; designated "
                        + redecided.target().designatedLeader() + " instead"));
            }
            return new Verdict.Refused(why + "; decided again, " + elect.planned().designatedLeader()
                    + " cannot lead now; plan again");
        }
        return new Verdict.Refused(((Redecision.Outcome.Refuse) again).reason());
    }

    /** A live answer in the plan; a log read from disk is not one: its broker may have come back with more. */
    private static boolean answeredInPlan(PlannedElection p, int broker) {
        return p.evidence().stream().anyMatch(e -> e.broker() == broker && e.status() == EvidenceStatus.OK
                && e.source() != EvidenceSource.DISK);
    }
}
