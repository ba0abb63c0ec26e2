// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.dist;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The release archive unpacked into a directory of its own, run as an operator's bastion host would run it: a PATH
 * that holds a Java runtime and the shell's basic commands, and no Maven.
 */
final class UnpackedArchive {

    /** What the bin script and a shell need; mvn is not among them. */
    private static final List<String> COMMANDS = List.of("bash", "sh", "dirname", "basename", "find", "mkdir", "nohup",
            "mv", "rm", "rmdir", "cat", "mktemp", "env", "sleep", "ls", "readlink", "stat", "cksum", "cut");

    final Path home;
    private final Path path;

    private UnpackedArchive(Path home, Path path) {
        this.home = home;
        this.path = path;
    }

    static Path archive() {
        String file = System.getProperty("release.archive");
        if (file == null || !Files.isRegularFile(Path.of(file))) {
            throw new IllegalStateException("the release archive " + file + " is not built: run mvn package first");
        }
        return Path.of(file);
    }

    static UnpackedArchive into(Path dir) throws IOException, InterruptedException {
        Result untar = exec(dir, List.of("tar", "-xzf", archive().toString(), "-C", dir.toString()), null, Map.of());
        if (untar.exitCode() != 0) {
            throw new IllegalStateException("tar failed: " + untar.err());
        }
        Path home;
        try (var entries = Files.list(dir)) {
            home = entries.filter(Files::isDirectory).findFirst().orElseThrow();
        }
        Path bin = Files.createDirectories(dir.resolve("path-without-maven"));
        Files.createSymbolicLink(bin.resolve("java"), Path.of(System.getProperty("java.home"), "bin", "java"));
        for (String command : COMMANDS) {
            for (String where : List.of("/usr/bin", "/bin")) {
                Path found = Path.of(where, command);
                if (Files.isExecutable(found)) {
                    Files.createSymbolicLink(bin.resolve(command), found);
                    break;
                }
            }
        }
        return new UnpackedArchive(home, bin);
    }

    /** Runs {@code bin/kafka-unclean-recovery.sh} with these arguments, from a directory outside the archive. */
    Result tool(Path workDir, String... args) throws IOException, InterruptedException {
        return tool(workDir, Map.of(), args);
    }

    /** {@link #tool}, with these variables in its environment besides PATH and HOME. */
    Result tool(Path workDir, Map<String, String> environment, String... args) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>();
        command.add(path.resolve("bash").toString());
        command.add(home.resolve("bin/kafka-unclean-recovery.sh").toString());
        command.addAll(List.of(args));
        return exec(workDir, command, path, environment);
    }

    /** Runs a shell command line with only the archive's PATH. */
    Result shell(Path workDir, String line) throws IOException, InterruptedException {
        return exec(workDir, List.of(path.resolve("bash").toString(), "-c", line), path, Map.of());
    }

    record Result(int exitCode, String out, String err) {
    }

    private static Result exec(Path workDir, List<String> command, Path pathDir, Map<String, String> environment)
            throws IOException, InterruptedException {
        ProcessBuilder builder = new ProcessBuilder(command).directory(workDir.toFile());
        Path out = Files.createTempFile(workDir, "out", ".txt");
        Path err = Files.createTempFile(workDir, "err", ".txt");
        builder.redirectOutput(out.toFile()).redirectError(err.toFile());
        if (pathDir != null) {
            builder.environment().clear();
            builder.environment().put("PATH", pathDir.toString());
            builder.environment().put("HOME", workDir.toString());
            builder.environment().putAll(environment);
        }
        Process process = builder.start();
        if (!process.waitFor(180, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            throw new IllegalStateException(command + " did not finish within 180 s");
        }
        Result result = new Result(process.exitValue(), Files.readString(out, StandardCharsets.UTF_8),
                Files.readString(err, StandardCharsets.UTF_8));
        Files.delete(out);
        Files.delete(err);
        return result;
    }
}
