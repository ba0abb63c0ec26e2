// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.cli;

import java.nio.file.Path;
import picocli.CommandLine.Option;

/** {@code --result-file}: the commands that act later on what a run did read it from its result file. */
final class ResultFileOption {

    @Option(names = "--result-file", paramLabel = "FILE", required = true,
            description = "The result file of the run that elected the partitions ('Result written to' at the end of"
                    + " execute).")
    Path path;
}
