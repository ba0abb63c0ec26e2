// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.cli;

import java.util.concurrent.Callable;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/** A command of the design that is not built yet: it says so and exits 2, it never pretends. */
abstract class NotBuiltYet implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    @Override
    public Integer call() {
        spec.commandLine().getErr().println("'" + spec.name() + "' is not built yet in "
                + ToolVersion.describe() + "; see README.md for what works today.");
        return ExitCode.USAGE;
    }
}
