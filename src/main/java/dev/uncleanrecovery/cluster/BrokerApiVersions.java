// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.cluster;

import java.util.List;
import java.util.Optional;
import org.apache.kafka.common.message.ApiVersionsResponseData;

/**
 * Every api key one broker advertised in its ApiVersions answer, including keys this client's
 * kafka-clients does not know (kafka-clients' own {@code NodeApiVersions} hides those, and the
 * companion patch's GetReplicaLogInfo travels under such a private key).
 */
public record BrokerApiVersions(int brokerId, List<ApiRange> apis) {

    /** One advertised api key and the versions the broker accepts for it. */
    public record ApiRange(short apiKey, short minVersion, short maxVersion) {

        public boolean accepts(short version) {
            return version >= minVersion && version <= maxVersion;
        }
    }

    public BrokerApiVersions {
        apis = List.copyOf(apis);
    }

    static BrokerApiVersions from(int brokerId, ApiVersionsResponseData data) {
        return new BrokerApiVersions(brokerId, data.apiKeys().stream()
                .map(v -> new ApiRange(v.apiKey(), v.minVersion(), v.maxVersion()))
                .toList());
    }

    public Optional<ApiRange> range(short apiKey) {
        return apis.stream().filter(a -> a.apiKey() == apiKey).findFirst();
    }

    public boolean advertises(short apiKey) {
        return range(apiKey).isPresent();
    }

    public boolean advertises(short apiKey, short version) {
        return range(apiKey).map(r -> r.accepts(version)).orElse(false);
    }
}
