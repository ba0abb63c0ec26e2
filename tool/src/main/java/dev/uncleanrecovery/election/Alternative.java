// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.election;

import java.util.List;

/**
 * Another replica that could have been elected, and what electing it instead would destroy on the others: the
 * trade-off a reviewer weighs against the designated leader's.
 *
 * @param truncations one entry per replica other than {@code broker}, in assignment order
 */
public record Alternative(int broker, List<ExpectedTruncation> truncations) {

    public Alternative {
        truncations = List.copyOf(truncations);
    }

    public Loss loss() {
        return Loss.of(truncations);
    }
}
