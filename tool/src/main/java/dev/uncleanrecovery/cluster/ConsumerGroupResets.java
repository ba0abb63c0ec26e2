// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.cluster;

import java.time.Duration;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AlterConsumerGroupOffsetsOptions;
import org.apache.kafka.clients.admin.ConsumerGroupDescription;
import org.apache.kafka.clients.admin.DescribeConsumerGroupsOptions;
import org.apache.kafka.clients.admin.MemberDescription;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.FencedMemberEpochException;
import org.apache.kafka.common.errors.GroupNotEmptyException;
import org.apache.kafka.common.errors.IllegalGenerationException;
import org.apache.kafka.common.errors.RebalanceInProgressException;
import org.apache.kafka.common.errors.StaleMemberEpochException;
import org.apache.kafka.common.errors.UnknownMemberIdException;

/** Consumer groups' committed offsets set through Admin (OffsetCommit from outside the group), as an operator would. */
public final class ConsumerGroupResets {

    /**
     * A group as its coordinator describes it.
     *
     * @param members its members, "client-id (host)" each, comma-separated; empty when it has none
     */
    public record Membership(String group, String state, int memberCount, String members) {

        public boolean isActive() {
            return memberCount > 0;
        }

        /** "state Stable, 1 member: consumer-live-1 (/127.0.0.1)". */
        public String describe() {
            return "state " + state + ", " + memberCount + (memberCount == 1 ? " member" : " members")
                    + (members.isEmpty() ? "" : ": " + members);
        }
    }

    /**
     * What Kafka answered to one group's change.
     *
     * @param refusal null when the offsets were set; otherwise Kafka's refusal in one line
     * @param activeMembers the refusal is the one Kafka gives a group that has members
     */
    public record Answer(String group, String refusal, boolean activeMembers) {

        public boolean isDone() {
            return refusal == null;
        }
    }

    private ConsumerGroupResets() {
    }

    /** Each group's state and members; a group that could not be described is left out. */
    public static Map<String, Membership> describe(Admin admin, Collection<String> groups, Duration timeout) {
        Map<String, Membership> described = new TreeMap<>();
        if (groups.isEmpty()) {
            return described;
        }
        var answers = admin.describeConsumerGroups(groups,
                new DescribeConsumerGroupsOptions().timeoutMs(AdminCalls.millis(timeout))).describedGroups();
        for (String group : groups) {
            try {
                ConsumerGroupDescription d = AdminCalls.get(answers.get(group), timeout);
                String members = d.members().stream().map(ConsumerGroupResets::member).sorted()
                        .limit(5).collect(Collectors.joining(", "));
                described.put(group, new Membership(group, d.groupState().toString(), d.members().size(),
                        d.members().size() > 5 ? members + ", ..." : members));
            } catch (RuntimeException e) {
                // the change itself says what Kafka thinks of the group
            }
        }
        return described;
    }

    /**
     * Sets each group's offsets, one request per group (Kafka applies a group's offsets together), without a leader
     * epoch, as {@code kafka-consumer-groups.sh --reset-offsets} does: the consumer then starts at the offset as it is.
     */
    public static Map<String, Answer> alter(Admin admin, Map<String, Map<TopicPartition, Long>> offsets, Duration timeout) {
        Map<String, Answer> answers = new LinkedHashMap<>();
        offsets.forEach((group, partitions) -> {
            Map<TopicPartition, OffsetAndMetadata> commit = new LinkedHashMap<>();
            partitions.forEach((tp, offset) -> commit.put(tp, new OffsetAndMetadata(offset)));
            try {
                AdminCalls.get(admin.alterConsumerGroupOffsets(group, commit,
                        new AlterConsumerGroupOffsetsOptions().timeoutMs(AdminCalls.millis(timeout))).all(), timeout);
                answers.put(group, new Answer(group, null, false));
            } catch (RuntimeException e) {
                answers.put(group, new Answer(group, e.getClass().getSimpleName() + ": " + AdminCalls.message(e),
                        refusedForMembers(e)));
            }
        });
        return answers;
    }

    /**
     * The errors a group coordinator answers an offset commit from outside a group that has members with: a classic
     * group wants the member id and generation of one of its members, a KIP-848 group its member epoch.
     */
    private static boolean refusedForMembers(RuntimeException e) {
        return e instanceof UnknownMemberIdException || e instanceof GroupNotEmptyException
                || e instanceof IllegalGenerationException || e instanceof RebalanceInProgressException
                || e instanceof StaleMemberEpochException || e instanceof FencedMemberEpochException;
    }

    private static String member(MemberDescription m) {
        return m.clientId() + " (" + Optional.ofNullable(m.host()).orElse("?") + ")";
    }
}
