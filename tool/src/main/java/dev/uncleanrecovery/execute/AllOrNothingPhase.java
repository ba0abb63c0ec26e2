// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.execute;

import java.util.List;
import java.util.Map;
import org.apache.kafka.common.TopicPartition;

/** --all-or-nothing: once any partition of the plan is refused, none is elected. */
final class AllOrNothingPhase {

    private AllOrNothingPhase() {
    }

    /** @param refused how many partitions of the plan were refused so far */
    static Map<TopicPartition, Verdict> judge(List<Candidate> going, long refused) {
        return Verdict.each(going, c -> refused == 0 ? new Verdict.Proceed(c) : new Verdict.Refused(
                "not elected: --all-or-nothing, and " + refused + " partition(s) of the plan were refused"));
    }
}
