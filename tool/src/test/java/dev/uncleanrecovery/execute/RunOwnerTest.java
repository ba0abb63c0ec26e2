// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.execute;

import static org.assertj.core.api.Assertions.assertThat;

import dev.uncleanrecovery.execute.RunOwner.Liveness;
import dev.uncleanrecovery.execute.RunOwner.ProcessTable;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * When a run's owner counts as ended: only where it is provably in this process table (same boot, same pid namespace)
 * and its pid is gone or is another process. The judgement is made against a /proc laid out in a folder, then against
 * this host's own.
 */
class RunOwnerTest {

    private static final String BOOT = "6c841718-5c4b-49ba-bab5-62cab637f453";
    private static final long NAMESPACE = 4026531836L;
    private static final ProcessTable HERE = new ProcessTable(BOOT, NAMESPACE);
    private static final long SELF = ProcessHandle.current().pid();

    @TempDir
    Path proc;

    /** A /proc of this process (its own pid as /proc/self), in boot {@code BOOT} and namespace {@code NAMESPACE}. */
    private RunOwner.Proc procOf(String boot, long namespace) throws Exception {
        Files.createDirectories(proc.resolve("sys/kernel/random"));
        Files.writeString(proc.resolve("sys/kernel/random/boot_id"), boot + "\n");
        Files.createDirectories(proc.resolve("self/ns"));
        Files.createSymbolicLink(proc.resolve("self/ns/pid"), Path.of("pid:[" + namespace + "]"));
        Files.writeString(proc.resolve("self/stat"), stat(SELF, "java", 'S', 1000));
        return new RunOwner.Proc(proc);
    }

    private void process(long pid, String comm, char state, long startTicks) throws Exception {
        Files.createDirectories(proc.resolve(String.valueOf(pid)));
        Files.writeString(proc.resolve(pid + "/stat"), stat(pid, comm, state, startTicks));
    }

    /** proc(5)'s line: starttime is field 22. */
    private static String stat(long pid, String comm, char state, long startTicks) {
        StringBuilder line = new StringBuilder(pid + " (" + comm + ") " + state);
        for (int field = 4; field <= 21; field++) {
            line.append(' ').append(field);
        }
        return line.append(' ').append(startTicks).append(" 3133440 421 18446744073709551615\n").toString();
    }

    private static RunOwner owner(long pid, ProcessTable table, long startTicks) {
        return new RunOwner("bastion", pid, Instant.EPOCH, table, startTicks);
    }

    @Test
    void an_owner_whose_pid_is_gone_in_this_process_table_has_ended() throws Exception {
        RunOwner.Proc here = procOf(BOOT, NAMESPACE);

        assertThat(owner(4242, HERE, 5000).seenFrom(here).liveness()).isEqualTo(Liveness.ENDED);
    }

    @Test
    void a_pid_now_held_by_a_process_started_at_another_tick_is_not_the_owner() throws Exception {
        RunOwner.Proc here = procOf(BOOT, NAMESPACE);
        process(4242, "sleep", 'S', 9000);

        assertThat(owner(4242, HERE, 5000).seenFrom(here).liveness()).isEqualTo(Liveness.ENDED);
        assertThat(owner(4242, HERE, 9000).seenFrom(here).liveness()).isEqualTo(Liveness.RUNNING);
    }

    @Test
    void an_owner_that_exited_and_was_not_reaped_yet_has_ended() throws Exception {
        RunOwner.Proc here = procOf(BOOT, NAMESPACE);
        process(4242, "java", 'Z', 5000);

        assertThat(owner(4242, HERE, 5000).seenFrom(here).liveness()).isEqualTo(Liveness.ENDED);
    }

    @Test
    void an_owner_in_another_pid_namespace_is_never_judged_from_this_one() throws Exception {
        RunOwner.Proc here = procOf(BOOT, NAMESPACE);

        RunOwner.Seen seen = owner(4242, new ProcessTable(BOOT, 4026532174L), 5000).seenFrom(here);

        assertThat(seen.liveness()).isEqualTo(Liveness.UNKNOWN);
        assertThat(seen.why()).contains("another pid namespace (pid:[4026532174], here pid:[4026531836])");
    }

    @Test
    void an_owner_of_another_boot_or_host_is_never_judged_from_this_one() throws Exception {
        RunOwner.Proc here = procOf(BOOT, NAMESPACE);

        RunOwner.Seen seen = owner(4242, new ProcessTable("0f0e0d0c-5c4b-49ba-bab5-62cab637f453", NAMESPACE), 5000)
                .seenFrom(here);

        assertThat(seen.liveness()).isEqualTo(Liveness.UNKNOWN);
        assertThat(seen.why()).contains("another host or before a reboot");
    }

    @Test
    void an_owner_that_did_not_record_its_process_table_is_never_judged() throws Exception {
        RunOwner.Proc here = procOf(BOOT, NAMESPACE);

        assertThat(owner(4242, null, -1).seenFrom(here).liveness()).isEqualTo(Liveness.UNKNOWN);
        assertThat(owner(4242, HERE, -1).seenFrom(here).liveness()).isEqualTo(Liveness.UNKNOWN);
    }

    @Test
    void a_proc_that_is_not_this_processs_own_tells_nothing() throws Exception {
        // as after unshare --pid without --mount-proc: /proc/self is another pid than this process's own
        procOf(BOOT, NAMESPACE);
        Files.writeString(proc.resolve("self/stat"), stat(SELF + 1, "java", 'S', 1000));
        RunOwner.Proc mountedForAnother = new RunOwner.Proc(proc);

        assertThat(mountedForAnother.table()).isEmpty();
        assertThat(owner(4242, HERE, 5000).seenFrom(mountedForAnother).liveness()).isEqualTo(Liveness.UNKNOWN);
    }

    @Test
    void no_proc_tells_nothing() {
        RunOwner.Proc none = new RunOwner.Proc(proc.resolve("missing"));

        assertThat(none.table()).isEmpty();
        assertThat(owner(4242, HERE, 5000).seenFrom(none).liveness()).isEqualTo(Liveness.UNKNOWN);
    }

    @Test
    void a_command_name_with_spaces_and_parentheses_does_not_shift_the_fields() {
        RunOwner.ProcStat stat = RunOwner.ProcStat.parse(stat(77, "a) (b c", 'R', 123456));

        assertThat(stat).isEqualTo(new RunOwner.ProcStat(77, 'R', 123456));
    }

    @Test
    void on_this_host_a_live_process_runs_and_an_ended_one_has_ended() throws Exception {
        RunOwner self = RunOwner.current();
        assertThat(self.table()).as("this host has /proc").isNotNull();
        assertThat(self.startTicks()).isPositive();
        Process child = new ProcessBuilder("sleep", "60").start();
        RunOwner running;
        try {
            long ticks = RunOwner.Proc.THIS_HOST.startTicks(child.pid()).orElseThrow();
            running = new RunOwner(self.host(), child.pid(), null, self.table(), ticks);

            assertThat(running.seen().liveness()).isEqualTo(Liveness.RUNNING);
        } finally {
            child.destroy();
            child.waitFor(10, TimeUnit.SECONDS);
        }
        assertThat(running.seen().liveness()).isEqualTo(Liveness.ENDED);
        // this very process: a run it made before this one is over
        assertThat(self.seen().liveness()).isEqualTo(Liveness.ENDED);
    }
}
