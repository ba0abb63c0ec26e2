// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.cli;

import static dev.uncleanrecovery.localcluster.LastReplicaStandingOutage.LONGEST_SURVIVOR;
import static dev.uncleanrecovery.localcluster.LastReplicaStandingOutage.SHORTEST_SURVIVOR;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.uncleanrecovery.formats.ResultFile;
import dev.uncleanrecovery.harness.KafkaClusterTest;
import dev.uncleanrecovery.localcluster.LastReplicaStandingOutage;
import dev.uncleanrecovery.localcluster.LocalKafkaCluster;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.io.Writer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A partition is reported led only once every live broker's metadata shows its new leader: a client asking a broker
 * whose metadata lags still sees it offline. Broker 4 holds no replica of the outage's topic; it hangs (SIGSTOP) the
 * moment the election is sent, and stays registered and unfenced for the controller's 6 s session timeout.
 */
@KafkaClusterTest(brokers = 4)
class LaggingBrokerMetadataClusterTest {

    private static final int BYSTANDER = 4;

    @TempDir
    static Path dir;

    @Test
    void a_broker_whose_metadata_lags_behind_the_election_is_named_and_its_partitions_are_not_reported_led(
            LocalKafkaCluster cluster) throws Exception {
        // given: pay-0..2 offline, broker 2 the longest survivor, broker 4 a bystander
        LastReplicaStandingOutage.reproduce(cluster, "pay", 3, 25, 5, s -> { });
        Path plan = dir.resolve("plan.json");
        CliRun planned = CliRun.of("--bootstrap-server", cluster.bootstrapServers(), "plan", "--strategy", "proactive",
                "--probe-timeout-ms", "3000", "--topic", "pay", "--output-file", plan.toString());
        assertThat(planned.exitCode()).as(planned.out() + planned.err()).isEqualTo(ExitCode.OK);

        // when: broker 4 hangs as the election is sent
        StringWriter out = new StringWriter();
        PausingOnElection err = new PausingOnElection(cluster);
        int exit;
        Map<Integer, List<PartitionInfo>> seen;
        try {
            exit = Main.run(new PrintWriter(out, true), new PrintWriter(err, true), "--bootstrap-server",
                    cluster.brokerAddress(LONGEST_SURVIVOR), "execute", "--reason", "test", "--accept-unknown-loss",
                    "--verify-timeout-ms", "2000", "--plan", plan.toString());
            // then, while it still hangs: what a client asking each broker sees
            seen = Map.of(LONGEST_SURVIVOR, partitionsAsSeenBy(cluster, LONGEST_SURVIVOR),
                    SHORTEST_SURVIVOR, partitionsAsSeenBy(cluster, SHORTEST_SURVIVOR));
            assertThatThrownBy(() -> partitionsAsSeenBy(cluster, BYSTANDER)).isInstanceOf(TimeoutException.class);
        } finally {
            cluster.resumeBroker(BYSTANDER);
        }
        assertThat(err.paused).as(err.toString()).isTrue();
        seen.forEach((broker, partitions) -> assertThat(partitions).as("as broker " + broker + " shows them")
                .hasSize(3).allSatisfy(p -> assertThat(p.leader().id()).isEqualTo(LONGEST_SURVIVOR)));

        // and the tool says so: elected, shown by brokers 2 and 3, not by broker 4
        ResultFile result = ResultFile.read(dir.resolve("plan-result.json"));
        assertThat(result.partitions()).hasSize(3).allSatisfy(p -> {
            assertThat(p.outcome()).isEqualTo("ELECTED");
            assertThat(p.detail()).contains("NOT YET SHOWN by the metadata of broker(s) [4] at the verify timeout");
        });
        assertThat(result.leadersShownMs()).as("not every live broker showed every leader").isNull();
        String printed = out.toString().replaceAll("\\s+", " ");
        assertThat(printed).as(printed + err).contains("Broker 4's metadata still showed no leader for 3 of the 3"
                + " elected partition(s)").doesNotContain("Every live broker's metadata showed");
        assertThat(exit).as(printed + err).isIn(ExitCode.OK, ExitCode.ATTENTION);
    }

    /** The partitions of 'pay' as a client bootstrapped on that broker alone sees them: its first Metadata goes there. */
    private static List<PartitionInfo> partitionsAsSeenBy(LocalKafkaCluster cluster, int broker) {
        Properties config = new Properties();
        config.putAll(cluster.clientProperties());
        config.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, cluster.brokerAddress(broker));
        config.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        config.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(config)) {
            return consumer.partitionsFor("pay", Duration.ofSeconds(2));
        }
    }

    /** The tool's progress output; hangs broker 4 right when the tool says it is electing. */
    private static final class PausingOnElection extends Writer {
        private final StringBuilder text = new StringBuilder();
        private final LocalKafkaCluster cluster;
        volatile boolean paused;

        PausingOnElection(LocalKafkaCluster cluster) {
            this.cluster = cluster;
        }

        @Override
        public synchronized void write(char[] chars, int offset, int length) {
            text.append(chars, offset, length);
            if (!paused && text.indexOf("electing ") >= 0) {
                cluster.pauseBroker(BYSTANDER);
                paused = true;
            }
        }

        @Override
        public void flush() {
        }

        @Override
        public void close() {
        }

        @Override
        public synchronized String toString() {
            return text.toString();
        }
    }
}
