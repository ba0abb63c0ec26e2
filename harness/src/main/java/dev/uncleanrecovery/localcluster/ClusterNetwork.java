// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.localcluster;

import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The cluster's hosts and the faults between them. On a {@link NodeNetwork#HOSTS} cluster every node is a host of its
 * own, and so are the clients ({@link #clients()}: run the tool there with {@link #commandOn}) and this JVM
 * ({@link #harness()}: the cluster's own Admin client, {@code metadata()}, producers made in the test). A fault drops
 * the packets of a link at the router between the hosts, so the sender sees silence, as on a real network; faults add
 * up until {@link #heal()}. On {@link NodeNetwork#LOOPBACK} every host is 127.0.0.1 and faults are refused.
 *
 * <pre>{@code
 * cluster.network().isolate(2);                       // broker 2 cut from everyone, the harness included
 * cluster.network().partition(1, 1000);               // broker 1 and the controller: both ways
 * cluster.network().cutOneWay(3, 1);                  // 3's packets to 1 dropped; 1's to 3 pass
 * cluster.network().lossy(cluster.network().clients(), cluster.network().node(1), 20);
 * cluster.network().heal();
 * }</pre>
 */
public final class ClusterNetwork {

    static final String HARNESS = "harness";
    static final String CLIENTS = "clients";

    private final ClusterLayout layout;
    /** Null on loopback. */
    private final NetworkNamespaces namespaces;
    private final Map<List<NetworkHost>, LinkFault> faults = new LinkedHashMap<>();

    ClusterNetwork(ClusterLayout layout) {
        this.layout = layout;
        this.namespaces = layout.networkNamespaces;
    }

    /** Loopback or hosts, as the builder chose. */
    public NodeNetwork kind() {
        return layout.network;
    }

    /** The host of a controller or broker. */
    public NetworkHost node(int nodeId) {
        String name = layout.node(nodeId).name();
        return namespaces == null ? new NetworkHost(name, LoopbackPorts.HOST) : namespaces.host(name);
    }

    /** Where clients and the tool run: a host of its own, whose links are faulted like a node's. */
    public NetworkHost clients() {
        return namespaces == null ? new NetworkHost(CLIENTS, LoopbackPorts.HOST) : namespaces.host(CLIENTS);
    }

    /** This JVM: the harness's own clients connect from here. {@link #isolate} cuts it from the isolated host too. */
    public NetworkHost harness() {
        return namespaces == null ? new NetworkHost(HARNESS, LoopbackPorts.HOST) : namespaces.host(HARNESS);
    }

    /** The harness, the clients, the controllers, then the brokers. */
    public List<NetworkHost> hosts() {
        if (namespaces != null) {
            return namespaces.hosts();
        }
        List<NetworkHost> hosts = new ArrayList<>(List.of(harness(), clients()));
        layout.allNodes().forEach(node -> hosts.add(node(node.id())));
        return hosts;
    }

    /**
     * {@code command} as {@code host} runs it ({@code ip netns exec <its namespace> ...}): start it with a
     * {@link ProcessBuilder}. On loopback, and for the harness, the command as it is.
     */
    public List<String> commandOn(NetworkHost host, List<String> command) {
        return namespaces == null ? List.copyOf(command) : namespaces.commandOn(host, command);
    }

    /** Cuts the two nodes apart, both ways. */
    public void partition(int nodeA, int nodeB) {
        partition(List.of(node(nodeA)), List.of(node(nodeB)));
    }

    /** Cuts every host of one side from every host of the other, both ways; hosts on the same side still talk. */
    public synchronized void partition(Collection<NetworkHost> side, Collection<NetworkHost> otherSide) {
        for (NetworkHost one : side) {
            for (NetworkHost other : otherSide) {
                add(new LinkFault(one, other, 100));
                add(new LinkFault(other, one, 100));
            }
        }
        apply();
    }

    /** Cuts the node from every other host, the clients and the harness included. */
    public void isolate(int nodeId) {
        isolate(node(nodeId));
    }

    /** Cuts the host from every other host, both ways. */
    public void isolate(NetworkHost host) {
        partition(List.of(host), hosts().stream().filter(other -> !other.equals(host)).toList());
    }

    /** Drops what node {@code from} sends node {@code to}; what {@code to} sends {@code from} passes. */
    public void cutOneWay(int fromNode, int toNode) {
        cutOneWay(node(fromNode), node(toNode));
    }

    /**
     * Drops what {@code from} sends {@code to}; the other way passes. A TCP connection needs both ways, so neither
     * end can open one, but datagrams and the packets of open connections show the asymmetry.
     */
    public synchronized void cutOneWay(NetworkHost from, NetworkHost to) {
        add(new LinkFault(from, to, 100));
        apply();
    }

    /** Every link of the node, both ways, drops {@code percent} of its packets, each at random. */
    public void lossy(int nodeId, int percent) {
        lossy(node(nodeId), percent);
    }

    /** Every link of the host, both ways, drops {@code percent} of its packets: a node's, the clients' (the tool's). */
    public void lossy(NetworkHost host, int percent) {
        List<LinkFault> links = new ArrayList<>();
        for (NetworkHost other : hosts()) {
            if (!other.equals(host)) {
                links.add(new LinkFault(host, other, percent));
                links.add(new LinkFault(other, host, percent));
            }
        }
        addAll(links);
    }

    /** The link between two hosts, both ways, drops {@code percent} of its packets, each at random. */
    public void lossy(NetworkHost one, NetworkHost other, int percent) {
        addAll(List.of(new LinkFault(one, other, percent), new LinkFault(other, one, percent)));
    }

    /** Removes every fault: every host reaches every other again (connections resume where TCP retries). */
    public synchronized void heal() {
        requireHosts();
        faults.clear();
        apply();
    }

    /** The faults in force, each direction of a link on its own. */
    public synchronized List<LinkFault> faults() {
        return List.copyOf(faults.values());
    }

    /** Packets the router dropped since the cluster was built, every fault's together. */
    public long droppedPackets() {
        requireHosts();
        return namespaces.droppedPackets();
    }

    private synchronized void addAll(List<LinkFault> links) {
        links.forEach(this::add);
        apply();
    }

    // A link already faulted keeps the harsher of the two: a cut stays a cut when the link is also made lossy.
    private void add(LinkFault fault) {
        requireHosts();
        faults.merge(List.of(fault.from(), fault.to()), fault,
                (old, added) -> added.dropPercent() > old.dropPercent() ? added : old);
    }

    private void apply() {
        namespaces.apply(faults.values());
    }

    private void requireHosts() {
        if (namespaces == null) {
            throw new IllegalStateException("this cluster's nodes all listen on 127.0.0.1, where nothing can come"
                    + " between them; build it with network(NodeNetwork.HOSTS) (@KafkaClusterTest(network = HOSTS))");
        }
    }
}
