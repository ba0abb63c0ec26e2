// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.localcluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Waiting on a real, many-threaded JVM that is stopped and continued with kill(1), as a paused broker is. */
class ThreadStatesTest {

    @TempDir
    Path dir;

    @Test
    void every_thread_is_stopped_after_sigstop_and_none_after_sigcont() throws Exception {
        Path source = dir.resolve("Idle.java");
        Files.writeString(source, "public class Idle { public static void main(String[] a) throws Exception {"
                + " System.out.println(\"up\"); System.out.flush(); Thread.sleep(120_000); } }");
        Path java = Path.of(System.getProperty("java.home"), "bin", "java");
        Process jvm = new ProcessBuilder(java.toString(), source.toString()).redirectErrorStream(true).start();
        try {
            assertThat(new String(jvm.getInputStream().readNBytes(2))).isEqualTo("up");
            long pid = jvm.pid();
            assertThat(ThreadStates.states(pid).values()).hasSizeGreaterThan(5);

            kill("STOP", pid);
            ThreadStates.await(pid, true, Duration.ofSeconds(10));
            assertThat(ThreadStates.states(pid).values()).containsOnly('T');

            kill("CONT", pid);
            ThreadStates.await(pid, false, Duration.ofSeconds(10));
            assertThat(ThreadStates.states(pid).values()).doesNotContain('T');
        } finally {
            jvm.destroyForcibly();
            jvm.waitFor(10, TimeUnit.SECONDS);
        }
    }

    @Test
    void a_running_process_that_is_never_stopped_fails_the_wait_naming_its_threads() throws Exception {
        Process sleeper = new ProcessBuilder("sleep", "60").start();
        try {
            assertThatThrownBy(() -> ThreadStates.await(sleeper.pid(), true, Duration.ofMillis(200)))
                    .isInstanceOf(LocalClusterException.class)
                    .hasMessageContaining("process " + sleeper.pid())
                    .hasMessageContaining("1 thread(s) still not stopped")
                    .hasMessageContaining(sleeper.pid() + ":S");
        } finally {
            sleeper.destroyForcibly();
            sleeper.waitFor(10, TimeUnit.SECONDS);
        }
    }

    @Test
    void a_process_that_has_exited_has_no_thread_to_wait_for() throws Exception {
        Process done = new ProcessBuilder("true").start();
        done.waitFor(10, TimeUnit.SECONDS);

        assertThat(ThreadStates.states(done.pid())).isEmpty();
        ThreadStates.await(done.pid(), true, Duration.ofMillis(200));
        ThreadStates.await(done.pid(), false, Duration.ofMillis(200));
    }

    private static void kill(String signal, long pid) throws Exception {
        assertThat(new ProcessBuilder("kill", "-" + signal, Long.toString(pid)).start().waitFor()).isZero();
    }
}
