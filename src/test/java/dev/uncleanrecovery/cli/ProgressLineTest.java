// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;

/** recover's steps wait for the plan being printed, then come out in order, and later ones pass straight through. */
class ProgressLineTest {

    @Test
    void steps_are_held_until_the_plan_is_printed_then_shown_in_order() {
        List<String> shown = new ArrayList<>();
        CompletableFuture<Integer> printed = new CompletableFuture<>();
        Consumer<String> steps = ProgressLine.heldUntil(printed, shown::add);

        steps.accept("re-reading 5000 partition(s) of the plan");
        steps.accept("probing the 5000 designated replica(s) once more");
        assertThat(shown).isEmpty();

        printed.complete(0);
        assertThat(shown).containsExactly("re-reading 5000 partition(s) of the plan",
                "probing the 5000 designated replica(s) once more");

        steps.accept("electing 5000 partition(s)");
        assertThat(shown).last().isEqualTo("electing 5000 partition(s)");
    }

    @Test
    void a_plan_that_could_not_be_printed_still_releases_the_steps() {
        List<String> shown = new ArrayList<>();
        CompletableFuture<Integer> printed = new CompletableFuture<>();
        Consumer<String> steps = ProgressLine.heldUntil(printed, shown::add);

        steps.accept("re-reading 1 partition(s) of the plan");
        printed.completeExceptionally(new java.io.IOException("disk full"));

        assertThat(shown).containsExactly("re-reading 1 partition(s) of the plan");
    }
}
