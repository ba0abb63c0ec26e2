// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.execute;

import static dev.uncleanrecovery.execute.PhaseFixture.ORDERS_0;
import static dev.uncleanrecovery.execute.PhaseFixture.ORDERS_1;
import static dev.uncleanrecovery.execute.PhaseFixture.ORDERS_ID;
import static dev.uncleanrecovery.execute.PhaseFixture.cluster;
import static dev.uncleanrecovery.execute.PhaseFixture.offline;
import static dev.uncleanrecovery.execute.PhaseFixture.planned;
import static org.assertj.core.api.Assertions.assertThat;

import dev.uncleanrecovery.cluster.ClusterSnapshot;
import dev.uncleanrecovery.cluster.TopicPartitionState;
import dev.uncleanrecovery.salvage.DoomedRange;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

/** The copy of what the elections truncate, alone: given measured losses, what is copied and what is refused. */
class SalvagePhaseTest {

    private final ClusterSnapshot now = cluster(offline(ORDERS_0), offline(ORDERS_1));
    private final List<String> steps = new ArrayList<>();
    private final RecordingSalvage salvage = new RecordingSalvage(step -> { });
    private final List<DoomedRange> copied = salvage.asked;

    /** Broker 3 is live, broker 1 fenced. */
    private static DoomedRange on(TopicPartition tp, int broker) {
        return new DoomedRange(tp, ORDERS_ID, broker, 100, 120, 3);
    }

    private Candidate measured(TopicPartition tp, List<DoomedRange> ranges, List<Integer> inexact) {
        return Candidate.of(planned(tp), now).measured(new DoomedRanges(ranges, inexact, Map.of(), List.of(),
                Optional.empty()));
    }

    private Map<TopicPartition, Verdict> keep(boolean noSalvage, boolean dryRun, Candidate... going) {
        return new SalvagePhase(noSalvage ? null : salvage, noSalvage, dryRun, steps::add).keep(List.of(going), now);
    }

    @Test
    void a_partition_that_truncates_nothing_goes_on_and_nothing_is_copied() {
        Candidate c = measured(ORDERS_0, List.of(), List.of());

        assertThat(keep(false, false, c)).isEqualTo(Map.of(ORDERS_0, new Verdict.Proceed(c)));
        assertThat(copied).isEmpty();
        assertThat(steps).isEmpty();
    }

    @Test
    void the_ranges_of_live_replicas_are_copied_in_one_go_and_a_failed_copy_refuses_its_partition() {
        Candidate kept = measured(ORDERS_0, List.of(on(ORDERS_0, 3)), List.of());
        Candidate lost = measured(ORDERS_1, List.of(on(ORDERS_1, 3)), List.of());
        salvage.failing.add(ORDERS_1);

        Map<TopicPartition, Verdict> verdicts = keep(false, false, kept, lost);

        assertThat(copied).containsExactly(on(ORDERS_0, 3), on(ORDERS_1, 3));
        assertThat(steps).containsExactly("salvaging 2 doomed range(s) of 2 partition(s) (40 offsets) into plan-salvage");
        assertThat(verdicts.get(ORDERS_0)).isEqualTo(new Verdict.Proceed(kept.salvaged(List.of(
                RecordingSalvage.fetched(on(ORDERS_0, 3))))));
        assertThat(verdicts.get(ORDERS_1)).isEqualTo(new Verdict.Refused("salvage failed: broker 3 did not serve"
                + " orders-1; nothing elected"));
    }

    @Test
    void a_down_replicas_range_is_taken_from_its_earlier_disk_copy_or_refuses_its_partition() {
        Candidate copiedBefore = measured(ORDERS_0, List.of(on(ORDERS_0, 1)), List.of());
        Candidate notCopied = measured(ORDERS_1, List.of(on(ORDERS_1, 1)), List.of());
        salvage.onDisk.add(on(ORDERS_0, 1));

        Map<TopicPartition, Verdict> verdicts = keep(false, false, copiedBefore, notCopied);

        assertThat(copied).as("a fenced broker serves no Fetch").isEmpty();
        assertThat(verdicts.get(ORDERS_0)).isEqualTo(new Verdict.Proceed(copiedBefore.salvaged(List.of(
                RecordingSalvage.fromDisk(on(ORDERS_0, 1)))), List.of("broker 1 is down; its"
                + " doomed records broker 1 [100..120) (20 offsets) were copied off its disk before ("
                + Path.of("plan-salvage", "disk-manifest.json") + ")")));
        assertThat(verdicts.get(ORDERS_1)).isEqualTo(new Verdict.Refused("salvage failed: broker 1 did not serve"
                + " orders-1 [100..120): it is fenced, so nothing can be read from it online; copy its records off its"
                + " disk with 'inspect --salvage-beyond' on its host into plan-salvage, then execute again (or"
                + " --no-salvage); nothing elected"));
    }

    @Test
    void a_replica_on_a_failed_log_directory_of_a_live_broker_is_copied_off_its_disk_never_fetched() {
        // broker 3 is up, but the metadata lists its replicas offline: the directory holding them failed
        ClusterSnapshot failedDir = cluster(onAFailedDirOf3(ORDERS_0), onAFailedDirOf3(ORDERS_1));
        Candidate copiedBefore = Candidate.of(planned(ORDERS_0), failedDir).measured(new DoomedRanges(
                List.of(on(ORDERS_0, 3)), List.of(), Map.of(), List.of(), Optional.empty()));
        Candidate notCopied = Candidate.of(planned(ORDERS_1), failedDir).measured(new DoomedRanges(
                List.of(on(ORDERS_1, 3)), List.of(), Map.of(), List.of(), Optional.empty()));
        salvage.onDisk.add(on(ORDERS_0, 3));

        Map<TopicPartition, Verdict> verdicts = new SalvagePhase(salvage, false, false, steps::add)
                .keep(List.of(copiedBefore, notCopied), failedDir);

        assertThat(copied).as("its broker answers KAFKA_STORAGE_ERROR for it").isEmpty();
        assertThat(verdicts.get(ORDERS_0)).isEqualTo(new Verdict.Proceed(copiedBefore.salvaged(List.of(
                RecordingSalvage.fromDisk(on(ORDERS_0, 3)))), List.of("broker 3's log directory holding orders-0"
                + " failed; its doomed records broker 3 [100..120) (20 offsets) were copied off its disk before ("
                + Path.of("plan-salvage", "disk-manifest.json") + ")")));
        assertThat(verdicts.get(ORDERS_1)).isEqualTo(new Verdict.Refused("salvage failed: broker 3 did not serve"
                + " orders-1 [100..120): the log directory holding it failed on that broker, so nothing can be read"
                + " from it online; copy its records off its disk with 'inspect --salvage-beyond' on its host into"
                + " plan-salvage, then execute again (or --no-salvage); nothing elected"));
    }

    private static TopicPartitionState onAFailedDirOf3(TopicPartition tp) {
        return new TopicPartitionState(tp.topic(), ORDERS_ID, tp.partition(), TopicPartitionState.NO_LEADER,
                offline(tp).leaderEpoch(), List.of(1, 3, 2), List.of(3), List.of(), List.of(3), List.of(1, 3));
    }

    @Test
    void a_loss_known_only_as_a_bound_refuses_its_partition_unless_nothing_is_to_be_kept() {
        Candidate bound = measured(ORDERS_0, List.of(on(ORDERS_0, 3)), List.of(1));

        assertThat(keep(false, false, bound).get(ORDERS_0)).isEqualTo(new Verdict.Refused("the truncation start on"
                + " broker(s) 1 is not known exactly; cannot salvage it whole (plan again, or --no-salvage to elect"
                + " without a copy)"));
        assertThat(keep(true, false, bound).get(ORDERS_0)).isEqualTo(new Verdict.Proceed(bound,
                List.of("--no-salvage: not kept broker 3 [100..120) (20 offsets)")));
        assertThat(copied).isEmpty();
    }

    @Test
    void a_dry_run_copies_nothing_and_says_what_it_would_copy_or_refuse() {
        Candidate live = measured(ORDERS_0, List.of(on(ORDERS_0, 3)), List.of());
        Candidate down = measured(ORDERS_1, List.of(on(ORDERS_1, 1)), List.of());

        Map<TopicPartition, Verdict> verdicts = keep(false, true, live, down);

        assertThat(copied).isEmpty();
        assertThat(verdicts.get(ORDERS_0)).isEqualTo(new Verdict.Proceed(live,
                List.of("would salvage broker 3 [100..120) (20 offsets)")));
        assertThat(verdicts.get(ORDERS_1)).isInstanceOfSatisfying(Verdict.Proceed.class, p -> assertThat(p.notes())
                .singleElement().asString().startsWith("would refuse: salvage impossible: broker 1 did not serve"));
    }
}
