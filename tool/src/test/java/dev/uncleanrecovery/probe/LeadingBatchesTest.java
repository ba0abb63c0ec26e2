// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.probe;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/**
 * Which answers of a Fetch of many partitions are what each partition gets on its own: Kafka fills the response in
 * request order, each partition with at most its own limit and what the response has left, and only the first
 * partition with records gets a batch larger than that. A partition's batches past the cut must all be read, or its
 * loss would be counted from an earlier batch.
 */
class LeadingBatchesTest {

    private static final int SMALL = 500;

    @Test
    void answers_of_a_response_with_room_for_every_partition_are_all_whole() {
        // a few batches each, and partitions holding nothing past the offset asked before the last with records
        assertThat(LeadingBatches.asOnItsOwn(new int[] {SMALL, 0, SMALL, 0, SMALL},
                new int[] {SMALL, 0, SMALL, 0, SMALL})).containsExactly(true, true, true, true, true);
        assertThat(LeadingBatches.asOnItsOwn(new int[] {0, 0, 0}, new int[] {0, 0, 0}))
                .containsExactly(true, true, true);
    }

    @Test
    void a_partition_read_after_the_response_had_less_room_left_than_its_own_limit_is_asked_again() {
        int nearlyFull = LeadingBatches.MAX_RESPONSE_BYTES - LeadingBatches.MAX_BYTES + 1;
        assertThat(LeadingBatches.asOnItsOwn(new int[] {nearlyFull, SMALL, 0}, new int[] {nearlyFull, SMALL, 0}))
                .as("whole as they look, the second may be short and the third empty for want of room")
                .containsExactly(true, false, false);
    }

    @Test
    void an_empty_answer_after_the_last_with_records_may_be_a_broker_limit_and_is_asked_again() {
        // a broker's fetch.max.bytes below the request's MaxBytes ends the records early: all after come back empty
        assertThat(LeadingBatches.asOnItsOwn(new int[] {0, SMALL, 0, SMALL, 0, 0},
                new int[] {0, SMALL, 0, SMALL, 0, 0})).containsExactly(true, true, true, true, false, false);
    }

    @Test
    void an_answer_cut_inside_a_batch_before_its_own_limit_is_asked_again_but_never_the_first() {
        // the first partition with records gets its first batch whatever its size; a later one gets part of it
        assertThat(LeadingBatches.asOnItsOwn(new int[] {SMALL, SMALL}, new int[] {SMALL - 100, 0}))
                .containsExactly(true, false);
        assertThat(LeadingBatches.asOnItsOwn(new int[] {LeadingBatches.MAX_BYTES, LeadingBatches.MAX_BYTES},
                new int[] {LeadingBatches.MAX_BYTES - 100, LeadingBatches.MAX_BYTES - 100}))
                .as("cut at its own limit, as it would be on its own").containsExactly(true, true);
    }
}
