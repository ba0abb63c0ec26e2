// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.localcluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The hosts of a {@link NodeNetwork#HOSTS} cluster, built but not started: no Kafka runs, the packets are bash's
 * ({@code /dev/tcp}, {@code /dev/udp}) sent from the hosts' namespaces to sockets of this JVM, the harness's host.
 * Needs root and {@code ip}/{@code iptables}; skipped with the reason elsewhere.
 */
class ClusterNetworkTest {

    @BeforeAll
    static void hostsCanBeMade() {
        Optional<String> unavailable = NodeNetwork.HOSTS.unavailableReason();
        Assumptions.assumeTrue(unavailable.isEmpty(), () -> "no network namespaces here: " + unavailable.orElse(""));
    }

    @Test
    void every_node_listens_on_an_address_of_its_own_host_and_nothing_leaves_the_cluster() throws Exception {
        try (LocalKafkaCluster cluster = hosts(2)) {
            ClusterNetwork network = cluster.network();
            List<NetworkHost> hosts = network.hosts();
            assertThat(hosts).extracting(NetworkHost::name)
                    .containsExactly("harness", "clients", "controller 1000", "broker 1", "broker 2");
            assertThat(hosts).extracting(NetworkHost::address).doesNotHaveDuplicates()
                    .allSatisfy(address -> assertThat(address).startsWith("10.251."));
            assertThat(cluster.bootstrapServers())
                    .isEqualTo(network.node(1).address() + ":9092," + network.node(2).address() + ":9092");

            // each host is a namespace of its own, not this JVM's
            String ownNamespace = Files.readSymbolicLink(Path.of("/proc/self/ns/net")).toString();
            String brokerNamespace = bash(network, network.node(1), "readlink /proc/self/ns/net").output().trim();
            assertThat(brokerNamespace).startsWith("net:[").isNotEqualTo(ownNamespace)
                    .isNotEqualTo(bash(network, network.clients(), "readlink /proc/self/ns/net").output().trim());

            // a host reaches the others (this JVM's socket on the harness's address), and nothing else
            try (ServerSocket harness = listenOn(network.harness())) {
                assertThat(bash(network, network.clients(), connect(network.harness(), harness)).exitCode()).isZero();
            }
            BashRun outside = bash(network, network.clients(), "exec 3<>/dev/tcp/1.1.1.1/53");
            assertThat(outside.exitCode()).isNotZero();
            assertThat(outside.output()).contains("Network is unreachable");
        }
    }

    @Test
    void a_one_way_cut_drops_only_what_one_host_sends_the_other() throws Exception {
        try (LocalKafkaCluster cluster = hosts(1); DatagramSocket harness = datagramsOn(cluster.network().harness())) {
            ClusterNetwork network = cluster.network();
            assertThat(sendDatagrams(network, network.node(1), harness, 5)).isEqualTo(5);

            network.cutOneWay(network.harness(), network.node(1));
            assertThat(network.faults()).containsExactly(new LinkFault(network.harness(), network.node(1), 100));
            assertThat(sendDatagrams(network, network.node(1), harness, 5))
                    .as("broker 1 -> harness still passes").isEqualTo(5);

            network.cutOneWay(1, 1000);
            network.cutOneWay(network.node(1), network.harness());
            assertThat(sendDatagrams(network, network.node(1), harness, 5)).isZero();
            assertThat(network.droppedPackets()).isEqualTo(5);

            network.heal();
            assertThat(network.faults()).isEmpty();
            assertThat(sendDatagrams(network, network.node(1), harness, 5)).isEqualTo(5);
        }
    }

    @Test
    void a_partition_cuts_both_ways_until_healed_and_an_isolated_host_reaches_nobody() throws Exception {
        try (LocalKafkaCluster cluster = hosts(2); ServerSocket harness = listenOn(cluster.network().harness())) {
            ClusterNetwork network = cluster.network();
            network.partition(List.of(network.node(1)), List.of(network.harness()));
            assertThat(network.faults()).hasSize(2).allMatch(LinkFault::isCut);
            // the SYN vanishes: no refusal, no error, only the timeout
            assertThat(bash(network, network.node(1), "timeout 2 bash -c '" + connect(network.harness(), harness)
                    + "'").exitCode()).isEqualTo(124);
            assertThat(bash(network, network.node(2), connect(network.harness(), harness)).exitCode()).isZero();

            network.heal();
            assertThat(bash(network, network.node(1), connect(network.harness(), harness)).exitCode()).isZero();

            network.isolate(2);
            assertThat(network.faults()).hasSize(2 * (network.hosts().size() - 1))
                    .allMatch(fault -> fault.from().equals(network.node(2)) || fault.to().equals(network.node(2)));
            assertThat(bash(network, network.node(2), "timeout 2 bash -c '" + connect(network.harness(), harness)
                    + "'").exitCode()).isEqualTo(124);
            assertThat(bash(network, network.clients(), connect(network.harness(), harness)).exitCode()).isZero();
        }
    }

    @Test
    void a_lossy_link_drops_about_its_share_of_packets_and_counts_each() throws Exception {
        try (LocalKafkaCluster cluster = hosts(1); DatagramSocket harness = datagramsOn(cluster.network().harness())) {
            ClusterNetwork network = cluster.network();
            network.lossy(network.node(1), network.harness(), 50);
            assertThat(network.faults()).extracting(LinkFault::dropPercent).containsExactly(50, 50);

            int sent = 400;
            int received = sendDatagrams(network, network.node(1), harness, sent);
            // Binomial(400, 0.5): 200 on average, 10 the standard deviation
            assertThat(received).isBetween(120, 280);
            assertThat(network.droppedPackets()).isEqualTo(sent - received);

            // a cut of the same link is harsher and wins; lossy on top of it does not soften it
            network.cutOneWay(network.node(1), network.harness());
            network.lossy(1, 10);
            assertThat(network.faults()).contains(new LinkFault(network.node(1), network.harness(), 100),
                    new LinkFault(network.harness(), network.node(1), 50),
                    new LinkFault(network.clients(), network.node(1), 10));
            assertThat(sendDatagrams(network, network.node(1), harness, 20)).isZero();
        }
    }

    @Test
    void closing_the_cluster_deletes_its_hosts_and_the_harness_link() throws Exception {
        List<String> namespaces;
        String harnessLink;
        try (LocalKafkaCluster cluster = hosts(1)) {
            String harnessAddress = cluster.network().harness().address() + "/30";
            namespaces = ownNamespaces();
            assertThat(namespaces).hasSizeGreaterThanOrEqualTo(4);
            // "131: kurnet0    inet 10.251.0.2/30 ...": the link by its index, which the kernel does not hand out
            // again soon, unlike the name and address, which another test JVM may take as soon as they are free
            harnessLink = run(List.of("ip", "-4", "-o", "addr", "show")).output().lines()
                    .filter(line -> line.contains(" " + harnessAddress + " ")).map(line -> line.split(":")[0])
                    .findFirst().orElseThrow(() -> new AssertionError("no link holds " + harnessAddress));
        }
        assertThat(ownNamespaces()).doesNotContainAnyElementsOf(namespaces);
        assertThat(run(List.of("ip", "-o", "link", "show")).output().lines()
                .map(line -> line.split(":")[0])).doesNotContain(harnessLink);
    }

    @Test
    void the_next_cluster_deletes_the_hosts_a_killed_jvm_left(@TempDir Path directory) throws Exception {
        Process owner = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx64m", "-XX:TieredStopAtLevel=1",
                "-Dkafka.server.classpath.file=" + System.getProperty("kafka.server.classpath.file"),
                "-cp", System.getProperty("java.class.path"), NetworkOwnerJvm.class.getName(), directory.toString())
                .redirectErrorStream(true).start();
        String prefix = NetworkNamespaces.PREFIX + owner.pid() + "-";
        try {
            awaitReady(owner);
            assertThat(namespaces()).anyMatch(name -> name.startsWith(prefix));
            owner.destroyForcibly(); // SIGKILL: no shutdown hook deletes them
            assertThat(owner.waitFor(30, TimeUnit.SECONDS)).isTrue();
            assertThat(namespaces()).as("a killed JVM's hosts outlive it").anyMatch(name -> name.startsWith(prefix));

            try (LocalKafkaCluster next = hosts(1)) {
                assertThat(namespaces()).noneMatch(name -> name.startsWith(prefix));
            }
        } finally {
            owner.destroyForcibly();
        }
    }

    @Test
    void a_loopback_cluster_names_its_hosts_but_refuses_faults() {
        try (LocalKafkaCluster cluster = LocalKafkaCluster.builder().brokers(1).classDataSharing(false).build()) {
            ClusterNetwork network = cluster.network();
            assertThat(network.kind()).isEqualTo(NodeNetwork.LOOPBACK);
            assertThat(network.clients().address()).isEqualTo("127.0.0.1");
            assertThat(network.commandOn(network.clients(), List.of("java", "-version")))
                    .containsExactly("java", "-version");
            assertThatThrownBy(() -> network.isolate(1)).isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("build it with network(NodeNetwork.HOSTS)");
        }
    }

    private static LocalKafkaCluster hosts(int brokers) {
        return LocalKafkaCluster.builder().brokers(brokers).classDataSharing(false).network(NodeNetwork.HOSTS).build();
    }

    private record BashRun(int exitCode, String output) {
    }

    private static BashRun bash(ClusterNetwork network, NetworkHost host, String script) throws Exception {
        return run(network.commandOn(host, List.of("bash", "-c", script)));
    }

    private static BashRun run(List<String> command) throws Exception {
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(process.waitFor(30, TimeUnit.SECONDS)).as(command + " finished").isTrue();
        return new BashRun(process.exitValue(), output);
    }

    private static String connect(NetworkHost host, ServerSocket socket) {
        return "exec 3<>/dev/tcp/" + host.address() + "/" + socket.getLocalPort();
    }

    private static ServerSocket listenOn(NetworkHost host) throws IOException {
        ServerSocket socket = new ServerSocket();
        socket.bind(new InetSocketAddress(InetAddress.getByName(host.address()), 0), 50);
        return socket;
    }

    private static DatagramSocket datagramsOn(NetworkHost host) throws IOException {
        DatagramSocket socket = new DatagramSocket(new InetSocketAddress(InetAddress.getByName(host.address()), 0));
        socket.setReceiveBufferSize(1 << 20);
        return socket;
    }

    /** Sends {@code count} datagrams from {@code from} to the socket and counts those that arrive. */
    private static int sendDatagrams(ClusterNetwork network, NetworkHost from, DatagramSocket to, int count)
            throws Exception {
        String target = "/dev/udp/" + to.getLocalAddress().getHostAddress() + "/" + to.getLocalPort();
        BashRun sender = bash(network, from, "for i in $(seq 1 " + count + "); do echo datagram-$i > " + target
                + "; done");
        assertThat(sender.exitCode()).as(sender.output()).isZero();
        int received = 0;
        // bash has exited: what passes the router arrives within a millisecond, not after a quiet 300 ms
        to.setSoTimeout(300);
        byte[] buffer = new byte[64];
        while (true) {
            try {
                to.receive(new DatagramPacket(buffer, buffer.length));
                received++;
            } catch (SocketTimeoutException quiet) {
                return received;
            }
        }
    }

    private static List<String> namespaces() throws Exception {
        List<String> names = new ArrayList<>();
        for (String line : run(List.of("ip", "netns", "list")).output().split("\n")) {
            if (!line.isBlank()) {
                names.add(line.trim().split("\\s+")[0]);
            }
        }
        return names;
    }

    private static List<String> ownNamespaces() throws Exception {
        String prefix = NetworkNamespaces.PREFIX + ProcessHandle.current().pid() + "-";
        return namespaces().stream().filter(name -> name.startsWith(prefix)).toList();
    }

    private static void awaitReady(Process owner) {
        BufferedReader output = new BufferedReader(new InputStreamReader(owner.getInputStream(),
                StandardCharsets.UTF_8));
        List<String> lines = new ArrayList<>();
        await("the owner JVM made its hosts").atMost(Duration.ofSeconds(60)).until(() -> {
            String line = output.readLine();
            if (line == null) {
                throw new AssertionError("the owner JVM exited: " + String.join("\n", lines));
            }
            lines.add(line);
            return line.startsWith(NetworkOwnerJvm.READY_LINE);
        });
    }
}
