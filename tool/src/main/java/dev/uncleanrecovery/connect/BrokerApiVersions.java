// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.connect;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.kafka.common.message.ApiVersionsResponseData;

/**
 * Every api key one broker advertised in its ApiVersions answer, including keys this client's
 * kafka-clients does not know (kafka-clients' own {@code NodeApiVersions} hides those, and the
 * companion patch's GetReplicaLogInfo travels under such a private key), and the cluster's finalized
 * feature levels the same answer carries.
 *
 * @param finalizedFeatures finalized max version level per feature name ("eligible.leader.replicas.version")
 * @param supportedFeatures the highest level of each feature the broker's software supports, as ApiVersions v3 lists
 *                          them: without those whose lowest level is 0 (KIP-1022 keeps them from pre-v4 clients)
 */
public record BrokerApiVersions(int brokerId, List<ApiRange> apis, Map<String, Short> finalizedFeatures,
                                Map<String, Short> supportedFeatures) {

    /** One advertised api key and the versions the broker accepts for it. */
    public record ApiRange(short apiKey, short minVersion, short maxVersion) {

        public boolean accepts(short version) {
            return version >= minVersion && version <= maxVersion;
        }
    }

    public BrokerApiVersions {
        apis = List.copyOf(apis);
        finalizedFeatures = Map.copyOf(finalizedFeatures);
        supportedFeatures = Map.copyOf(supportedFeatures);
    }

    public BrokerApiVersions(int brokerId, List<ApiRange> apis, Map<String, Short> finalizedFeatures) {
        this(brokerId, apis, finalizedFeatures, finalizedFeatures);
    }

    public BrokerApiVersions(int brokerId, List<ApiRange> apis) {
        this(brokerId, apis, Map.of());
    }

    static BrokerApiVersions from(int brokerId, ApiVersionsResponseData data) {
        Map<String, Short> features = new HashMap<>();
        data.finalizedFeatures().forEach(f -> features.put(f.name(), f.maxVersionLevel()));
        Map<String, Short> supported = new HashMap<>();
        data.supportedFeatures().forEach(f -> supported.put(f.name(), f.maxVersion()));
        return new BrokerApiVersions(brokerId, data.apiKeys().stream()
                .map(v -> new ApiRange(v.apiKey(), v.minVersion(), v.maxVersion()))
                .toList(), features, supported);
    }

    /** The highest level of the feature the broker's software supports; -1 when it is not listed. */
    public short supportedMaxLevel(String feature) {
        return supportedFeatures.getOrDefault(feature, (short) -1);
    }

    /** The finalized level of a feature; 0 when it is not finalized (off). */
    public short finalizedLevel(String feature) {
        return finalizedFeatures.getOrDefault(feature, (short) 0);
    }

    public Optional<ApiRange> range(short apiKey) {
        return apis.stream().filter(a -> a.apiKey() == apiKey).findFirst();
    }

    /** The highest version of {@code apiKey} in [{@code min}, {@code max}] the broker accepts; empty if none. */
    public Optional<Short> highestVersion(short apiKey, short min, short max) {
        return range(apiKey).filter(r -> r.minVersion() <= max && r.maxVersion() >= min)
                .map(r -> (short) Math.min(max, r.maxVersion()));
    }

    public boolean advertises(short apiKey) {
        return range(apiKey).isPresent();
    }

    public boolean advertises(short apiKey, short version) {
        return range(apiKey).map(r -> r.accepts(version)).orElse(false);
    }
}
