// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.cli;

import java.io.PrintWriter;
import java.io.StringWriter;

/** Runs the CLI in-process the way a user would, capturing what it prints and its exit code. */
public record CliRun(int exitCode, String out, String err) {

    public static CliRun of(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int code = Main.run(new PrintWriter(out, true), new PrintWriter(err, true), args);
        return new CliRun(code, out.toString(), err.toString());
    }
}
