// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.cli;

import dev.uncleanrecovery.UserInputException;
import dev.uncleanrecovery.cluster.PartitionSelection;
import dev.uncleanrecovery.logdir.PartitionFilter;
import java.nio.file.Path;
import java.util.List;
import picocli.CommandLine.Option;

/** --topic / --partition / --path-to-json-file, as in kafka-leader-election.sh. */
class SelectionOptions {

    @Option(names = "--topic", paramLabel = "TOPIC", description = "Only this topic.")
    String topic;

    @Option(names = "--partition", paramLabel = "P", split = ",",
            description = "Only these partitions of --topic (repeat or comma separate).")
    List<Integer> partitions;

    @Option(names = "--path-to-json-file", paramLabel = "FILE",
            description = "Partitions in kafka-leader-election.sh format: {\"partitions\":[{\"topic\":\"t\",\"partition\":0}]}.")
    Path jsonFile;

    PartitionSelection selection() {
        return PartitionSelection.of(topic, partitions, jsonFile);
    }

    /** The same selection, for reading log dirs ({@code inspect}). */
    PartitionFilter logDirFilter() {
        PartitionSelection selection = selection();
        if (selection instanceof PartitionSelection.OneTopic one) {
            return PartitionFilter.partitions(one.topic(), one.partitions());
        }
        if (selection instanceof PartitionSelection.Explicit explicit) {
            if (explicit.partitions().isEmpty()) {
                throw new UserInputException("--path-to-json-file names no partition");
            }
            return PartitionFilter.exactly(explicit.partitions());
        }
        return PartitionFilter.all();
    }
}
