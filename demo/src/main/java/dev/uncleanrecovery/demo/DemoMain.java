// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.demo;

import dev.uncleanrecovery.cli.Main;
import java.io.PrintWriter;
import java.util.List;

/**
 * The launcher's entry point for {@code demo}: the tool's command line with {@code demo} among its commands. The
 * launcher runs it only when {@code demo} is asked for, so other runs load nothing of the local cluster.
 */
public final class DemoMain {

    private DemoMain() {
    }

    public static void main(String[] args) {
        PrintWriter out = new PrintWriter(System.out, false);
        PrintWriter err = new PrintWriter(System.err, true);
        System.exit(run(out, err, args));
    }

    public static int run(PrintWriter out, PrintWriter err, String... args) {
        return Main.run(out, err, List.of(new DemoCommand()), args);
    }
}
