// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.patch.wire;

import java.util.List;
import java.util.Map;
import org.apache.kafka.common.message.ElectLeadersRequestData;

/**
 * Stock ElectLeaders request data (the v2 fields, which the controller code reads as always) plus
 * the DesignatedLeaders of a v3 request. Only the agent's v3 parser makes these, so a designation
 * can only come from a v3 request that carried one; the controller hook looks for this type.
 */
public final class DesignatedElectLeadersRequestData extends ElectLeadersRequestData {

    /** Per topic: DesignatedLeaders in Partitions order, as sent (lengths are checked by the controller). */
    private final Map<String, List<Integer>> designatedLeaders;

    /** Per topic: Partitions in the order the designations refer to. */
    private final Map<String, List<Integer>> partitions;

    DesignatedElectLeadersRequestData(Map<String, List<Integer>> designatedLeaders, Map<String, List<Integer>> partitions) {
        this.designatedLeaders = Map.copyOf(designatedLeaders);
        this.partitions = Map.copyOf(partitions);
    }

    /** Topics that designate leaders, with their DesignatedLeaders lists. */
    public Map<String, List<Integer>> designatedLeaders() {
        return designatedLeaders;
    }

    /** Topics that designate leaders, with their Partitions lists. */
    public Map<String, List<Integer>> designatingPartitions() {
        return partitions;
    }
}
