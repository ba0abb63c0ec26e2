// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.plan;

import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * The invariants the plan records check in their constructors. Messages start with the field's name, relative
 * to the record, so that {@link PlanFile} can put the JSON path in front: "partitions[0]." + "topic is missing".
 */
final class Checks {

    private Checks() {
    }

    static <T> T present(T value, String field) {
        if (value == null) {
            throw new IllegalArgumentException(field + " is missing");
        }
        return value;
    }

    static String text(String value, String field) {
        if (present(value, field).isBlank()) {
            throw new IllegalArgumentException(field + " must not be empty");
        }
        return value;
    }

    static <T> List<T> list(List<T> values, String field) {
        present(values, field);
        for (int i = 0; i < values.size(); i++) {
            if (values.get(i) == null) {
                throw new IllegalArgumentException(field + "[" + i + "] is null");
            }
        }
        // no copy of a list that is already immutable: a record built from another one's lists shares them
        return List.copyOf(values);
    }

    static List<Integer> brokerIds(List<Integer> values, String field) {
        List<Integer> ids = list(values, field);
        Set<Integer> seen = new HashSet<>();
        for (int i = 0; i < ids.size(); i++) {
            if (ids.get(i) < 0) {
                throw new IllegalArgumentException(field + "[" + i + "] must be a broker id (>= 0), found " + ids.get(i));
            }
            if (!seen.add(ids.get(i))) {
                throw new IllegalArgumentException(field + " " + ids + " lists broker " + ids.get(i) + " twice");
            }
        }
        return ids;
    }

    static int atLeast(int value, int min, String field) {
        if (value < min) {
            throw new IllegalArgumentException(field + " must be >= " + min + ", found " + value);
        }
        return value;
    }
}
