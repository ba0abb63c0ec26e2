// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.support;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What the kernel is asked when the tool publishes or removes a file, read with strace(1): the new name (a hard link
 * or a rename) or the removal, then an fsync of the directory that holds it, before the next step. Without the
 * directory's fsync a host crash right after the reorder can lose the journal's name. Skipped, with the reason, where
 * strace is not installed; CI installs it and checks the test ran.
 */
class DurableFilesSyscallTest {

    private static final Pattern MARKER = Pattern.compile("marker-([a-z-]+)");
    /** A syscall that makes or removes a name, with the path it names last. */
    private static final Pattern NAMING = Pattern.compile(
            "^\\d+\\s+(linkat|link|renameat2?|rename|unlinkat|unlink|mkdirat|mkdir)\\(.*\"([^\"]+)\"[^\"]*\\)\\s+=\\s+0");
    private static final Pattern FSYNC = Pattern.compile("^\\d+\\s+f(?:data)?sync\\(\\d+<([^>]+)>\\)\\s+=\\s+0");

    @TempDir
    Path dir;

    @Test
    void every_name_the_tool_creates_or_removes_is_flushed_into_its_directory_before_the_next_step() throws Exception {
        Path trace = dir.resolve("strace.txt");
        Path files = Files.createDirectory(dir.resolve("files")).toRealPath();
        List<String> command = List.of(strace(), "-f", "-y", "-o", trace.toString(), "-e",
                "trace=linkat,link,renameat,renameat2,rename,unlinkat,unlink,mkdirat,mkdir,fsync,fdatasync,"
                        + "newfstatat,stat,lstat,statx,access,faccessat,faccessat2",
                Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-cp",
                System.getProperty("java.class.path"), DurableFilesSyscalls.class.getName(), files.toString());
        Process child = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(dir.resolve("out.txt").toFile())
                .start();
        assertThat(child.waitFor(120, TimeUnit.SECONDS)).isTrue();
        assertThat(child.exitValue()).as(Files.readString(dir.resolve("out.txt"))).isZero();

        Map<String, List<String>> steps = steps(Files.readAllLines(trace), files.toString());
        assertThat(steps.keySet()).containsExactly("journal-written", "journal-deleted", "updated", "written-new",
                "written-under-free-name", "directory-created");
        steps.forEach((step, calls) -> {
            List<String> named = new ArrayList<>();
            for (String call : calls) {
                Matcher n = NAMING.matcher(call);
                if (n.find() && !n.group(2).endsWith(".tmp")) {
                    named.add(n.group(2));
                }
            }
            assertThat(named).as(step + ": a name is made or removed\n" + String.join("\n", calls)).isNotEmpty();
            for (String name : named) {
                String directory = Path.of(name).getParent().toString();
                int at = indexOf(calls, name);
                boolean flushed = calls.subList(at, calls.size()).stream().map(FSYNC::matcher)
                        .anyMatch(f -> f.find() && f.group(1).equals(directory));
                assertThat(flushed).as(step + ": " + name + " is followed by an fsync of " + directory + "\n"
                        + String.join("\n", calls)).isTrue();
            }
        });
    }

    /** The syscalls between one marker and the next, per step, in the order the child made them. */
    private static Map<String, List<String>> steps(List<String> trace, String files) {
        Map<String, List<String>> steps = new LinkedHashMap<>();
        List<String> current = null;
        for (String line : whole(trace)) {
            Matcher m = MARKER.matcher(line);
            if (m.find() && line.contains(files)) {
                current = m.group(1).equals("end") ? null : steps.computeIfAbsent(m.group(1), k -> new ArrayList<>());
                continue;
            }
            if (current != null && (NAMING.matcher(line).find() || FSYNC.matcher(line).find())) {
                current.add(line);
            }
        }
        return steps;
    }

    /**
     * The trace with each call on one line: a call another thread interrupts is printed as "... <unfinished ...>" and
     * finished later as "PID <... NAME resumed>...", and is put back together at the place it began.
     */
    private static List<String> whole(List<String> trace) {
        List<String> lines = new ArrayList<>();
        Map<String, Integer> unfinished = new java.util.HashMap<>();
        for (String line : trace) {
            String pid = line.split("\\s+", 2)[0];
            if (line.endsWith("<unfinished ...>")) {
                unfinished.put(pid, lines.size());
                lines.add(line.substring(0, line.length() - "<unfinished ...>".length()).stripTrailing());
            } else if (line.contains(" resumed>") && unfinished.containsKey(pid)) {
                int at = unfinished.remove(pid);
                lines.set(at, lines.get(at) + line.substring(line.indexOf(" resumed>") + " resumed>".length()));
            } else {
                lines.add(line);
            }
        }
        return lines;
    }

    private static int indexOf(List<String> calls, String name) {
        for (int i = 0; i < calls.size(); i++) {
            if (calls.get(i).contains("\"" + name + "\"")) {
                return i;
            }
        }
        return calls.size();
    }

    private static String strace() throws IOException {
        for (String dir : System.getenv().getOrDefault("PATH", "/usr/bin").split(":")) {
            Path candidate = Path.of(dir, "strace");
            if (Files.isExecutable(candidate)) {
                return candidate.toString();
            }
        }
        Assumptions.abort("strace(1) is not installed: the syscalls cannot be read (Debian: apt-get install strace)");
        return null;
    }
}
