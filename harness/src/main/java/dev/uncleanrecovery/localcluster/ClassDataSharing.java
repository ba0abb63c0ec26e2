// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.localcluster;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An AppCDS archive of the Kafka server classes, shared by every local node: it roughly halves the
 * CPU a node needs to start, which matters when several clusters start on a small machine.
 *
 * <p>The first cluster runs without it and has its nodes list the classes they load
 * ({@code -XX:DumpLoadedClassList}, written as classes load, so kill -9 keeps it); once that cluster
 * is up, one background JVM dumps the archive next to the classpath file. Later clusters map it
 * ({@code -XX:SharedArchiveFile}). The archive is named after the JDK and the classpath, and a JVM
 * that finds it does not match (another JDK, a jar rewritten) ignores it, so at worst a node starts
 * as slowly as without it.
 */
final class ClassDataSharing {

    private static final Logger LOG = LoggerFactory.getLogger(ClassDataSharing.class);
    private static final String CLASS_LIST = "loaded-classes.list";
    private static final Duration DUMP_TIMEOUT = Duration.ofMinutes(2);

    private final Path archive;
    private final boolean enabled;
    private NodeProcess dump;

    private ClassDataSharing(Path archive, boolean enabled) {
        this.archive = archive;
        this.enabled = enabled;
    }

    static ClassDataSharing disabled() {
        return new ClassDataSharing(null, false);
    }

    /** The archive for this JDK and classpath, next to the classpath file. */
    static ClassDataSharing forClasspath(KafkaServerClasspath classpath) {
        String identity = System.getProperty("java.home") + "|" + System.getProperty("java.vm.version") + "|" + classpath.value();
        String fileName = classpath.file().getFileName().toString().replaceFirst("\\.classpath$", "")
                + "-" + Integer.toHexString(identity.hashCode()) + ".jsa";
        Path archive = classpath.file().toAbsolutePath().resolveSibling(fileName);
        return new ClassDataSharing(archive, Files.isWritable(archive.getParent()) || Files.exists(archive));
    }

    /** JVM flags for a node that lives in {@code nodeDirectory}: use the archive, or help build it. */
    List<String> nodeJvmArgs(Path nodeDirectory) {
        if (!enabled) {
            return List.of();
        }
        if (Files.isRegularFile(archive)) {
            return List.of("-XX:SharedArchiveFile=" + archive);
        }
        return List.of("-XX:DumpLoadedClassList=" + nodeDirectory.resolve(CLASS_LIST));
    }

    /** JVM flags for a short-lived tool JVM (storage format): the archive if there is one. */
    List<String> toolJvmArgs() {
        return enabled && Files.isRegularFile(archive) ? List.of("-XX:SharedArchiveFile=" + archive) : List.of();
    }

    /**
     * Starts dumping the archive in the background from the class lists of {@code nodeDirectories},
     * unless it exists already. Called once every node has started, so the lists hold start-up.
     */
    synchronized void startDumpIfMissing(Collection<Path> nodeDirectories, String javaBinary, String classpath,
                                         Path workDirectory) {
        if (!enabled || dump != null || Files.isRegularFile(archive)) {
            return;
        }
        try {
            deleteAbandonedPartials();
            Optional<Path> classList = mergeClassLists(nodeDirectories, workDirectory.resolve("cds-" + CLASS_LIST));
            if (classList.isEmpty()) {
                return;
            }
            Path partial = archive.resolveSibling(archive.getFileName() + ".partial-" + ProcessHandle.current().pid());
            List<String> command = new ArrayList<>(List.of(javaBinary, "-Xshare:dump",
                    "-XX:SharedClassListFile=" + classList.get(), "-XX:SharedArchiveFile=" + partial, "-cp", classpath));
            dump = NodeProcess.launch(command, workDirectory.resolve("cds-dump.log"));
            LOG.info("dumping the AppCDS archive of the Kafka server classes to {} in the background", archive);
        } catch (IOException | RuntimeException e) {
            LOG.info("no AppCDS archive this time ({}); nodes start without it", e.toString());
        }
    }

    /** Waits for a background dump (bounded) and publishes its archive; abandons it on failure. */
    synchronized void finishDump(Path workDirectory) {
        if (dump == null) {
            return;
        }
        Path partial = archive.resolveSibling(archive.getFileName() + ".partial-" + ProcessHandle.current().pid());
        try {
            Optional<Integer> status = dump.awaitExit(DUMP_TIMEOUT);
            if (status.isPresent() && status.get() == 0 && Files.isRegularFile(partial)) {
                // Concurrent test JVMs may race to publish the same archive; either copy is good.
                Files.move(partial, archive, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
                LOG.info("AppCDS archive ready: {}", archive);
            } else {
                LOG.info("the AppCDS dump did not complete (status {}); see {}", status.orElse(null),
                        workDirectory.resolve("cds-dump.log"));
            }
        } catch (IOException e) {
            LOG.info("could not publish the AppCDS archive {}: {}", archive, e.toString());
        } finally {
            dump.kill();
            dump = null;
            deleteQuietly(partial);
        }
    }

    // A JVM killed during its dump leaves its partial archive behind (tens of MiB): remove those.
    private void deleteAbandonedPartials() throws IOException {
        String prefix = archive.getFileName() + ".partial-";
        try (var siblings = Files.list(archive.getParent())) {
            siblings.filter(file -> file.getFileName().toString().startsWith(prefix))
                    .filter(file -> {
                        String pid = file.getFileName().toString().substring(prefix.length());
                        return !pid.matches("\\d+") || ProcessHandle.of(Long.parseLong(pid)).isEmpty();
                    })
                    .forEach(ClassDataSharing::deleteQuietly);
        }
    }

    private static void deleteQuietly(Path file) {
        try {
            Files.deleteIfExists(file);
        } catch (IOException e) {
            LOG.info("could not delete {}: {}", file, e.toString());
        }
    }

    // One list for both roles: the controller loads classes a broker does not, and the other way round.
    private static Optional<Path> mergeClassLists(Collection<Path> nodeDirectories, Path merged) throws IOException {
        Set<String> classes = new LinkedHashSet<>();
        for (Path nodeDirectory : nodeDirectories) {
            Path list = nodeDirectory.resolve(CLASS_LIST);
            if (!Files.isRegularFile(list)) {
                continue;
            }
            String text = Files.readString(list, StandardCharsets.UTF_8);
            // The node is still running and may be half-way through a line: keep whole lines only.
            String whole = text.substring(0, text.lastIndexOf('\n') + 1);
            whole.lines().filter(line -> !line.isBlank()).forEach(classes::add);
        }
        if (classes.isEmpty()) {
            return Optional.empty();
        }
        Files.write(merged, classes, StandardCharsets.UTF_8);
        return Optional.of(merged);
    }
}
