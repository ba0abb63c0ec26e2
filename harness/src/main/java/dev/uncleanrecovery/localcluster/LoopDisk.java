// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.localcluster;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A small ext4 file system in an image file, loop-mounted with {@code errors=remount-ro}, that holds one of a
 * broker's log directories and can fail under the running broker. {@link #fail()} raises an ext4 error
 * ({@code /sys/fs/ext4/<loop>/trigger_fs_error}), as a disk's I/O error does: the kernel aborts the journal and
 * turns the file system read-only, so every write Kafka makes there fails with an {@code IOException} ("Read-only
 * file system") and Kafka marks the directory offline, while its files stay readable, as on a disk that stopped
 * taking writes. Root only (mount and loop devices); the log directory is {@code data} inside the mount, since the
 * mount's {@code lost+found} is no partition and Kafka refuses to load it.
 */
final class LoopDisk {

    private static final Logger LOG = LoggerFactory.getLogger(LocalKafkaCluster.class);
    /** A sparse image: only what Kafka writes takes room on the disk under it. */
    private static final long IMAGE_BYTES = 256L << 20;

    private final Path image;
    private final Path mountPoint;
    private boolean mounted;

    LoopDisk(Path brokerDirectory) {
        this.image = brokerDirectory.resolve("disk.img");
        this.mountPoint = brokerDirectory.resolve("disk");
    }

    /** The log directory Kafka is given: {@code <broker dir>/disk/data}. */
    Path logDir() {
        return mountPoint.resolve("data");
    }

    synchronized void mount() {
        if (mounted) {
            return;
        }
        try {
            Files.createDirectories(mountPoint);
            Files.deleteIfExists(image);
            Files.createFile(image);
            try (var file = new java.io.RandomAccessFile(image.toFile(), "rw")) {
                file.setLength(IMAGE_BYTES);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("could not make the disk image " + image, e);
        }
        run("mkfs.ext4", "-q", "-F", image.toString());
        // -o loop frees the loop device again when the file system is unmounted.
        run("mount", "-o", "loop,errors=remount-ro", image.toString(), mountPoint.toString());
        mounted = true;
        try {
            Files.createDirectories(logDir());
        } catch (IOException e) {
            throw new UncheckedIOException("could not create " + logDir(), e);
        }
        LOG.info("mounted {} on {} ({})", image, mountPoint, loopDevice());
    }

    /**
     * Flushes the file system, then raises an ext4 error on it: from now on it is read-only, its files still readable.
     */
    synchronized void fail() {
        if (!mounted) {
            throw new IllegalStateException(mountPoint + " is not mounted");
        }
        // What Kafka wrote before the failure is on the disk, as the kernel's writeback puts it there within seconds;
        // pages still dirty when the journal aborts are dropped at unmount, and a repaired disk would lack them.
        run("sync", "-f", logDir().toString());
        String device = loopDevice();
        Path trigger = Path.of("/sys/fs/ext4", Path.of(device).getFileName().toString(), "trigger_fs_error");
        try {
            Files.writeString(trigger, "log directory failed by the test harness", StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException("could not raise an ext4 error through " + trigger, e);
        }
        LOG.info("raised an ext4 error on {} ({}): it is read-only now", mountPoint, device);
    }

    /**
     * Repairs the failed file system as an operator does once the disk is back: unmount, {@code e2fsck -fy} (which clears
     * the error the journal recorded), mount again read-write. The broker must be stopped: it holds files there.
     */
    synchronized void repair() {
        if (!mounted) {
            throw new IllegalStateException(mountPoint + " is not mounted");
        }
        run("umount", mountPoint.toString());
        mounted = false;
        List<String> output = new ArrayList<>();
        int status = execute(output, "e2fsck", "-fy", image.toString());
        // 0: clean, 1: errors corrected (e2fsck(8))
        if (status != 0 && status != 1) {
            throw new LocalClusterException("e2fsck -fy " + image + " exited with " + status + ": "
                    + String.join("\n", output));
        }
        run("mount", "-o", "loop,errors=remount-ro", image.toString(), mountPoint.toString());
        mounted = true;
        LOG.info("repaired {} and mounted it again on {}", image, mountPoint);
    }

    /** Unmounts the file system (lazily if something still holds it) and deletes the image; safe to call twice. */
    synchronized void unmount() {
        if (mounted) {
            if (exitCode("umount", mountPoint.toString()) != 0
                    && exitCode("umount", "-l", mountPoint.toString()) != 0) {
                LOG.warn("could not unmount {}; unmount it by hand (umount -l {})", mountPoint, mountPoint);
                return;
            }
            mounted = false;
        }
        try {
            Files.deleteIfExists(image);
        } catch (IOException e) {
            LOG.warn("could not delete {}: {}", image, e.toString());
        }
    }

    private String loopDevice() {
        return run("findmnt", "-n", "-o", "SOURCE", mountPoint.toString()).strip();
    }

    private static String run(String... command) {
        List<String> output = new ArrayList<>();
        int status = execute(output, command);
        if (status != 0) {
            throw new LocalClusterException(String.join(" ", command) + " exited with " + status + ": "
                    + String.join("\n", output)
                    + " (a log directory on a disk of its own needs root and loop devices)");
        }
        return String.join("\n", output);
    }

    private static int exitCode(String... command) {
        return execute(new ArrayList<>(), command);
    }

    private static int execute(List<String> output, String... command) {
        try {
            Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
            String text = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (!process.waitFor(60, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                output.add("no exit within 60 s");
                return -1;
            }
            output.add(text);
            return process.exitValue();
        } catch (IOException e) {
            output.add(e.toString());
            return -1;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new LocalClusterException("interrupted while running " + String.join(" ", command), e);
        }
    }
}
