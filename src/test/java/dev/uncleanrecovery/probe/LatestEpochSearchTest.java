// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.probe;

import static org.assertj.core.api.Assertions.assertThat;

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

    private static int search(Replica replica, int metadataLeaderEpoch, LatestEpochSearch search) {
        int rounds = 0;
        while (!search.isDone()) {
            int e = search.nextProbe();
            long[] answer = replica.divergingEpoch(e);
            if (answer == null) {
                search.outOfRange(e);
            } else {
                search.diverged(e, answer[1]);
            }
            rounds++;
        }
        return rounds;
    }

    @Test
    void finds_the_latest_epoch_and_log_end_offset_of_a_replica_that_led_in_a_later_epoch() {
        Replica replica = new Replica(new TreeMap<>(Map.of(0, 0L, 1, 10L)), 15);
        LatestEpochSearch search = new LatestEpochSearch(2);

        search(replica, 2, search);

        assertThat(search.latestEpoch()).isEqualTo(1);
        assertThat(search.logEndOffset()).isEqualTo(15);
        assertThat(search.isAheadOfMetadata()).isFalse();
    }

    @Test
    void an_empty_epoch_cache_gives_epoch_minus_one() {
        LatestEpochSearch search = new LatestEpochSearch(7);

        search(new Replica(new TreeMap<>(), 0), 7, search);

        assertThat(search.latestEpoch()).isEqualTo(-1);
        assertThat(search.logEndOffset()).isEqualTo(-1);
    }

    @Test
    void a_latest_epoch_without_records_still_counts_as_latest() {
        // makeLeader writes epoch@LEO even when the new leader never appends: cache 0@0, 4@15, LEO 15.
        // Asking E=0 answers (0, 15) = (0, LEO), which looks final but is not.
        LatestEpochSearch search = new LatestEpochSearch(5);

        search(new Replica(new TreeMap<>(Map.of(0, 0L, 4, 15L)), 15), 5, search);

        assertThat(search.latestEpoch()).isEqualTo(4);
        assertThat(search.logEndOffset()).isEqualTo(15);
    }

    @Test
    void a_cache_ahead_of_the_metadata_is_reported() {
        LatestEpochSearch search = new LatestEpochSearch(3);

        search(new Replica(new TreeMap<>(Map.of(0, 0L, 5, 20L)), 30), 3, search);

        assertThat(search.isAheadOfMetadata()).isTrue();
    }

    @Test
    void any_cache_is_found_in_about_log2_rounds() {
        Random random = new Random(966);
        for (int trial = 0; trial < 5_000; trial++) {
            int metadataLeaderEpoch = random.nextInt(200);
            TreeMap<Integer, Long> cache = new TreeMap<>();
            long offset = 0;
            int epoch = random.nextInt(3);
            while (random.nextInt(4) != 0 && epoch < metadataLeaderEpoch) {
                cache.put(epoch, offset);
                offset += random.nextInt(3) == 0 ? 0 : random.nextInt(1000);
                epoch += 1 + random.nextInt(5);
            }
            long logEndOffset = offset + (cache.isEmpty() ? 0 : random.nextInt(50));
            Replica replica = new Replica(cache, logEndOffset);
            LatestEpochSearch search = new LatestEpochSearch(metadataLeaderEpoch);

            int rounds = search(replica, metadataLeaderEpoch, search);

            int expectedLatest = cache.isEmpty() ? -1 : cache.lastKey();
            assertThat(search.latestEpoch()).as("latest epoch of %s", cache).isEqualTo(expectedLatest);
            assertThat(search.logEndOffset()).isEqualTo(cache.isEmpty() ? -1 : logEndOffset);
            assertThat(search.isAheadOfMetadata()).isFalse();
            int bound = 32 - Integer.numberOfLeadingZeros(metadataLeaderEpoch + 2);
            assertThat(rounds).as("rounds for metadata epoch %d", metadataLeaderEpoch).isLessThanOrEqualTo(bound);
        }
    }
}
