// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.execute;

import dev.uncleanrecovery.cluster.ClusterSnapshot;
import dev.uncleanrecovery.connect.BrokerNativeSupport;
import dev.uncleanrecovery.support.OnItsOwnThread;
import java.util.List;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * The native elector when every live broker advertises ElectLeaders v3 (so whichever broker a request
 * reaches, the controller behind it takes DesignatedLeaders), the stock elector otherwise, with the
 * reason in its description. Decided once, when first needed, so a plan with nothing left to elect
 * costs no ApiVersions round trips.
 */
public final class ElectorChoice implements DesignatedElector {

    private final Supplier<BrokerNativeSupport> liveBrokers;
    private final Function<List<Integer>, DesignatedElector> nativeElector;
    private final Function<String, DesignatedElector> stockElector;
    private DesignatedElector chosen;

    /**
     * @param liveBrokers   what the live (registered, unfenced) brokers advertise
     * @param nativeElector the native elector, given the brokers to send through
     * @param stockElector  the stock elector, given why it is used
     */
    public ElectorChoice(Supplier<BrokerNativeSupport> liveBrokers, Function<List<Integer>, DesignatedElector> nativeElector,
                         Function<String, DesignatedElector> stockElector) {
        this.liveBrokers = liveBrokers;
        this.nativeElector = nativeElector;
        this.stockElector = stockElector;
    }

    @Override
    public String describe() {
        return chosen().describe();
    }

    @Override
    public List<PartitionOutcome> elect(List<ElectionTarget> targets, ClusterSnapshot validated,
                                        Runnable beforeFirstChange) {
        return chosen().elect(targets, validated, beforeFirstChange);
    }

    @Override
    public java.time.Duration leadersShownAfter() {
        return chosen().leadersShownAfter();
    }

    @Override
    public List<MetadataLag> metadataLag() {
        return chosen().metadataLag();
    }

    /** Chooses on a background thread: the ApiVersions survey (one round trip per live broker, answers usually kept from discovery). */
    @Override
    public void prepare() {
        // Not chosen (a failure): the first real use tries again and reports it.
        OnItsOwnThread.run("elector-choice", this::chosen);
    }

    private synchronized DesignatedElector chosen() {
        if (chosen == null) {
            chosen = choose(liveBrokers.get(), nativeElector, stockElector);
        }
        return chosen;
    }

    static DesignatedElector choose(BrokerNativeSupport live, Function<List<Integer>, DesignatedElector> nativeElector,
                                    Function<String, DesignatedElector> stockElector) {
        if (live.everyBrokerOffersElectLeadersV3()) {
            return nativeElector.apply(live.electLeadersV3());
        }
        return stockElector.apply(whyStock(live));
    }

    /** Why designated elections cannot go native, for the elector's description. */
    static String whyStock(BrokerNativeSupport live) {
        if (live.asked().isEmpty()) {
            return "no live broker to ask for ElectLeaders v3";
        }
        if (live.electLeadersV3().isEmpty() && live.unanswered().isEmpty()) {
            return "controllers do not offer ElectLeaders v3: no live broker advertises it;"
                    + " run the kafka-patch agent on the controllers for native designated elections";
        }
        StringBuilder why = new StringBuilder("not every live broker offers ElectLeaders v3: ");
        List<Integer> without = live.withoutElectLeadersV3().stream()
                .filter(b -> !live.unanswered().containsKey(b)).toList();
        if (!without.isEmpty()) {
            why.append(BrokerNativeSupport.brokers(without)).append(without.size() == 1 ? " advertises" : " advertise")
                    .append(" at most v2");
        }
        if (!live.unanswered().isEmpty()) {
            why.append(without.isEmpty() ? "" : "; ").append(String.join("; ", live.unanswered().values()));
        }
        return why.toString();
    }
}
