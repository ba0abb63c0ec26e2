// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.plan;

import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.errors.InvalidTopicException;
import org.apache.kafka.common.internals.Topic;

/**
 * The invariants the plan records check in their constructors. Messages start with the field's name, relative
 * to the record, so that {@link PlanFile} can put the JSON path in front: "partitions[0]." + "topic is missing".
 */
public final class Checks {

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

    /**
     * A topic name as Kafka itself allows it ({@code Topic.validate}: ASCII letters, digits, '.', '_' and '-', at most
     * 249, not "." or ".."). Every name read from a file is checked so: it becomes part of a path (the salvage
     * directory's {@code <topic>-<partition>}) and of the shell commands the tool prints, where "../../etc" or "a;b"
     * would reach places the operator did not name.
     */
    public static String topic(String value, String field) {
        text(value, field);
        try {
            Topic.validate(value);
        } catch (InvalidTopicException e) {
            throw new IllegalArgumentException(field + " " + quoted(value) + " is not a Kafka topic name ("
                    + e.getMessage() + ")");
        }
        return value;
    }

    /** A topic id in Kafka's base64 form, or null (the cluster gave none). */
    static String topicId(String value, String field) {
        if (value != null) {
            try {
                Uuid.fromString(value);
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException(field + " '" + value + "' is not a base64 topic id");
            }
        }
        return value;
    }

    /** A name from a file, quoted, with anything a terminal would act on escaped. */
    static String quoted(String value) {
        StringBuilder quoted = new StringBuilder("'");
        value.codePoints().limit(300).forEach(c -> {
            if (c < 0x20 || c == 0x7f || (c >= 0x80 && c < 0xa0)) {
                quoted.append(String.format("\\u%04x", c));
            } else {
                quoted.appendCodePoint(c);
            }
        });
        return quoted.append(value.length() > 300 ? "...'" : "'").toString();
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
