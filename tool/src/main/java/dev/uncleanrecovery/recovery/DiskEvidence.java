// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.recovery;

import dev.uncleanrecovery.UserInputException;
import dev.uncleanrecovery.cluster.ClusterSnapshot;
import dev.uncleanrecovery.cluster.TopicPartitionState;
import dev.uncleanrecovery.evidence.EvidenceSource;
import dev.uncleanrecovery.evidence.EvidenceStatus;
import dev.uncleanrecovery.evidence.ReplicaEvidence;
import dev.uncleanrecovery.formats.EvidenceFile;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;

/**
 * What {@code inspect} read from stopped brokers' disks, checked against the cluster before it counts as those
 * replicas' logs: the cluster id of the file, and per partition the topic id in its partition.metadata.
 *
 * <p>A file of another cluster fails the whole plan (exit 2): none of it describes this cluster. A partition whose
 * topic id differs from the cluster's is refused alone, as an ERROR answer from that replica with the reason: Kafka
 * keeps a deleted topic's log on a broker that was down during the deletion (it removes it as a stray only when that
 * broker starts), so the same disk inspected again gives the same stray, while the file's other partitions are sound.
 * Either way the refused log counts as unknown — never as the current topic's, which it says nothing about.
 */
final class DiskEvidence {

    /**
     * @param evidence per partition covered by the plan, the disk answers (refused ones as ERROR answers)
     * @param notes    for the reviewer, one per broker and topic whose logs were refused or accepted unchecked
     */
    record Checked(Map<TopicPartition, List<ReplicaEvidence>> evidence, List<String> notes) {
    }

    static final String ACCEPT_OPTION = "--accept-unidentified-evidence";

    private DiskEvidence() {
    }

    /**
     * @param considered         the partitions the plan covers; evidence of others is left out
     * @param acceptUnidentified use evidence that names no cluster id or no topic id (the operator vouches for it);
     *                           a topic id that differs is refused all the same
     * @throws UserInputException when a file is of another cluster, names none (unless accepted), or holds a replica
     *                            its broker no longer has
     */
    static Checked check(List<EvidenceFile> files, ClusterSnapshot snapshot, List<TopicPartitionState> considered,
                         boolean acceptUnidentified) {
        Map<TopicPartition, TopicPartitionState> byPartition = new HashMap<>();
        considered.forEach(p -> byPartition.put(p.topicPartition(), p));
        Map<TopicPartition, List<ReplicaEvidence>> evidence = new LinkedHashMap<>();
        List<String> notes = new ArrayList<>();
        // per broker and topic, the partitions refused and why: one note each, however many partitions
        Map<String, TreeSet<Integer>> refused = new LinkedHashMap<>();
        for (EvidenceFile file : files) {
            checkCluster(file, snapshot, acceptUnidentified, notes);
            for (EvidenceFile.Partition logged : file.partitions()) {
                TopicPartitionState partition = byPartition.get(logged.topicPartition());
                if (partition == null) {
                    continue; // a partition this plan does not cover (healthy, or not selected)
                }
                if (!partition.replicas().contains(file.brokerId())) {
                    throw new UserInputException("evidence file of broker " + file.brokerId() + " has "
                            + logged.topicPartition() + ", but broker " + file.brokerId() + " is not one of its replicas "
                            + partition.replicas() + " (reassigned since?); drop that file or inspect again");
                }
                String refusal = topicIdRefusal(file.brokerId(), logged, partition.topicId(), acceptUnidentified);
                ReplicaEvidence disk;
                if (refusal == null) {
                    disk = file.toReplicaEvidence(logged);
                } else {
                    disk = ReplicaEvidence.failed(logged.topicPartition(), file.brokerId(), EvidenceSource.DISK,
                            EvidenceStatus.ERROR, refusal, file.createdAt());
                    refused.computeIfAbsent("evidence of broker " + file.brokerId() + " for topic '" + logged.topic()
                            + "' not used: " + refusal, k -> new TreeSet<>()).add(logged.partition());
                }
                evidence.computeIfAbsent(logged.topicPartition(), k -> new ArrayList<>()).add(disk);
            }
        }
        refused.forEach((note, partitions) -> notes.add(note + " (partitions "
                + String.join(", ", partitions.stream().map(String::valueOf).toList()) + ")"));
        return new Checked(evidence, notes);
    }

    /** The file's cluster against the one --bootstrap-server reached; a file that names none is taken only when vouched for. */
    private static void checkCluster(EvidenceFile file, ClusterSnapshot snapshot, boolean acceptUnidentified,
                                     List<String> notes) {
        if (file.clusterId() == null) {
            if (!acceptUnidentified) {
                throw new UserInputException("evidence file of broker " + file.brokerId() + " names no cluster id (its"
                        + " meta.properties has no cluster.id), so it cannot be told from another cluster's; drop that file,"
                        + " or pass " + ACCEPT_OPTION + " if those log dirs are this cluster's (" + snapshot.clusterId() + ")");
            }
            notes.add("evidence of broker " + file.brokerId() + " names no cluster id; used as cluster "
                    + snapshot.clusterId() + "'s because of " + ACCEPT_OPTION);
        } else if (!file.clusterId().equals(snapshot.clusterId())) {
            throw new UserInputException("evidence file of broker " + file.brokerId() + " is from cluster "
                    + file.clusterId() + ", but --bootstrap-server is cluster " + snapshot.clusterId()
                    + "; drop that file or inspect this cluster's broker");
        }
    }

    /**
     * Why this log is not the current topic's, or null when it is (or the operator vouches for a log without an id).
     * Kafka writes the topic id to partition.metadata when it creates the log (KIP-516), and a topic re-created under
     * its name gets a new one.
     */
    private static String topicIdRefusal(int broker, EvidenceFile.Partition logged, Uuid clusterTopicId,
                                         boolean acceptUnidentified) {
        boolean clusterKnows = clusterTopicId != null && !Uuid.ZERO_UUID.equals(clusterTopicId);
        if (logged.topicId() != null && clusterKnows) {
            if (logged.topicId().equals(clusterTopicId.toString())) {
                return null;
            }
            return "its log is of topic id " + logged.topicId() + " (partition.metadata on broker " + broker
                    + "), but the cluster's topic '" + logged.topic() + "' is " + clusterTopicId + ": the topic was deleted"
                    + " and re-created since, and that log is the old topic's (Kafka deletes it when broker " + broker
                    + " starts), so this replica counts as unknown — bring broker " + broker + " back, or plan with"
                    + " --strategy proactive if the plan waits for it";
        }
        if (acceptUnidentified) {
            return null;
        }
        return logged.topicId() == null
                ? "its log has no topic id (partition.metadata missing or unreadable on broker " + broker + "), so it"
                        + " cannot be told from a deleted topic's of the same name; pass " + ACCEPT_OPTION
                        + " if it is the current topic's"
                : "the cluster gave no topic id for '" + logged.topic() + "', so the log's (" + logged.topicId()
                        + ") cannot be checked; pass " + ACCEPT_OPTION + " if it is the current topic's";
    }
}
