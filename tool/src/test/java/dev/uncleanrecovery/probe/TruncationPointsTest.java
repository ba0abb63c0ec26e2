// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.probe;

import static org.assertj.core.api.Assertions.assertThat;

import dev.uncleanrecovery.evidence.BatchHead;
import dev.uncleanrecovery.evidence.EpochStart;
import dev.uncleanrecovery.evidence.EvidenceSource;
import dev.uncleanrecovery.evidence.ReplicaEvidence;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

/**
 * The follower's look-ups replayed on epoch caches held here, as a broker answers them
 * ({@code LeaderEpochFileCache.endOffsetFor}: the latest epoch ends at the log end, an earlier one where the next
 * higher epoch starts, one above the latest is out of range). The real brokers' side is proven in the version suite,
 * which compares a planned cut with the offset the broker truncated to.
 */
class TruncationPointsTest {

    private static final TopicPartition TP = new TopicPartition("t", 0);
    private static final int LEADER = 2;
    private static final int FOLLOWER = 3;

    /** One replica's log: epoch → start offset, and its log end. */
    private record Log(NavigableMap<Integer, Long> epochs, long logEnd) {
        static Log of(long logEnd, long... epochStartPairs) {
            NavigableMap<Integer, Long> epochs = new TreeMap<>();
            for (int i = 0; i < epochStartPairs.length; i += 2) {
                epochs.put((int) epochStartPairs[i], epochStartPairs[i + 1]);
            }
            return new Log(epochs, logEnd);
        }

        Optional<TruncationPoints.EpochEnd> endOffsetFor(int epoch) {
            if (epochs.isEmpty() || epoch > epochs.lastKey()) {
                return Optional.empty();
            }
            if (epoch == epochs.lastKey()) {
                return Optional.of(new TruncationPoints.EpochEnd(epoch, logEnd));
            }
            Map.Entry<Integer, Long> floor = epochs.floorEntry(epoch);
            long higherStart = epochs.higherEntry(epoch).getValue();
            return Optional.of(new TruncationPoints.EpochEnd(floor == null ? epoch : floor.getKey(), higherStart));
        }

        /** As {@code inspect} reads it off a stopped broker's disk: the whole cache comes with it. */
        ReplicaEvidence asReadOffDisk(int broker) {
            return ReplicaEvidence.answered(TP, broker, EvidenceSource.DISK, logEnd, epochs.isEmpty() ? -1 : epochs.lastKey(),
                    -1, -1, Instant.EPOCH).withEpochCache(epochs.entrySet().stream()
                    .map(e -> new EpochStart(e.getKey(), e.getValue())).toList());
        }

        ReplicaEvidence asProbed(int broker) {
            return ReplicaEvidence.answered(TP, broker, EvidenceSource.STOCK, logEnd, epochs.isEmpty() ? -1 : epochs.lastKey(),
                    9, -1, Instant.EPOCH);
        }
    }

    private final List<String> asked = new ArrayList<>();

    private OptionalLong cut(Log leader, Log follower) {
        TruncationPoints points = new TruncationPoints((broker, epoch) -> {
            asked.add(broker + "@" + epoch);
            return CompletableFuture.completedFuture((broker == LEADER ? leader : follower).endOffsetFor(epoch));
        });
        return points.truncateTo(leader.asProbed(LEADER), follower.asProbed(FOLLOWER)).join();
    }

    @Test
    void a_longer_log_of_an_older_epoch_is_cut_where_the_leaders_next_epoch_starts() {
        // follower: 30 records of epoch 0; leader: the first 10 of epoch 0, then 5 of its own epoch 1
        assertThat(cut(Log.of(15, 0, 0, 1, 10), Log.of(30, 0, 0))).hasValue(10);
        assertThat(asked).containsExactly(LEADER + "@0");
    }

    @Test
    void the_same_latest_epoch_is_cut_at_the_leaders_log_end_without_a_request() {
        assertThat(cut(Log.of(25, 0, 0), Log.of(40, 0, 0))).hasValue(25);
        assertThat(cut(Log.of(25, 0, 0), Log.of(12, 0, 0))).hasValue(12);
        assertThat(asked).isEmpty();
    }

    @Test
    void a_follower_behind_on_the_leaders_lineage_loses_nothing() {
        assertThat(cut(Log.of(30, 0, 0, 1, 10, 2, 20), Log.of(12, 0, 0, 1, 10))).hasValue(12);
    }

    @Test
    void a_follower_with_an_epoch_newer_than_anything_the_leader_holds_is_cut_after_two_fetches() {
        // an excluded (or fenced) replica wrote epoch 3 from offset 10; the leader holds epochs 0 and 2 (from 12):
        // Fetch(3) → the leader's epoch 2 ends at its log end 16; the follower has no epoch 2, its floor 0 ends at 10
        assertThat(cut(Log.of(16, 0, 0, 2, 12), Log.of(20, 0, 0, 3, 10))).hasValue(10);
        assertThat(asked).containsExactly(FOLLOWER + "@2", LEADER + "@0");
    }

    @Test
    void several_rounds_walk_back_to_the_last_epoch_both_logs_share() {
        // both hold epoch 1 from offset 5: the leader until 15 (then its epoch 2), the follower until 20 (then 3)
        assertThat(cut(Log.of(30, 0, 0, 1, 5, 2, 15), Log.of(40, 0, 0, 1, 5, 3, 20))).hasValue(15);
    }

    @Test
    void an_empty_epoch_cache_or_a_broker_that_does_not_answer_gives_no_point() {
        assertThat(cut(Log.of(15, 0, 0, 1, 10), Log.of(0))).isEmpty();
        TruncationPoints silent = new TruncationPoints((broker, epoch) -> CompletableFuture.failedFuture(
                new IllegalStateException("no answer")));
        assertThat(silent.truncateTo(Log.of(15, 0, 0, 1, 10).asProbed(LEADER), Log.of(30, 0, 0).asProbed(FOLLOWER))
                .join()).isEmpty();
    }

    @Test
    void a_replica_read_off_a_stopped_brokers_disk_is_cut_by_its_own_cache_without_asking_its_broker() {
        // every pair of logs above, the follower's cache read off its disk: the same cut, and its broker never asked
        List<Log[]> pairs = List.of(
                new Log[] {Log.of(15, 0, 0, 1, 10), Log.of(30, 0, 0)},
                new Log[] {Log.of(25, 0, 0), Log.of(40, 0, 0)},
                new Log[] {Log.of(30, 0, 0, 1, 10, 2, 20), Log.of(12, 0, 0, 1, 10)},
                new Log[] {Log.of(16, 0, 0, 2, 12), Log.of(20, 0, 0, 3, 10)},
                new Log[] {Log.of(30, 0, 0, 1, 5, 2, 15), Log.of(40, 0, 0, 1, 5, 3, 20)},
                // the dead last leader of epoch 1, which began at 20, below the new leader's log end 30
                new Log[] {Log.of(30, 0, 0), Log.of(35, 0, 0, 1, 20)});
        for (Log[] pair : pairs) {
            Log leader = pair[0];
            Log follower = pair[1];
            OptionalLong probed = cut(leader, follower);
            asked.clear();
            TruncationPoints points = new TruncationPoints((broker, epoch) -> {
                asked.add(broker + "@" + epoch);
                return CompletableFuture.completedFuture(broker == LEADER ? leader.endOffsetFor(epoch) : Optional.empty());
            });
            OptionalLong fromDisk = points.truncateTo(leader.asProbed(LEADER), follower.asReadOffDisk(FOLLOWER)).join();
            assertThat(fromDisk).as("%s under %s", follower, leader).isEqualTo(probed).isNotEmpty();
            assertThat(asked).noneMatch(a -> a.startsWith(FOLLOWER + "@"));
            asked.clear();
        }
        assertThat(cut(Log.of(30, 0, 0), Log.of(35, 0, 0, 1, 20))).hasValue(20);
    }

    @Test
    void a_disk_cache_answers_as_kafkas_end_offset_for_does() {
        List<EpochStart> cache = List.of(new EpochStart(2, 0), new EpochStart(4, 10), new EpochStart(7, 30));
        assertThat(TruncationPoints.endOffsetFor(cache, 4)).contains(new TruncationPoints.EpochEnd(4, 30));
        assertThat(TruncationPoints.endOffsetFor(cache, 5)).contains(new TruncationPoints.EpochEnd(4, 30));
        assertThat(TruncationPoints.endOffsetFor(cache, 2)).contains(new TruncationPoints.EpochEnd(2, 10));
        // below the first entry: the asked epoch, ending where the first entry starts
        assertThat(TruncationPoints.endOffsetFor(cache, 1)).contains(new TruncationPoints.EpochEnd(1, 0));
        assertThat(TruncationPoints.endOffsetFor(cache, 7)).isEmpty();
        assertThat(TruncationPoints.endOffsetFor(cache, 9)).isEmpty();
    }

    /** {@link #retriedCase} with the follower's and the leader's batches as given; both are read, at 100. */
    private OptionalLong lossFrom(List<BatchHead> followerBatches,
                                  List<BatchHead> leaderBatches) {
        List<String> read = new ArrayList<>();
        OptionalLong from = retriedCase((broker, offset) -> {
            read.add(broker + "@" + offset);
            return CompletableFuture.completedFuture(broker == LEADER ? leaderBatches : followerBatches);
        }, false);
        assertThat(read).containsExactlyInAnyOrder(FOLLOWER + "@100", LEADER + "@100");
        return from;
    }

    /**
     * The leader's epoch 5 starts at 100; the follower's epoch 3 runs to 106: where its loss starts, its batches read
     * through {@code heads}, the follower probed live or read off a disk.
     */
    private static OptionalLong retriedCase(TruncationPoints.BatchHeads heads, boolean followerOnDisk) {
        Log leader = Log.of(120, 3, 0, 5, 100);
        Log follower = Log.of(106, 3, 0);
        TruncationPoints points = new TruncationPoints(
                (broker, epoch) -> CompletableFuture.completedFuture((broker == LEADER ? leader : follower)
                        .endOffsetFor(epoch)), heads);
        return points.lossFrom(leader.asProbed(LEADER), followerOnDisk ? follower.asReadOffDisk(FOLLOWER)
                : follower.asProbed(FOLLOWER)).join();
    }

    private static BatchHead batch(long base, long last, long crc) {
        return new BatchHead(base, last, crc);
    }

    @Test
    void a_batch_the_leader_holds_alike_at_the_same_offsets_is_not_lost_though_the_replica_truncates_it() {
        // the producer's two batches at [100, 104) that the old leader appended were sent again to the new leader
        List<BatchHead> retried = List.of(batch(100, 101, 11), batch(102, 103, 12));
        OptionalLong from = lossFrom(List.of(retried.get(0), retried.get(1), batch(104, 105, 13)),
                List.of(retried.get(0), retried.get(1), batch(104, 110, 99)));
        assertThat(from).hasValue(104);
    }

    @Test
    void every_batch_alike_loses_nothing() {
        List<BatchHead> same = List.of(batch(100, 102, 7), batch(103, 105, 8));
        assertThat(lossFrom(same, same)).hasValue(106);
    }

    @Test
    void the_loss_starts_at_the_first_batch_that_differs_in_crc_or_offsets() {
        assertThat(lossFrom(List.of(batch(100, 101, 11), batch(102, 105, 12)),
                List.of(batch(100, 101, 12), batch(102, 105, 12)))).hasValue(100);
        assertThat(lossFrom(List.of(batch(100, 101, 11), batch(102, 105, 12)),
                List.of(batch(100, 102, 11)))).hasValue(100);
        // a later batch alike after one that differs is not enough: the log from the first difference on is cut
        assertThat(lossFrom(List.of(batch(100, 101, 11), batch(102, 105, 12)),
                List.of(batch(100, 101, 10), batch(102, 105, 12)))).hasValue(100);
    }

    @Test
    void batches_that_cannot_be_read_leave_the_loss_where_the_replica_truncates() {
        assertThat(retriedCase((broker, offset) -> CompletableFuture.failedFuture(
                new IllegalStateException("no answer")), false)).hasValue(100);
    }

    @Test
    void a_replica_read_off_a_disk_without_its_batches_loses_from_where_it_truncates() {
        assertThat(retriedCase((broker, offset) -> {
            throw new AssertionError("a stopped broker's replica was read over the network");
        }, true)).hasValue(100);
    }

    @Test
    void a_replica_read_off_a_disk_compares_the_batches_inspect_kept_with_the_leaders() {
        // the old leader stopped with [100, 106) unacknowledged; the producer sent [100, 104) again to the new leader
        Log leader = Log.of(120, 3, 0, 5, 100);
        Log follower = Log.of(106, 3, 0);
        List<BatchHead> kept = List.of(batch(0, 3, 1), batch(100, 101, 11), batch(102, 103, 12), batch(104, 105, 13));
        List<BatchHead> leaders = List.of(batch(100, 101, 11), batch(102, 103, 12), batch(104, 110, 99));
        assertThat(lossFromDisk(leader, follower, kept, leaders)).hasValue(104);
        // a gap in what inspect kept ends the comparison there
        assertThat(lossFromDisk(leader, follower, List.of(batch(100, 101, 11), batch(103, 105, 12)), leaders))
                .hasValue(102);
        assertThat(lossFromDisk(leader, follower, List.of(batch(0, 3, 1), batch(104, 105, 13)), leaders))
                .hasValue(100);
    }

    @Test
    void a_disk_replica_that_led_an_epoch_the_leader_lacks_keeps_the_batch_it_was_sent_again() {
        // seed 44: the dead broker led epoch 2 from 3558 and was sent there the batch the live one had appended at
        // 3558 in epoch 1 without acknowledging it; under the live one it cuts at 3558 and loses from 3559
        Log leader = Log.of(3559, 0, 0, 1, 904);
        Log follower = Log.of(3940, 0, 0, 1, 904, 2, 3558);
        List<BatchHead> leaders = List.of(batch(3558, 3558, 77));
        assertThat(lossFromDisk(leader, follower, List.of(batch(3558, 3558, 77), batch(3559, 3563, 78)), leaders))
                .hasValue(3559);
        assertThat(lossFromDisk(leader, follower, List.of(batch(3558, 3558, 76), batch(3559, 3563, 78)), leaders))
                .hasValue(3558);
    }

    /** Where a disk replica's loss starts, with the batches inspect kept; only the leader is read over the network. */
    private static OptionalLong lossFromDisk(Log leader, Log follower, List<BatchHead> kept, List<BatchHead> leaders) {
        TruncationPoints points = new TruncationPoints(
                (broker, epoch) -> CompletableFuture.completedFuture((broker == LEADER ? leader : follower)
                        .endOffsetFor(epoch)),
                (broker, offset) -> {
                    assertThat(broker).as("the broker read over the network").isEqualTo(LEADER);
                    return CompletableFuture.completedFuture(leaders.stream()
                            .filter(b -> b.lastOffset() >= offset).toList());
                });
        return points.lossFrom(leader.asProbed(LEADER), follower.asReadOffDisk(FOLLOWER).withBatchHeads(kept)).join();
    }
}
