// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.patch.controller;

import dev.uncleanrecovery.patch.wire.DesignatedElectLeadersRequestData;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.IntPredicate;
import org.apache.kafka.common.ElectionType;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.ElectLeadersRequestData;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.ApiError;
import org.apache.kafka.controller.ClusterControlManager;
import org.apache.kafka.metadata.PartitionRegistration;

/**
 * ElectLeaders v3 with DesignatedLeaders on the active controller. The stock election runs as
 * always; three hooks steer it for the designated partitions only:
 * <ol>
 *   <li>{@code ReplicationControlManager.electLeaders}: puts the request's designations in a
 *       ThreadLocal of the controller's event thread for the length of the call (removed in finally);</li>
 *   <li>{@code ReplicationControlManager.electLeader}: refuses a designated partition, with a message
 *       naming the failed condition, unless it is leaderless and the designated replica is in its
 *       replica set, unfenced, not in controlled shutdown and its directory online;</li>
 *   <li>{@code PartitionChangeBuilder.electLeader}: for a partition that passed, the choice is the
 *       designated replica, or nobody if it is no longer acceptable: never another replica.</li>
 * </ol>
 * What the builder writes next is the stock unclean election record (ISR = [leader], RECOVERING,
 * leader epoch + 1), so standby controllers and brokers replay it without the agent.
 */
public final class DesignatedElection {

    /** The designations of the ElectLeaders call running on this thread; null outside one. */
    private static final ThreadLocal<Designations> CURRENT = new ThreadLocal<>();

    private static final Class<?> REPLICATION_CONTROL = classOf("org.apache.kafka.controller.ReplicationControlManager");
    private static final MethodHandle ELECT_LEADERS;
    private static final MethodHandle CLUSTER_CONTROL;
    private static final MethodHandle GET_TOPIC_ID;
    private static final MethodHandle GET_PARTITION;

    static {
        try {
            MethodHandles.Lookup rcm = MethodHandles.privateLookupIn(REPLICATION_CONTROL, MethodHandles.lookup());
            ELECT_LEADERS = rcm.findVirtual(REPLICATION_CONTROL, "electLeaders",
                    MethodType.methodType(classOf("org.apache.kafka.controller.ControllerResult"), ElectLeadersRequestData.class));
            CLUSTER_CONTROL = rcm.findGetter(REPLICATION_CONTROL, "clusterControl", ClusterControlManager.class);
            GET_TOPIC_ID = rcm.findVirtual(REPLICATION_CONTROL, "getTopicId", MethodType.methodType(Uuid.class, String.class));
            GET_PARTITION = rcm.findVirtual(REPLICATION_CONTROL, "getPartition",
                    MethodType.methodType(PartitionRegistration.class, Uuid.class, int.class));
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /** The designations of one request, and the partitions that passed the checks. */
    private static final class Designations {
        final DesignatedElectLeadersRequestData request;
        final Map<Uuid, Map<Integer, Integer>> validated = new HashMap<>();
        /** Per topic, each partition's first position in its Partitions list; built on first use. */
        private final Map<String, Map<Integer, Integer>> positions = new HashMap<>();
        ApiError refusal;

        Designations(DesignatedElectLeadersRequestData request) {
            this.request = request;
        }

        /**
         * Where the partition stands in its topic's Partitions list, or -1: a map per topic rather than a scan per
         * partition, which would cost the controller's event thread 50 million comparisons for one topic's 10,000.
         */
        int positionOf(String topic, List<Integer> partitions, int partitionId) {
            Map<Integer, Integer> byPartition = positions.computeIfAbsent(topic, t -> {
                Map<Integer, Integer> first = new HashMap<>();
                for (int i = 0; i < partitions.size(); i++) {
                    first.putIfAbsent(partitions.get(i), i);
                }
                return first;
            });
            return byPartition.getOrDefault(partitionId, -1);
        }
    }

    private DesignatedElection() {
    }

    // C1: ReplicationControlManager.electLeaders(ElectLeadersRequestData)

    /** True for a v3 request with designations that is not already being run. */
    public static boolean takesOver(Object request) {
        return request instanceof DesignatedElectLeadersRequestData && CURRENT.get() == null;
    }

    /** Runs the stock electLeaders with the designations in place, and always removes them afterwards. */
    public static Object electLeaders(Object replicationControl, Object request) throws Throwable {
        CURRENT.set(new Designations((DesignatedElectLeadersRequestData) request));
        try {
            return ELECT_LEADERS.invoke(replicationControl, (ElectLeadersRequestData) request);
        } finally {
            CURRENT.remove();
        }
    }

    // C3: ReplicationControlManager.electLeader(String, int, ElectionType, List)

    /** True when a designated partition must not be elected; {@link #refusal()} says why. */
    public static boolean refuses(Object replicationControl, String topic, int partitionId, ElectionType type) throws Throwable {
        Designations designations = CURRENT.get();
        if (designations == null) {
            return false;
        }
        List<Integer> designated = designations.request.designatedLeaders().get(topic);
        if (designated == null) {
            return false; // a topic of the same request that designates nobody: stock election
        }
        List<Integer> partitions = designations.request.designatingPartitions().get(topic);
        String partitionName = topic + "-" + partitionId;
        if (designated.size() != partitions.size()) {
            return refuse(designations, Errors.INVALID_REQUEST, "topic " + topic + " has " + partitions.size()
                    + " Partitions but " + designated.size() + " DesignatedLeaders; they must pair up one to one");
        }
        int index = designations.positionOf(topic, partitions, partitionId);
        if (index < 0) {
            return refuse(designations, Errors.INVALID_REQUEST, partitionName + " is listed without a designated leader "
                    + "(topic " + topic + " appears more than once in the request)");
        }
        int leader = designated.get(index);
        if (type != ElectionType.UNCLEAN) {
            return refuse(designations, Errors.INVALID_REQUEST, "designated leaders need election type UNCLEAN, not " + type
                    + " (" + partitionName + ")");
        }
        Uuid topicId = (Uuid) GET_TOPIC_ID.invoke(replicationControl, topic);
        PartitionRegistration partition = topicId == null ? null
                : (PartitionRegistration) GET_PARTITION.invoke(replicationControl, topicId, partitionId);
        if (partition == null) {
            return false; // the stock code answers UNKNOWN_TOPIC_OR_PARTITION and elects nobody
        }
        if (partition.leader != -1) {
            return refuse(designations, Errors.ELECTION_NOT_NEEDED, partitionName + " already has leader " + partition.leader
                    + " (leader epoch " + partition.leaderEpoch + "); a designated election only elects a leaderless partition");
        }
        if (Arrays.stream(partition.replicas).noneMatch(replica -> replica == leader)) {
            return refuse(designations, Errors.INVALID_REQUEST, "designated replica " + leader + " is not in the replica set "
                    + Arrays.toString(partition.replicas).replace(" ", "") + " of " + partitionName);
        }
        ClusterControlManager cluster = (ClusterControlManager) CLUSTER_CONTROL.invoke(replicationControl);
        String replica = "designated replica " + leader + " of " + partitionName;
        if (cluster.registration(leader) == null) {
            return refuse(designations, Errors.ELIGIBLE_LEADERS_NOT_AVAILABLE, replica + " is not a registered broker");
        }
        if (!cluster.isUnfenced(leader)) {
            return refuse(designations, Errors.ELIGIBLE_LEADERS_NOT_AVAILABLE, replica + " is fenced");
        }
        if (cluster.inControlledShutdown(leader)) {
            return refuse(designations, Errors.ELIGIBLE_LEADERS_NOT_AVAILABLE, replica + " is in controlled shutdown");
        }
        Uuid directory = partition.directory(leader);
        if (!cluster.hasOnlineDir(leader, directory)) {
            return refuse(designations, Errors.ELIGIBLE_LEADERS_NOT_AVAILABLE, replica + " has its log directory " + directory
                    + " offline");
        }
        designations.validated.computeIfAbsent(topicId, id -> new HashMap<>()).put(partitionId, leader);
        return false;
    }

    public static ApiError refusal() {
        return CURRENT.get().refusal;
    }

    private static boolean refuse(Designations designations, Errors error, String message) {
        designations.refusal = new ApiError(error, message);
        return true;
    }

    // C2: PartitionChangeBuilder.electLeader()

    /** True while a designated election of this partition, which passed the checks, is being built. */
    public static boolean isDesignated(Uuid topicId, int partitionId) {
        Designations designations = CURRENT.get();
        return designations != null
                && designations.validated.getOrDefault(topicId, Map.of()).containsKey(partitionId);
    }

    /** The designated replica if it is still a target replica and acceptable as leader; else -1 (no election). */
    public static int designatedLeader(Uuid topicId, int partitionId, List<Integer> targetReplicas, IntPredicate acceptable) {
        int leader = CURRENT.get().validated.get(topicId).get(partitionId);
        return targetReplicas.contains(leader) && acceptable.test(leader) ? leader : -1;
    }

    private static Class<?> classOf(String name) {
        try {
            return Class.forName(name, false, DesignatedElection.class.getClassLoader());
        } catch (ClassNotFoundException e) {
            throw new ExceptionInInitializerError(e);
        }
    }
}
