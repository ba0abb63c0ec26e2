// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.localcluster;

import com.github.dockerjava.api.DockerClient;
import com.github.dockerjava.api.exception.NotFoundException;
import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.apache.commons.compress.archivers.tar.TarArchiveEntry;
import org.apache.commons.compress.archivers.tar.TarArchiveOutputStream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.testcontainers.images.builder.ImageFromDockerfile;

/**
 * The Kafka image the container backend runs when no {@code -Dkafka.test.image} is given: made here, with no
 * registry, by a build {@code FROM scratch} that adds one tar holding this machine's JRE (and the shared libraries {@code ldd}
 * names for it), {@code /bin/sh}, and the server jars the build resolved, each at the same absolute path as on this
 * machine, so a node's command line is the same as a process's. The tag carries a hash of those paths: a changed JRE
 * or classpath makes a new image, an unchanged one is reused.
 */
final class KafkaImage {

    private static final Logger LOG = LoggerFactory.getLogger(KafkaImage.class);
    static final String REPOSITORY = "kafka-unclean-recovery/kafka";
    // The JDK's parts a server never loads.
    private static final Set<String> JAVA_HOME_LEFT_OUT = Set.of("jmods", "include", "man", "docs", "demo", "src.zip");
    private static final String ROOT_FILESYSTEM = "rootfs.tar";
    private static final Pattern LDD_PATH = Pattern.compile("(?:=>\\s*)?(/\\S+)\\s+\\(0x");

    private KafkaImage() {
    }

    /** {@code repository:tag} of the image for this JRE and classpath, imported into the engine if missing. */
    static String ensure(DockerClient docker, String kafkaVersion, KafkaServerClasspath classpath) {
        Path javaHome = Path.of(System.getProperty("java.home"));
        String tag = kafkaVersion + "-" + shortHash(javaHome + "\n" + classpath.value());
        String name = REPOSITORY + ":" + tag;
        try {
            docker.inspectImageCmd(name).exec();
            return name;
        } catch (NotFoundException missing) {
            // made below
        }
        long began = System.nanoTime();
        Path tar = null;
        try {
            tar = Files.createTempFile("kafka-image-", ".tar");
            writeRootFilesystem(tar, javaHome, classpath);
            // ADD unpacks a local tar; the build's step containers need a network, and only the host's exists here
            new ImageFromDockerfile(name, false)
                    .withBuildImageCmdModifier(build -> build.withNetworkMode("host"))
                    .withFileFromPath(ROOT_FILESYSTEM, tar)
                    .withFileFromString("Dockerfile", "FROM scratch\nADD " + ROOT_FILESYSTEM + " /\n")
                    .get();
            LOG.info("built image {} ({} MiB) in {} ms", name, Files.size(tar) >> 20,
                    (System.nanoTime() - began) / 1_000_000);
            return name;
        } catch (IOException e) {
            throw new UncheckedIOException("could not make the Kafka image " + name, e);
        } catch (RuntimeException e) {
            throw new LocalClusterException("could not build the Kafka image " + name + ": " + e, e);
        } finally {
            if (tar != null) {
                tar.toFile().delete();
            }
        }
    }

    static void writeRootFilesystem(Path tar, Path javaHome, KafkaServerClasspath classpath) throws IOException {
        try (OutputStream file = Files.newOutputStream(tar);
             TarArchiveOutputStream out = new TarArchiveOutputStream(file)) {
            out.setLongFileMode(TarArchiveOutputStream.LONGFILE_POSIX);
            out.setBigNumberMode(TarArchiveOutputStream.BIGNUMBER_POSIX);
            RootFilesystem root = new RootFilesystem(out);
            root.addDirectory("tmp", 01777);
            root.addText("etc/passwd", "root:x:0:0:root:/root:/bin/sh\n");
            root.addText("etc/group", "root:x:0:\n");
            root.addDirectory("root", 0700);
            try (Stream<Path> entries = Files.list(javaHome)) {
                for (Path entry : entries.sorted().toList()) {
                    if (!JAVA_HOME_LEFT_OUT.contains(entry.getFileName().toString())) {
                        root.add(entry);
                    }
                }
            }
            Path shell = Path.of("/bin/sh");
            root.add(shell);
            Set<Path> binaries = new LinkedHashSet<>(List.of(javaHome.resolve("bin/java"), shell.toRealPath()));
            try (Stream<Path> libraries = Files.walk(javaHome.resolve("lib"))) {
                libraries.filter(path -> path.getFileName().toString().endsWith(".so")
                        && Files.isRegularFile(path, LinkOption.NOFOLLOW_LINKS)).forEach(binaries::add);
            }
            for (Path library : sharedLibraries(binaries)) {
                root.add(library);
            }
            for (String jar : classpath.value().split(File.pathSeparator)) {
                if (!jar.isBlank()) {
                    root.add(Path.of(jar).toAbsolutePath());
                }
            }
            out.finish();
        }
    }

    /** What {@code ldd} resolves for the binaries; libraries it cannot find (AWT's X11) are left out. */
    private static Set<Path> sharedLibraries(Set<Path> binaries) {
        Set<Path> libraries = new LinkedHashSet<>();
        List<String> command = new ArrayList<>(List.of("ldd"));
        binaries.forEach(binary -> command.add(binary.toString()));
        try {
            Process ldd = new ProcessBuilder(command).redirectErrorStream(true).start();
            try (BufferedReader lines = new BufferedReader(new InputStreamReader(ldd.getInputStream(), StandardCharsets.UTF_8))) {
                String line;
                while ((line = lines.readLine()) != null) {
                    Matcher path = LDD_PATH.matcher(line);
                    if (path.find() && Files.exists(Path.of(path.group(1)))) {
                        libraries.add(Path.of(path.group(1)));
                    }
                }
            }
            ldd.waitFor();
        } catch (IOException e) {
            throw new LocalClusterException("could not run ldd to find the JRE's shared libraries: " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new LocalClusterException("interrupted while running ldd", e);
        }
        return libraries;
    }

    private static String shortHash(String text) {
        try {
            byte[] digest = MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8));
            return HexFormat.of().formatHex(digest, 0, 6);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is part of every JRE", e);
        }
    }

    /** Tar entries at their absolute paths; a symbolic link on the way is kept as a link and followed. */
    private static final class RootFilesystem {
        private final TarArchiveOutputStream out;
        private final Set<String> written = new HashSet<>();
        private final Set<Path> walked = new HashSet<>();

        RootFilesystem(TarArchiveOutputStream out) {
            this.out = out;
        }

        void add(Path absolute) throws IOException {
            Path current = absolute.getRoot();
            int names = absolute.getNameCount();
            for (int i = 0; i < names; i++) {
                Path next = current.resolve(absolute.getName(i));
                if (Files.isSymbolicLink(next)) {
                    Path target = Files.readSymbolicLink(next);
                    addLink(next, target);
                    Path resolved = next.getParent().resolve(target).normalize();
                    add(i + 1 < names ? resolved.resolve(absolute.subpath(i + 1, names)) : resolved);
                    return;
                }
                if (i + 1 < names) {
                    addDirectory(name(next), 0755);
                }
                current = next;
            }
            if (Files.isDirectory(absolute, LinkOption.NOFOLLOW_LINKS)) {
                if (!walked.add(absolute)) {
                    return;
                }
                addDirectory(name(absolute), 0755);
                try (Stream<Path> children = Files.list(absolute)) {
                    for (Path child : children.sorted().toList()) {
                        add(child);
                    }
                }
            } else if (Files.isRegularFile(absolute, LinkOption.NOFOLLOW_LINKS) && written.add(name(absolute))) {
                TarArchiveEntry entry = new TarArchiveEntry(name(absolute));
                entry.setSize(Files.size(absolute));
                entry.setMode(Files.isExecutable(absolute) ? 0755 : 0644);
                entry.setModTime(Files.getLastModifiedTime(absolute));
                out.putArchiveEntry(entry);
                Files.copy(absolute, out);
                out.closeArchiveEntry();
            }
        }

        void addDirectory(String name, int mode) throws IOException {
            if (written.add(name + "/")) {
                TarArchiveEntry entry = new TarArchiveEntry(name + "/", TarArchiveEntry.LF_DIR);
                entry.setMode(mode);
                out.putArchiveEntry(entry);
                out.closeArchiveEntry();
            }
        }

        void addText(String name, String text) throws IOException {
            byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
            if (written.add(name)) {
                TarArchiveEntry entry = new TarArchiveEntry(name);
                entry.setSize(bytes.length);
                entry.setMode(0644);
                out.putArchiveEntry(entry);
                out.write(bytes);
                out.closeArchiveEntry();
            }
        }

        private void addLink(Path link, Path target) throws IOException {
            if (written.add(name(link))) {
                TarArchiveEntry entry = new TarArchiveEntry(name(link), TarArchiveEntry.LF_SYMLINK);
                entry.setLinkName(target.toString());
                out.putArchiveEntry(entry);
                out.closeArchiveEntry();
            }
        }

        private static String name(Path absolute) {
            return absolute.getRoot().relativize(absolute).toString();
        }
    }
}
