// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.connect;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.uncleanrecovery.UserInputException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.errors.UnsupportedVersionException;
import org.junit.jupiter.api.Test;

/** The order in which brokers are asked; the real brokers' side is in ClusterDiscoveryHungBrokerClusterTest. */
class BrokerRotationTest {

    private static final BrokerState ONE = new BrokerState(1, "10.0.0.1", 9092, null, false);
    private static final BrokerState TWO = new BrokerState(2, "10.0.0.2", 9092, null, false);
    private static final BrokerState THREE = new BrokerState(3, "10.0.0.3", 9092, null, false);

    private final BrokerRotation rotation = new BrokerRotation(Duration.ofMillis(500), Duration.ofSeconds(2), "10.0.0.1:9092");
    private final List<Integer> asked = new ArrayList<>();

    @Test
    void a_broker_that_did_not_answer_is_asked_last_from_then_on() {
        String first = rotation.ask(List.of(ONE, TWO, THREE), "list topics", answerUnless(ONE));
        String second = rotation.ask(List.of(ONE, TWO, THREE), "list topics", answerUnless(ONE));

        assertThat(first).isEqualTo("answer from 2");
        assertThat(second).isEqualTo("answer from 2");
        assertThat(asked).containsExactly(1, 2, 2);
    }

    @Test
    void the_broker_that_answered_last_is_asked_first() {
        rotation.ask(List.of(ONE, TWO, THREE), "list topics", answerUnless(ONE));
        asked.clear();

        rotation.ask(List.of(THREE, ONE, TWO), "describe topics", answerUnless());

        assertThat(asked).containsExactly(2);
    }

    @Test
    void in_the_given_order_the_first_named_is_asked_first_though_another_answered_last_but_not_a_silent_one() {
        rotation.ask(List.of(ONE, TWO, THREE), "list topics", answerUnless(ONE));
        asked.clear();

        // the controller broker of a ZooKeeper-mode cluster named first: asked first, the one that answered last next
        rotation.askInGivenOrder(List.of(THREE, TWO), "elect leaders", answerUnless());
        rotation.askInGivenOrder(List.of(ONE, THREE), "elect leaders", answerUnless());

        assertThat(asked).containsExactly(3, 3);
    }

    @Test
    void a_hung_bootstrap_address_is_asked_last_under_its_broker_id_too() {
        BrokerState bootstrapOne = new BrokerState(-1, "10.0.0.1", 9092, null, false);
        rotation.ask(List.of(bootstrapOne, TWO), "describe the cluster", answerUnless(bootstrapOne));
        asked.clear();

        rotation.ask(List.of(ONE, THREE), "list topics", answerUnless());

        assertThat(asked).containsExactly(3);
    }

    @Test
    void an_answer_that_says_no_ends_the_call_without_asking_others() {
        assertThatThrownBy(() -> rotation.ask(List.of(ONE, TWO), "describe topics", (broker, timeout) -> {
            asked.add(broker.id());
            throw new UserInputException("not authorized to describe topic 'orders'");
        })).isInstanceOf(UserInputException.class).hasMessageContaining("not authorized");
        assertThat(asked).containsExactly(1);
    }

    @Test
    void failed_authentication_and_unsupported_versions_are_not_retried() {
        assertThatThrownBy(() -> rotation.ask(List.of(ONE, TWO), "describe the cluster", (broker, timeout) -> {
            throw new BrokerRequestException(broker.id(), false, "authentication to broker 1 failed");
        })).isInstanceOf(BrokerRequestException.class).hasMessageContaining("authentication");
        assertThatThrownBy(() -> rotation.ask(List.of(ONE, TWO), "describe topics", (broker, timeout) -> {
            throw new BrokerRequestException(broker.id(), false, "too old", new UnsupportedVersionException("v0"));
        })).isInstanceOf(UnsupportedVersionException.class);
    }

    @Test
    void nobody_answering_within_the_call_timeout_names_the_bootstrap_servers() {
        assertThatThrownBy(() -> rotation.ask(List.of(ONE, TWO), "describe the cluster", answerUnless(ONE, TWO)))
                .isInstanceOf(ClusterUnreachableException.class)
                .hasMessage("could not describe the cluster: no answer from --bootstrap-server 10.0.0.1:9092 within 2 s"
                        + " (is it reachable, and is the listener's security.protocol right in --command-config?)");
        assertThat(asked).as("rounds repeat until the call timeout").hasSizeGreaterThan(2);
    }

    @Test
    void a_race_returns_the_first_answer_and_later_prefers_its_broker() {
        CompletableFuture<String> hung = new CompletableFuture<>();
        String answer = rotation.race(List.of(ONE, TWO), "describe the cluster",
                (broker, timeout) -> broker == ONE ? hung : CompletableFuture.completedFuture("answer from 2"));
        hung.completeExceptionally(new BrokerRequestException(1, true, "broker 1 did not answer DescribeCluster"));

        rotation.ask(List.of(ONE, THREE), "list topics", answerUnless());

        assertThat(answer).isEqualTo("answer from 2");
        assertThat(asked).as("broker 1 failed after the race was won, so it is last").containsExactly(3);
    }

    private BrokerRotation.RequestToOne<String> answerUnless(BrokerState... silent) {
        return (broker, timeout) -> {
            asked.add(broker.id());
            for (BrokerState s : silent) {
                if (s.address().equals(broker.address())) {
                    throw new BrokerRequestException(broker.id(), true, "broker " + broker.id() + " did not answer");
                }
            }
            return "answer from " + broker.id();
        };
    }
}
