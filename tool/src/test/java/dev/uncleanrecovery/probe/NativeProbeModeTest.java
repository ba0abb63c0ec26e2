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
    void each_mode_is_named_as_users_type_it() {
        assertThat(java.util.Arrays.stream(ProbeMode.values()).map(String::valueOf)).containsExactly("auto", "native",
                "stock");
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
