// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.connect;

import dev.uncleanrecovery.UserInputException;
import java.io.IOException;
import java.io.Reader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Properties;
import org.apache.kafka.clients.CommonClientConfigs;

/** The client properties every connection of a run shares: bootstrap servers plus {@code --command-config}. */
public final class ClientProperties {

    private ClientProperties() {
    }

    /**
     * @param bootstrapServers {@code --bootstrap-server}; required
     * @param commandConfig    {@code --command-config}, or null
     * @param timeoutMs        bound on every Admin call, so an unreachable cluster fails instead of hanging
     */
    public static Properties load(String bootstrapServers, Path commandConfig, int timeoutMs) {
        if (bootstrapServers == null || bootstrapServers.isBlank()) {
            throw new UserInputException("--bootstrap-server is required (HOST:PORT of any broker)");
        }
        requireAddresses(bootstrapServers);
        Properties props = new Properties();
        if (commandConfig != null) {
            if (!Files.isReadable(commandConfig)) {
                throw new UserInputException("--command-config " + commandConfig + " does not exist or is not readable");
            }
            try (Reader reader = Files.newBufferedReader(commandConfig)) {
                props.load(reader);
            } catch (IOException | IllegalArgumentException e) {
                throw new UserInputException("--command-config " + commandConfig + " is not a properties file: " + e.getMessage(), e);
            }
        }
        props.put(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
        props.putIfAbsent(CommonClientConfigs.CLIENT_ID_CONFIG, "kafka-unclean-recovery");
        props.putIfAbsent(CommonClientConfigs.DEFAULT_API_TIMEOUT_MS_CONFIG, Integer.toString(timeoutMs));
        // A hung broker (SIGSTOP, GC pause) accepts connections but never answers: a request timeout well below
        // the call timeout lets Admin retry the call on another broker instead of failing it.
        props.putIfAbsent(CommonClientConfigs.REQUEST_TIMEOUT_MS_CONFIG, Integer.toString(requestTimeoutMs(timeoutMs)));
        // One bootstrap attempt per address is enough to tell an unreachable cluster; Admin retries inside the timeout.
        props.putIfAbsent(CommonClientConfigs.RECONNECT_BACKOFF_MAX_MS_CONFIG, "1000");
        return props;
    }

    /**
     * Every comma-separated entry of {@code --bootstrap-server} is HOST:PORT: a missing port is a mistake in the
     * command, not a cluster that cannot be reached (kafka-clients says only "Invalid url in bootstrap.servers").
     */
    private static void requireAddresses(String bootstrapServers) {
        for (String entry : bootstrapServers.split(",")) {
            String address = entry.strip();
            if (address.isEmpty()) {
                continue;
            }
            try {
                HostPort.parse(address);
            } catch (IllegalArgumentException e) {
                String which = address.equals(bootstrapServers.strip()) ? "" : bootstrapServers + ": ";
                throw new UserInputException("--bootstrap-server " + which + address + " " + e.getMessage() + "; "
                        + HostPort.FORM);
            }
        }
    }

    /** How long one request to one broker may take within a call bounded by {@code timeoutMs}. */
    public static int requestTimeoutMs(int timeoutMs) {
        return Math.max(1000, Math.min(timeoutMs / 5, 30_000));
    }
}
