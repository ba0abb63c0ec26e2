// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.uncleanrecovery.probe.ProbeProgress;
import dev.uncleanrecovery.probe.UnansweredBroker;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;

/**
 * The probe's count names the brokers that did not answer, and is printed even for a quick probe then; recover's
 * steps wait for the plan being printed, then come out in order, and later ones pass straight through.
 */
class ProgressLineTest {

    private static final UnansweredBroker HUNG = new UnansweredBroker(2, "broker 2 (127.0.0.1:9093)",
            "broker 2 (127.0.0.1:9093) did not answer ListOffsets within 3 s", true, 1, 1);

    private static ProbeProgress progress(int brokersAnswered, int replicasKnown, int replicasSettled,
                                          List<UnansweredBroker> unanswered) {
        return new ProbeProgress(brokersAnswered, 3, replicasKnown, replicasSettled, 3, replicasSettled, 3,
                Duration.ofMillis(50), unanswered);
    }

    @Test
    void a_quick_probe_with_a_hung_broker_still_ends_with_the_count_naming_it() {
        StringWriter err = new StringWriter();
        ProgressLine line = new ProgressLine(new PrintWriter(err));

        line.accept(progress(0, 0, 0, List.of()));
        line.accept(progress(2, 2, 2, List.of()));
        assertThat(err.toString()).as("quiet while quick").isEmpty();
        line.accept(progress(2, 2, 3, List.of(HUNG)));

        assertThat(err.toString()).isEqualTo("probing: 2/3 brokers answered, 2/3 replicas known;"
                + " broker 2 (127.0.0.1:9093) did not answer in time" + System.lineSeparator());
    }

    @Test
    void a_quick_probe_where_every_broker_answered_prints_nothing() {
        StringWriter err = new StringWriter();
        ProgressLine line = new ProgressLine(new PrintWriter(err));

        line.accept(progress(3, 3, 3, List.of()));

        assertThat(err.toString()).isEmpty();
    }

    @Test
    void brokers_given_up_and_brokers_partly_unknown_are_said_apart() {
        UnansweredBroker refused = new UnansweredBroker(3, "broker 3 (127.0.0.1:9094)", "authentication to broker 3"
                + " (127.0.0.1:9094) failed", false, 1, 1);
        UnansweredBroker slow = new UnansweredBroker(1, "broker 1 (127.0.0.1:9092)", "broker 1 (127.0.0.1:9092) did not"
                + " answer within 3 s: no answer yet", true, 40, 1000);

        assertThat(ProgressLine.line(new ProbeProgress(0, 3, 960, 1002, 1002, 1000, 1000, Duration.ofSeconds(3),
                List.of(slow, HUNG, refused)))).isEqualTo("probing: 0/3 brokers answered, 960/1002 replicas known;"
                + " broker 1 (127.0.0.1:9092) (40 of its 1000 replicas) and broker 2 (127.0.0.1:9093) did not answer in time;"
                + " broker 3 (127.0.0.1:9094) could not be asked");
    }

    @Test
    void the_count_during_the_probe_names_no_broker_yet() {
        assertThat(ProgressLine.line(progress(1, 1, 1, List.of()))).isEqualTo("probing: 1/3 brokers answered, 1/3 replicas known");
    }

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
