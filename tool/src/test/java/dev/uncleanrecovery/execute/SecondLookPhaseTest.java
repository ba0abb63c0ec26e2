// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.execute;

import static dev.uncleanrecovery.execute.PhaseFixture.EPOCH;
import static dev.uncleanrecovery.execute.PhaseFixture.ORDERS_0;
import static dev.uncleanrecovery.execute.PhaseFixture.ORDERS_1;
import static dev.uncleanrecovery.execute.PhaseFixture.answer;
import static dev.uncleanrecovery.execute.PhaseFixture.cluster;
import static dev.uncleanrecovery.execute.PhaseFixture.offline;
import static dev.uncleanrecovery.execute.PhaseFixture.planned;
import static org.assertj.core.api.Assertions.assertThat;

import dev.uncleanrecovery.cluster.ClusterSnapshot;
import dev.uncleanrecovery.cluster.TopicPartitionState;
import dev.uncleanrecovery.evidence.EvidenceSource;
import dev.uncleanrecovery.evidence.ReplicaEvidence;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

/** The second look, alone: what it asks, and which answers refuse a partition. */
class SecondLookPhaseTest {

    private final ClusterSnapshot now = cluster(offline(ORDERS_0), offline(ORDERS_1));
    private final List<Map<TopicPartitionState, List<Integer>>> asked = new CopyOnWriteArrayList<>();
    private final List<String> steps = new CopyOnWriteArrayList<>();
    /** What each partition's replicas answer; a broker not in it stays silent. */
    private final Map<TopicPartition, List<ReplicaEvidence>> answers = new HashMap<>();

    private final ReplicaReprobe reprobe = replicas -> {
        asked.add(replicas);
        Map<TopicPartition, List<ReplicaEvidence>> given = new HashMap<>();
        replicas.forEach((state, brokers) -> given.put(state.topicPartition(), answers.getOrDefault(
                state.topicPartition(), List.of()).stream().filter(e -> brokers.contains(e.broker())).toList()));
        return given;
    };

    private List<Candidate> going(TopicPartition... partitions) {
        return List.of(partitions).stream().map(tp -> Candidate.of(planned(tp), now)).toList();
    }

    @Test
    void the_designated_and_every_live_replica_are_asked_and_their_answers_go_on_with_the_partition() {
        answers.put(ORDERS_0, List.of(answer(ORDERS_0, 2, 100, EPOCH), answer(ORDERS_0, 3, 60, EPOCH)));

        Map<TopicPartition, Verdict> verdicts = SecondLookPhase.afterTheReread(reprobe, steps::add)
                .look(going(ORDERS_0), now);

        // broker 1 is fenced: it serves no request, so it is not asked
        assertThat(asked).singleElement().isEqualTo(Map.of(offline(ORDERS_0), List.of(2, 3)));
        assertThat(steps).containsExactly("probing once more the 2 live replica(s) of 1 partition(s): the designated"
                + " leader, and what each other replica will lose");
        assertThat(verdicts.get(ORDERS_0)).isInstanceOfSatisfying(Verdict.Proceed.class, p ->
                assertThat(p.candidate().secondLook()).isEqualTo(answers.get(ORDERS_0)));
    }

    @Test
    void a_designated_replica_whose_log_shrank_or_that_did_not_answer_refuses_its_partition() {
        answers.put(ORDERS_0, List.of(answer(ORDERS_0, 2, 90, EPOCH)));

        Map<TopicPartition, Verdict> verdicts = SecondLookPhase.afterTheReread(reprobe, steps::add)
                .look(going(ORDERS_0, ORDERS_1), now);

        assertThat(verdicts.get(ORDERS_0)).isEqualTo(new Verdict.Refused("designated replica 2 log shrank since the"
                + " plan: epoch 4 LEO 100 -> epoch 4 LEO 90; make a new plan"));
        assertThat(verdicts.get(ORDERS_1)).isEqualTo(new Verdict.Refused("designated replica 2 did not answer the"
                + " re-probe"));
    }

    @Test
    void a_designated_broker_that_restarted_since_the_plan_refuses_its_partition() {
        answers.put(ORDERS_0, List.of(ReplicaEvidence.answered(ORDERS_0, 2, EvidenceSource.NATIVE, 100, EPOCH, EPOCH,
                12L, Instant.EPOCH)));

        Map<TopicPartition, Verdict> verdicts = SecondLookPhase.afterTheReread(reprobe, steps::add)
                .look(going(ORDERS_0), now);

        assertThat(verdicts.get(ORDERS_0)).isEqualTo(new Verdict.Refused("designated broker 2 restarted since the plan"
                + " (broker epoch 7 -> 12); plan again"));
    }

    @Test
    void early_answers_count_for_the_replicas_they_asked_and_only_the_rest_are_asked_again() {
        answers.put(ORDERS_0, List.of(answer(ORDERS_0, 2, 100, EPOCH), answer(ORDERS_0, 3, 60, EPOCH)));
        // the early probe asked the designated replica only: 3 was fenced when the plan was made
        SecondLookPhase phase = SecondLookPhase.duringTheReread(reprobe, steps::add,
                Map.of(offline(ORDERS_0), List.of(2)));

        Map<TopicPartition, Verdict> verdicts = phase.look(going(ORDERS_0), now);

        assertThat(asked).containsExactly(Map.of(offline(ORDERS_0), List.of(2)), Map.of(offline(ORDERS_0), List.of(3)));
        assertThat(verdicts.get(ORDERS_0)).isInstanceOfSatisfying(Verdict.Proceed.class, p ->
                assertThat(p.candidate().secondLook()).isEqualTo(answers.get(ORDERS_0)));
    }

    @Test
    void with_nothing_going_the_early_probe_is_not_waited_for() {
        CountDownLatch release = new CountDownLatch(1);
        SecondLookPhase phase = SecondLookPhase.duringTheReread(replicas -> {
            awaitQuietly(release);
            return reprobe.reprobe(replicas);
        }, steps::add, Map.of(offline(ORDERS_0), List.of(2)));

        Map<TopicPartition, Verdict> verdicts = phase.look(List.of(), now);

        assertThat(verdicts).isEmpty();
        assertThat(asked).as("still probing: the look did not wait for it").isEmpty();
        release.countDown();
    }

    private static void awaitQuietly(CountDownLatch latch) {
        try {
            latch.await(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
