// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.cluster;

import com.fasterxml.jackson.annotation.JsonIgnore;
import dev.uncleanrecovery.UserInputException;
import org.apache.kafka.common.protocol.Errors;

/**
 * A topic whose partitions the cluster would not describe: DescribeTopicPartitions (Metadata on 3.7) answered it with
 * a topic-level error, so none of its partitions is known — offline ones included.
 *
 * @param error    Kafka's error name, e.g. {@code TOPIC_AUTHORIZATION_FAILED}
 * @param reason   what happened and what to do, in one line
 * @param badInput the operator must fix something (an ACL, a topic name they gave) rather than run again; not written
 *                 to JSON, where {@code error} says it
 */
public record UnreadableTopic(String topic, String error, String reason, @JsonIgnore boolean badInput) {

    /**
     * @param named the operator named the topic (--topic, --path-to-json-file, a plan); otherwise the cluster's own
     *              listing of topics did, a moment before
     */
    static UnreadableTopic of(String topic, Errors error, boolean named) {
        return switch (error) {
            // Kafka answers TOPIC_AUTHORIZATION_FAILED only for a topic the request names: a listing of all topics
            // leaves those the principal may not DESCRIBE out without a word
            case TOPIC_AUTHORIZATION_FAILED -> new UnreadableTopic(topic, error.name(), "not authorized to describe"
                    + " topic '" + topic + "': grant DESCRIBE on it to this principal (see README Permissions)", true);
            case UNKNOWN_TOPIC_OR_PARTITION, UNKNOWN_TOPIC_ID -> named
                    ? new UnreadableTopic(topic, error.name(), "unknown topic '" + topic
                            + "' (check the name with kafka-topics.sh --list)", true)
                    : new UnreadableTopic(topic, error.name(), "topic '" + topic + "' was listed a moment ago and is"
                            + " unknown now: deleted while the cluster was read (or this broker's metadata lags); run again",
                            false);
            case INVALID_TOPIC_EXCEPTION -> new UnreadableTopic(topic, error.name(), "'" + topic
                    + "' is not a valid topic name", named);
            // LEADER_NOT_AVAILABLE (a topic being created), UNKNOWN_SERVER_ERROR...: the next read may succeed
            default -> new UnreadableTopic(topic, error.name(), "describing topic '" + topic + "' failed with "
                    + error.name() + " (" + error.message() + "); run again", false);
        };
    }

    /** For a note: {@code topic 'audit' not read (TOPIC_AUTHORIZATION_FAILED): not authorized to describe ...}. */
    public String describe() {
        return "topic '" + topic + "' not read (" + error + "): " + reason;
    }

    /** The error a command that needs every topic it names fails with: one line, exit 2 when it is bad input. */
    RuntimeException toException() {
        return badInput ? new UserInputException(reason) : Errors.valueOf(error).exception(reason);
    }
}
