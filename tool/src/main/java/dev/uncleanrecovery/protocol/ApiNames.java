// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.protocol;

import dev.uncleanrecovery.wire.GetReplicaLogInfo;
import org.apache.kafka.common.protocol.ApiKeys;

/** An api key as messages name it: "ListOffsets", "GetReplicaLogInfo"; a number only when no name exists. */
public final class ApiNames {

    private ApiNames() {
    }

    public static String of(short apiKey) {
        if (apiKey == GetReplicaLogInfo.apiKey()) {
            return GetReplicaLogInfo.NAME;
        }
        return ApiKeys.hasId(apiKey) ? ApiKeys.forId(apiKey).name : "api key " + apiKey;
    }
}
