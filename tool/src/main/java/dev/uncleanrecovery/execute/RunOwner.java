// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.execute;

import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Instant;
import java.util.Optional;
import java.util.UUID;

/**
 * The process of one run, as another run names it and judges whether it has ended. A pid means something only in its
 * process table: the kernel's boot ({@code /proc/sys/kernel/random/boot_id}, new at every boot) and the pid namespace
 * (the inode of {@code /proc/self/ns/pid}: runs in containers with pid namespaces of their own, on one host, do not
 * see each other's pids, and their host names may be the same or "unknown"). Its start is the process's start in
 * clock ticks since boot ({@code /proc/<pid>/stat} field 22), which a stepped clock does not move and which tells it
 * from a later process given the same pid.
 *
 * @param host       for people only: many hosts say "unknown", and pods on one node share a name
 * @param started    for people only: when the process started by the wall clock; null when not known
 * @param table      the process table its pid belongs to; null when not known (no /proc where it ran, an older
 *                   version of the tool)
 * @param startTicks the process's start in clock ticks since boot; -1 when not known
 */
public record RunOwner(String host, long pid, Instant started, ProcessTable table, long startTicks) {

    /** One kernel boot and one pid namespace: where a pid names one process at a time. */
    public record ProcessTable(String bootId, long pidNamespace) {

        /**
         * @param bootId as the kernel prints it (a UUID); refused otherwise, so that a name or file cannot make two
         *               different tables look alike
         */
        public ProcessTable {
            bootId = UUID.fromString(bootId).toString();
        }
    }

    /** What this process can tell of an owner's run. */
    public enum Liveness {
        /** Its process is gone, or its pid belongs to a later process: provably over. */
        ENDED,
        /** Its process runs in this process table. */
        RUNNING,
        /** Nothing can be proven from here: another host, boot or pid namespace, or its identity is not recorded. */
        UNKNOWN
    }

    /** The judgement, and for {@link Liveness#UNKNOWN} why nothing can be told. */
    public record Seen(Liveness liveness, String why) {
    }

    /** This process. */
    public static RunOwner current() {
        return current(Proc.THIS_HOST);
    }

    static RunOwner current(Proc proc) {
        ProcessHandle self = ProcessHandle.current();
        Instant started = self.info().startInstant().map(s -> Instant.ofEpochMilli(s.toEpochMilli())).orElse(null);
        Optional<ProcessTable> table = proc.table();
        long ticks = table.isEmpty() ? -1 : proc.startTicks(self.pid()).orElse(-1L);
        return new RunOwner(thisHost(), self.pid(), started, ticks < 0 ? null : table.get(), ticks);
    }

    public static String thisHost() {
        try {
            return InetAddress.getLocalHost().getHostName();
        } catch (UnknownHostException e) {
            return "unknown";
        }
    }

    /** Whether this owner's run is over, as this process can prove it. */
    public Seen seen() {
        return seenFrom(Proc.THIS_HOST);
    }

    /**
     * Ended only where the owner is provably in this process table (same boot, same pid namespace, read from a /proc
     * that is this process's own) and its pid is gone or holds a process started at another tick. The owner being this
     * very process is over too: a process runs one command, and a run's lock or journal outlives it only by mistake.
     */
    Seen seenFrom(Proc proc) {
        if (table == null || startTicks < 0) {
            return new Seen(Liveness.UNKNOWN, "it did not record its process table (an older version of the tool, or no"
                    + " /proc where it ran)");
        }
        Optional<ProcessTable> here = proc.table();
        if (here.isEmpty()) {
            return new Seen(Liveness.UNKNOWN, "this process cannot read its own process table (no /proc)");
        }
        if (!here.get().bootId().equals(table.bootId())) {
            return new Seen(Liveness.UNKNOWN, "it ran on another host or before a reboot (boot id " + table.bootId()
                    + ", here " + here.get().bootId() + ")");
        }
        if (here.get().pidNamespace() != table.pidNamespace()) {
            return new Seen(Liveness.UNKNOWN, "it ran in another pid namespace (pid:[" + table.pidNamespace()
                    + "], here pid:[" + here.get().pidNamespace() + "]), another container on this host");
        }
        Optional<ProcStat> stat;
        try {
            stat = proc.stat(pid);
        } catch (IOException e) {
            return new Seen(Liveness.UNKNOWN, "/proc/" + pid + "/stat cannot be read: " + e.getMessage());
        }
        if (stat.isEmpty() || stat.get().startTicks() != startTicks || stat.get().hasExited()) {
            return new Seen(Liveness.ENDED, null);
        }
        if (pid == ProcessHandle.current().pid()) {
            return new Seen(Liveness.ENDED, null);
        }
        return new Seen(Liveness.RUNNING, null);
    }

    /** "pid 4242 on host-a, started 2026-12-04T05:00:00.123Z". */
    public String describe() {
        return "pid " + pid + " on " + host + (started == null ? "" : ", started " + started);
    }

    /** The fields of {@code /proc/<pid>/stat} a judgement needs. */
    record ProcStat(long pid, char state, long startTicks) {

        /** A zombie (Z) or a dead task (X): it has exited and changes nothing any more. */
        boolean hasExited() {
            return state == 'Z' || state == 'X';
        }

        /**
         * proc(5): "pid (comm) state ppid ... starttime(22) ..."; comm may hold spaces and parentheses, so the fields
         * are counted from the last ')'.
         */
        static ProcStat parse(String line) {
            int open = line.indexOf('(');
            int close = line.lastIndexOf(')');
            if (open < 0 || close < open) {
                throw new IllegalArgumentException("not a /proc/<pid>/stat line: " + line);
            }
            String[] rest = line.substring(close + 1).strip().split(" +");
            // rest[0] is field 3 (state): field 22 (starttime) is rest[19]
            if (rest.length < 20 || rest[0].length() != 1) {
                throw new IllegalArgumentException("not a /proc/<pid>/stat line: " + line);
            }
            return new ProcStat(Long.parseLong(line.substring(0, open).strip()), rest[0].charAt(0),
                    Long.parseLong(rest[19]));
        }
    }

    /** A /proc file system: this host's at /proc, or a directory laid out the same way. */
    record Proc(Path root) {

        static final Proc THIS_HOST = new Proc(Path.of("/proc"));

        /**
         * This process's table; empty when /proc cannot say, or when the /proc mounted here is not of this process's
         * pid namespace (its /proc/self is another pid than this process's own, as after unshare --pid without
         * --mount-proc): its pids would then be another table's.
         */
        Optional<ProcessTable> table() {
            try {
                String bootId = read(root.resolve("sys/kernel/random/boot_id")).strip();
                String link = Files.readSymbolicLink(root.resolve("self/ns/pid")).toString(); // "pid:[4026531836]"
                if (!link.startsWith("pid:[") || !link.endsWith("]")) {
                    return Optional.empty();
                }
                long namespace = Long.parseLong(link.substring(5, link.length() - 1));
                ProcStat self = ProcStat.parse(read(root.resolve("self/stat")));
                if (self.pid() != ProcessHandle.current().pid()) {
                    return Optional.empty();
                }
                return Optional.of(new ProcessTable(bootId, namespace));
            } catch (IOException | RuntimeException e) {
                return Optional.empty();
            }
        }

        Optional<Long> startTicks(long pid) {
            try {
                return stat(pid).map(ProcStat::startTicks);
            } catch (IOException | RuntimeException e) {
                return Optional.empty();
            }
        }

        /**
         * @return empty when there is no such process
         * @throws IOException when the file exists and cannot be read
         */
        Optional<ProcStat> stat(long pid) throws IOException {
            String line;
            try {
                line = read(root.resolve(pid + "/stat"));
            } catch (NoSuchFileException e) {
                return Optional.empty();
            }
            try {
                return Optional.of(ProcStat.parse(line));
            } catch (IllegalArgumentException e) {
                throw new IOException(e.getMessage(), e);
            }
        }

        /**
         * A /proc file whole, in reads of a buffer's size: /proc files say they are empty, and Files.readAllBytes then
         * reads one byte and asks again from offset 1, where a sysctl file (pid_max) answers end of file.
         */
        private static String read(Path file) throws IOException {
            try (InputStream in = Files.newInputStream(file)) {
                return new String(in.readNBytes(64 * 1024), StandardCharsets.UTF_8);
            }
        }
    }
}
