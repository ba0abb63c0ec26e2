// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.chaos;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;

/** The seeded schedule: the same seed gives the same faults, and fifty seeds give every kind. */
class FaultScheduleTest {

    private static final List<Integer> BROKERS = List.of(1, 2, 3, 4);

    @Test
    void a_seed_gives_the_same_schedule_every_time() {
        assertThat(FaultSchedule.of(17, BROKERS, false)).isEqualTo(FaultSchedule.of(17, BROKERS, false));
        assertThat(FaultSchedule.of(17, BROKERS, false)).isNotEqualTo(FaultSchedule.of(18, BROKERS, false));
    }

    @Test
    void fifty_seeds_inject_every_kind_of_fault_and_both_fates_of_the_dead_disk() {
        Set<FaultSchedule.Fault> seen = EnumSet.noneOf(FaultSchedule.Fault.class);
        Set<Boolean> diskLost = new java.util.HashSet<>();
        LongStream.rangeClosed(1, 50).mapToObj(seed -> FaultSchedule.of(seed, BROKERS, false)).forEach(schedule -> {
            schedule.steps().forEach(step -> seen.add(step.fault()));
            diskLost.add(schedule.deadDiskLost());
            assertThat(schedule.killOrder()).hasSize(3).doesNotHaveDuplicates();
            assertThat(schedule.steps()).allSatisfy(step -> {
                if (step.fault() == FaultSchedule.Fault.SHORT_PAUSE) {
                    assertThat(step.holdMillis()).isLessThan(6_000); // broker.session.timeout.ms of the harness
                }
                if (step.fault() == FaultSchedule.Fault.LONG_PAUSE) {
                    assertThat(step.holdMillis()).isGreaterThan(6_000);
                }
            });
        });
        assertThat(seen).containsExactlyInAnyOrderElementsOf(FaultSchedule.Fault.ofProcessesAndDisks());
        assertThat(diskLost).containsExactlyInAnyOrder(true, false);
    }

    @Test
    void with_the_network_fifty_seeds_inject_every_kind_and_each_seed_at_least_one_network_fault() {
        Set<FaultSchedule.Fault> seen = EnumSet.noneOf(FaultSchedule.Fault.class);
        for (boolean shortRun : List.of(true, false)) {
            LongStream.rangeClosed(1, 50).mapToObj(seed -> FaultSchedule.of(seed, BROKERS, shortRun, true))
                    .forEach(schedule -> {
                        schedule.steps().forEach(step -> seen.add(step.fault()));
                        assertThat(schedule.steps()).anyMatch(step -> step.fault().isNetwork());
                        assertThat(schedule.steps()).filteredOn(step -> step.fault().isNetwork())
                                .allSatisfy(step -> assertThat(step.holdMillis()).isBetween(2_000L, 11_000L));
                    });
        }
        assertThat(seen).containsExactlyInAnyOrder(FaultSchedule.Fault.values());
    }

    @Test
    void seeds_are_ranges_and_lists() {
        assertThat(ChaosClusterTest.seeds("1..3,7, 9..9")).containsExactly(1L, 2L, 3L, 7L, 9L);
    }
}
