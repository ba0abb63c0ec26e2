// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.localcluster;

import java.nio.file.Path;
import java.util.List;

/** Nodes as JVMs of this machine, each under the watchdog of {@link NodeProcess}. */
final class ProcessRuntime implements NodeRuntime {

    private final KafkaServerClasspath classpath;

    ProcessRuntime(KafkaServerClasspath classpath) {
        this.classpath = classpath;
    }

    @Override
    public String javaBinary() {
        return Path.of(System.getProperty("java.home"), "bin", "java").toString();
    }

    @Override
    public String classpath() {
        return classpath.value();
    }

    @Override
    public boolean sharesClassData() {
        return true;
    }

    @Override
    public RunningNode launch(String name, List<String> javaCommand, Path logFile) {
        return NodeProcess.launch(javaCommand, logFile);
    }

    @Override
    public void close() {
        // every process is killed by LocalKafkaCluster itself; the watchdogs cover a JVM that dies first
    }
}
