// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.probe;

import static org.assertj.core.api.Assertions.assertThat;

import dev.uncleanrecovery.connect.BrokerApiVersions.ApiRange;
import dev.uncleanrecovery.connect.BrokerApiVersions;
import dev.uncleanrecovery.evidence.EvidenceSource;
import dev.uncleanrecovery.evidence.EvidenceStatus;
import dev.uncleanrecovery.evidence.ReplicaEvidence;
import dev.uncleanrecovery.wire.GetReplicaLogInfoRequest;
import dev.uncleanrecovery.wire.GetReplicaLogInfoResponse.PartitionLogInfo;
import dev.uncleanrecovery.wire.GetReplicaLogInfoResponse.TopicPartitionLogInfo;
import dev.uncleanrecovery.wire.GetReplicaLogInfoResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Function;
import java.util.stream.IntStream;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.Test;

/** GetReplicaLogInfo answers, as the fan-out engine sees them, from a scripted broker (no network). */
class NativeLogInfoSourceTest {

    private static final short KEY = 1966;
    private static final Uuid ORDERS_ID = Uuid.randomUuid();
    private static final long BROKER_EPOCH = 311;

    private final List<GetReplicaLogInfoRequest> requests = new CopyOnWriteArrayList<>();

    /** A patched broker that answers each request with {@code broker.apply(request)}. */
    private NativeLogInfoSource source(Function<GetReplicaLogInfoRequest, GetReplicaLogInfoResponse> broker,
                                       boolean advertises) {
        List<ApiRange> apis = new ArrayList<>(List.of(new ApiRange((short) 1, (short) 4, (short) 18)));
        if (advertises) {
            apis.add(new ApiRange(KEY, (short) 0, (short) 0));
        }
        return new NativeLogInfoSource(id -> CompletableFuture.completedFuture(new BrokerApiVersions(id, apis)),
                (id, request, timeout) -> {
                    requests.add(request);
                    return CompletableFuture.completedFuture(broker.apply(request));
                },
                id -> "broker " + id + " (127.0.0.1:9092)", KEY);
    }

    private static PartitionToProbe orders(int partition, int metadataLeaderEpoch) {
        return new PartitionToProbe(new TopicPartition("orders", partition), ORDERS_ID, metadataLeaderEpoch);
    }

    private static GetReplicaLogInfoResponse answer(boolean hasMoreData, PartitionLogInfo... partitions) {
        return new GetReplicaLogInfoResponse(0, BROKER_EPOCH, hasMoreData,
                List.of(new TopicPartitionLogInfo(ORDERS_ID, List.of(partitions))));
    }

    private static ProbeResult probe(ReplicaLogInfoSource source, List<PartitionToProbe> partitions, int attempts) {
        ProbeSettings settings = ProbeSettings.defaults().withTimeout(Duration.ofSeconds(5))
                .withRetries(Duration.ofMillis(1), Duration.ofMillis(5), 0, attempts);
        return new ProbeFanOut(source, settings, id -> "broker " + id + " (127.0.0.1:9092)").run(Map.of(2, partitions), null);
    }

    private static ReplicaEvidence only(ProbeResult result, int partition) {
        List<ReplicaEvidence> evidence = result.evidenceFor(new TopicPartition("orders", partition));
        assertThat(evidence).hasSize(1);
        return evidence.get(0);
    }

    @Test
    void an_answer_becomes_native_evidence_with_the_broker_epoch() {
        NativeLogInfoSource source = source(r -> answer(false, new PartitionLogInfo(0, 6, 7, 1042, Errors.NONE.code())), true);

        ProbeResult result = probe(source, List.of(orders(0, 7)), 3);

        ReplicaEvidence e = only(result, 0);
        assertThat(e.status()).isEqualTo(EvidenceStatus.OK);
        assertThat(e.source()).isEqualTo(EvidenceSource.NATIVE);
        assertThat(e.logEndOffset()).isEqualTo(1042);
        assertThat(e.lastWrittenLeaderEpoch()).isEqualTo(6);
        assertThat(e.currentLeaderEpoch()).isEqualTo(7);
        assertThat(e.brokerEpoch()).isEqualTo(BROKER_EPOCH);
        assertThat(requests).singleElement().satisfies(r -> assertThat(r.topicPartitions()).singleElement()
                .satisfies(t -> {
                    assertThat(t.topicId()).isEqualTo(ORDERS_ID);
                    assertThat(t.partitions()).containsExactly(0);
                }));
        assertThat(result.requests().total()).isEqualTo(1);
    }

    @Test
    void has_more_data_pages_through_the_rest_at_once() {
        // The broker answers at most 2 partitions per request and says HasMoreData for the rest.
        NativeLogInfoSource source = source(r -> {
            List<Integer> asked = r.topicPartitions().get(0).partitions();
            List<PartitionLogInfo> first = asked.stream().limit(2)
                    .map(p -> new PartitionLogInfo(p, 3, 3, 100 + p, Errors.NONE.code())).toList();
            return answer(asked.size() > 2, first.toArray(PartitionLogInfo[]::new));
        }, true);
        List<PartitionToProbe> five = IntStream.range(0, 5).mapToObj(p -> orders(p, 3)).toList();

        ProbeResult result = probe(source, five, 1);

        IntStream.range(0, 5).forEach(p -> assertThat(only(result, p)).satisfies(e -> {
            assertThat(e.status()).isEqualTo(EvidenceStatus.OK);
            assertThat(e.logEndOffset()).isEqualTo(100 + p);
        }));
        assertThat(requests).extracting(r -> r.topicPartitions().get(0).partitions())
                .containsExactly(List.of(0, 1, 2, 3, 4), List.of(2, 3, 4), List.of(4));
    }

    @Test
    void at_most_1000_partitions_go_in_one_request() {
        NativeLogInfoSource source = source(r -> answer(false, r.topicPartitions().get(0).partitions().stream()
                .map(p -> new PartitionLogInfo(p, 1, 1, 5, Errors.NONE.code())).toArray(PartitionLogInfo[]::new)), true);
        List<PartitionToProbe> many = IntStream.range(0, 2500).mapToObj(p -> orders(p, 1)).toList();

        ProbeResult result = probe(source, many, 1);

        assertThat(result.evidence()).hasSize(2500);
        assertThat(result.evidence().values()).allSatisfy(list -> assertThat(list.get(0).isAnswered()).isTrue());
        assertThat(requests).allSatisfy(r -> assertThat(r.partitionCount()).isLessThanOrEqualTo(1000));
        assertThat(requests.stream().mapToInt(GetReplicaLogInfoRequest::partitionCount).sum()).isEqualTo(2500);
    }

    @Test
    void an_answer_for_another_leader_epoch_is_asked_again_then_reported_stale() {
        NativeLogInfoSource source = source(r -> answer(false, new PartitionLogInfo(0, 5, 6, 900, Errors.NONE.code())), true);

        ProbeResult result = probe(source, List.of(orders(0, 7)), 3);

        ReplicaEvidence e = only(result, 0);
        assertThat(e.status()).isEqualTo(EvidenceStatus.STALE);
        assertThat(e.source()).isEqualTo(EvidenceSource.NATIVE);
        assertThat(e.currentLeaderEpoch()).isEqualTo(6);
        assertThat(e.logEndOffset()).isEqualTo(900);
        assertThat(e.brokerEpoch()).isEqualTo(BROKER_EPOCH);
        assertThat(e.error()).contains("knows leader epoch 6", "metadata says 7");
        assertThat(requests).hasSize(3);
    }

    @Test
    void a_stale_answer_that_catches_up_is_accepted() {
        List<Integer> currentEpochs = new CopyOnWriteArrayList<>(List.of(6, 7));
        NativeLogInfoSource source = source(r -> answer(false,
                new PartitionLogInfo(0, 5, currentEpochs.remove(0), 900, Errors.NONE.code())), true);

        ReplicaEvidence e = only(probe(source, List.of(orders(0, 7)), 3), 0);

        assertThat(e.status()).isEqualTo(EvidenceStatus.OK);
        assertThat(e.currentLeaderEpoch()).isEqualTo(7);
    }

    @Test
    void not_authorized_says_which_acl_to_grant_and_is_not_retried() {
        NativeLogInfoSource source = source(r -> answer(false,
                PartitionLogInfo.failed(0, Errors.TOPIC_AUTHORIZATION_FAILED)), true);

        ReplicaEvidence e = only(probe(source, List.of(orders(0, 7)), 5), 0);

        assertThat(e.status()).isEqualTo(EvidenceStatus.ERROR);
        assertThat(e.error()).contains("TOPIC_AUTHORIZATION_FAILED",
                "not authorized: grant DESCRIBE on topic orders or CLUSTER_ACTION");
        assertThat(requests).hasSize(1);
    }

    @Test
    void a_retriable_error_is_asked_again_until_the_replica_answers() {
        List<Errors> errors = new CopyOnWriteArrayList<>(List.of(Errors.NOT_LEADER_OR_FOLLOWER, Errors.NONE));
        NativeLogInfoSource source = source(r -> answer(false,
                new PartitionLogInfo(0, 6, 7, 1042, errors.remove(0).code())), true);

        ReplicaEvidence e = only(probe(source, List.of(orders(0, 7)), 5), 0);

        assertThat(e.status()).isEqualTo(EvidenceStatus.OK);
        assertThat(requests).hasSize(2);
    }

    @Test
    void a_retriable_error_that_persists_ends_as_error_evidence() {
        NativeLogInfoSource source = source(r -> answer(false,
                PartitionLogInfo.failed(0, Errors.NOT_LEADER_OR_FOLLOWER)), true);

        ReplicaEvidence e = only(probe(source, List.of(orders(0, 7)), 2), 0);

        assertThat(e.status()).isEqualTo(EvidenceStatus.ERROR);
        assertThat(e.error()).contains("NOT_LEADER_OR_FOLLOWER", "does not host this replica");
        assertThat(requests).hasSize(2);
    }

    @Test
    void a_failed_log_directory_is_said_at_once_and_not_asked_again() {
        // Kafka brings a failed log directory back only when its broker restarts: asking again cannot help
        NativeLogInfoSource source = source(r -> answer(false,
                PartitionLogInfo.failed(0, Errors.KAFKA_STORAGE_ERROR)), true);

        ReplicaEvidence e = only(probe(source, List.of(orders(0, 7)), 5), 0);

        assertThat(e.status()).isEqualTo(EvidenceStatus.LOG_DIR_OFFLINE);
        assertThat(e.error()).contains("KAFKA_STORAGE_ERROR", "the log directory holding this replica has failed",
                "'inspect --log-dir' on that directory");
        assertThat(requests).hasSize(1);
    }

    @Test
    void a_broker_without_the_patch_is_never_sent_the_private_key_and_its_replicas_say_why() {
        NativeLogInfoSource source = source(r -> {
            throw new AssertionError("must not be sent");
        }, false);

        ReplicaEvidence e = only(probe(source, List.of(orders(0, 7)), 3), 0);

        assertThat(e.status()).isEqualTo(EvidenceStatus.ERROR);
        assertThat(e.source()).isEqualTo(EvidenceSource.NATIVE);
        assertThat(e.error()).isEqualTo(
                "broker 2 does not offer GetReplicaLogInfo (run the kafka-patch agent or use --probe-mode stock)");
        assertThat(requests).isEmpty();
    }

    @Test
    void a_partition_left_out_without_has_more_data_is_asked_again() {
        List<Boolean> leaveOut = new CopyOnWriteArrayList<>(List.of(true, false));
        NativeLogInfoSource source = source(r -> leaveOut.remove(0)
                ? answer(false, new PartitionLogInfo(0, 1, 1, 10, Errors.NONE.code()))
                : answer(false, new PartitionLogInfo(1, 1, 1, 20, Errors.NONE.code())), true);

        ProbeResult result = probe(source, List.of(orders(0, 1), orders(1, 1)), 3);

        assertThat(only(result, 0).logEndOffset()).isEqualTo(10);
        assertThat(only(result, 1).logEndOffset()).isEqualTo(20);
        assertThat(requests).extracting(r -> r.topicPartitions().get(0).partitions())
                .containsExactly(List.of(0, 1), List.of(1));
    }
}
