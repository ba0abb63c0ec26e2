// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.view;

import dev.uncleanrecovery.connect.BrokerNativeSupport;
import dev.uncleanrecovery.formats.Json;
import dev.uncleanrecovery.formats.Plan;
import dev.uncleanrecovery.formats.PlanFile;
import dev.uncleanrecovery.recovery.PlanFlow;
import dev.uncleanrecovery.support.Durations;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * What {@code plan} and {@code recover} print and write of a planning: the plan file, the plan, where its evidence
 * came from, the next command, and the page when asked for.
 */
public final class PlanReport {

    private PlanReport() {
    }

    /**
     * Writes the plan's page when asked and a plan was written (something was offline).
     *
     * @param out where to say so; null with --output json, whose standard output is the JSON alone
     */
    public static void writePage(Path html, Plan plan, Path planFile, PrintWriter out) throws java.io.IOException {
        if (html == null || plan.partitions().isEmpty() && plan.skipped().isEmpty()) {
            return;
        }
        PlanPage.write(html, plan, planFile.getFileName().toString(), null, null);
        if (out != null) {
            out.println("Page written to " + html.toAbsolutePath() + " (open it in a browser).");
        }
    }

    /**
     * Writes the plan file and prints it.
     *
     * @param json            {@code --output json}: the plan file's content is the output
     * @param bootstrapServer {@code --bootstrap-server}, for the command that applies the plan
     */
    public static void print(PlanFlow.Result result, Path file, boolean json, String bootstrapServer, PrintWriter out)
            throws java.io.IOException {
        print(result, file, json, bootstrapServer, out, sha256 -> { }, false);
    }

    /**
     * @param written  given the plan file's SHA-256 once the file is on disk, before the plan is printed
     * @param applying the plan is applied right after (recover --automated-recovery): say so, not "review it"
     */
    public static void print(PlanFlow.Result result, Path file, boolean json, String bootstrapServer, PrintWriter out,
                             java.util.function.Consumer<String> written, boolean applying) throws java.io.IOException {
        var plan = result.plan();
        var unreadable = result.snapshot().unreadableTopics();
        if (plan.partitions().isEmpty() && plan.skipped().isEmpty()) {
            unreadable.forEach(t -> Table.printWrapped(out, "NOTE " + t.describe(), 4));
            out.println("Nothing is offline among the " + result.snapshot().partitions().size()
                    + " partition(s) checked" + (unreadable.isEmpty() ? "" : " (" + unreadable.size()
                    + " topic(s) not read: their partitions are unknown)") + "; no plan written.");
            return;
        }
        written.accept(PlanFile.write(file, plan));
        if (json) {
            out.println(Json.mapper().writeValueAsString(plan));
        } else {
            PlanPrinter.print(plan, file.toString(), out);
            out.println();
            out.println("Evidence: " + evidenceSources(result));
            Table.printWrapped(out, "Plan written to " + file.toAbsolutePath() + " (probed in "
                    + Durations.human(result.probeTime()) + ", " + result.requests().total() + " requests)."
                    + (applying ? "" : " Nothing was changed."), 4);
            if (applying && !plan.partitions().isEmpty()) {
                out.println("Applying it now (--automated-recovery): each partition is checked once more, then elected.");
            } else if (!plan.partitions().isEmpty()) {
                // Kafka's tool takes the plan file, but reads only topic and partition from it
                Table.printWrapped(out, "Not kafka-leader-election.sh --path-to-json-file with this plan: Kafka's tool"
                        + " elects the first live replica in assignment order, not the designated one (plan --kafka-tools"
                        + " DIR writes the steps to do it with Kafka's tools, where they can).", 4);
                // the command on a line of its own, whole, to be pasted
                out.println("Review it, then apply it with:");
                Table.printCommand(out, "kafka-unclean-recovery.sh --bootstrap-server " + bootstrapServer
                        + " execute --plan " + file + " --reason \"WHY: the incident ticket\"", 2);
            }
        }
    }

    /**
     * Which brokers answered how: {@code native GetReplicaLogInfo from broker 2 (broker epoch 27), broker 3
     * (broker epoch 29); stock RPCs from broker 1}. Only brokers that answered count.
     */
    static String evidenceSources(PlanFlow.Result result) {
        Map<Integer, Long> nativeEpochs = result.answered().nativeBrokerEpochs();
        Set<Integer> stock = result.answered().stock();
        List<String> parts = new ArrayList<>();
        if (!nativeEpochs.isEmpty()) {
            parts.add("native GetReplicaLogInfo from " + nativeEpochs.entrySet().stream()
                    .map(b -> "broker " + b.getKey() + " (broker epoch " + b.getValue() + ")")
                    .collect(Collectors.joining(", ")));
        }
        if (!stock.isEmpty()) {
            parts.add("stock RPCs (ListOffsets, Fetch) from " + BrokerNativeSupport.brokers(stock));
        }
        return parts.isEmpty() ? "no replica answered" : String.join("; ", parts);
    }
}
