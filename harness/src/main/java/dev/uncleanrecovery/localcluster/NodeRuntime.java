// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.localcluster;

import java.nio.file.Path;
import java.util.List;

/** Starts the cluster's JVMs: as processes of this machine, or in containers. */
interface NodeRuntime extends AutoCloseable {

    /** The java launcher as the started JVM sees it. */
    String javaBinary();

    /** The Kafka server classpath as the started JVM sees it. */
    String classpath();

    /** Whether nodes may map the AppCDS archive this machine's java wrote (the same JRE files). */
    boolean sharesClassData();

    /** Starts {@code javaCommand} with its output appended to {@code logFile}; {@code name} says what it is. */
    RunningNode launch(String name, List<String> javaCommand, Path logFile);

    /** Kills what is still running. */
    @Override
    void close();
}
