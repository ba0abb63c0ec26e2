// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.formats;

import com.fasterxml.jackson.annotation.JsonInclude;
import java.util.List;
import java.util.Optional;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;

/**
 * One partition to elect. {@code topic} (a string) and {@code partition} (an integer) are all that
 * {@code kafka-leader-election.sh --path-to-json-file} reads; it ignores the other fields.
 *
 * @param designatedLeader the replica to elect; operators may change it, {@code execute} re-checks it
 * @param evidence         what each replica said when the plan was made, in assignment order
 * @param reason           why {@code designatedLeader}, for the reviewer
 * @param alternatives     the other replicas that could lead, best first, with what electing each would destroy;
 *                         version-1 plans have none
 * @param consumerGroupsAhead consumer groups whose committed offset lies beyond the designated leader's log end, as
 *                         read when the plan was made; version-1 plans have none
 * @param tieredStorage    the topic keeps segments in remote storage: a truncation may destroy more than the local
 *                         logs show (absent, false, in version-1 plans)
 * @param topicId          the topic's id in Kafka's base64 form, as the cluster gave it; absent when it gave none
 *                         (and in plans written before the field): a copy off a broker's disk checks it against the
 *                         partition.metadata there, which tells a topic deleted and re-created under its name apart
 */
public record PlannedElection(
        @Required String topic,
        @Required int partition,
        @Required int designatedLeader,
        @Required ExpectedState expected,
        @Required List<PlanEvidence> evidence,
        @Required String reason,
        @Required List<PlanTruncation> expectedTruncation,
        List<PlanAlternative> alternatives,
        // left out of the file when empty or false: thousands of partitions have neither
        @JsonInclude(JsonInclude.Include.NON_EMPTY) List<PlanConsumerGroup> consumerGroupsAhead,
        @JsonInclude(JsonInclude.Include.NON_DEFAULT) Boolean tieredStorage,
        @JsonInclude(JsonInclude.Include.NON_NULL) String topicId) {

    /** An entry without a topic id. */
    public PlannedElection(String topic, int partition, int designatedLeader, ExpectedState expected,
                           List<PlanEvidence> evidence, String reason, List<PlanTruncation> expectedTruncation,
                           List<PlanAlternative> alternatives, List<PlanConsumerGroup> consumerGroupsAhead,
                           Boolean tieredStorage) {
        this(topic, partition, designatedLeader, expected, evidence, reason, expectedTruncation, alternatives,
                consumerGroupsAhead, tieredStorage, null);
    }

    /** An entry of a version-1 plan, which lists no alternatives and no consumer groups. */
    public PlannedElection(String topic, int partition, int designatedLeader, ExpectedState expected,
                           List<PlanEvidence> evidence, String reason, List<PlanTruncation> expectedTruncation) {
        this(topic, partition, designatedLeader, expected, evidence, reason, expectedTruncation, null, null, null);
    }

    public PlannedElection {
        Checks.topic(topic, "topic");
        Checks.atLeast(partition, 0, "partition");
        if (!expected.replicas().contains(designatedLeader)) {
            throw Checks.invalid("designatedLeader", designatedLeader + " is not one of expected.replicas "
                    + expected.replicas() + "; designate one of those brokers");
        }
        evidence = Checks.list(evidence);
        for (int i = 0; i < evidence.size(); i++) {
            if (!expected.replicas().contains(evidence.get(i).broker())) {
                throw Checks.invalid("evidence[" + i + "].broker", evidence.get(i).broker()
                        + " is not one of expected.replicas " + expected.replicas());
            }
        }
        expectedTruncation = Checks.list(expectedTruncation);
        for (int i = 0; i < expectedTruncation.size(); i++) {
            if (!expected.replicas().contains(expectedTruncation.get(i).broker())) {
                throw Checks.invalid("expectedTruncation[" + i + "].broker", expectedTruncation.get(i).broker()
                        + " is not one of expected.replicas " + expected.replicas());
            }
        }
        alternatives = Checks.listOrEmpty(alternatives);
        consumerGroupsAhead = Checks.listOrEmpty(consumerGroupsAhead);
        tieredStorage = tieredStorage != null && tieredStorage;
        Checks.topicId(topicId, "topicId");
        for (int i = 0; i < alternatives.size(); i++) {
            // an operator who designates an alternative by hand may leave the list as it was
            int broker = alternatives.get(i).broker();
            if (!expected.replicas().contains(broker)) {
                throw Checks.invalid("alternatives[" + i + "].broker", broker
                        + " is not one of expected.replicas " + expected.replicas());
            }
        }
    }

    /**
     * The same election with the consumer groups ahead of the new log end; the reason then adds what they prove: a
     * consumer reads only below the high watermark, so the offsets the furthest group read past the new log end were
     * committed, whichever replica held them.
     */
    public PlannedElection withConsumerGroupsAhead(List<PlanConsumerGroup> groups) {
        String proven = groups.stream().max(java.util.Comparator.comparingLong(PlanConsumerGroup::offsetsReadAndLost))
                .map(g -> "; consumer group " + g.group() + " had read " + g.offsetsReadAndLost() + " committed records"
                        + " past the new log end (" + g.newLogEnd() + ".." + g.committedOffset() + "): at least that"
                        + " many committed records are lost")
                .orElse("");
        return new PlannedElection(topic, partition, designatedLeader, expected, evidence, reason + proven,
                expectedTruncation, alternatives, groups, tieredStorage, topicId);
    }

    public PlannedElection withTieredStorage(boolean remote) {
        if (remote == tieredStorage) {
            return this;
        }
        return new PlannedElection(topic, partition, designatedLeader, expected, evidence, reason, expectedTruncation,
                alternatives, consumerGroupsAhead, remote, topicId);
    }

    /**
     * What the plan says electing {@code leader} truncates: an alternative's own figures first (a plan edited to
     * designate it still carries the old leader's expectedTruncation), else expectedTruncation when it is the
     * designated leader and was written for it (it lists every replica but its leader: one that lists the leader was
     * written for another, the designation edited since); empty for a replica the plan did not weigh as a leader.
     */
    public Optional<List<PlanTruncation>> truncationsUnder(int leader) {
        for (PlanAlternative a : alternatives) {
            if (a.broker() == leader) {
                return Optional.of(a.expectedTruncation());
            }
        }
        boolean writtenForIt = expectedTruncation.stream().noneMatch(t -> t.broker() == leader);
        return leader == designatedLeader && writtenForIt ? Optional.of(expectedTruncation) : Optional.empty();
    }

    /** A topic id as the plan writes it (Kafka's base64 form); null when the cluster gave none. */
    static String topicIdText(Uuid id) {
        return id == null || Uuid.ZERO_UUID.equals(id) ? null : id.toString();
    }

    public TopicPartition topicPartition() {
        return new TopicPartition(topic, partition);
    }
}
