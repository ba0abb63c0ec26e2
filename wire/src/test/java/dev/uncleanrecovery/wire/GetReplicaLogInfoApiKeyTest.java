// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.wire;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.apache.kafka.common.protocol.ApiKeys;
import org.junit.jupiter.api.Test;

class GetReplicaLogInfoApiKeyTest {

    @Test
    void the_default_key_is_private_to_this_project() {
        assertThat(GetReplicaLogInfo.apiKeyFrom(null)).isEqualTo((short) 1966);
        assertThat(GetReplicaLogInfo.apiKeyFrom(" ")).isEqualTo((short) 1966);
        assertThat(ApiKeys.hasId(GetReplicaLogInfo.DEFAULT_API_KEY)).isFalse();
    }

    @Test
    void the_property_moves_the_key() {
        assertThat(GetReplicaLogInfo.apiKeyFrom("1967")).isEqualTo((short) 1967);
        assertThat(GetReplicaLogInfo.apiKeyFrom(" 32767 ")).isEqualTo(Short.MAX_VALUE);
    }

    @Test
    void a_key_stock_kafka_uses_is_refused_by_name() {
        assertThatThrownBy(() -> GetReplicaLogInfo.apiKeyFrom("93"))
                .isInstanceOf(ProtocolException.class)
                .hasMessageStartingWith("system property kafka.unclean.recovery.getReplicaLogInfo.apiKey=93 is not a usable"
                        + " GetReplicaLogInfo api key: Kafka already uses it for StreamsGroupTopologyDescriptionUpdate");
    }

    @Test
    void keys_that_are_not_short_whole_numbers_are_refused() {
        assertThatThrownBy(() -> GetReplicaLogInfo.apiKeyFrom("abc"))
                .isInstanceOf(ProtocolException.class).hasMessageContaining("not a whole number");
        assertThatThrownBy(() -> GetReplicaLogInfo.apiKeyFrom("32768"))
                .isInstanceOf(ProtocolException.class).hasMessageContaining("from 0 to 32767");
        assertThatThrownBy(() -> GetReplicaLogInfo.apiKeyFrom("-1"))
                .isInstanceOf(ProtocolException.class).hasMessageContaining("from 0 to 32767");
    }
}
