// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.localcluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.File;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import org.apache.commons.compress.archivers.tar.TarArchiveEntry;
import org.apache.commons.compress.archivers.tar.TarArchiveInputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The root filesystem of the locally made Kafka image: what a node's unchanged command line needs, at its path. */
class KafkaImageTest {

    @TempDir
    Path dir;

    @Test
    void holds_the_jre_its_libraries_a_shell_and_every_server_jar_at_their_own_paths() throws Exception {
        KafkaServerClasspath classpath = KafkaServerClasspath.read(KafkaServerClasspath.defaultFile());
        Path javaHome = Path.of(System.getProperty("java.home"));
        Path tar = dir.resolve("root.tar");

        KafkaImage.writeRootFilesystem(tar, javaHome, classpath);

        Map<String, TarArchiveEntry> entries = new HashMap<>();
        try (InputStream file = Files.newInputStream(tar); TarArchiveInputStream in = new TarArchiveInputStream(file)) {
            TarArchiveEntry entry;
            while ((entry = in.getNextTarEntry()) != null) {
                entries.put(entry.getName().replaceAll("/$", ""), entry);
            }
        }
        String home = javaHome.toString().substring(1);
        assertThat(entries.get(home + "/bin/java").getMode() & 0111).isNotZero();
        assertThat(entries).containsKey(home + "/lib/server/libjvm.so").containsKey(home + "/lib/modules")
                .doesNotContainKey(home + "/jmods");
        assertThat(entries.keySet()).anyMatch(name -> name.endsWith("/libc.so.6"));
        assertThat(entries.keySet()).anyMatch(name -> name.matches(".*ld-linux.*\\.so\\.2"));
        assertThat(entries.get("tmp").getMode() & 07777).isEqualTo(01777);
        // /bin/sh as this machine has it: on a merged /usr, bin is a link to usr/bin, and sh one to dash
        Path shell = Path.of("/bin").toRealPath().resolve("sh");
        assertThat(entries).containsKey(shell.toString().substring(1));
        for (Path link : new Path[] {Path.of("/bin"), shell}) {
            if (Files.isSymbolicLink(link)) {
                assertThat(entries.get(link.toString().substring(1)).isSymbolicLink()).as(link.toString()).isTrue();
                assertThat(entries.get(link.toString().substring(1)).getLinkName())
                        .isEqualTo(Files.readSymbolicLink(link).toString());
            }
        }
        for (String jar : classpath.value().split(File.pathSeparator)) {
            Path real = Path.of(jar).toRealPath();
            assertThat(entries.get(real.toString().substring(1))).as(jar).isNotNull()
                    .satisfies(entry -> assertThat(entry.getSize()).isEqualTo(Files.size(real)));
        }
    }

    @Test
    void the_backend_property_takes_processes_or_containers_only() {
        String before = System.getProperty(ClusterBackend.PROPERTY);
        try {
            System.setProperty(ClusterBackend.PROPERTY, "Containers");
            assertThat(ClusterBackend.fromSystemProperty()).isEqualTo(ClusterBackend.CONTAINERS);
            System.setProperty(ClusterBackend.PROPERTY, "");
            assertThat(ClusterBackend.fromSystemProperty()).isEqualTo(ClusterBackend.PROCESSES);
            System.setProperty(ClusterBackend.PROPERTY, "podman");
            assertThatThrownBy(ClusterBackend::fromSystemProperty).hasMessageContaining("expected processes or containers");
        } finally {
            if (before == null) {
                System.clearProperty(ClusterBackend.PROPERTY);
            } else {
                System.setProperty(ClusterBackend.PROPERTY, before);
            }
        }
        assertThat(ContainerRuntime.versionOf("apache/kafka:4.1.2")).contains("4.1.2");
        assertThat(ContainerRuntime.versionOf("apache/kafka:latest")).isEmpty();
    }
}
