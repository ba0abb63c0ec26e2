// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.cluster;

import dev.uncleanrecovery.connect.BrokerConnections;
import dev.uncleanrecovery.support.Pause;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.apache.kafka.common.errors.RetriableException;
import org.apache.kafka.common.message.DescribeProducersRequestData;
import org.apache.kafka.common.message.DescribeProducersResponseData;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.DescribeProducersRequest;
import org.apache.kafka.common.requests.DescribeProducersResponse;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.Optional;
import org.apache.kafka.clients.admin.AbortTransactionOptions;
import org.apache.kafka.clients.admin.AbortTransactionSpec;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.DescribeProducersOptions;
import org.apache.kafka.clients.admin.DescribeProducersResult.PartitionProducerState;
import org.apache.kafka.clients.admin.ProducerState;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.DescribeConfigsOptions;
import org.apache.kafka.clients.admin.DescribeTransactionsOptions;
import org.apache.kafka.clients.admin.ListTransactionsOptions;
import org.apache.kafka.clients.admin.TransactionDescription;
import org.apache.kafka.clients.admin.TransactionListing;
import org.apache.kafka.clients.admin.TransactionState;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.ConfigResource;

/**
 * Open transactions that nothing will ever close, on partitions just elected, found the way {@code
 * kafka-transactions.sh find-hanging} finds them: the partition leader's producer state (DescribeProducers) shows a
 * producer with an open transaction, and its coordinator (ListTransactions, DescribeTransactions) either knows no
 * such producer, has moved on (another state, epoch or partition set), or has kept it open longer than
 * {@code transaction.max.timeout.ms}. An unclean election makes them: the commit or abort marker was on the replica
 * that lost, so the new leader's last stable offset stays at the transaction's first offset and read_committed
 * consumers stop there.
 */
public final class HangingTransactions {

    /** Kafka's default {@code transaction.max.timeout.ms} (15 min), when no broker says otherwise. */
    static final long DEFAULT_MAX_TIMEOUT_MS = 900_000;

    /** One hanging transaction on one partition; {@code startOffset} is where its first record is. */
    public record Hanging(TopicPartition topicPartition, long producerId, int producerEpoch, long startOffset,
                          String why) {

        /** What clears it: Kafka's own tool writes the abort marker the coordinator never will. */
        public String abortCommand(String bootstrapServer) {
            return "kafka-transactions.sh --bootstrap-server " + bootstrapServer + " abort --topic "
                    + topicPartition.topic() + " --partition " + topicPartition.partition() + " --start-offset "
                    + startOffset;
        }
    }

    /** @param unreadable what could not be checked, one line each */
    /**
     * @param notNeeded why no partition was asked, when no transaction can be open at all; null when they were
     */
    /**
     * @param aborts what {@link #abort} did with each hanging transaction; empty when it was not asked to
     */
    public record Result(List<Hanging> hanging, List<String> unreadable, String notNeeded, List<Abort> aborts) {

        public Result {
            hanging = List.copyOf(hanging);
            unreadable = List.copyOf(unreadable);
            aborts = List.copyOf(aborts);
        }

        public Result(List<Hanging> hanging, List<String> unreadable, String notNeeded) {
            this(hanging, unreadable, notNeeded, List.of());
        }

        public Result(List<Hanging> hanging, List<String> unreadable) {
            this(hanging, unreadable, null);
        }

        public Result withAborts(List<Abort> done) {
            return new Result(hanging, unreadable, notNeeded, done);
        }

        /** What {@link #abort} did with {@code transaction}; empty when it was not asked to. */
        public Optional<Abort> abortOf(Hanging transaction) {
            return aborts.stream().filter(a -> a.transaction().equals(transaction)).findFirst();
        }

        /** Nothing to ask: no transaction was ever begun on this cluster. */
        public static Result notNeeded(String why) {
            return new Result(List.of(), List.of(), why);
        }
    }

    /**
     * What aborting one hanging transaction did.
     *
     * @param aborted the abort marker was written
     * @param detail  why it was not; null when it was
     */
    public record Abort(Hanging transaction, boolean aborted, String detail) {

        /** A dry run's answer: the transaction is still open as found, and {@code execute} would abort it. */
        public boolean stillOpen() {
            return !aborted && STILL_OPEN.equals(detail);
        }
    }

    private HangingTransactions() {
    }

    /**
     * Aborts each hanging transaction with the checks {@code kafka-transactions.sh abort} makes: the partition
     * leader's producer state (DescribeProducers) must still show an open transaction starting at its offset, here
     * also of the same producer id and epoch the search found; the marker then carries that producer's coordinator
     * epoch (0 when it has none), and Admin's abortTransaction writes it to the leader (WriteTxnMarkers). A
     * transaction that closed meanwhile or changed hands is left alone and said why.
     */
    public static List<Abort> abort(Admin admin, List<Hanging> hanging, Duration timeout) {
        return abort(admin, hanging, timeout, true);
    }

    /**
     * {@link #abort}, or with {@code execute} false the same checks alone: each transaction still open as found is
     * said to be, and nothing is written.
     */
    public static List<Abort> abort(Admin admin, List<Hanging> hanging, Duration timeout, boolean execute) {
        Map<TopicPartition, PartitionProducerState> states = new HashMap<>();
        String unread = null;
        try {
            // one DescribeProducers for every partition, as find asked them
            states.putAll(AdminCalls.get(admin.describeProducers(hanging.stream().map(Hanging::topicPartition)
                    .distinct().toList(), new DescribeProducersOptions().timeoutMs(AdminCalls.millis(timeout))).all(),
                    timeout));
        } catch (RuntimeException e) {
            unread = "its producer state could not be read: " + AdminCalls.message(e);
        }
        List<Abort> done = new ArrayList<>();
        for (Hanging h : hanging) {
            PartitionProducerState state = states.get(h.topicPartition());
            done.add(state == null ? new Abort(h, false, unread == null ? "its producer state was not answered" : unread)
                    : abortOne(admin, h, state, timeout, execute));
        }
        return done;
    }

    /** What a dry run says of a transaction still open as found. */
    private static final String STILL_OPEN = "still open as found; --execute aborts it";

    private static Abort abortOne(Admin admin, Hanging h, PartitionProducerState state, Duration timeout,
                                  boolean execute) {
        TopicPartition tp = h.topicPartition();
        Optional<ProducerState> open = state.activeProducers().stream()
                .filter(p -> p.currentTransactionStartOffset().orElse(-1) == h.startOffset())
                .findFirst();
        if (open.isEmpty()) {
            return new Abort(h, false, "no open transaction starts at offset " + h.startOffset() + " any more");
        }
        ProducerState producer = open.get();
        if (producer.producerId() != h.producerId() || producer.producerEpoch() != h.producerEpoch()) {
            return new Abort(h, false, "the transaction open at offset " + h.startOffset() + " is now producer id "
                    + producer.producerId() + " epoch " + producer.producerEpoch() + ", not the one found hanging");
        }
        if (!execute) {
            return new Abort(h, false, STILL_OPEN);
        }
        AbortTransactionSpec spec = new AbortTransactionSpec(tp, producer.producerId(),
                (short) producer.producerEpoch(), producer.coordinatorEpoch().orElse(0));
        try {
            AdminCalls.get(admin.abortTransaction(spec, new AbortTransactionOptions()
                    .timeoutMs(AdminCalls.millis(timeout))).all(), timeout);
            return new Abort(h, true, null);
        } catch (RuntimeException e) {
            return new Abort(h, false, "the abort marker was not written: " + AdminCalls.message(e));
        }
    }

    /** A producer with an open transaction on a partition, as its leader's producer state says. */
    private record OpenProducer(long producerId, int producerEpoch, long lastTimestamp, long startOffset) {
    }

    /** Partitions answered with a retriable error are asked this many times more, this far apart. */
    private static final int RETRIES = 3;
    private static final long RETRY_PAUSE_MS = 300;

    /**
     * The hanging transactions on {@code leaders}' partitions: DescribeProducers straight to each leader (one request
     * per broker, no Admin metadata), and only when some transaction is open, the coordinators through Admin; every
     * call bounded by {@code timeout}.
     */
    public static Result find(BrokerConnections connections, Map<TopicPartition, Integer> leaders,
                              Supplier<Admin> admin, Duration timeout, Clock clock) {
        if (leaders.isEmpty()) {
            return new Result(List.of(), List.of());
        }
        List<String> unreadable = new ArrayList<>();
        Map<TopicPartition, List<OpenProducer>> open = new TreeMap<>(Comparator.comparing(TopicPartition::toString));
        Map<String, List<TopicPartition>> failures = new TreeMap<>();
        Map<TopicPartition, Integer> ask = new HashMap<>(leaders);
        for (int attempt = 0; attempt <= RETRIES && !ask.isEmpty(); attempt++) {
            if (attempt > 0) {
                Pause.millis(RETRY_PAUSE_MS, "new leaders taking over their partitions' producer state");
            }
            Map<TopicPartition, Integer> again = new HashMap<>();
            Map<TopicPartition, Integer> asked = ask;
            failures.clear();
            describeProducers(connections, asked, timeout).forEach((tp, answer) -> {
                if (answer.error() == Errors.NONE) {
                    if (!answer.open().isEmpty()) {
                        open.put(tp, answer.open());
                    }
                } else {
                    if (answer.error().exception() instanceof RetriableException) {
                        again.put(tp, asked.get(tp));
                    }
                    failures.computeIfAbsent(answer.error().name(), k -> new ArrayList<>()).add(tp);
                }
            });
            ask = again;
        }
        failures.forEach((error, tps) -> unreadable.add("producers of " + tps.size() + " partition(s) not read ("
                + error + "): " + tps.stream().limit(5).map(TopicPartition::toString).toList()
                + (tps.size() > 5 ? " ..." : "")));
        if (open.isEmpty()) {
            return new Result(List.of(), unreadable);
        }
        return checkWithCoordinators(admin.get(), open, unreadable, timeout, clock);
    }

    /** One partition's answer: the producers with an open transaction, or the error. */
    private record Answer(Errors error, List<OpenProducer> open) {
    }

    /** One DescribeProducers per leader, all at once. */
    private static Map<TopicPartition, Answer> describeProducers(BrokerConnections connections,
                                                                 Map<TopicPartition, Integer> leaders, Duration timeout) {
        Map<Integer, Map<String, List<Integer>>> byBroker = new TreeMap<>();
        leaders.forEach((tp, broker) -> byBroker.computeIfAbsent(broker, b -> new TreeMap<>())
                .computeIfAbsent(tp.topic(), t -> new ArrayList<>()).add(tp.partition()));
        Map<Integer, CompletableFuture<DescribeProducersResponse>> sent = new TreeMap<>();
        byBroker.forEach((broker, topics) -> {
            DescribeProducersRequestData data = new DescribeProducersRequestData();
            topics.forEach((topic, partitions) -> data.topics().add(new DescribeProducersRequestData.TopicRequest()
                    .setName(topic).setPartitionIndexes(partitions)));
            sent.put(broker, connections.send(broker, new DescribeProducersRequest.Builder(data),
                    DescribeProducersResponse.class, timeout));
        });
        Map<TopicPartition, Answer> answers = new HashMap<>();
        byBroker.forEach((broker, topics) -> {
            try {
                DescribeProducersResponse response = sent.get(broker).get(timeout.toMillis() + 1_000, TimeUnit.MILLISECONDS);
                for (DescribeProducersResponseData.TopicResponse topic : response.data().topics()) {
                    for (DescribeProducersResponseData.PartitionResponse p : topic.partitions()) {
                        List<OpenProducer> producers = p.activeProducers().stream()
                                .filter(s -> s.currentTxnStartOffset() >= 0)
                                .map(s -> new OpenProducer(s.producerId(), s.producerEpoch(), s.lastTimestamp(),
                                        s.currentTxnStartOffset()))
                                .toList();
                        answers.put(new TopicPartition(topic.name(), p.partitionIndex()),
                                new Answer(Errors.forCode(p.errorCode()), producers));
                    }
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
                // the broker's partitions get no answer: reported below as not read
            }
            topics.forEach((topic, partitions) -> partitions.forEach(p -> answers.putIfAbsent(new TopicPartition(topic, p),
                    new Answer(Errors.REQUEST_TIMED_OUT, List.of()))));
        });
        return answers;
    }

    /** Which open transactions their coordinators no longer hold open (ListTransactions, DescribeTransactions). */
    private static Result checkWithCoordinators(Admin admin, Map<TopicPartition, List<OpenProducer>> open,
                                                List<String> unreadable, Duration timeout, Clock clock) {
        Set<Long> producerIds = new java.util.TreeSet<>();
        open.values().forEach(list -> list.forEach(p -> producerIds.add(p.producerId())));
        Map<Long, TransactionDescription> byProducer = new HashMap<>();
        Map<Long, String> transactionalIds = new HashMap<>();
        try {
            Collection<TransactionListing> listings = AdminCalls.get(admin.listTransactions(new ListTransactionsOptions()
                    .filterProducerIds(producerIds).timeoutMs(AdminCalls.millis(timeout))).all(), timeout);
            listings.forEach(l -> transactionalIds.put(l.producerId(), l.transactionalId()));
            if (!transactionalIds.isEmpty()) {
                Map<String, TransactionDescription> descriptions = AdminCalls.get(admin.describeTransactions(
                        transactionalIds.values(), new DescribeTransactionsOptions().timeoutMs(AdminCalls.millis(timeout))).all(),
                        timeout);
                transactionalIds.forEach((pid, tid) -> {
                    TransactionDescription d = descriptions.get(tid);
                    if (d != null) {
                        byProducer.put(pid, d);
                    }
                });
            }
        } catch (RuntimeException e) {
            unreadable.add("open transactions on " + open.size() + " partition(s) not checked with their coordinators: "
                    + AdminCalls.message(e) + "; run kafka-transactions.sh find-hanging");
            return new Result(List.of(), unreadable);
        }
        long maxTimeoutMs = maxTimeoutMs(admin, timeout);
        long now = clock.millis();

        List<Hanging> hanging = new ArrayList<>();
        open.forEach((tp, producers) -> {
            for (OpenProducer p : producers) {
                long start = p.startOffset();
                String tid = transactionalIds.get(p.producerId());
                TransactionDescription d = byProducer.get(p.producerId());
                String why = null;
                if (tid == null || d == null) {
                    why = "no transaction coordinator knows producer id " + p.producerId();
                } else if (!isOpen(d.state()) || d.producerEpoch() != p.producerEpoch() || !d.topicPartitions().contains(tp)) {
                    why = "its coordinator (broker " + d.coordinatorId() + ") has transaction '" + tid + "' "
                            + d.state() + " at producer epoch " + d.producerEpoch()
                            + (d.topicPartitions().contains(tp) ? "" : ", without this partition")
                            + ": the marker that closed it here was lost";
                } else if (p.lastTimestamp() >= 0 && now - p.lastTimestamp() > maxTimeoutMs) {
                    why = "transaction '" + tid + "' open for " + (now - p.lastTimestamp()) / 1000 + " s, longer than"
                            + " transaction.max.timeout.ms (" + maxTimeoutMs / 1000 + " s)";
                }
                if (why != null) {
                    hanging.add(new Hanging(tp, p.producerId(), p.producerEpoch(), start, why));
                }
            }
        });
        return new Result(hanging, unreadable);
    }

    private static boolean isOpen(TransactionState state) {
        return state == TransactionState.ONGOING || state == TransactionState.PREPARE_COMMIT
                || state == TransactionState.PREPARE_ABORT;
    }

    /** The brokers' {@code transaction.max.timeout.ms} (one broker asked); Kafka's default when it cannot be read. */
    private static long maxTimeoutMs(Admin admin, Duration timeout) {
        try {
            Collection<Node> nodes = AdminCalls.get(admin.describeCluster().nodes(), timeout);
            if (nodes.isEmpty()) {
                return DEFAULT_MAX_TIMEOUT_MS;
            }
            ConfigResource broker = new ConfigResource(ConfigResource.Type.BROKER, nodes.iterator().next().idString());
            Config config = AdminCalls.get(admin.describeConfigs(List.of(broker), new DescribeConfigsOptions()
                    .timeoutMs(AdminCalls.millis(timeout))).all(), timeout).get(broker);
            ConfigEntry entry = config == null ? null : config.get("transaction.max.timeout.ms");
            return entry == null || entry.value() == null ? DEFAULT_MAX_TIMEOUT_MS : Long.parseLong(entry.value());
        } catch (RuntimeException e) {
            return DEFAULT_MAX_TIMEOUT_MS;
        }
    }
}
