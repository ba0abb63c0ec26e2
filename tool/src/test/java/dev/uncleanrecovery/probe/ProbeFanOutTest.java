// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.probe;

import static org.assertj.core.api.Assertions.assertThat;

import dev.uncleanrecovery.connect.BrokerRequestException;
import dev.uncleanrecovery.evidence.EvidenceSource;
import dev.uncleanrecovery.evidence.EvidenceStatus;
import dev.uncleanrecovery.evidence.ReplicaEvidence;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import java.util.random.RandomGenerator;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.junit.jupiter.api.Test;

/**
 * The engine's scheduling with an in-memory source: batching, in-flight limit, retries that re-ask
 * only what is missing, backoff, deadline. No network: what a broker answers is scripted here; the
 * evidence itself is tested against real Kafka in StockLogInfoSourceClusterTest.
 */
class ProbeFanOutTest {

    private static final Uuid TOPIC_ID = Uuid.randomUuid();

    /** A source whose answers a test scripts per call; it records every batch it was given. */
    private static final class ScriptedSource implements ReplicaLogInfoSource {
        final List<Call> calls = new CopyOnWriteArrayList<>();
        final Function<Call, CompletableFuture<ProbeBatchAnswer>> script;

        ScriptedSource(Function<Call, CompletableFuture<ProbeBatchAnswer>> script) {
            this.script = script;
        }

        @Override
        public EvidenceSource kindFor(int brokerId) {
            return EvidenceSource.STOCK;
        }

        @Override
        public CompletableFuture<ProbeBatchAnswer> probe(ProbeBatch batch) {
            Call call = new Call(batch.brokerId(), batch.partitions().stream().map(PartitionToProbe::topicPartition).toList(),
                    System.nanoTime(), calls.size(), batch);
            calls.add(call);
            return script.apply(call);
        }

        List<Call> callsTo(int broker) {
            return calls.stream().filter(c -> c.broker == broker).toList();
        }
    }

    private record Call(int broker, List<TopicPartition> partitions, long atNanos, int index, ProbeBatch batch) {
    }

    private static List<PartitionToProbe> partitions(String topic, int count) {
        return IntStream.range(0, count)
                .mapToObj(i -> new PartitionToProbe(new TopicPartition(topic, i), TOPIC_ID, 3))
                .toList();
    }

    private static ReplicaEvidence ok(TopicPartition tp, int broker) {
        return ReplicaEvidence.answered(tp, broker, EvidenceSource.STOCK, 100 + tp.partition(), 2, 3, -1, Instant.now());
    }

    private static CompletableFuture<ProbeBatchAnswer> answerAll(Call call) {
        Map<TopicPartition, ReplicaEvidence> settled = new HashMap<>();
        call.partitions.forEach(tp -> settled.put(tp, ok(tp, call.broker)));
        return CompletableFuture.completedFuture(new ProbeBatchAnswer(settled, Map.of()));
    }

    private static String describe(int broker) {
        return "broker " + broker + " (127.0.0.1:" + (9090 + broker) + ")";
    }

    private static ProbeSettings fast(Duration timeout) {
        return ProbeSettings.defaults().withTimeout(timeout)
                .withRetries(Duration.ofMillis(20), Duration.ofMillis(200), 0.0, 3);
    }

    private static final RandomGenerator NO_JITTER = RandomGenerator.of("L64X128MixRandom");

    @Test
    void every_replica_is_asked_in_batches_of_at_most_1000_partitions() {
        ScriptedSource source = new ScriptedSource(ProbeFanOutTest::answerAll);
        Map<Integer, List<PartitionToProbe>> byBroker = Map.of(1, partitions("orders", 2500), 2, partitions("orders", 2500));

        ProbeResult result = new ProbeFanOut(source, fast(Duration.ofSeconds(10)), ProbeFanOutTest::describe)
                .run(byBroker, null);

        for (int broker : List.of(1, 2)) {
            List<Call> calls = source.callsTo(broker);
            assertThat(calls).hasSize(3);
            assertThat(calls).allSatisfy(c -> assertThat(c.partitions).hasSizeLessThanOrEqualTo(1000));
            assertThat(calls.stream().flatMap(c -> c.partitions.stream()).distinct().count()).isEqualTo(2500);
        }
        assertThat(result.evidence()).hasSize(2500);
        assertThat(result.evidence().values())
                .allSatisfy(list -> assertThat(list).extracting(ReplicaEvidence::broker).containsExactly(1, 2));
        assertThat(result.evidence().values().stream().flatMap(List::stream)).allMatch(ReplicaEvidence::isAnswered);
    }

    @Test
    void a_retriable_partition_error_re_asks_only_that_partition() {
        TopicPartition flaky = new TopicPartition("orders", 7);
        ScriptedSource source = new ScriptedSource(call -> {
            Map<TopicPartition, ReplicaEvidence> settled = new HashMap<>();
            Map<TopicPartition, ProbeBatchAnswer.PartitionRetry> retry = new HashMap<>();
            for (TopicPartition tp : call.partitions) {
                if (tp.equals(flaky) && call.index == 0) {
                    retry.put(tp, new ProbeBatchAnswer.PartitionRetry("NOT_LEADER_OR_FOLLOWER", null));
                } else {
                    settled.put(tp, ok(tp, call.broker));
                }
            }
            return CompletableFuture.completedFuture(new ProbeBatchAnswer(settled, retry));
        });

        ProbeResult result = new ProbeFanOut(source, fast(Duration.ofSeconds(10)), ProbeFanOutTest::describe)
                .run(Map.of(1, partitions("orders", 10)), null);

        assertThat(source.calls).hasSize(2);
        assertThat(source.calls.get(0).partitions).hasSize(10);
        assertThat(source.calls.get(1).partitions).containsExactly(flaky);
        assertThat(result.evidenceFor(flaky)).singleElement().satisfies(e -> assertThat(e.isAnswered()).isTrue());
    }

    @Test
    void a_failing_broker_is_asked_again_with_growing_backoff_until_it_answers() {
        ScriptedSource source = new ScriptedSource(call -> call.index < 3
                ? CompletableFuture.failedFuture(new BrokerRequestException(1, true, "cannot connect to broker 1"))
                : answerAll(call));
        ProbeSettings settings = ProbeSettings.defaults().withTimeout(Duration.ofSeconds(10))
                .withRetries(Duration.ofMillis(50), Duration.ofSeconds(1), 0.0, 3);

        ProbeResult result = new ProbeFanOut(source, settings, ProbeFanOutTest::describe, NO_JITTER)
                .run(Map.of(1, partitions("orders", 5)), null);

        assertThat(source.calls).hasSize(4);
        List<Long> gapsMs = new ArrayList<>();
        for (int i = 1; i < source.calls.size(); i++) {
            gapsMs.add((source.calls.get(i).atNanos - source.calls.get(i - 1).atNanos) / 1_000_000);
        }
        // 50, 100, 200 ms without jitter; scheduling may only add delay.
        assertThat(gapsMs.get(0)).isGreaterThanOrEqualTo(45);
        assertThat(gapsMs.get(1)).isGreaterThanOrEqualTo(95);
        assertThat(gapsMs.get(2)).isGreaterThanOrEqualTo(195);
        assertThat(result.evidence().values().stream().flatMap(List::stream)).allMatch(ReplicaEvidence::isAnswered);
    }

    @Test
    void jitter_spreads_the_delays_around_the_exponential_backoff() {
        ScriptedSource source = new ScriptedSource(call -> call.index < 6
                ? CompletableFuture.failedFuture(new BrokerRequestException(1, true, "cannot connect to broker 1"))
                : answerAll(call));
        ProbeSettings settings = ProbeSettings.defaults().withTimeout(Duration.ofSeconds(10))
                .withRetries(Duration.ofMillis(40), Duration.ofMillis(40), 0.5, 3);

        new ProbeFanOut(source, settings, ProbeFanOutTest::describe).run(Map.of(1, partitions("orders", 1)), null);

        List<Long> gapsMs = new ArrayList<>();
        for (int i = 1; i < source.calls.size(); i++) {
            gapsMs.add((source.calls.get(i).atNanos - source.calls.get(i - 1).atNanos) / 1_000_000);
        }
        // Capped at 40 ms, scaled by [0.5, 1.5]: every gap is at least 20 ms, and they are not all equal.
        assertThat(gapsMs).allSatisfy(g -> assertThat(g).isGreaterThanOrEqualTo(19));
        assertThat(Set.copyOf(gapsMs)).hasSizeGreaterThan(1);
    }

    @Test
    void a_broker_that_never_answers_leaves_its_replicas_unreachable_at_the_deadline_with_its_last_error() {
        ScriptedSource source = new ScriptedSource(call -> call.broker == 3
                ? CompletableFuture.failedFuture(new BrokerRequestException(3, true,
                        "cannot connect to broker 3 (127.0.0.1:9093): connection refused"))
                : answerAll(call));
        long start = System.nanoTime();

        ProbeResult result = new ProbeFanOut(source, fast(Duration.ofMillis(400)), ProbeFanOutTest::describe)
                .run(Map.of(1, partitions("orders", 3), 3, partitions("orders", 3)), null);

        long tookMs = (System.nanoTime() - start) / 1_000_000;
        assertThat(tookMs).isBetween(350L, 3_000L);
        assertThat(source.callsTo(3)).hasSizeGreaterThan(2);
        for (List<ReplicaEvidence> replicas : result.evidence().values()) {
            assertThat(replicas.get(0).status()).isEqualTo(EvidenceStatus.OK);
            assertThat(replicas.get(1).status()).isEqualTo(EvidenceStatus.UNREACHABLE);
            assertThat(replicas.get(1).error()).isEqualTo("broker 3 (127.0.0.1:9093) did not answer within 400 ms: "
                    + "cannot connect to broker 3 (127.0.0.1:9093): connection refused");
        }
    }

    @Test
    void a_broker_with_a_shorter_deadline_does_not_hold_up_the_others() {
        ScriptedSource source = new ScriptedSource(call -> call.broker == 3
                ? CompletableFuture.failedFuture(new BrokerRequestException(3, true,
                        "cannot connect to broker 3 (127.0.0.1:9093): connection refused"))
                : answerAll(call));
        long start = System.nanoTime();

        ProbeResult result = new ProbeFanOut(source, fast(Duration.ofSeconds(20)), ProbeFanOutTest::describe)
                .run(Map.of(1, partitions("orders", 2), 3, partitions("orders", 2)), Map.of(3, Duration.ofMillis(300)), null);

        long tookMs = (System.nanoTime() - start) / 1_000_000;
        assertThat(tookMs).as("ends at the fenced broker's deadline, not the run's").isLessThan(10_000L);
        for (List<ReplicaEvidence> replicas : result.evidence().values()) {
            assertThat(replicas.get(0).status()).isEqualTo(EvidenceStatus.OK);
            assertThat(replicas.get(1).status()).isEqualTo(EvidenceStatus.UNREACHABLE);
            assertThat(replicas.get(1).error()).startsWith("broker 3 (127.0.0.1:9093) did not answer within 300 ms: ");
        }
    }

    @Test
    void a_fenced_broker_that_refuses_connections_is_given_up_at_once_but_a_live_one_is_asked_again() {
        ScriptedSource source = new ScriptedSource(call -> call.broker == 1 ? answerAll(call)
                : CompletableFuture.failedFuture(BrokerRequestException.refused(call.broker,
                        "cannot connect to broker " + call.broker + ": connection refused")));

        // Broker 3 is fenced, broker 2 is not (it may be restarting): only 2 is asked again until the deadline.
        ProbeResult result = new ProbeFanOut(source, fast(Duration.ofMillis(1500)), ProbeFanOutTest::describe)
                .run(Map.of(1, partitions("orders", 2), 2, partitions("orders", 2), 3, partitions("orders", 2)),
                        Map.of(3, Duration.ofSeconds(5)), null);

        assertThat(source.callsTo(3)).hasSize(1);
        assertThat(source.callsTo(2)).hasSizeGreaterThan(1);
        for (List<ReplicaEvidence> replicas : result.evidence().values()) {
            assertThat(replicas).extracting(ReplicaEvidence::status)
                    .containsExactly(EvidenceStatus.OK, EvidenceStatus.UNREACHABLE, EvidenceStatus.UNREACHABLE);
            assertThat(replicas.get(2).error()).isEqualTo("cannot connect to broker 3: connection refused"
                    + " (fenced by the controller and not listening: not waiting for it)");
        }
    }

    @Test
    void a_broker_whose_answer_never_comes_is_unreachable_at_the_deadline() {
        ScriptedSource source = new ScriptedSource(call -> new CompletableFuture<>());

        ProbeResult result = new ProbeFanOut(source, fast(Duration.ofMillis(300)), ProbeFanOutTest::describe)
                .run(Map.of(2, partitions("orders", 2)), null);

        assertThat(result.evidence().values().stream().flatMap(List::stream)).allSatisfy(e -> {
            assertThat(e.status()).isEqualTo(EvidenceStatus.UNREACHABLE);
            assertThat(e.error()).startsWith("broker 2 (127.0.0.1:9092) did not answer within 300 ms: no answer yet");
        });
    }

    @Test
    void a_broker_that_fails_authentication_is_given_up_at_once() {
        ScriptedSource source = new ScriptedSource(call -> CompletableFuture.failedFuture(new BrokerRequestException(1,
                false, "authentication to broker 1 (127.0.0.1:9091) failed: bad password")));
        long start = System.nanoTime();

        ProbeResult result = new ProbeFanOut(source, fast(Duration.ofSeconds(20)), ProbeFanOutTest::describe)
                .run(Map.of(1, partitions("orders", 4)), null);

        assertThat((System.nanoTime() - start) / 1_000_000).isLessThan(5_000);
        assertThat(source.calls).hasSize(1);
        assertThat(result.evidence().values().stream().flatMap(List::stream)).allSatisfy(e -> {
            assertThat(e.status()).isEqualTo(EvidenceStatus.UNREACHABLE);
            assertThat(e.error()).contains("authentication to broker 1 (127.0.0.1:9091) failed: bad password");
        });
    }

    @Test
    void a_partition_error_that_persists_is_final_after_the_last_attempt() {
        TopicPartition tp = new TopicPartition("orders", 0);
        ReplicaEvidence storageError = ReplicaEvidence.failed(tp, 1, EvidenceSource.STOCK, EvidenceStatus.ERROR,
                "broker 1 answered ListOffsets with KAFKA_STORAGE_ERROR", Instant.now());
        ScriptedSource source = new ScriptedSource(call -> CompletableFuture.completedFuture(new ProbeBatchAnswer(
                Map.of(), Map.of(tp, new ProbeBatchAnswer.PartitionRetry("KAFKA_STORAGE_ERROR", storageError)))));

        ProbeResult result = new ProbeFanOut(source, fast(Duration.ofSeconds(20)), ProbeFanOutTest::describe)
                .run(Map.of(1, partitions("orders", 1)), null);

        assertThat(source.calls).hasSize(3);
        assertThat(result.evidenceFor(tp)).containsExactly(storageError);
    }

    @Test
    void a_stale_answer_is_reported_stale_when_the_deadline_comes_first() {
        TopicPartition tp = new TopicPartition("orders", 0);
        ReplicaEvidence stale = new ReplicaEvidence(tp, 1, EvidenceSource.STOCK, EvidenceStatus.STALE, 42, 2, 2, -1,
                "broker 1 knows leader epoch 2 but the metadata says 3", Instant.now());
        ScriptedSource source = new ScriptedSource(call -> CompletableFuture.completedFuture(new ProbeBatchAnswer(
                Map.of(), Map.of(tp, new ProbeBatchAnswer.PartitionRetry("metadata lags", stale)))));
        ProbeSettings settings = ProbeSettings.defaults().withTimeout(Duration.ofMillis(300))
                .withRetries(Duration.ofMillis(200), Duration.ofMillis(200), 0.0, 100);

        ProbeResult result = new ProbeFanOut(source, settings, ProbeFanOutTest::describe)
                .run(Map.of(1, partitions("orders", 1)), null);

        assertThat(result.evidenceFor(tp)).containsExactly(stale);
    }

    @Test
    void in_flight_batches_per_broker_stay_within_the_limit() {
        AtomicInteger inFlight = new AtomicInteger();
        AtomicInteger highest = new AtomicInteger();
        ScriptedSource source = new ScriptedSource(call -> {
            highest.accumulateAndGet(inFlight.incrementAndGet(), Math::max);
            return CompletableFuture.supplyAsync(() -> {
                sleep(20);
                inFlight.decrementAndGet();
                return answerAll(call).join();
            });
        });
        ProbeSettings settings = fast(Duration.ofSeconds(20)).withBatching(100, 2);

        ProbeResult result = new ProbeFanOut(source, settings, ProbeFanOutTest::describe)
                .run(Map.of(1, partitions("orders", 1000)), null);

        assertThat(source.calls).hasSize(10);
        assertThat(highest.get()).isEqualTo(2);
        assertThat(result.evidence()).hasSize(1000);
    }

    @Test
    void a_paged_answer_asks_for_the_rest_at_once() {
        ScriptedSource source = new ScriptedSource(call -> {
            // Answers only the first half of what it is asked, like GetReplicaLogInfo with HasMoreData.
            Map<TopicPartition, ReplicaEvidence> settled = new HashMap<>();
            List<TopicPartition> asked = call.partitions;
            asked.subList(0, Math.max(1, asked.size() / 2)).forEach(tp -> settled.put(tp, ok(tp, call.broker)));
            return CompletableFuture.completedFuture(new ProbeBatchAnswer(settled, Map.of()));
        });
        // A backoff of 5 s would show: the whole run must finish well before it.
        ProbeSettings settings = ProbeSettings.defaults().withTimeout(Duration.ofSeconds(20))
                .withRetries(Duration.ofSeconds(5), Duration.ofSeconds(5), 0.0, 3);
        long start = System.nanoTime();

        ProbeResult result = new ProbeFanOut(source, settings, ProbeFanOutTest::describe)
                .run(Map.of(1, partitions("orders", 16)), null);

        assertThat((System.nanoTime() - start) / 1_000_000).isLessThan(4_000);
        assertThat(source.calls).extracting(c -> c.partitions.size()).containsExactly(16, 8, 4, 2, 1);
        assertThat(result.evidence().values().stream().flatMap(List::stream)).allMatch(ReplicaEvidence::isAnswered);
    }

    @Test
    void progress_counts_brokers_and_partitions_known() {
        List<ProbeProgress> reports = Collections.synchronizedList(new ArrayList<>());
        ScriptedSource source = new ScriptedSource(call -> call.broker == 2
                ? CompletableFuture.failedFuture(new BrokerRequestException(2, false, "authentication failed"))
                : answerAll(call));

        new ProbeFanOut(source, fast(Duration.ofSeconds(10)), ProbeFanOutTest::describe)
                .run(Map.of(1, partitions("orders", 4), 2, partitions("orders", 2)), reports::add);

        assertThat(reports.get(0)).extracting(ProbeProgress::replicasKnown, ProbeProgress::replicasTotal,
                ProbeProgress::partitionsTotal, ProbeProgress::brokersTotal).containsExactly(0, 6, 4, 2);
        ProbeProgress last = reports.get(reports.size() - 1);
        assertThat(last.isComplete()).isTrue();
        // broker 2 was given up: settled, but it did not answer, and its replicas are not known
        assertThat(last).extracting(ProbeProgress::brokersAnswered, ProbeProgress::partitionsKnown,
                ProbeProgress::replicasKnown, ProbeProgress::replicasSettled).containsExactly(1, 4, 4, 6);
        assertThat(last.unansweredBrokers()).singleElement().satisfies(b -> {
            assertThat(b.broker()).isEqualTo(2);
            assertThat(b.timedOut()).isFalse();
            assertThat(b.reason()).isEqualTo("authentication failed");
        });
    }

    @Test
    void a_hung_broker_does_not_count_as_answered_and_is_named_once_with_its_replicas() {
        List<ProbeProgress> reports = Collections.synchronizedList(new ArrayList<>());
        // broker 2 takes the requests and never answers (SIGSTOPped); broker 1 answers all
        ScriptedSource source = new ScriptedSource(call -> call.broker == 2 ? new CompletableFuture<>() : answerAll(call));

        ProbeResult result = new ProbeFanOut(source, fast(Duration.ofMillis(300)), ProbeFanOutTest::describe)
                .run(Map.of(1, partitions("orders", 3), 2, partitions("orders", 2)), reports::add);

        ProbeProgress last = reports.get(reports.size() - 1);
        assertThat(last.isComplete()).isTrue();
        assertThat(last).extracting(ProbeProgress::brokersAnswered, ProbeProgress::brokersTotal,
                ProbeProgress::replicasKnown, ProbeProgress::replicasTotal).containsExactly(1, 2, 3, 5);
        assertThat(reports.subList(0, reports.size() - 1)).allSatisfy(p -> assertThat(p.unansweredBrokers()).isEmpty());
        UnansweredBroker hung = new UnansweredBroker(2, "broker 2 (127.0.0.1:9092)", "broker 2 (127.0.0.1:9092) did not"
                + " answer within 300 ms: no answer yet (still connecting or waiting for the broker)", true, 2, 2);
        assertThat(last.unansweredBrokers()).containsExactly(hung);
        assertThat(result.unansweredBrokers()).containsExactly(hung);
    }

    @Test
    void a_broker_that_answered_some_replicas_before_the_deadline_is_named_with_the_ones_it_left_unknown() {
        // broker 1 answers its first batch and then goes silent
        ScriptedSource source = new ScriptedSource(call -> call.index == 0 ? answerAll(call) : new CompletableFuture<>());
        ProbeSettings settings = fast(Duration.ofMillis(300)).withBatching(2, 1);

        ProbeResult result = new ProbeFanOut(source, settings, ProbeFanOutTest::describe)
                .run(Map.of(1, partitions("orders", 5)), null);

        assertThat(result.unansweredBrokers()).singleElement().satisfies(b -> {
            assertThat(b.replicas()).isEqualTo(5);
            assertThat(b.replicasUnknown()).isEqualTo(3);
        });
    }

    @Test
    void a_request_that_timed_out_with_the_deadline_is_said_once_with_its_api() {
        ScriptedSource source = new ScriptedSource(call -> CompletableFuture.failedFuture(new BrokerRequestException(2,
                true, "broker 2 (127.0.0.1:9092) did not answer ListOffsets within 1.5 s")));

        ProbeResult result = new ProbeFanOut(source, fast(Duration.ofMillis(1500)), ProbeFanOutTest::describe)
                .run(Map.of(2, partitions("orders", 1)), null);

        assertThat(result.evidence().values().stream().flatMap(List::stream)).singleElement().satisfies(e ->
                assertThat(e.error()).isEqualTo("broker 2 (127.0.0.1:9092) did not answer ListOffsets within 1.5 s"));
        assertThat(result.unansweredBrokers()).extracting(UnansweredBroker::reason)
                .containsExactly("broker 2 (127.0.0.1:9092) did not answer ListOffsets within 1.5 s");
    }

    @Test
    void requests_are_counted_per_broker_and_kind() {
        ScriptedSource source = new ScriptedSource(call -> {
            call.batch.countRequest("ListOffsets");
            call.batch.countRequest("Fetch");
            call.batch.countRequest("Fetch");
            return answerAll(call);
        });

        ProbeResult result = new ProbeFanOut(source, fast(Duration.ofSeconds(10)), ProbeFanOutTest::describe)
                .run(Map.of(1, partitions("orders", 1500), 2, partitions("orders", 10)), null);

        assertThat(result.requests().byBroker()).isEqualTo(new TreeMap<>(Map.of(
                1, new TreeMap<>(Map.of("Fetch", 4L, "ListOffsets", 2L)),
                2, new TreeMap<>(Map.of("Fetch", 2L, "ListOffsets", 1L)))));
        assertThat(result.requests().total("Fetch")).isEqualTo(6);
    }

    @Test
    void partitions_are_listed_in_order_with_replicas_in_broker_order() {
        Map<Integer, List<PartitionToProbe>> byBroker = new ConcurrentHashMap<>();
        byBroker.put(3, partitions("b", 2));
        byBroker.put(1, partitions("a", 2));
        byBroker.put(2, List.of(new PartitionToProbe(new TopicPartition("a", 1), TOPIC_ID, 3)));

        ProbeResult result = new ProbeFanOut(new ScriptedSource(ProbeFanOutTest::answerAll),
                fast(Duration.ofSeconds(10)), ProbeFanOutTest::describe).run(byBroker, null);

        assertThat(result.evidence().keySet()).extracting(TopicPartition::toString)
                .containsExactly("a-0", "a-1", "b-0", "b-1");
        assertThat(result.evidenceFor(new TopicPartition("a", 1))).extracting(ReplicaEvidence::broker)
                .containsExactly(1, 2);
        assertThat(result.evidence().values().stream().mapToInt(List::size).sum()).isEqualTo(
                byBroker.values().stream().mapToInt(List::size).sum());
        assertThat(result.evidence().keySet().stream().map(TopicPartition::topic).collect(Collectors.toSet()))
                .containsExactlyInAnyOrder("a", "b");
    }

    private static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
