// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.execute;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.groups.Tuple.tuple;

import dev.uncleanrecovery.cluster.ClusterSnapshot;
import dev.uncleanrecovery.cluster.TopicPartitionState;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.junit.jupiter.api.Test;

/**
 * A partition counts as led once every live broker's own metadata shows its new leader: right after an election one
 * broker learns the leaders later than another, and a client asking it still sees the partition offline.
 */
class LeadersShownOnEveryBrokerTest {

    private static final Uuid ORDERS = Uuid.randomUuid();
    private static final TopicPartition P0 = new TopicPartition("orders", 0);
    private static final TopicPartition P1 = new TopicPartition("orders", 1);

    /** Brokers whose views are set by the test; a broker without one never answers. */
    private static final class BrokerViews implements PartitionStateReader {
        final Map<Integer, List<TopicPartitionState>> views = new ConcurrentHashMap<>();
        final Map<Integer, AtomicInteger> asked = new ConcurrentHashMap<>();
        final Set<Integer> live;

        BrokerViews(Set<Integer> live) {
            this.live = live;
        }

        @Override
        public ClusterSnapshot read(Set<TopicPartition> partitions) {
            throw new AssertionError("each broker is asked on its own");
        }

        @Override
        public Set<Integer> liveBrokers() {
            return live;
        }

        @Override
        public CompletableFuture<List<TopicPartitionState>> readOn(int broker, Set<TopicPartition> partitions) {
            asked.computeIfAbsent(broker, b -> new AtomicInteger()).incrementAndGet();
            List<TopicPartitionState> view = views.get(broker);
            return view == null ? new CompletableFuture<>() : CompletableFuture.completedFuture(view.stream()
                    .filter(p -> partitions.contains(p.topicPartition())).toList());
        }
    }

    @Test
    void a_partition_is_led_only_once_every_live_broker_shows_its_leader() throws Exception {
        BrokerViews brokers = new BrokerViews(Set.of(2, 3));
        brokers.views.put(2, List.of(state(0, 2, 5), state(1, 3, 8)));
        // Broker 3 has learned partition 1's leader, not yet partition 0's.
        brokers.views.put(3, List.of(state(0, -1, 4), state(1, 3, 8)));
        Thread catchUp = new Thread(() -> {
            sleep(600);
            brokers.views.put(3, List.of(state(0, 2, 5), state(1, 3, 8)));
        });
        catchUp.start();

        ElectionVerification.Shown shown = ElectionVerification.awaitLeaders(brokers, List.of(P0, P1),
                Duration.ofSeconds(10));
        catchUp.join();

        assertThat(shown.after()).isGreaterThanOrEqualTo(Duration.ofMillis(600));
        assertThat(shown.lags()).isEmpty();
        assertThat(shown.states().values()).extracting(TopicPartitionState::partition, TopicPartitionState::leader,
                TopicPartitionState::leaderEpoch).containsExactlyInAnyOrder(tuple(0, 2, 5), tuple(1, 3, 8));
    }

    @Test
    void a_broker_that_lags_past_the_timeout_is_named_with_what_it_does_not_show() {
        BrokerViews brokers = new BrokerViews(Set.of(1, 2, 3));
        brokers.views.put(1, List.of(state(0, 2, 5), state(1, 3, 8)));
        brokers.views.put(2, List.of(state(0, -1, 4), state(1, 3, 8)));
        // broker 3 is hung: it never answers

        ElectionVerification.Shown shown = ElectionVerification.awaitLeaders(brokers, List.of(P0, P1),
                Duration.ofMillis(700));

        assertThat(shown.after()).as("not every broker showed every leader").isNull();
        assertThat(shown.lags()).extracting(MetadataLag::broker, MetadataLag::notShown, MetadataLag::elected)
                .containsExactly(tuple(2, 1, 2), tuple(3, 2, 2));
        assertThat(shown.lags().get(1).lastError()).contains("no answer");
        assertThat(shown.lags().get(0).describe()).startsWith("Broker 2's metadata still showed no leader for 1 of the"
                + " 2 elected partition(s)");
        // The election itself is judged on the newest state any broker showed.
        assertThat(shown.states().get(P0).leader()).isEqualTo(2);
        assertThat(brokers.asked.get(3).get()).as("a hung broker is not asked again while its read is open")
                .isEqualTo(1);
        assertThat(brokers.asked.get(2).get()).as("a lagging broker is asked again").isGreaterThan(1);

        PartitionOutcome elected = new PartitionOutcome(P0, 2, Outcome.ELECTED, "leader 2, leader epoch 4 -> 5",
                null, shown.states().get(P0));
        assertThat(shown.withLag(elected).detail()).contains("NOT YET SHOWN by the metadata of broker(s) [2, 3]");
        PartitionOutcome other = new PartitionOutcome(P1, 3, Outcome.ELECTED, "leader 3", null, null);
        assertThat(shown.withLag(other).detail()).isEqualTo("leader 3; NOT YET SHOWN by the metadata of broker(s) [3]"
                + " at the verify timeout: clients asking them still see no leader");
    }

    private static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static TopicPartitionState state(int partition, int leader, int leaderEpoch) {
        return new TopicPartitionState("orders", ORDERS, partition, leader, leaderEpoch, List.of(1, 2, 3),
                leader < 0 ? List.of() : List.of(leader), List.of(), List.of(), leader < 0 ? List.of(1) : List.of());
    }
}
