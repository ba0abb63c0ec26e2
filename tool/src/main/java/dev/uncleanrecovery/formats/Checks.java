// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.formats;

import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.errors.InvalidTopicException;
import org.apache.kafka.common.internals.Topic;

/**
 * The invariants the file records check in their constructors. Each refusal is an {@link InvalidField}: the field,
 * relative to the record, and what is wrong with it, so that a file reader puts the JSON path in front
 * ("partitions[0]." + "topic") and the problem after it. Presence and nulls of required fields are Jackson's
 * ({@link Required}); what is checked here is what Jackson cannot know.
 */
public final class Checks {

    private Checks() {
    }

    /**
     * A value a record refuses.
     *
     * @param field   the field, relative to the record ({@code "expected.replicas"}, {@code "evidence[2].broker"});
     *                empty when the record as a whole is wrong
     * @param problem what is wrong and, where it helps, what to do: "must be >= 0, found -1"
     */
    public static final class InvalidField extends IllegalArgumentException {
        private final String field;
        private final String problem;

        InvalidField(String field, String problem) {
            super(field.isEmpty() ? problem : field + " " + problem);
            this.field = field;
            this.problem = problem;
        }

        public String field() {
            return field;
        }

        public String problem() {
            return problem;
        }
    }

    static InvalidField invalid(String field, String problem) {
        return new InvalidField(field, problem);
    }

    /** A value required only in some states (a log end offset when the replica answered), which Jackson cannot tell. */
    static <T> T present(T value, String field) {
        if (value == null) {
            throw invalid(field, "is missing");
        }
        return value;
    }

    static String text(String value, String field) {
        if (present(value, field).isBlank()) {
            throw invalid(field, "must not be empty");
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
            throw invalid(field, quoted(value) + " is not a Kafka topic name (" + e.getMessage() + ")");
        }
        return value;
    }

    /** A topic id in Kafka's base64 form, or null (the cluster gave none). */
    static String topicId(String value, String field) {
        if (value != null) {
            try {
                Uuid.fromString(value);
            } catch (IllegalArgumentException e) {
                throw invalid(field, "'" + value + "' is not a base64 topic id");
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

    /** An immutable copy; a null in a file's array is Jackson's to refuse ({@code Json}'s content nulls). */
    static <T> List<T> list(List<T> values) {
        // no copy of a list that is already immutable: a record built from another one's lists shares them
        return List.copyOf(values);
    }

    /** {@code values}, or an empty list where an optional array is absent. */
    static <T> List<T> listOrEmpty(List<T> values) {
        return values == null ? List.of() : List.copyOf(values);
    }

    static List<Integer> brokerIds(List<Integer> values, String field) {
        List<Integer> ids = list(values);
        Set<Integer> seen = new HashSet<>();
        for (int i = 0; i < ids.size(); i++) {
            if (ids.get(i) < 0) {
                throw invalid(field + "[" + i + "]", "must be a broker id (>= 0), found " + ids.get(i));
            }
            if (!seen.add(ids.get(i))) {
                throw invalid(field, ids + " lists broker " + ids.get(i) + " twice");
            }
        }
        return ids;
    }

    static int atLeast(int value, int min, String field) {
        atLeast((long) value, min, field);
        return value;
    }

    static long atLeast(long value, long min, String field) {
        if (value < min) {
            throw invalid(field, "must be >= " + min + ", found " + value);
        }
        return value;
    }
}
