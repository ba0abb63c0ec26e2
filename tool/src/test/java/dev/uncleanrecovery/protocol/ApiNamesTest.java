// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.protocol;

import static org.assertj.core.api.Assertions.assertThat;

import dev.uncleanrecovery.wire.GetReplicaLogInfo;
import org.apache.kafka.common.protocol.ApiKeys;
import org.junit.jupiter.api.Test;

class ApiNamesTest {

    @Test
    void kafka_apis_go_by_their_kafka_names_and_ours_by_its_own() {
        assertThat(ApiNames.of(ApiKeys.API_VERSIONS.id)).isEqualTo("ApiVersions");
        assertThat(ApiNames.of(ApiKeys.LIST_OFFSETS.id)).isEqualTo("ListOffsets");
        assertThat(ApiNames.of(GetReplicaLogInfo.apiKey())).isEqualTo("GetReplicaLogInfo");
    }

    @Test
    void only_a_key_without_a_name_is_a_number() {
        assertThat(ApiNames.of((short) 4321)).isEqualTo("api key 4321");
    }
}
