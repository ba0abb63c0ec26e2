// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.probe;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * The search logic against a model of the broker's divergence check (LeaderEpochFileCache.endOffsetFor
 * as read in Kafka 4.4.0). That the real broker answers this way is checked in StockLogInfoSourceClusterTest.
 */
class LatestEpochSearchTest {

    /** A replica's leader-epoch cache (epoch → start offset) and log end offset. */
    private record Replica(TreeMap<Integer, Long> cache, long logEndOffset) {

        /** What Fetch(LastFetchedEpoch = e, FetchOffset past the end) answers: null for OFFSET_OUT_OF_RANGE. */
        long[] divergingEpoch(int e) {
            if (cache.isEmpty() || e > cache.lastKey()) {
                return null;
            }
            if (e == cache.lastKey()) {
                return new long[] {e, logEndOffset};
            }
            Integer floor = cache.floorKey(e);
            long nextStart = cache.get(cache.higherKey(e));
            return new long[] {floor == null ? e : floor, nextStart};
        }
    }

    private static int search(Replica replica, LatestEpochSearch search) {
        int rounds = 0;
        while (!search.isDone()) {
            oneRound(replica, search);
            rounds++;
        }
        return rounds;
    }

    /** One Fetch: the search's next probe, answered by the replica. Returns the epoch asked about. */
    private static int oneRound(Replica replica, LatestEpochSearch search) {
        int e = search.nextProbe();
        long[] answer = replica.divergingEpoch(e);
        if (answer == null) {
            search.outOfRange(e);
        } else {
            search.diverged(e, (int) answer[0], answer[1]);
        }
        return e;
    }

    @Test
    void finds_the_latest_epoch_and_log_end_offset_of_a_replica_that_led_in_a_later_epoch() {
        Replica replica = new Replica(new TreeMap<>(Map.of(0, 0L, 1, 10L)), 15);
        LatestEpochSearch search = new LatestEpochSearch(2);

        search(replica, search);

        assertThat(search.latestEpoch()).isEqualTo(1);
        assertThat(search.logEndOffset()).isEqualTo(15);
        assertThat(search.isAheadOfMetadata()).isFalse();
    }

    @Test
    void an_empty_epoch_cache_gives_epoch_minus_one() {
        LatestEpochSearch search = new LatestEpochSearch(7);

        search(new Replica(new TreeMap<>(), 0), search);

        assertThat(search.latestEpoch()).isEqualTo(-1);
        assertThat(search.logEndOffset()).isEqualTo(-1);
    }

    @Test
    void a_latest_epoch_without_records_still_counts_as_latest() {
        // makeLeader writes epoch@LEO even when the new leader never appends: cache 0@0, 4@15, LEO 15.
        // Asking E=0 answers (0, 15) = (0, LEO), which looks final but is not.
        LatestEpochSearch search = new LatestEpochSearch(5);

        search(new Replica(new TreeMap<>(Map.of(0, 0L, 4, 15L)), 15), search);

        assertThat(search.latestEpoch()).isEqualTo(4);
        assertThat(search.logEndOffset()).isEqualTo(15);
    }

    @Test
    void a_cache_ahead_of_the_metadata_is_reported() {
        LatestEpochSearch search = new LatestEpochSearch(3);

        search(new Replica(new TreeMap<>(Map.of(0, 0L, 5, 20L)), 30), search);

        assertThat(search.isAheadOfMetadata()).isTrue();
    }

    @Test
    void one_fetch_at_the_planned_epoch_confirms_a_log_that_still_holds_what_the_plan_saw() {
        // a plan saw epoch 3, LEO 20; cache 0@0, 3@10, LEO 20
        Replica unchanged = new Replica(new TreeMap<>(Map.of(0, 0L, 3, 10L)), 20);
        LatestEpochSearch search = new LatestEpochSearch(5, 3);

        int asked = oneRound(unchanged, search);

        assertThat(asked).isEqualTo(3);
        assertThat(search.holdsAtLeast(3, 20)).isTrue();
        assertThat(search.logEndOffset()).isEqualTo(20);
        assertThat(search.holdsAtLeast(3, 21)).as("a plan that saw more than the log holds").isFalse();
        assertThat(search.holdsAtLeast(2, 20)).as("another epoch than the one asked about").isFalse();
    }

    @Test
    void a_log_cut_back_below_the_planned_epoch_or_offset_is_not_confirmed() {
        // the plan saw epoch 3, LEO 20: the tail was lost (log end 14), or the whole of epoch 3 (latest is 0),
        // or epoch 3 is no longer cached while a later epoch is (its floor, 2, is what the broker names)
        Replica cutTail = new Replica(new TreeMap<>(Map.of(0, 0L, 3, 10L)), 14);
        Replica epochGone = new Replica(new TreeMap<>(Map.of(0, 0L)), 8);
        Replica floorOnly = new Replica(new TreeMap<>(Map.of(0, 0L, 2, 5L, 4, 25L)), 30);

        for (Replica replica : List.of(cutTail, epochGone, floorOnly)) {
            LatestEpochSearch search = new LatestEpochSearch(5, 3);
            oneRound(replica, search);
            assertThat(search.holdsAtLeast(3, 20)).as("%s", replica).isFalse();
        }
    }

    @Test
    void a_search_started_at_any_guess_still_finds_the_latest_epoch() {
        Random random = new Random(320);
        for (int trial = 0; trial < 5_000; trial++) {
            int metadataLeaderEpoch = random.nextInt(200);
            Replica replica = randomReplica(random, metadataLeaderEpoch);
            int guess = random.nextInt(metadataLeaderEpoch + 5) - 2;
            LatestEpochSearch search = new LatestEpochSearch(metadataLeaderEpoch, guess);

            search(replica, search);

            assertThat(search.latestEpoch()).as("cache %s, first probe %d", replica.cache(), guess)
                    .isEqualTo(replica.cache().isEmpty() ? -1 : replica.cache().lastKey());
            assertThat(search.logEndOffset()).isEqualTo(replica.cache().isEmpty() ? -1 : replica.logEndOffset());
        }
    }

    @Test
    void any_cache_is_found_in_about_log2_rounds() {
        Random random = new Random(966);
        for (int trial = 0; trial < 5_000; trial++) {
            int metadataLeaderEpoch = random.nextInt(200);
            Replica replica = randomReplica(random, metadataLeaderEpoch);
            LatestEpochSearch search = new LatestEpochSearch(metadataLeaderEpoch);

            int rounds = search(replica, search);

            TreeMap<Integer, Long> cache = replica.cache();
            assertThat(search.latestEpoch()).as("latest epoch of %s", cache).isEqualTo(cache.isEmpty() ? -1 : cache.lastKey());
            assertThat(search.logEndOffset()).isEqualTo(cache.isEmpty() ? -1 : replica.logEndOffset());
            assertThat(search.isAheadOfMetadata()).isFalse();
            int bound = 32 - Integer.numberOfLeadingZeros(metadataLeaderEpoch + 2);
            assertThat(rounds).as("rounds for metadata epoch %d", metadataLeaderEpoch).isLessThanOrEqualTo(bound);
        }
    }

    /** A cache of epochs below the metadata's (some with no records: an epoch started at the same offset), or none. */
    private static Replica randomReplica(Random random, int metadataLeaderEpoch) {
        TreeMap<Integer, Long> cache = new TreeMap<>();
        long offset = 0;
        int epoch = random.nextInt(3);
        while (random.nextInt(4) != 0 && epoch < metadataLeaderEpoch) {
            cache.put(epoch, offset);
            offset += random.nextInt(3) == 0 ? 0 : random.nextInt(1000);
            epoch += 1 + random.nextInt(5);
        }
        return new Replica(cache, offset + (cache.isEmpty() ? 0 : random.nextInt(50)));
    }
}
