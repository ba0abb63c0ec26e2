// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.probe;

import static org.assertj.core.api.Assertions.assertThat;

import dev.uncleanrecovery.connect.BrokerConnections;
import dev.uncleanrecovery.connect.BrokerState;
import dev.uncleanrecovery.evidence.EvidenceSource;
import java.util.List;
import java.util.Properties;
import org.junit.jupiter.api.Test;

/** {@code --probe-mode}: the words users type, and the evidence source each one asks brokers with. */
class NativeProbeModeTest {

    @Test
    void the_three_modes_parse_in_any_case_and_nothing_else_does() {
        assertThat(ProbeMode.parse("auto")).contains(ProbeMode.AUTO);
        assertThat(ProbeMode.parse("NATIVE")).contains(ProbeMode.NATIVE);
        assertThat(ProbeMode.parse(" stock ")).contains(ProbeMode.STOCK);
        assertThat(ProbeMode.parse("fast")).isEmpty();
        assertThat(ProbeMode.parse(null)).isEmpty();
        assertThat(ProbeMode.choices()).isEqualTo("auto, native, stock");
    }

    @Test
    void each_mode_asks_with_its_own_source() {
        Properties client = new Properties();
        client.put("bootstrap.servers", "127.0.0.1:1");
        try (BrokerConnections connections = BrokerConnections.open(client, List.of(new BrokerState(1, "127.0.0.1", 1, null, false)))) {
            assertThat(ProbeMode.AUTO.source(connections)).isInstanceOf(AutoLogInfoSource.class);
            assertThat(ProbeMode.NATIVE.source(connections)).isInstanceOf(NativeLogInfoSource.class);
            assertThat(ProbeMode.STOCK.source(connections)).isInstanceOf(StockLogInfoSource.class);
        }
        assertThat(ProbeMode.NATIVE.unaskedSource()).isEqualTo(EvidenceSource.NATIVE);
        assertThat(ProbeMode.AUTO.unaskedSource()).isEqualTo(EvidenceSource.STOCK);
    }
}
