// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.connect;

import dev.uncleanrecovery.support.Durations;
import dev.uncleanrecovery.wire.ElectLeaders;
import dev.uncleanrecovery.wire.GetReplicaLogInfo;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.Collectors;

/**
 * Which brokers speak the companion patch's RPCs, from their ApiVersions answers: GetReplicaLogInfo
 * (the agent on that broker) and ElectLeaders v3 (a broker advertises a forwarded RPC only up to the
 * version its controller offers, so v3 needs the agent on the controllers too).
 *
 * @param asked             the brokers asked, in id order
 * @param getReplicaLogInfo those advertising GetReplicaLogInfo v0 under {@link GetReplicaLogInfo#apiKey()}
 * @param electLeadersV3    those advertising ElectLeaders v3 (DesignatedLeaders)
 * @param unanswered        per broker that gave no ApiVersions answer, why
 */
public record BrokerNativeSupport(List<Integer> asked, List<Integer> getReplicaLogInfo, List<Integer> electLeadersV3,
                                  Map<Integer, String> unanswered) {

    public BrokerNativeSupport {
        asked = List.copyOf(new TreeSet<>(asked));
        getReplicaLogInfo = List.copyOf(new TreeSet<>(getReplicaLogInfo));
        electLeadersV3 = List.copyOf(new TreeSet<>(electLeadersV3));
        unanswered = java.util.Collections.unmodifiableMap(new TreeMap<>(unanswered));
    }

    /**
     * Asks every given broker for its ApiVersions (cached by the connections), all at once, waiting
     * at most {@code timeout} in total. A broker that does not answer in time is in {@code unanswered}.
     */
    public static BrokerNativeSupport survey(BrokerConnections connections, Collection<Integer> brokers, Duration timeout) {
        Map<Integer, CompletableFuture<BrokerApiVersions>> asked = new LinkedHashMap<>();
        brokers.forEach(b -> asked.put(b, connections.apiVersions(b)));
        long deadline = System.nanoTime() + timeout.toNanos();
        Map<Integer, BrokerApiVersions> answers = new TreeMap<>();
        Map<Integer, String> unanswered = new TreeMap<>();
        asked.forEach((broker, future) -> {
            try {
                answers.put(broker, future.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS));
            } catch (TimeoutException e) {
                unanswered.put(broker, connections.describe(broker) + " did not answer ApiVersions within "
                        + Durations.human(timeout));
            } catch (ExecutionException e) {
                unanswered.put(broker, e.getCause().getMessage());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                unanswered.put(broker, "interrupted while asking " + connections.describe(broker) + " for ApiVersions");
            }
        });
        return from(brokers, answers, unanswered, GetReplicaLogInfo.apiKey());
    }

    /** The same from answers already at hand. */
    public static BrokerNativeSupport from(Collection<Integer> asked, Map<Integer, BrokerApiVersions> answers,
                                           Map<Integer, String> unanswered, short getReplicaLogInfoKey) {
        List<Integer> nativeProbe = new ArrayList<>();
        List<Integer> designated = new ArrayList<>();
        answers.forEach((broker, versions) -> {
            if (versions.advertises(getReplicaLogInfoKey, GetReplicaLogInfo.VERSION)) {
                nativeProbe.add(broker);
            }
            if (versions.advertises(ElectLeaders.API_KEY, ElectLeaders.DESIGNATED_LEADERS_VERSION)) {
                designated.add(broker);
            }
        });
        return new BrokerNativeSupport(List.copyOf(asked), nativeProbe, designated, unanswered);
    }

    /** True when there is at least one broker and every one asked advertises ElectLeaders v3. */
    public boolean everyBrokerOffersElectLeadersV3() {
        return !asked.isEmpty() && electLeadersV3.containsAll(asked);
    }

    /** The brokers asked that do not (or did not say they) advertise ElectLeaders v3. */
    public List<Integer> withoutElectLeadersV3() {
        return asked.stream().filter(b -> !electLeadersV3.contains(b)).toList();
    }

    /** {@code brokers 1,2,3 / none}: GetReplicaLogInfo brokers, then ElectLeaders v3 brokers. */
    public String summary() {
        return brokers(getReplicaLogInfo) + " / " + brokers(electLeadersV3);
    }

    public static String brokers(Collection<Integer> ids) {
        return ids.isEmpty() ? "none" : (ids.size() == 1 ? "broker " : "brokers ")
                + ids.stream().map(String::valueOf).collect(Collectors.joining(","));
    }
}
