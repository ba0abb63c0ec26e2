// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery;

import static org.assertj.core.api.Assertions.assertThat;

import dev.uncleanrecovery.support.Durations;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class DurationsTest {

    @Test
    void sub_second_values_keep_their_milliseconds() {
        assertThat(Durations.human(0)).isEqualTo("0 ms");
        assertThat(Durations.human(400)).isEqualTo("400 ms");
        assertThat(Durations.human(999)).isEqualTo("999 ms");
    }

    @Test
    void seconds_are_rounded_to_tenths_then_to_whole_seconds() {
        assertThat(Durations.human(2996)).isEqualTo("3 s");
        assertThat(Durations.human(Duration.ofMillis(3000))).isEqualTo("3 s");
        assertThat(Durations.human(1500)).isEqualTo("1.5 s");
        assertThat(Durations.human(1000)).isEqualTo("1 s");
        assertThat(Durations.human(9949)).isEqualTo("9.9 s");
        assertThat(Durations.human(9950)).isEqualTo("10 s");
        assertThat(Durations.human(30_000)).isEqualTo("30 s");
        assertThat(Durations.human(119_400)).isEqualTo("119 s");
    }

    @Test
    void long_waits_are_in_minutes() {
        assertThat(Durations.human(120_000)).isEqualTo("2 min");
        assertThat(Durations.human(150_000)).isEqualTo("2.5 min");
        assertThat(Durations.human(Duration.ofMinutes(30))).isEqualTo("30 min");
    }
}
