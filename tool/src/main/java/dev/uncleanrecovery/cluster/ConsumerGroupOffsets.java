// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.cluster;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.DescribeClusterOptions;
import org.apache.kafka.clients.admin.DescribeTopicsOptions;
import org.apache.kafka.clients.admin.GroupListing;
import org.apache.kafka.clients.admin.ListConsumerGroupOffsetsOptions;
import org.apache.kafka.clients.admin.ListConsumerGroupOffsetsSpec;
import org.apache.kafka.clients.admin.ListGroupsOptions;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.GroupType;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.TopicPartitionInfo;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.errors.GroupAuthorizationException;
import org.apache.kafka.common.errors.TopicAuthorizationException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.apache.kafka.common.internals.Topic;
import org.apache.kafka.common.utils.Utils;

/**
 * The offsets consumer groups committed on some partitions, read through Admin (ListGroups, OffsetFetch). What cannot
 * be read is said in one line each, never a failure: the plan is still worth having without it.
 */
public final class ConsumerGroupOffsets {

    /**
     * One group's committed offset on one partition.
     *
     * @param leaderEpoch the leader epoch of the last record the group read, as its consumer committed it (KIP-320); -1
     *                    when the commit carries none
     */
    public record Committed(String group, TopicPartition topicPartition, long offset, int leaderEpoch) {
    }

    /**
     * @param committed              the offsets read, by group then partition
     * @param offlineOffsetsPartitions partitions of {@code __consumer_offsets} without a leader: the groups kept there
     *                               cannot be read until one is elected
     * @param unreadable             why some or all groups could not be read, one line each
     */
    public record Result(List<Committed> committed, List<Integer> offlineOffsetsPartitions, List<String> unreadable) {

        public Result {
            committed = List.copyOf(committed);
            offlineOffsetsPartitions = List.copyOf(offlineOffsetsPartitions);
            unreadable = List.copyOf(unreadable);
        }

        static Result none() {
            return new Result(List.of(), List.of(), List.of());
        }
    }

    private ConsumerGroupOffsets() {
    }

    /** The committed offsets of every consumer group on {@code partitions}, each call bounded by {@code timeout}. */
    public static Result read(Admin admin, Collection<TopicPartition> partitions, Duration timeout) {
        if (partitions.isEmpty()) {
            return Result.none();
        }
        List<String> unreadable = new ArrayList<>();
        TopicDescription offsetsTopic;
        try {
            offsetsTopic = AdminCalls.get(admin.describeTopics(List.of(Topic.GROUP_METADATA_TOPIC_NAME),
                            new DescribeTopicsOptions().timeoutMs(AdminCalls.millis(timeout)))
                    .topicNameValues().get(Topic.GROUP_METADATA_TOPIC_NAME), timeout);
        } catch (UnknownTopicOrPartitionException e) {
            return Result.none(); // no group has ever committed an offset
        } catch (TopicAuthorizationException e) {
            offsetsTopic = null;
        } catch (RuntimeException e) {
            return new Result(List.of(), List.of(), List.of("consumer group offsets not read: could not describe "
                    + Topic.GROUP_METADATA_TOPIC_NAME + ": " + AdminCalls.message(e)));
        }
        List<Integer> offline = offsetsTopic == null ? List.of() : offsetsTopic.partitions().stream()
                .filter(p -> p.leader() == null || p.leader().isEmpty())
                .map(TopicPartitionInfo::partition).sorted().toList();

        List<String> groups;
        try {
            // no type filter: brokers before 4.0 answer ListGroups without types, and a filter would be refused
            groups = AdminCalls.get(admin.listGroups(new ListGroupsOptions().timeoutMs(AdminCalls.millis(timeout))).all(), timeout).stream()
                    .filter(ConsumerGroupOffsets::keepsOffsets)
                    .map(GroupListing::groupId).sorted().toList();
        } catch (RuntimeException e) {
            unreadable.add("consumer groups not listed: " + AdminCalls.message(e));
            return new Result(List.of(), offline, unreadable);
        }
        // ListGroups answers every group to a principal that may DESCRIBE the cluster, to any other only the groups
        // it may DESCRIBE: the others are not even named
        Optional<String> hidden = groupsHidden(admin, timeout);
        if (groups.isEmpty()) {
            if (offsetsTopic == null) {
                // nor are the groups kept on offline partitions of __consumer_offsets, which it cannot see
                unreadable.add("consumer groups not checked: this principal may not DESCRIBE topic "
                        + Topic.GROUP_METADATA_TOPIC_NAME + " and sees no group" + hidden.map(why -> " (" + why + ")")
                        .orElse("") + "; with DESCRIBE on the groups the plan lists those that read records it"
                        + " destroys");
            } else if (hidden.isPresent()) {
                unreadable.add("no consumer group is visible to this principal although "
                        + Topic.GROUP_METADATA_TOPIC_NAME + " exists (" + hidden.get() + ")");
            }
            return new Result(List.of(), offline, unreadable);
        }
        if (offsetsTopic == null) {
            unreadable.add("no DESCRIBE on topic " + Topic.GROUP_METADATA_TOPIC_NAME
                    + ": groups kept on its offline partitions, if any, are not told apart");
        }
        hidden.ifPresent(why -> unreadable.add("consumer groups other than the " + groups.size() + " listed may exist"
                + " (" + why + "): grant DESCRIBE on the cluster"));
        List<String> readable = new ArrayList<>();
        Set<String> onOffline = new TreeSet<>();
        for (String group : groups) {
            if (offsetsTopic != null && offline.contains(coordinatorPartition(group, offsetsTopic.partitions().size()))) {
                onOffline.add(group);
            } else {
                readable.add(group);
            }
        }
        if (!onOffline.isEmpty()) {
            unreadable.add("offsets of " + onOffline.size() + " consumer group(s) not read, they are on offline "
                    + Topic.GROUP_METADATA_TOPIC_NAME + " partitions " + offline + ": " + String.join(", ", onOffline));
        }
        if (readable.isEmpty()) {
            return new Result(List.of(), offline, unreadable);
        }
        Map<String, ListConsumerGroupOffsetsSpec> specs = new TreeMap<>();
        readable.forEach(g -> specs.put(g, new ListConsumerGroupOffsetsSpec().topicPartitions(partitions)));
        var result = admin.listConsumerGroupOffsets(specs, new ListConsumerGroupOffsetsOptions().timeoutMs(AdminCalls.millis(timeout)));
        List<Committed> committed = new ArrayList<>();
        Set<String> denied = new TreeSet<>();
        for (String group : readable) {
            try {
                Map<TopicPartition, OffsetAndMetadata> offsets = AdminCalls.get(result.partitionsToOffsetAndMetadata(group), timeout);
                offsets.entrySet().stream()
                        .filter(e -> e.getValue() != null && e.getValue().offset() >= 0)
                        .sorted(Map.Entry.comparingByKey((a, b) -> a.toString().compareTo(b.toString())))
                        .forEach(e -> committed.add(new Committed(group, e.getKey(), e.getValue().offset(),
                                e.getValue().leaderEpoch().orElse(-1))));
            } catch (GroupAuthorizationException e) {
                denied.add(group);
            } catch (RuntimeException e) {
                unreadable.add("offsets of consumer group " + group + " not read: " + AdminCalls.message(e));
            }
        }
        if (!denied.isEmpty()) {
            unreadable.add("no DESCRIBE on consumer group(s) " + String.join(", ", denied) + ": their offsets were not read");
        }
        return new Result(committed, offline, unreadable);
    }

    /**
     * Why ListGroups may have left groups out: this principal may not DESCRIBE the cluster, or whether it may could
     * not be read; empty when it lists every group.
     */
    private static Optional<String> groupsHidden(Admin admin, Duration timeout) {
        try {
            Set<AclOperation> allowed = AdminCalls.get(admin.describeCluster(new DescribeClusterOptions()
                    .includeAuthorizedOperations(true).timeoutMs(AdminCalls.millis(timeout))).authorizedOperations(),
                    timeout);
            // null when the broker leaves them out; without an authorizer it answers every operation
            if (allowed == null || allowed.contains(AclOperation.DESCRIBE) || allowed.contains(AclOperation.ALL)) {
                return Optional.empty();
            }
            return Optional.of("ListGroups shows only the groups a principal may DESCRIBE unless it may DESCRIBE the"
                    + " cluster, and this one may not");
        } catch (RuntimeException e) {
            return Optional.of("whether this principal may DESCRIBE the cluster, and so see every group, could not be"
                    + " read: " + AdminCalls.message(e));
        }
    }

    /** Consumer groups, classic and KIP-848, and simple consumers that only commit (empty protocol type). */
    private static boolean keepsOffsets(GroupListing listing) {
        GroupType type = listing.type().orElse(GroupType.CLASSIC);
        return type == GroupType.CONSUMER
                || (type == GroupType.CLASSIC && (listing.protocol().isEmpty() || listing.protocol().equals("consumer")));
    }

    /** The __consumer_offsets partition a group's coordinator keeps it in (Kafka's own placement). */
    static int coordinatorPartition(String group, int offsetsPartitions) {
        return Utils.abs(group.hashCode()) % offsetsPartitions;
    }
}
