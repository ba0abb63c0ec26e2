// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.cli;

import com.fasterxml.jackson.databind.JsonNode;

/** Parts of one partition's entry in a plan file, for tests that read what the plan states. */
final class PlannedElections {

    private PlannedElections() {
    }

    /** The replica's evidence the plan decided on (the first when a broker answered and its disk was read too). */
    static JsonNode evidenceOf(JsonNode election, int broker) {
        for (JsonNode e : election.get("evidence")) {
            if (e.get("broker").asInt() == broker) {
                return e;
            }
        }
        throw new AssertionError("no evidence of broker " + broker + " in " + election);
    }

    /** What the plan states the replica loses under the designated leader. */
    static JsonNode truncationOf(JsonNode election, int broker) {
        for (JsonNode t : election.get("expectedTruncation")) {
            if (t.get("broker").asInt() == broker) {
                return t;
            }
        }
        throw new AssertionError("no truncation of broker " + broker + " in " + election);
    }
}
