// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.probe;

import dev.uncleanrecovery.cluster.TopicPartitionState;
import dev.uncleanrecovery.evidence.BatchHead;
import dev.uncleanrecovery.evidence.EpochStart;
import dev.uncleanrecovery.evidence.ReplicaEvidence;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Where a replica will truncate its log once it follows the designated leader, found the way the follower will find
 * it (KIP-101/279/320): it fetches with {@code LastFetchedEpoch} = its latest epoch E; the leader answers with the
 * floor entry of E in its epoch cache and that entry's end offset — after the election the cache also holds the new
 * epoch, starting at the leader's log end, so any E at or above the leader's latest epoch ends at its log end; the
 * follower then looks the answered epoch up in its own cache: when it holds that epoch it cuts at the smaller end
 * offset and is done, when it does not it cuts at the end of its own floor entry and asks again with that epoch.
 *
 * <p>Each look-up the brokers must answer is a partition of a DivergingEpoch Fetch (ReplicaId -2, FetchOffset past the
 * end) whose answer is that replica's {@code endOffsetFor(E)}, sent with the other partitions' look-ups of that broker
 * ({@link BrokerLookUps}); what the probe already knows (each replica's latest epoch and log end) answers the rest
 * without a request.
 */
public final class TruncationPoints {

    /** Far more rounds than epochs a real partition has: a guard against a broker that answers inconsistently. */
    private static final int MAX_ROUNDS = 64;

    /** One replica's answer for LastFetchedEpoch E: its floor entry of E and where that entry ends. */
    public record EpochEnd(int epoch, long endOffset) {
    }

    /** {@code endOffsetFor(E)} of one replica's epoch cache, as the broker answers it; empty when E is above its latest. */
    @FunctionalInterface
    public interface EpochEnds {
        CompletableFuture<Optional<EpochEnd>> endOffsetFor(int broker, int epoch);
    }

    /** The batches of one replica's log from the one holding {@code offset}, as far as one small read returns them. */
    @FunctionalInterface
    public interface BatchHeads {
        CompletableFuture<List<BatchHead>> from(int broker, long offset);

        /** Reads nothing: every loss starts where its replica truncates. */
        BatchHeads NONE = (broker, offset) -> CompletableFuture.completedFuture(List.of());
    }

    private final EpochEnds brokers;
    private final EpochEnds unremembered;
    private final Map<List<Integer>, CompletableFuture<Optional<EpochEnd>>> asked;
    private final BatchHeads heads;
    private final BatchHeads unrememberedHeads;
    private final Map<List<Long>, CompletableFuture<List<BatchHead>>> read;

    public TruncationPoints(EpochEnds brokers) {
        this(brokers, BatchHeads.NONE);
    }

    public TruncationPoints(EpochEnds brokers, BatchHeads heads) {
        this(brokers, brokers, null, heads, heads, null);
    }

    private TruncationPoints(EpochEnds brokers, EpochEnds unremembered,
                             Map<List<Integer>, CompletableFuture<Optional<EpochEnd>>> asked, BatchHeads heads,
                             BatchHeads unrememberedHeads, Map<List<Long>, CompletableFuture<List<BatchHead>>> read) {
        this.brokers = brokers;
        this.unremembered = unremembered;
        this.asked = asked;
        this.heads = heads;
        this.unrememberedHeads = unrememberedHeads;
        this.read = read;
    }

    /**
     * Look-ups of one partition, sent with every other partition's asked through {@code lookUps} (a broker gets one
     * Fetch for many partitions; their answers come once {@link BrokerLookUps#settle} is called); one look-up is asked
     * once however many followers need it.
     */
    public static TruncationPoints over(BrokerLookUps lookUps, TopicPartitionState partition) {
        Map<List<Integer>, CompletableFuture<Optional<EpochEnd>>> asked = new ConcurrentHashMap<>();
        EpochEnds ask = (broker, epoch) -> lookUps.endOffsetFor(partition, broker, epoch);
        Map<List<Long>, CompletableFuture<List<BatchHead>>> read = new ConcurrentHashMap<>();
        BatchHeads heads = (broker, offset) -> lookUps.batchesFrom(partition, broker, offset);
        return new TruncationPoints(remembering(asked, ask), ask, asked, remembering(read, heads), heads, read);
    }

    /**
     * The same look-ups, but {@code leader}'s asked afresh (once each): after its election its cache holds the new
     * epoch, while the other replicas' answers from before it still say what their caches held when they began to
     * follow it.
     */
    public TruncationPoints withFreshAnswersFrom(int leader) {
        if (asked == null) {
            return this;
        }
        Map<List<Integer>, CompletableFuture<Optional<EpochEnd>>> fresh = new ConcurrentHashMap<>();
        asked.forEach((key, answer) -> {
            if (key.get(0) != leader) {
                fresh.put(key, answer);
            }
        });
        Map<List<Long>, CompletableFuture<List<BatchHead>>> freshRead = new ConcurrentHashMap<>();
        read.forEach((key, batches) -> {
            if (key.get(0) != leader) {
                freshRead.put(key, batches);
            }
        });
        // a follower read now may already hold the leader's batches where its own were: only what was read before
        // the election compares
        BatchHeads leaderOnly = (broker, offset) -> broker == leader ? unrememberedHeads.from(broker, offset)
                : CompletableFuture.failedFuture(new IllegalStateException("broker " + broker + "'s batches at "
                        + offset + " were not read before the election"));
        return new TruncationPoints(remembering(fresh, unremembered), unremembered, fresh,
                remembering(freshRead, leaderOnly), unrememberedHeads, freshRead);
    }

    private static BatchHeads remembering(Map<List<Long>, CompletableFuture<List<BatchHead>>> read, BatchHeads heads) {
        return (broker, offset) -> read.computeIfAbsent(List.of((long) broker, offset), k -> heads.from(broker, offset));
    }

    private static EpochEnds remembering(Map<List<Integer>, CompletableFuture<Optional<EpochEnd>>> asked,
                                         EpochEnds ask) {
        return (broker, epoch) -> asked.computeIfAbsent(List.of(broker, epoch), k -> ask.endOffsetFor(broker, epoch));
    }

    /**
     * The offset {@code follower} truncates to under {@code leader}: its log end when it loses nothing. Empty when the
     * follower's epoch cache is empty (Kafka then falls back to its high watermark) or a broker did not answer.
     */
    public CompletableFuture<OptionalLong> truncateTo(ReplicaEvidence leader, ReplicaEvidence follower) {
        if (follower.lastWrittenLeaderEpoch() < 0 || leader.lastWrittenLeaderEpoch() < 0) {
            return CompletableFuture.completedFuture(OptionalLong.empty());
        }
        return round(leader, follower, follower.lastWrittenLeaderEpoch(), follower.logEndOffset(), 0)
                .exceptionally(failure -> OptionalLong.empty());
    }

    /**
     * The first offset whose record {@code follower} loses under {@code leader}: where it truncates, past the leading
     * batches there that the leader holds at the same offsets with the same CRC. A producer's batch that its old
     * leader appended but did not acknowledge before failing is sent again to the new leader, which appends it where
     * the old leader had it, in its newer epoch: the old leader's replica truncates its copy and fetches the same batch
     * back, and no record of it is lost. Its log end when it loses nothing; empty as for {@link #truncateTo}.
     */
    public CompletableFuture<OptionalLong> lossFrom(ReplicaEvidence leader, ReplicaEvidence follower) {
        return truncateTo(leader, follower).thenCompose(cut -> {
            if (cut.isEmpty() || cut.getAsLong() >= follower.logEndOffset()) {
                return CompletableFuture.completedFuture(cut);
            }
            long from = cut.getAsLong();
            if (follower.epochCache() != null && BatchHead.runFrom(follower.batchHeads(), from).isEmpty()) {
                return CompletableFuture.completedFuture(cut); // inspect kept none there: nothing to compare
            }
            return batchesFrom(follower, from)
                    .thenCombine(batchesFrom(leader, from), (own, leaders) -> OptionalLong.of(
                            Math.min(sameBatchesEnd(from, own, leaders), follower.logEndOffset())))
                    .exceptionally(failure -> cut);
        });
    }

    /**
     * A replica's batches from {@code offset}: a running broker is asked; of a replica read off a stopped broker's disk,
     * those {@code inspect} kept (none when it kept none there, and its loss then starts where it truncates).
     */
    private CompletableFuture<List<BatchHead>> batchesFrom(ReplicaEvidence replica, long offset) {
        if (replica.epochCache() != null) {
            return CompletableFuture.completedFuture(BatchHead.runFrom(replica.batchHeads(), offset));
        }
        return heads.from(replica.broker(), offset);
    }

    /** The end of the batches from {@code from} on that both logs hold alike, batch for batch: {@code from} if none. */
    static long sameBatchesEnd(long from, List<BatchHead> follower, List<BatchHead> leader) {
        long next = from;
        for (int i = 0; i < follower.size() && i < leader.size(); i++) {
            BatchHead own = follower.get(i);
            if (own.baseOffset() != next || !own.equals(leader.get(i))) {
                break;
            }
            next = own.lastOffset() + 1;
        }
        return next;
    }

    /** One fetch of the follower, which holds epochs up to {@code latest} and ends at {@code logEnd} by now. */
    private CompletableFuture<OptionalLong> round(ReplicaEvidence leader, ReplicaEvidence follower, int latest,
                                                  long logEnd, int rounds) {
        if (rounds >= MAX_ROUNDS) {
            return CompletableFuture.completedFuture(OptionalLong.empty());
        }
        return leaderEnd(leader, latest).thenCompose(answered -> {
            if (answered.isEmpty()) {
                return CompletableFuture.completedFuture(OptionalLong.empty());
            }
            EpochEnd atLeader = answered.get();
            return followerEnd(follower, latest, logEnd, atLeader.epoch()).thenCompose(own -> {
                if (own.isEmpty()) {
                    // the follower holds nothing of the answered epoch: it cuts at the leader's end offset
                    return done(Math.min(atLeader.endOffset(), logEnd));
                }
                EpochEnd atFollower = own.get();
                if (atFollower.epoch() != atLeader.epoch()) {
                    // it cuts where its floor entry ends, and asks again with that entry's epoch
                    return round(leader, follower, atFollower.epoch(), Math.min(atFollower.endOffset(), logEnd),
                            rounds + 1);
                }
                return done(Math.min(Math.min(atFollower.endOffset(), atLeader.endOffset()), logEnd));
            });
        });
    }

    /** The elected leader's {@code endOffsetFor(E)} after the election (its new epoch starts at its log end). */
    private CompletableFuture<Optional<EpochEnd>> leaderEnd(ReplicaEvidence leader, int epoch) {
        if (epoch >= leader.lastWrittenLeaderEpoch()) {
            return CompletableFuture.completedFuture(Optional.of(
                    new EpochEnd(leader.lastWrittenLeaderEpoch(), leader.logEndOffset())));
        }
        return brokers.endOffsetFor(leader.broker(), epoch).thenApply(answer -> {
            if (answer.isEmpty()) {
                throw new IllegalStateException("broker " + leader.broker() + " has no epoch up to " + epoch
                        + " although its latest is " + leader.lastWrittenLeaderEpoch());
            }
            return answer;
        });
    }

    /** The follower's {@code endOffsetFor(E)} with its log cut at {@code logEnd}, its latest epoch {@code latest}. */
    private CompletableFuture<Optional<EpochEnd>> followerEnd(ReplicaEvidence follower, int latest, long logEnd,
                                                              int epoch) {
        if (epoch > latest) {
            return CompletableFuture.completedFuture(Optional.empty());
        }
        if (epoch == latest) {
            return CompletableFuture.completedFuture(Optional.of(new EpochEnd(latest, logEnd)));
        }
        if (follower.epochCache() != null) {
            // a stopped broker's replica, read off its disk: its cache answers as the broker will once it runs
            return CompletableFuture.completedFuture(endOffsetFor(follower.epochCache(), epoch));
        }
        // Below the latest epoch the cut has not touched that part of the cache: the broker's answer holds.
        return brokers.endOffsetFor(follower.broker(), epoch);
    }

    /**
     * Kafka's LeaderEpochFileCache.endOffsetFor for an epoch below the cache's latest: the floor entry's epoch (the
     * asked epoch itself when the cache holds none at or below it) and where the next entry starts; empty when no
     * entry is above the asked epoch.
     */
    static Optional<EpochEnd> endOffsetFor(List<EpochStart> cache, int epoch) {
        EpochStart floor = null;
        for (EpochStart entry : cache) {
            if (entry.epoch() > epoch) {
                return Optional.of(new EpochEnd(floor == null ? epoch : floor.epoch(), entry.startOffset()));
            }
            floor = entry;
        }
        return Optional.empty();
    }

    private static CompletableFuture<OptionalLong> done(long offset) {
        return CompletableFuture.completedFuture(OptionalLong.of(offset));
    }
}
