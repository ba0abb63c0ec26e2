// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.execute;

import static org.assertj.core.api.Assertions.assertThat;

import dev.uncleanrecovery.cluster.ClusterSnapshot;
import dev.uncleanrecovery.connect.BrokerApiVersions.ApiRange;
import dev.uncleanrecovery.connect.BrokerApiVersions;
import dev.uncleanrecovery.connect.BrokerNativeSupport;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/** Native designated elections only when every live broker advertises ElectLeaders v3; otherwise stock, saying why. */
class NativeElectorChoiceTest {

    private static final short GET_REPLICA_LOG_INFO = 1966;
    private static final short ELECT_LEADERS = 43;

    private static BrokerApiVersions broker(int id, int electLeadersMax, boolean getReplicaLogInfo) {
        List<ApiRange> apis = new java.util.ArrayList<>(List.of(new ApiRange(ELECT_LEADERS, (short) 0, (short) electLeadersMax)));
        if (getReplicaLogInfo) {
            apis.add(new ApiRange(GET_REPLICA_LOG_INFO, (short) 0, (short) 0));
        }
        return new BrokerApiVersions(id, apis);
    }

    private static BrokerNativeSupport live(Map<Integer, String> unanswered, BrokerApiVersions... brokers) {
        Map<Integer, BrokerApiVersions> answers = new TreeMap<>();
        for (BrokerApiVersions b : brokers) {
            answers.put(b.brokerId(), b);
        }
        List<Integer> asked = new java.util.ArrayList<>(answers.keySet());
        asked.addAll(unanswered.keySet());
        return BrokerNativeSupport.from(asked, answers, unanswered, GET_REPLICA_LOG_INFO);
    }

    /** Describes itself as what it was made from; elects nothing, its new leaders shown after {@code shown}. */
    private record Named(String describe, java.time.Duration shown) implements DesignatedElector {
        Named(String describe) {
            this(describe, null);
        }

        @Override
        public List<PartitionOutcome> elect(List<ElectionTarget> targets, ClusterSnapshot validated,
                                            Runnable beforeFirstChange) {
            return List.of();
        }

        @Override
        public java.time.Duration leadersShownAfter() {
            return shown;
        }
    }

    private static String chosen(BrokerNativeSupport support) {
        return ElectorChoice.choose(support, via -> new Named("native via " + via), why -> new Named("stock: " + why))
                .describe();
    }

    @Test
    void the_wait_for_the_new_leaders_is_the_chosen_electors() {
        BrokerNativeSupport support = live(Map.of(), broker(1, 2, false));
        ElectorChoice choice = new ElectorChoice(() -> support, via -> new Named("native"),
                why -> new Named("stock", java.time.Duration.ofMillis(420)));

        assertThat(choice.leadersShownAfter()).isEqualTo(java.time.Duration.ofMillis(420));
    }

    @Test
    void every_live_broker_with_elect_leaders_v3_goes_native() {
        BrokerNativeSupport support = live(Map.of(), broker(1, 3, true), broker(2, 3, true), broker(3, 3, false));

        assertThat(chosen(support)).isEqualTo("native via [1, 2, 3]");
        assertThat(support.summary()).isEqualTo("brokers 1,2 / brokers 1,2,3");
    }

    @Test
    void controllers_without_the_agent_mean_stock_and_say_so() {
        // The agent on the brokers only: they advertise GetReplicaLogInfo, but ElectLeaders only up to the controller's v2.
        BrokerNativeSupport support = live(Map.of(), broker(1, 2, true), broker(2, 2, true));

        assertThat(chosen(support)).isEqualTo("stock: controllers do not offer ElectLeaders v3: no live broker advertises"
                + " it; run the kafka-patch agent on the controllers for native designated elections");
        assertThat(support.summary()).isEqualTo("brokers 1,2 / none");
    }

    @Test
    void one_live_broker_without_v3_is_enough_to_stay_stock() {
        BrokerNativeSupport support = live(Map.of(), broker(1, 3, true), broker(2, 2, false));

        assertThat(chosen(support)).isEqualTo("stock: not every live broker offers ElectLeaders v3: broker 2 advertises at most v2");
    }

    @Test
    void a_broker_that_did_not_answer_api_versions_counts_as_without_v3() {
        BrokerNativeSupport support = live(Map.of(3, "broker 3 (h:3) did not answer ApiVersions within 10000 ms"),
                broker(1, 3, true));

        assertThat(chosen(support)).isEqualTo("stock: not every live broker offers ElectLeaders v3:"
                + " broker 3 (h:3) did not answer ApiVersions within 10000 ms");
    }

    @Test
    void the_choice_is_made_once_and_only_when_needed() {
        int[] surveys = {0};
        ElectorChoice choice = new ElectorChoice(() -> {
            surveys[0]++;
            return live(Map.of(), broker(1, 3, true));
        }, via -> new Named("native"), why -> new Named("stock"));

        assertThat(surveys[0]).isZero();
        assertThat(choice.describe()).isEqualTo("native");
        choice.elect(List.of(), null);
        assertThat(surveys[0]).isEqualTo(1);
    }

    @Test
    void prepare_chooses_once_on_another_thread_and_elect_uses_that_choice() throws Exception {
        java.util.concurrent.CopyOnWriteArrayList<String> surveyedOn = new java.util.concurrent.CopyOnWriteArrayList<>();
        java.util.concurrent.CountDownLatch surveyed = new java.util.concurrent.CountDownLatch(1);
        ElectorChoice choice = new ElectorChoice(() -> {
            surveyedOn.add(Thread.currentThread().getName());
            surveyed.countDown();
            return live(Map.of(), broker(1, 2, false));
        }, via -> new Named("native"), why -> new Named("stock"));

        choice.prepare();

        assertThat(surveyed.await(10, java.util.concurrent.TimeUnit.SECONDS)).isTrue();
        assertThat(choice.describe()).isEqualTo("stock");
        assertThat(choice.elect(List.of(), null)).isEmpty();
        assertThat(surveyedOn).containsExactly("elector-choice");
    }

    @Test
    void a_choice_that_fails_in_prepare_fails_again_where_the_elector_is_used() throws Exception {
        java.util.concurrent.atomic.AtomicInteger asked = new java.util.concurrent.atomic.AtomicInteger();
        java.util.concurrent.CountDownLatch failedOnce = new java.util.concurrent.CountDownLatch(1);
        ElectorChoice choice = new ElectorChoice(() -> {
            asked.incrementAndGet();
            failedOnce.countDown();
            throw new IllegalStateException("cannot connect to --bootstrap-server h:1");
        }, via -> new Named("native"), why -> new Named("stock"));

        choice.prepare();
        assertThat(failedOnce.await(10, java.util.concurrent.TimeUnit.SECONDS)).isTrue();

        org.assertj.core.api.Assertions.assertThatThrownBy(choice::describe)
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("cannot connect");
        assertThat(asked).hasValue(2);
    }
}
