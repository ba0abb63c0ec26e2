// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.formats;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;

class ExamplePlanTest {

    @Test
    void the_example_plan_in_the_readme_is_a_valid_plan() throws Exception {
        Plan plan = PlanFile.read(Path.of("examples", "plan.json"));

        assertThat(plan.partitions()).singleElement().satisfies(p -> {
            assertThat(p.designatedLeader()).isEqualTo(2);
            assertThat(p.expected().replicas()).containsExactly(1, 3, 2);
        });
    }
}
