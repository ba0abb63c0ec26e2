// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.localcluster;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Picks listener ports for local nodes on 127.0.0.1.
 *
 * <p>Ports come from below the kernel's ephemeral range: a node keeps its port across restarts, and
 * an ephemeral port could meanwhile be taken as the local end of some outgoing connection. Each
 * port is checked free by binding it, and never handed out twice by this JVM.
 */
final class LoopbackPorts {

    static final String HOST = "127.0.0.1";
    private static final int LOWEST_PORT = 15_000;
    private static final int DEFAULT_EPHEMERAL_LOW = 32_768;
    private static final Path EPHEMERAL_RANGE = Path.of("/proc/sys/net/ipv4/ip_local_port_range");
    private static final Set<Integer> HANDED_OUT = ConcurrentHashMap.newKeySet();

    private LoopbackPorts() {
    }

    static List<Integer> pickFree(int count) {
        // Test JVMs that run side by side (surefire's forkCount) each pick from their own slice: a port that one
        // JVM's stopped node left free stays that node's, and no other JVM's check can see that it is taken.
        int slices = Math.max(1, Integer.getInteger("harness.port.slices", 1));
        int slice = Math.floorMod(Integer.getInteger("harness.port.slice", 1) - 1, slices);
        int width = (ephemeralRangeLow() - LOWEST_PORT) / slices;
        int lowest = LOWEST_PORT + slice * width;
        int highestExclusive = lowest + width;
        List<Integer> picked = new ArrayList<>(count);
        int attempts = 0;
        while (picked.size() < count) {
            if (++attempts > 10_000) {
                throw new LocalClusterException("found only " + picked.size() + " of " + count
                        + " free loopback ports in [" + lowest + ", " + highestExclusive
                        + ") after 10000 tries; free some ports (ss -ltn) and retry");
            }
            int port = ThreadLocalRandom.current().nextInt(lowest, highestExclusive);
            if (HANDED_OUT.add(port)) {
                if (isFree(port)) {
                    picked.add(port);
                } else {
                    HANDED_OUT.remove(port);
                }
            }
        }
        return picked;
    }

    static boolean isFree(int port) {
        try (ServerSocket socket = new ServerSocket()) {
            socket.setReuseAddress(false);
            socket.bind(new InetSocketAddress(InetAddress.getByName(HOST), port));
            return true;
        } catch (IOException inUse) {
            return false;
        }
    }

    private static int ephemeralRangeLow() {
        try {
            String[] range = Files.readString(EPHEMERAL_RANGE).trim().split("\\s+");
            int low = Integer.parseInt(range[0]);
            return low > LOWEST_PORT + 1_000 ? low : DEFAULT_EPHEMERAL_LOW;
        } catch (IOException | RuntimeException notLinux) {
            return DEFAULT_EPHEMERAL_LOW;
        }
    }
}
