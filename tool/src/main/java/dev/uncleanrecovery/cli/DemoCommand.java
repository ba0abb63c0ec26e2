// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.cli;

import dev.uncleanrecovery.UserInputException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.ServiceLoader;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code demo}: its options and help belong to the command line (so help, completion and man pages list it); the
 * local cluster it breaks is the demo jar's ({@link Demo}), which the launcher puts on the classpath for this
 * command only, so the tool itself never loads a Kafka server.
 */
@Command(name = "demo", mixinStandardHelpOptions = true, sortOptions = false,
        header = "Break a local real Kafka cluster as in a real outage and recover it with this tool.",
        description = {"Start a local real Kafka cluster (a controller and 3 brokers on 127.0.0.1, temp dirs), "
                + "reproduce KIP-966's 'last replica standing' outage with real data loss on the last leader, then run "
                + "status, plan and execute against it and count the records before and after. Stops every process it "
                + "started (also on Ctrl-C) unless --keep-running. With --practice it stops once the cluster is broken "
                + "and keeps it so, for rehearsing the runbook (docs/runbook.md) by hand.",
            "",
            "The nodes run your installed Kafka with --kafka-home (or KAFKA_HOME); in a source checkout, without "
                + "--kafka-home, they run the Kafka 4.4.0 jars the build resolved."})
public class DemoCommand implements Callable<Integer> {

    /** The demo itself, in the demo jar (found through {@link ServiceLoader}). */
    public interface Demo {
        int run(Settings settings, PrintWriter out, PrintWriter err) throws Exception;
    }

    /** What the operator asked of the demo. */
    public record Settings(boolean keepRunning, boolean practice, Path kafkaHome, int partitions, int records) {
    }

    @Spec
    CommandSpec spec;

    @Option(names = "--keep-running", description = "Leave the cluster up afterwards and print its bootstrap address.")
    boolean keepRunning;

    @Option(names = "--practice", description = "Break the cluster and leave it broken (nothing recovered): print its "
            + "bootstrap servers and how to stop it, then wait; rehearse the runbook against it.")
    boolean practice;

    @Option(names = "--kafka-home", paramLabel = "DIR", description = "An installed Kafka (the directory that holds "
            + "bin/, config/ and libs/): its nodes run from its libs/ jars. Default: KAFKA_HOME, unless this is a source"
            + " checkout.")
    Path kafkaHome;

    @Option(names = "--partitions", paramLabel = "N", defaultValue = "3",
            description = "Partitions of the demo topic (default: ${DEFAULT-VALUE}).")
    int partitions;

    @Option(names = "--records", paramLabel = "N", defaultValue = "200",
            description = "acks=all records per partition and round (default: ${DEFAULT-VALUE}).")
    int records;

    @Override
    public Integer call() throws Exception {
        Demo demo = ServiceLoader.load(Demo.class).findFirst().orElseThrow(() -> new UserInputException(
                "demo needs the demo jar on the classpath: run it as bin/kafka-unclean-recovery.sh demo"));
        return demo.run(new Settings(keepRunning, practice, kafkaHome, partitions, records),
                spec.commandLine().getOut(), spec.commandLine().getErr());
    }
}
