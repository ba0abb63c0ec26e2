// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.cli;

import dev.uncleanrecovery.UserInputException;
import dev.uncleanrecovery.cluster.ClusterDiscovery;
import dev.uncleanrecovery.formats.ResultFile;
import java.nio.file.Path;
import picocli.CommandLine.Option;

/** {@code --result-file}: the commands that act later on what a run did read it from its result file. */
final class ResultFileOption {

    @Option(names = "--result-file", paramLabel = "FILE", required = true,
            description = "The result file of the run that elected the partitions ('Result written to' at the end of"
                    + " execute).")
    Path path;

    /**
     * The result must be of the cluster --bootstrap-server names: one of another cluster names partitions, groups and
     * transactions of that one. Asking the cluster's id is the run's first request to it, so a cluster that cannot be
     * reached ends the run here, as in every command (exit 4), not in a report of what could not be read.
     */
    void requireClusterOf(ResultFile result, ClusterDiscovery discovery) {
        String clusterId = discovery.clusterId();
        if (result.clusterId() != null && !result.clusterId().equals(clusterId)) {
            throw new UserInputException(path + " is of cluster " + result.clusterId() + ", but --bootstrap-server"
                    + " reaches cluster " + clusterId + ": nothing was changed; connect to the cluster that run elected on");
        }
    }
}
