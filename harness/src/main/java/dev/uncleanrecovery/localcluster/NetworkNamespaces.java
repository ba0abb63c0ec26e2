// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.localcluster;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The network of a {@link NodeNetwork#HOSTS} cluster: a namespace per host, each joined by a veth pair to a router
 * namespace, whose FORWARD chain is where every {@link LinkFault} lives.
 *
 * <pre>
 *   harness (this JVM, the root namespace)  10.251.S.2  ─┐
 *   clients   kur-PID-S-clients             10.251.S.6  ─┤
 *   controller 1000  kur-PID-S-c1000        10.251.S.10 ─┼─ router kur-PID-S-net (h0, h1, h2, ...: 10.251.S.4k+1)
 *   broker 1  kur-PID-S-b1                  10.251.S.14 ─┤
 *   ...                                                  ─┘
 * </pre>
 *
 * Host k has 10.251.S.(4k+2)/30, its router side 4k+1, and one route, 10.251.S.0/24 through the router: no default
 * route, no NAT, so nothing leaves the cluster's own hosts. A cluster takes the first /24 {@code S} that no address
 * or route of this machine and no other live cluster uses. The namespaces are named after this JVM's PID: a cluster
 * deletes them on close and a shutdown hook on exit, and any cluster made later deletes those whose JVM is gone
 * (killed with -9). Drops are a router's, so a sender sees silence, never an error, as on a real network.
 */
final class NetworkNamespaces {

    private static final Logger LOG = LoggerFactory.getLogger(LocalKafkaCluster.class);
    static final String PREFIX = "kur-";
    private static final String SUBNETS = "10.251.";
    private static final Pattern OWNED = Pattern.compile(PREFIX + "(\\d+)-(.+)");
    private static final Pattern SLOT = Pattern.compile(PREFIX + "\\d+-(\\d+)-.+");
    private static final Pattern ROUTE_PREFIX = Pattern.compile("^(\\d+\\.\\d+\\.\\d+\\.\\d+)(?:/(\\d+))?$");
    private static final Pattern COUNTED_DROP = Pattern.compile("^\\[(\\d+):\\d+] -A FORWARD .*-j DROP$");
    private static final Path ALLOCATION_LOCK = Path.of(System.getProperty("java.io.tmpdir"),
            "kafka-unclean-recovery-hosts.lock");
    private static final long PID = ProcessHandle.current().pid();
    private static final Set<NetworkNamespaces> LIVE = ConcurrentHashMap.newKeySet();
    private static volatile Optional<String> unavailable;

    static {
        Runtime.getRuntime().addShutdownHook(new Thread(() -> LIVE.forEach(NetworkNamespaces::close),
                "local-kafka-network-reaper"));
    }

    /** One host on the router: its namespace (null for the harness, this JVM's own) and its router interface. */
    private record Member(NetworkHost host, String namespace, String routerInterface) {
    }

    private final int slot;
    private final String router;
    private final Map<String, Member> members = new LinkedHashMap<>();
    private long droppedBeforeLastApply;
    private boolean closed;

    private NetworkNamespaces(int slot, Map<Integer, String> nodeNames) {
        this.slot = slot;
        String prefix = PREFIX + PID + "-" + slot + "-";
        this.router = prefix + "net";
        add(ClusterNetwork.HARNESS, null);
        add(ClusterNetwork.CLIENTS, prefix + "clients");
        nodeNames.forEach((id, name) -> add(name, prefix + name.charAt(0) + id));
    }

    private void add(String name, String namespace) {
        int index = members.size();
        members.put(name, new Member(new NetworkHost(name, address(index, 2)), namespace, "h" + index));
    }

    /**
     * Makes the namespaces, links and routes of a cluster with these nodes (id to name, "broker 2"), on a /24 nobody
     * uses, after deleting what clusters of dead JVMs left.
     */
    static NetworkNamespaces create(Map<Integer, String> nodeNames) {
        Optional<String> reason = unavailableReason();
        if (reason.isPresent()) {
            throw new LocalClusterException("cannot make the cluster's hosts: " + reason.get());
        }
        if (nodeNames.size() + 2 > 64) {
            throw new IllegalArgumentException("a /24 of /30 links holds 64 hosts, not " + (nodeNames.size() + 2));
        }
        synchronized (NetworkNamespaces.class) {
            try (FileChannel lockFile = FileChannel.open(ALLOCATION_LOCK, StandardOpenOption.CREATE,
                    StandardOpenOption.WRITE); FileLock ignored = lockFile.lock()) {
                deleteStale();
                NetworkNamespaces network = new NetworkNamespaces(freeSlot(), nodeNames);
                LIVE.add(network);
                try {
                    run(List.of("bash", "-c", network.creationScript()), "", "make the cluster's network");
                } catch (RuntimeException e) {
                    network.close();
                    throw e;
                }
                LOG.info("cluster network {}0/24: {}", SUBNETS + network.slot + ".", network.hosts());
                return network;
            } catch (IOException e) {
                throw new UncheckedIOException("could not lock " + ALLOCATION_LOCK, e);
            }
        }
    }

    /** Why no namespace can be made here, empty when a probe namespace with a statistic-match rule could. */
    static Optional<String> unavailableReason() {
        Optional<String> known = unavailable;
        if (known == null) {
            synchronized (NetworkNamespaces.class) {
                if (unavailable == null) {
                    unavailable = probe();
                }
                known = unavailable;
            }
        }
        return known;
    }

    NetworkHost host(String name) {
        Member member = members.get(name);
        if (member == null) {
            throw new IllegalArgumentException("no host " + name + " on this cluster's network; hosts are "
                    + members.keySet());
        }
        return member.host();
    }

    List<NetworkHost> hosts() {
        return members.values().stream().map(Member::host).toList();
    }

    /** {@code command} as run on {@code host}: in its namespace ({@code ip netns exec}, which execs in place). */
    List<String> commandOn(NetworkHost host, List<String> command) {
        Member member = member(host);
        if (member.namespace() == null) {
            return List.copyOf(command);
        }
        List<String> wrapped = new ArrayList<>(List.of(ipCommand(), "netns", "exec", member.namespace()));
        wrapped.addAll(command);
        return wrapped;
    }

    /** Replaces the router's rules with exactly these faults, at once (iptables-restore swaps the table). */
    synchronized void apply(Collection<LinkFault> faults) {
        requireOpen();
        droppedBeforeLastApply += droppedSinceLastApply();
        StringBuilder table = new StringBuilder("*filter\n:INPUT ACCEPT [0:0]\n:FORWARD ACCEPT [0:0]\n"
                + ":OUTPUT ACCEPT [0:0]\n");
        for (LinkFault fault : faults) {
            table.append("-A FORWARD -i ").append(member(fault.from()).routerInterface())
                    .append(" -o ").append(member(fault.to()).routerInterface());
            if (!fault.isCut()) {
                // each packet dropped with this chance, independently: tc netem is not in every kernel, this is
                table.append(String.format(java.util.Locale.ROOT, " -m statistic --mode random --probability %.4f",
                        fault.dropPercent() / 100.0));
            }
            table.append(" -j DROP\n");
        }
        table.append("COMMIT\n");
        run(List.of(ipCommand(), "netns", "exec", router, "iptables-restore"), table.toString(),
                "set the router's rules to " + faults);
    }

    /** Packets the router dropped since the cluster's network was made. */
    synchronized long droppedPackets() {
        requireOpen();
        return droppedBeforeLastApply + droppedSinceLastApply();
    }

    /** Deletes every namespace of this cluster (the links and the harness's route go with the router). */
    synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        // The kernel takes a deleted namespace's links down in the background, so the harness's end of its link could
        // outlive close(): deleting one end of the veth pair deletes both at once.
        try {
            run(List.of(ipCommand(), "link", "delete", harnessLinkName()), "", "delete the harness's link");
        } catch (RuntimeException e) {
            LOG.debug("no harness link to delete: {}", e.getMessage());
        }
        List<String> namespaces = new ArrayList<>();
        members.values().stream().map(Member::namespace).filter(java.util.Objects::nonNull).forEach(namespaces::add);
        namespaces.add(router);
        for (String namespace : namespaces) {
            deleteNamespace(namespace);
        }
        LIVE.remove(this);
    }

    /** The harness's (root namespace's) end of its link to the router. */
    private String harnessLinkName() {
        return "kurnet" + slot;
    }

    private long droppedSinceLastApply() {
        String rules = run(List.of(ipCommand(), "netns", "exec", router, "iptables-save", "-c", "-t", "filter"), "",
                "read the router's counters");
        long dropped = 0;
        for (String line : rules.split("\n")) {
            Matcher counted = COUNTED_DROP.matcher(line.trim());
            if (counted.matches()) {
                dropped += Long.parseLong(counted.group(1));
            }
        }
        return dropped;
    }

    private String creationScript() {
        String ip = ipCommand();
        String subnet = SUBNETS + slot + ".0/24";
        StringBuilder script = new StringBuilder("set -e\n")
                .append(ip).append(" netns add ").append(router).append('\n')
                .append(ip).append(" -n ").append(router).append(" link set lo up\n")
                .append(ip).append(" netns exec ").append(router)
                .append(" sh -c 'echo 1 > /proc/sys/net/ipv4/ip_forward'\n");
        int index = 0;
        for (Member member : members.values()) {
            String routerSide = address(index, 1);
            String hostSide = member.host().address();
            String link = member.routerInterface();
            if (member.namespace() == null) {
                // the harness's end stays in this JVM's namespace, named after the slot (15 characters at most)
                String own = harnessLinkName();
                script.append(ip).append(" link add ").append(link).append(" netns ").append(router)
                        .append(" type veth peer name ").append(own).append('\n')
                        .append(ip).append(" addr add ").append(hostSide).append("/30 dev ").append(own).append('\n')
                        .append(ip).append(" link set ").append(own).append(" up\n")
                        .append(ip).append(" -n ").append(router).append(" addr add ").append(routerSide)
                        .append("/30 dev ").append(link).append('\n')
                        .append(ip).append(" -n ").append(router).append(" link set ").append(link).append(" up\n")
                        .append(ip).append(" route add ").append(subnet).append(" via ").append(routerSide)
                        .append(" dev ").append(own).append('\n');
            } else {
                String host = " -n " + member.namespace() + " ";
                script.append(ip).append(" netns add ").append(member.namespace()).append('\n')
                        .append(ip).append(host).append("link set lo up\n")
                        .append(ip).append(" link add ").append(link).append(" netns ").append(router)
                        .append(" type veth peer name eth0 netns ").append(member.namespace()).append('\n')
                        .append(ip).append(" -n ").append(router).append(" addr add ").append(routerSide)
                        .append("/30 dev ").append(link).append('\n')
                        .append(ip).append(" -n ").append(router).append(" link set ").append(link).append(" up\n")
                        .append(ip).append(host).append("addr add ").append(hostSide).append("/30 dev eth0\n")
                        .append(ip).append(host).append("link set eth0 up\n")
                        .append(ip).append(host).append("route add ").append(subnet).append(" via ")
                        .append(routerSide).append('\n');
            }
            index++;
        }
        return script.toString();
    }

    private Member member(NetworkHost host) {
        Member member = members.get(host.name());
        if (member == null || !member.host().equals(host)) {
            throw new IllegalArgumentException(host + " is not a host of this cluster; hosts are " + hosts());
        }
        return member;
    }

    private String address(int index, int offset) {
        return SUBNETS + slot + "." + (4 * index + offset);
    }

    private void requireOpen() {
        if (closed) {
            throw new IllegalStateException("this cluster's network is deleted (the cluster is closed)");
        }
    }

    // A /24 of 10.251/16 that no address or route of this machine overlaps (a default route is no claim) and no
    // live cluster's namespace names.
    private static int freeSlot() {
        Set<Integer> taken = new HashSet<>();
        for (String namespace : namespaces()) {
            Matcher slot = SLOT.matcher(namespace);
            if (slot.matches()) {
                taken.add(Integer.parseInt(slot.group(1)));
            }
        }
        List<long[]> claimed = new ArrayList<>();
        String routes = run(List.of(ipCommand(), "-4", "route", "show", "table", "all"), "", "list the routes");
        String addresses = run(List.of(ipCommand(), "-4", "-o", "addr", "show"), "", "list the addresses");
        for (String line : routes.split("\n")) {
            String[] words = line.trim().split("\\s+");
            String first = words.length > 0 && List.of("local", "broadcast", "unicast").contains(words[0])
                    && words.length > 1 ? words[1] : words[0];
            prefixOf(first).ifPresent(claimed::add);
        }
        for (String line : addresses.split("\n")) {
            Matcher inet = Pattern.compile("\\binet (\\S+)").matcher(line);
            if (inet.find()) {
                prefixOf(inet.group(1)).ifPresent(claimed::add);
            }
        }
        for (int slot = 0; slot < 256; slot++) {
            long low = ipv4(SUBNETS + slot + ".0");
            long high = low + 255;
            boolean overlaps = claimed.stream().anyMatch(range -> range[0] <= high && low <= range[1]);
            if (!overlaps && !taken.contains(slot)) {
                return slot;
            }
        }
        throw new LocalClusterException("every /24 of " + SUBNETS + "0.0/16 is in use by this machine's addresses or"
                + " routes or by other clusters; delete stale namespaces (ip netns list | grep " + PREFIX + ")");
    }

    // [first, last] address of a route's or address's prefix; empty for a default route and what is no IPv4 prefix
    private static Optional<long[]> prefixOf(String text) {
        Matcher prefix = ROUTE_PREFIX.matcher(text);
        if (!prefix.matches()) {
            return Optional.empty();
        }
        int length = prefix.group(2) == null ? 32 : Integer.parseInt(prefix.group(2));
        if (length == 0) {
            return Optional.empty();
        }
        long mask = (0xFFFFFFFFL << (32 - length)) & 0xFFFFFFFFL;
        long first = ipv4(prefix.group(1)) & mask;
        return Optional.of(new long[] {first, first + (~mask & 0xFFFFFFFFL)});
    }

    private static long ipv4(String dotted) {
        long value = 0;
        for (String part : dotted.split("\\.")) {
            value = value << 8 | Integer.parseInt(part);
        }
        return value;
    }

    private static void deleteStale() {
        for (String namespace : namespaces()) {
            Matcher owned = OWNED.matcher(namespace);
            if (owned.matches()) {
                long pid = Long.parseLong(owned.group(1));
                boolean ownerAlive = pid == PID || ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false);
                if (!ownerAlive) {
                    LOG.info("deleting namespace {}: the JVM that made it (pid {}) is gone", namespace, pid);
                    deleteNamespace(namespace);
                }
            }
        }
    }

    private static List<String> namespaces() {
        String listed = run(List.of(ipCommand(), "netns", "list"), "", "list the network namespaces");
        List<String> names = new ArrayList<>();
        for (String line : listed.split("\n")) {
            if (!line.isBlank()) {
                names.add(line.trim().split("\\s+")[0]);
            }
        }
        return names;
    }

    private static void deleteNamespace(String namespace) {
        try {
            run(List.of(ipCommand(), "netns", "delete", namespace), "", "delete namespace " + namespace);
        } catch (RuntimeException e) {
            LOG.warn("could not delete network namespace {}: {}", namespace, e.getMessage());
        }
    }

    private static Optional<String> probe() {
        try {
            String status = Files.readString(Path.of("/proc/self/status"));
            Matcher uid = Pattern.compile("(?m)^Uid:\\s+(\\d+)").matcher(status);
            if (uid.find() && !uid.group(1).equals("0")) {
                return Optional.of("making network namespaces needs root, and this JVM runs as uid " + uid.group(1));
            }
        } catch (IOException e) {
            return Optional.of("network namespaces are Linux's, and /proc/self/status is unreadable here: " + e);
        }
        String namespace = PREFIX + PID + "-probe";
        try {
            run(List.of(ipCommand(), "netns", "add", namespace), "", "add a network namespace");
            try {
                run(List.of(ipCommand(), "netns", "exec", namespace, "iptables-restore"),
                        "*filter\n:FORWARD ACCEPT [0:0]\n"
                                + "-A FORWARD -m statistic --mode random --probability 0.5 -j DROP\nCOMMIT\n",
                        "load a statistic-match rule with iptables-restore (Debian package iptables)");
            } finally {
                deleteNamespace(namespace);
            }
            return Optional.empty();
        } catch (RuntimeException e) {
            return Optional.of(e.getMessage());
        }
    }

    private static String ipCommand() {
        for (String candidate : List.of("/usr/sbin/ip", "/sbin/ip", "/usr/bin/ip", "/bin/ip")) {
            if (Files.isExecutable(Path.of(candidate))) {
                return candidate;
            }
        }
        return "ip";
    }

    /** Runs a command to its end and returns its output; throws with its output when it fails. */
    private static String run(List<String> command, String input, String what) {
        Process process;
        try {
            process = new ProcessBuilder(command).redirectErrorStream(true).start();
        } catch (IOException e) {
            throw new LocalClusterException("could not " + what + ": " + command.get(0) + " did not start ("
                    + e.getMessage() + "); install iproute2 and iptables", e);
        }
        try {
            try (var stdin = process.getOutputStream()) {
                stdin.write(input.getBytes(StandardCharsets.UTF_8));
            }
            String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (!process.waitFor(30, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                throw new LocalClusterException("could not " + what + ": " + String.join(" ", command)
                        + " did not finish within 30 s");
            }
            if (process.exitValue() != 0) {
                throw new LocalClusterException("could not " + what + ": " + String.join(" ", command)
                        + " exited with " + process.exitValue() + ": " + output.trim());
            }
            return output;
        } catch (IOException e) {
            throw new UncheckedIOException("could not " + what, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new LocalClusterException("interrupted while trying to " + what, e);
        }
    }
}
