// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.election;

import dev.uncleanrecovery.cluster.TopicPartitionState;
import dev.uncleanrecovery.evidence.EvidenceSource;
import dev.uncleanrecovery.evidence.EvidenceStatus;
import dev.uncleanrecovery.evidence.ReplicaEvidence;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.stream.Collectors;
import org.apache.kafka.common.TopicPartition;

/**
 * The leader-choice policy: which replica of an offline partition to elect, from what the replicas said.
 * A pure function of its arguments (no I/O, no clock), so a surprising choice replays in a unit test.
 *
 * <p>Rules, in order:
 * <ol>
 *   <li>Only an offline partition (leader -1) is decided; ElectLeaders would answer ELECTION_NOT_NEEDED anyway.
 *   <li>Candidates: replicas whose broker answered live without error, is unfenced, is not excluded, and
 *       that the metadata does not list as offline; never one whose log directory failed on its live
 *       broker. A log read from disk is evidence, not a candidate: its
 *       broker is down and cannot lead.
 *   <li>Balanced waits until every ELR, LastKnownELR and (on clusters without ELR) leaderless-ISR member has
 *       answered (live or from disk); proactive decides from whoever answered.
 *   <li>Rank by (last written leader epoch, log end offset) descending — the Raft rule: a shorter log from
 *       a later epoch beats a longer log from an earlier one, because followers truncate to the leader's
 *       epoch boundaries. Ties: LastKnownELR members, then ELR members, then assignment order, then lowest id.
 *   <li>The best candidate is the designated leader; every other replica gets an {@link ExpectedTruncation}, and
 *       every other candidate is an {@link Alternative} with what electing it would destroy.
 *       A choice whose known truncation exceeds {@code maxTruncatedRecords} is skipped, and so is one that
 *       truncates an unknown amount on some replica, unless unknown truncation is allowed.
 * </ol>
 */
public final class LeaderChoice {

    private LeaderChoice() {
    }

    /**
     * @param evidence      what was learned about the partition's replicas; may miss some, may hold several
     *                      entries per replica (e.g. a failed live probe and a log read from disk). Entries for
     *                      brokers outside the replica set are ignored: they are not about this assignment.
     * @param fencedBrokers brokers the controller has fenced
     */
    public static Decision decide(TopicPartitionState partition, List<ReplicaEvidence> evidence,
                                  Set<Integer> fencedBrokers, ElectionOptions options) {
        return decide(partition, evidence, fencedBrokers, options, KnownCuts.NONE);
    }

    /**
     * @param cuts where replicas truncate under the designated leader or an alternative, as their brokers answered
     *             (see {@code probe.TruncationPoints}): those replicas lose exactly {@code [point, LEO)}; the others
     *             keep the estimate from epochs and log ends
     */
    public static Decision decide(TopicPartitionState partition, List<ReplicaEvidence> evidence,
                                  Set<Integer> fencedBrokers, ElectionOptions options, KnownCuts cuts) {
        TopicPartition tp = partition.topicPartition();
        for (ReplicaEvidence e : evidence) {
            if (!e.topicPartition().equals(tp)) {
                throw new IllegalArgumentException("evidence for " + e.topicPartition() + " given to decide " + tp);
            }
        }
        if (!partition.isOffline()) {
            return new Decision.Skip(tp, SkipCause.HAS_LEADER, "has leader " + partition.leader() + ", nothing to do");
        }

        List<RankedReplica> replicas = partition.replicas().stream()
                .map(broker -> standing(partition, broker, evidence, fencedBrokers, options))
                .toList();
        Comparator<RankedReplica> bestFirst = bestFirst(partition);
        List<RankedReplica> ranking = new ArrayList<>(replicas.stream().filter(RankedReplica::hasKnownLog).sorted(bestFirst).toList());
        replicas.stream().filter(r -> !r.hasKnownLog()).forEach(ranking::add);
        List<RankedReplica> candidates = ranking.stream().filter(RankedReplica::isCandidate).toList();

        if (candidates.isEmpty()) {
            // Brief: a down broker's error would repeat in every partition; the skip's evidence carries it.
            return new Decision.Skip(tp, SkipCause.NO_CANDIDATE, "no replica can lead: "
                    + replicas.stream().map(RankedReplica::describeBriefly).collect(Collectors.joining(", "))
                    + " — bring a broker back, or check --exclude-broker");
        }
        if (options.strategy() == Strategy.BALANCED) {
            Optional<String> waiting = waitingForElr(partition, replicas);
            if (waiting.isPresent()) {
                return new Decision.Skip(tp, SkipCause.WAITING_FOR_ELR, waiting.get());
            }
        }

        RankedReplica leader = candidates.get(0);
        List<ExpectedTruncation> truncations = truncationsUnder(leader, replicas, cuts);
        if (options.strategy() == Strategy.BALANCED) {
            Optional<String> waiting = waitingForFenced(leader, ranking, truncations);
            if (waiting.isPresent()) {
                return new Decision.Skip(tp, SkipCause.WAITING_FOR_FENCED, waiting.get());
            }
        }
        List<Alternative> alternatives = candidates.stream().skip(1)
                .map(other -> new Alternative(other.broker(), truncationsUnder(other, replicas, cuts)))
                .toList();
        String reason = reason(partition, leader, candidates, ranking, truncations, alternatives);
        Decision.Elect elect = new Decision.Elect(tp, leader.broker(), reason, ranking, truncations, alternatives);

        if (options.maxCommittedLoss().isPresent()) {
            long max = options.maxCommittedLoss().getAsLong();
            // an unknown loss has an unknown committed part too, and records past every known high watermark may
            // have been committed (a follower's high watermark lags the leader's)
            List<ExpectedTruncation> unknownCommitted = truncations.stream()
                    .filter(t -> !t.isKnown() || t.unknownCommitment() > 0).toList();
            long committed = truncations.stream().filter(t -> t.committed() > 0).mapToLong(ExpectedTruncation::committed).sum();
            if (!unknownCommitted.isEmpty() && !options.allowUnknownTruncation()) {
                return new Decision.Skip(tp, SkipCause.OVER_TRUNCATION_LIMIT, "electing " + leader.broker()
                        + " would destroy records of unknown commitment on " + unknownCommitted.stream()
                                .map(t -> Integer.toString(t.broker())).collect(Collectors.joining(", "))
                        + " (no high watermark covers them): counts as over --max-committed-loss " + max
                        + " (pass --allow-unknown-truncation to count only the known loss); " + reason);
            }
            if (committed > max) {
                return new Decision.Skip(tp, SkipCause.OVER_TRUNCATION_LIMIT, "electing " + leader.broker()
                        + " would destroy " + committed + " committed records, more than --max-committed-loss " + max
                        + "; " + reason);
            }
        }
        if (options.maxTruncatedRecords().isPresent()) {
            long max = options.maxTruncatedRecords().getAsLong();
            List<ExpectedTruncation> unknown = truncations.stream().filter(t -> !t.isKnown()).toList();
            if (!unknown.isEmpty() && !options.allowUnknownTruncation()) {
                return new Decision.Skip(tp, SkipCause.OVER_TRUNCATION_LIMIT, "electing " + leader.broker()
                        + " would truncate an unknown number of records on " + unknown.stream()
                                .map(t -> describeUnknown(replicas, t.broker())).collect(Collectors.joining(", "))
                        + ": an unknown loss counts as over --max-truncated-records " + max
                        + " (pass --allow-unknown-truncation to count only the known loss); " + reason);
            }
            if (elect.totalTruncatedRecords() > max) {
                return new Decision.Skip(tp, SkipCause.OVER_TRUNCATION_LIMIT, "electing " + leader.broker() + " would truncate "
                        + (elect.totalIsLowerBound() ? "at least " : "") + elect.totalTruncatedRecords() + " records ("
                        + truncations.stream().filter(t -> t.isKnown() && t.records() > 0)
                                .map(t -> t.broker() + " " + t.describe()).collect(Collectors.joining(", "))
                        + "), more than --max-truncated-records " + max + "; " + reason);
            }
        }
        return elect;
    }

    /** What every replica but {@code leader} loses once it follows {@code leader}, in assignment order. */
    private static List<ExpectedTruncation> truncationsUnder(RankedReplica leader, List<RankedReplica> replicas,
                                                             KnownCuts cuts) {
        List<ExpectedTruncation> truncations = new ArrayList<>(replicas.size());
        for (RankedReplica r : replicas) {
            if (r.broker() == leader.broker()) {
                continue;
            }
            OptionalLong cut = r.hasKnownLog() ? cuts.of(leader.broker(), r.broker()) : OptionalLong.empty();
            ExpectedTruncation loss = cut.isPresent()
                    ? ExpectedTruncation.exact(r.broker(), cut.getAsLong(), r.evidence().logEndOffset())
                    : ExpectedTruncation.of(leader.evidence(), r.broker(), r.evidence());
            boolean superseded = cut.isPresent()
                    && r.evidence().lastWrittenLeaderEpoch() < leader.evidence().lastWrittenLeaderEpoch();
            truncations.add(loss.withCommittedBelow(sameLog(r, replicas, leader)).withSuperseded(superseded));
        }
        return List.copyOf(truncations);
    }

    /** "2 (UNREACHABLE: did not answer ListOffsets within 3 s)": a replica whose log is unknown, and why. */
    private static String describeUnknown(List<RankedReplica> replicas, int broker) {
        return replicas.stream().filter(r -> r.broker() == broker).findFirst().map(RankedReplica::describeBriefly)
                .orElse(broker + " (not probed)");
    }

    /**
     * The replicas whose logs hold what {@code replica} would lose: itself, and the others with its last written epoch
     * (copies of that epoch's leader up to the shorter log end) — not the new leader, whose log differs from there.
     */
    private static List<ReplicaEvidence> sameLog(RankedReplica replica, List<RankedReplica> replicas, RankedReplica leader) {
        if (!replica.hasKnownLog()) {
            return List.of();
        }
        List<ReplicaEvidence> same = new ArrayList<>(replicas.size());
        for (RankedReplica r : replicas) {
            if (r.hasKnownLog() && r.broker() != leader.broker() && (r.broker() == replica.broker()
                    || r.evidence().lastWrittenLeaderEpoch() == replica.evidence().lastWrittenLeaderEpoch())) {
                same.add(r.evidence());
            }
        }
        return same;
    }

    /** The candidacy of one replica and the evidence that counts for it. */
    private static RankedReplica standing(TopicPartitionState partition, int broker, List<ReplicaEvidence> evidence,
                                          Set<Integer> fencedBrokers, ElectionOptions options) {
        boolean fenced = fencedBrokers.contains(broker);
        ReplicaEvidence counted = evidence.stream()
                .filter(e -> e.broker() == broker)
                .map(e -> fenced ? ownLogOfACutOffBroker(partition, e) : e)
                .min(MOST_TELLING_FIRST)
                .orElse(null);
        Candidacy candidacy;
        if (options.excludedBrokers().contains(broker)) {
            candidacy = Candidacy.EXCLUDED;
        } else if (fenced) {
            // The controller's LeaderAcceptor rejects fenced brokers; stock UNCLEAN would then pick another one.
            candidacy = Candidacy.FENCED;
        } else if (evidence.stream()
                .anyMatch(e -> e.broker() == broker && e.status() == EvidenceStatus.LOG_DIR_OFFLINE)) {
            // LeaderAcceptor refuses a replica whose directory is offline; the metadata lists it offline too, but
            // only the broker's answer says why (an unregistered broker is offline in metadata as well).
            candidacy = Candidacy.LOG_DIR_OFFLINE;
        } else if (partition.offlineReplicas().contains(broker)) {
            // Broker unregistered or its log directory offline: LeaderAcceptor rejects a LOST directory too.
            candidacy = Candidacy.OFFLINE;
        } else if (counted == null || !counted.isAnswered() || counted.source() == EvidenceSource.DISK) {
            candidacy = Candidacy.NOT_ANSWERED;
        } else {
            candidacy = Candidacy.CANDIDATE;
        }
        return new RankedReplica(broker, candidacy, counted);
    }

    /**
     * A fenced broker that answers is running but cut off from the controller (a network split, or a broker that
     * cannot reach the quorum): its metadata stops at the leader epoch it last heard, so the probe calls its answer
     * stale. Its log is still what it holds now (at least: a client that reaches it may still append), and it cannot
     * be elected while fenced anyway, so that answer counts as its log: the plan states what electing another replica
     * costs it. A log of a newer epoch than the controller's is not this: the partition moved since it was described.
     */
    private static ReplicaEvidence ownLogOfACutOffBroker(TopicPartitionState partition, ReplicaEvidence e) {
        boolean metadataLags = e.status() == EvidenceStatus.STALE && e.logEndOffset() >= 0
                && e.currentLeaderEpoch() >= 0 && e.currentLeaderEpoch() < partition.leaderEpoch()
                && e.lastWrittenLeaderEpoch() <= partition.leaderEpoch();
        return metadataLags ? new ReplicaEvidence(e.topicPartition(), e.broker(), e.source(), EvidenceStatus.OK,
                e.logEndOffset(), e.lastWrittenLeaderEpoch(), e.currentLeaderEpoch(), e.brokerEpoch(), null,
                e.observedAt(), e.highWatermark(), e.epochCache(), e.batchHeads()) : e;
    }

    /**
     * Which of several evidence entries for one replica counts: a live answer (the log as it is now), then a log
     * read from disk, then a failure; among equals the latest, then the rest of the fields so that the order
     * the evidence came in never changes the decision.
     */
    private static final Comparator<ReplicaEvidence> MOST_TELLING_FIRST = Comparator
            .comparingInt((ReplicaEvidence e) -> e.isAnswered() ? (e.source() == EvidenceSource.DISK ? 1 : 0) : 2)
            .thenComparing(ReplicaEvidence::observedAt, Comparator.nullsLast(Comparator.<Instant>reverseOrder()))
            .thenComparing(ReplicaEvidence::lastWrittenLeaderEpoch, Comparator.reverseOrder())
            .thenComparing(ReplicaEvidence::logEndOffset, Comparator.reverseOrder())
            .thenComparing(ReplicaEvidence::source)
            .thenComparing(ReplicaEvidence::status)
            .thenComparing(ReplicaEvidence::currentLeaderEpoch)
            .thenComparing(ReplicaEvidence::brokerEpoch)
            .thenComparing(ReplicaEvidence::error, Comparator.nullsFirst(Comparator.<String>naturalOrder()));

    /** Replicas with known logs, best first: the Raft rule, then the deterministic tie-breaks. */
    private static Comparator<RankedReplica> bestFirst(TopicPartitionState partition) {
        return Comparator
                .comparingInt((RankedReplica r) -> r.evidence().lastWrittenLeaderEpoch()).reversed()
                .thenComparing(Comparator.comparingLong((RankedReplica r) -> r.evidence().logEndOffset()).reversed())
                // LastKnownELR/ELR members held the committed data when the partition went offline.
                .thenComparing(r -> !partition.lastKnownElr().contains(r.broker()))
                .thenComparing(r -> !partition.eligibleLeaderReplicas().contains(r.broker()))
                .thenComparingInt(r -> partition.replicas().indexOf(r.broker()))
                .thenComparingInt(RankedReplica::broker);
    }

    /**
     * Balanced: the ELR, LastKnownELR and leaderless-ISR members that have not answered, as a skip reason. Without
     * ELR (3.x, 4.0, clusters upgraded without enabling it) the controller never empties the ISR: an offline
     * partition keeps its last ISR member(s) there, the same signal as LastKnownELR.
     */
    private static Optional<String> waitingForElr(TopicPartitionState partition, List<RankedReplica> replicas) {
        Set<Integer> members = new LinkedHashSet<>(partition.lastKnownElr());
        members.addAll(partition.eligibleLeaderReplicas());
        members.addAll(partition.isr());
        List<String> missing = new ArrayList<>();
        for (int member : members) {
            RankedReplica replica = replicas.stream().filter(r -> r.broker() == member).findFirst().orElse(null);
            if (replica != null && replica.hasKnownLog()) {
                continue;
            }
            String role = partition.lastKnownElr().contains(member) ? "LastKnownELR"
                    : partition.eligibleLeaderReplicas().contains(member) ? "ELR" : "leaderless-ISR";
            if (replica != null && replica.candidacy() == Candidacy.LOG_DIR_OFFLINE) {
                missing.add(role + " member " + member + " has its " + RankedReplica.ON_A_FAILED_LOG_DIR
                        + " (pass it with --evidence)");
                continue;
            }
            if (replica != null && replica.isUnreachable()) {
                // The broker's own error is in the evidence and the plan's unansweredBrokers, once.
                missing.add(role + " member " + member + " is " + RankedReplica.UNKNOWN_BROKER_SILENT);
                continue;
            }
            String why = replica == null ? "not a replica"
                    : replica.evidence() == null ? "not probed"
                    : replica.evidence().error() == null ? replica.evidence().status().name()
                    : replica.evidence().status() + ": " + replica.evidence().error();
            missing.add(role + " member " + member + " did not answer (" + why + ")");
        }
        if (missing.isEmpty()) {
            return Optional.empty();
        }
        // An ISR or ELR member that is unfenced again is elected by the controller at once, cleanly, whatever the
        // others hold: bringing it back is the election, not a way to plan one.
        boolean electedOnReturn = missing.stream().anyMatch(m -> !m.startsWith("LastKnownELR "));
        return Optional.of(String.join("; ", missing) + " — the balanced strategy waits for it: "
                + (electedOnReturn ? "pass its log with --evidence from 'inspect' on its host (restarting it makes"
                        + " Kafka elect it at once, whatever the others hold), or use --strategy proactive"
                        : "bring it back, pass its log with --evidence from 'inspect', or use --strategy proactive"));
    }

    /**
     * Balanced: the fenced brokers that answered live with a better log than {@code leader}, as a skip reason. The
     * tool reaches them and the controller does not (a network split, a broker cut off from the quorum): electing
     * another replica now would truncate what they hold, while restoring their link to the controller unfences them,
     * and Kafka then elects a leaderless ISR member at once, or the tool can.
     */
    private static Optional<String> waitingForFenced(RankedReplica leader, List<RankedReplica> ranking,
                                                     List<ExpectedTruncation> truncations) {
        List<String> fenced = new ArrayList<>(0);
        for (RankedReplica r : ranking) {
            if (r.candidacy() == Candidacy.FENCED && r.hasKnownLog() && r.evidence().source() != EvidenceSource.DISK
                    && hasBetterLog(r, leader)) {
                ExpectedTruncation loss = truncations.stream().filter(t -> t.broker() == r.broker()).findFirst()
                        .orElseThrow();
                fenced.add(r.describe() + " answered with a better log but cannot be elected while the controller"
                        + " fences it; electing " + leader.broker() + " now, it " + loss.describe()
                        + ", which waiting for it saves");
            }
        }
        if (fenced.isEmpty()) {
            return Optional.empty();
        }
        return Optional.of(String.join("; ", fenced) + " — the balanced strategy waits for it: restore its link to"
                + " the controller (it is running: the tool reached it) and plan again, or use --strategy proactive");
    }

    /**
     * The loss first, the designated leader's and then each alternative's ("electing 2 loses 0 committed and 17
     * never committed records; electing 1 would lose 42 committed and 0 never committed records"), then why it wins
     * ("highest last written epoch (6), then longest log (1042); beats 3 (epoch 6, LEO 1025) and 1 (UNREACHABLE)"),
     * plus a warning for every replica that cannot lead but has a better log than the leader.
     */
    private static String reason(TopicPartitionState partition, RankedReplica leader, List<RankedReplica> candidates,
                                 List<RankedReplica> ranking, List<ExpectedTruncation> truncations,
                                 List<Alternative> alternatives) {
        StringBuilder reason = new StringBuilder(384).append("electing ").append(leader.broker()).append(" loses ")
                .append(Loss.of(truncations).describe());
        for (Alternative other : alternatives) {
            reason.append("; electing ").append(other.broker()).append(" would lose ").append(other.loss().describe());
        }
        reason.append("; ").append(whyItWins(partition, leader, candidates));
        // plain loops: this runs for every partition of a plan
        List<RankedReplica> better = new ArrayList<>(0);
        List<String> beaten = new ArrayList<>(ranking.size());
        for (RankedReplica r : ranking) {
            if (!r.isCandidate() && r.hasKnownLog() && hasBetterLog(r, leader)) {
                better.add(r);
            } else if (r.broker() != leader.broker()) {
                beaten.add(r.describeBriefly());
            }
        }
        if (!beaten.isEmpty()) {
            reason.append("; beats ").append(joinAnd(beaten));
        }
        for (RankedReplica r : better) {
            ExpectedTruncation loss = truncations.stream().filter(t -> t.broker() == r.broker()).findFirst().orElseThrow();
            reason.append("; ").append(r.describe()).append(" has a better log but cannot lead")
                    .append(r.candidacy() == Candidacy.FENCED ? " while fenced" : "").append(": it ")
                    .append(loss.describe());
        }
        return reason.toString();
    }

    private static String whyItWins(TopicPartitionState partition, RankedReplica leader, List<RankedReplica> candidates) {
        ReplicaEvidence best = leader.evidence();
        if (candidates.size() == 1) {
            return "the only live replica that answered (epoch " + best.lastWrittenLeaderEpoch()
                    + ", LEO " + best.logEndOffset() + ")";
        }
        ReplicaEvidence next = candidates.get(1).evidence();
        if (best.lastWrittenLeaderEpoch() > next.lastWrittenLeaderEpoch()) {
            return "highest last written epoch (" + best.lastWrittenLeaderEpoch() + "), LEO " + best.logEndOffset();
        }
        if (best.logEndOffset() > next.logEndOffset()) {
            return "highest last written epoch (" + best.lastWrittenLeaderEpoch() + "), then longest log ("
                    + best.logEndOffset() + ")";
        }
        int runnerUp = candidates.get(1).broker();
        String tieBreak;
        if (partition.lastKnownElr().contains(leader.broker()) && !partition.lastKnownElr().contains(runnerUp)) {
            tieBreak = "it is a LastKnownELR member";
        } else if (partition.eligibleLeaderReplicas().contains(leader.broker())
                && !partition.eligibleLeaderReplicas().contains(runnerUp)) {
            tieBreak = "it is an ELR member";
        } else if (partition.replicas().indexOf(leader.broker()) < partition.replicas().indexOf(runnerUp)) {
            tieBreak = "it comes first in the replica list";
        } else {
            tieBreak = "it has the lower broker id";
        }
        return "same log as " + runnerUp + " (epoch " + best.lastWrittenLeaderEpoch() + ", LEO " + best.logEndOffset()
                + "), preferred because " + tieBreak;
    }

    private static boolean hasBetterLog(RankedReplica r, RankedReplica leader) {
        ReplicaEvidence a = r.evidence();
        ReplicaEvidence b = leader.evidence();
        return a.lastWrittenLeaderEpoch() > b.lastWrittenLeaderEpoch()
                || (a.lastWrittenLeaderEpoch() == b.lastWrittenLeaderEpoch() && a.logEndOffset() > b.logEndOffset());
    }

    private static String joinAnd(List<String> parts) {
        if (parts.size() == 1) {
            return parts.get(0);
        }
        return String.join(", ", parts.subList(0, parts.size() - 1)) + " and " + parts.get(parts.size() - 1);
    }
}
