// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.cli;

import static dev.uncleanrecovery.localcluster.LastReplicaStandingOutage.LONGEST_SURVIVOR;
import static dev.uncleanrecovery.localcluster.LastReplicaStandingOutage.SHORTEST_SURVIVOR;
import static org.assertj.core.api.Assertions.assertThat;

import dev.uncleanrecovery.harness.KafkaClusterTest;
import dev.uncleanrecovery.localcluster.LastReplicaStandingOutage;
import dev.uncleanrecovery.localcluster.LocalKafkaCluster;
import dev.uncleanrecovery.formats.ResultFile;
import dev.uncleanrecovery.formats.SalvageManifest;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.record.internal.FileLogInputStream.FileChannelRecordBatch;
import org.apache.kafka.common.record.internal.FileRecords;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A doomed range of a gigabyte salvaged by the tool in a JVM of its own with a 256 MiB heap, as the launcher runs it
 * (parallel GC, client compiler): the salvage writes each Fetch answer to its segment file as it arrives, so the heap
 * does not grow with the range. The outage is KIP-966's last replica standing ({@link LastReplicaStandingOutage})
 * with values of 1 MB in the round broker 3 misses: broker 2 holds 1,080 such records past 3's log end, 1.006 GiB in
 * two segments. Told never to elect 2, {@code recover} elects 3 and first copies 2's [1080, 2160) off it.
 *
 * <p>About 70 s on a shared 2-core machine: 17 s to produce and replicate the gigabyte, 18 s of broker sessions
 * timing out after the kills, the restarts that recover the logs, and 13 s for the tool (plan, salvage, election).
 * The tool's heap held 12 MiB live after a collection, 75 MiB at most before one.
 */
@KafkaClusterTest
class GigabyteSalvageClusterTest {

    private static final String TOPIC = "gigabyte";
    private static final TopicPartition PARTITION = new TopicPartition(TOPIC, 0);
    /** Each record a batch of its own, within the producer's max.request.size and the broker's message.max.bytes. */
    private static final int VALUE_BYTES = 1_000_000;
    /** Records every replica holds, and as many past them on 2 (and 1, which is dead). */
    private static final long RECORDS = 1_080;
    private static final Pattern GC_PAUSE = Pattern.compile("(\\d+)M->(\\d+)M\\((\\d+)M\\)");

    @TempDir
    static Path dir;

    @BeforeAll
    static void brokerTwoHoldsAGigabytePastBrokerThree(LocalKafkaCluster cluster) {
        long started = System.nanoTime();
        LastReplicaStandingOutage.reproduce(cluster, TOPIC, 1, RECORDS, VALUE_BYTES, 0, step -> System.out.printf(
                "%6.1f s: %s%n", (System.nanoTime() - started) / 1e9, step));
    }

    @Test
    void a_gigabyte_the_election_truncates_is_salvaged_by_a_tool_with_256_mib_of_heap(LocalKafkaCluster cluster)
            throws Exception {
        // given: the batches broker 2 holds from the cut on, read off its disk before the election truncates them
        Batches held = Batches.of(segments(cluster.disk().replicaDirectory(LONGEST_SURVIVOR, PARTITION)), RECORDS);
        assertThat(held.bytes()).as("broker 2 holds more than a GiB past the cut").isGreaterThan(1L << 30);
        assertThat(held.records()).isEqualTo(RECORDS);

        // when: recover elects 3 (2 excluded) in its own JVM, the heap capped far below the range
        Path plan = dir.resolve("gigabyte.json");
        Path gcLog = dir.resolve("gc.log");
        long started = System.nanoTime();
        ToolJvm.Run run = ToolJvm.runToTheEnd(dir, List.of("-Xmx256m", "-XX:+UseParallelGC", "-XX:TieredStopAtLevel=1",
                        "-Xlog:gc:file=" + gcLog), Duration.ofMinutes(5),
                "--bootstrap-server", cluster.bootstrapServers(), "recover", "--automated-recovery", "--reason", "test",
                "--accept-unknown-loss", "--strategy", "proactive", "--probe-timeout-ms", "3000", "--topic", TOPIC,
                "--exclude-broker", String.valueOf(LONGEST_SURVIVOR), "--output-file", plan.toString());
        long toolMillis = (System.nanoTime() - started) / 1_000_000;

        // then: it ended normally (broker 1 is down, so its loss is stated as unknown), 3 elected, and 2's doomed
        // range is in the salvage directory byte for byte
        assertThat(run.exitCode()).as(run.output()).isEqualTo(ExitCode.OK);
        ResultFile.Partition elected = ResultFile.read(dir.resolve("gigabyte-result.json")).partitions().get(0);
        assertThat(elected.outcome()).isEqualTo("ELECTED");
        assertThat(elected.designatedLeader()).isEqualTo(SHORTEST_SURVIVOR);
        assertThat(elected.unknownLoss()).as("broker 1 is down and no evidence names its log").containsExactly(1);
        ResultFile.Salvaged salvaged = elected.salvaged().get(0);
        assertThat(elected.salvaged()).hasSize(1);
        assertThat(salvaged.broker()).isEqualTo(LONGEST_SURVIVOR);
        SalvageManifest manifest = SalvageManifest.read(Path.of(salvaged.manifest()));
        assertThat(List.of(manifest.fromOffset(), manifest.toOffset(), manifest.firstOffset(), manifest.lastOffset()))
                .as("exactly the doomed range").containsExactly(RECORDS, 2 * RECORDS, RECORDS, 2 * RECORDS - 1);
        assertThat(manifest.records()).isEqualTo(RECORDS);
        assertThat(manifest.files()).as("files cut at 1 GiB").hasSize(2);
        List<Path> files = manifest.files().stream().map(f -> Path.of(salvaged.manifest()).resolveSibling(f.name()))
                .toList();
        Batches copy = Batches.of(files, RECORDS);
        assertThat(copy.perFile()).isEqualTo(manifest.files().stream().map(SalvageManifest.SegmentFile::sha256).toList());
        assertThat(copy.sha256()).as("the broker's batches").isEqualTo(held.sha256());
        assertThat(copy.records()).isEqualTo(RECORDS);
        assertThat(copy.bytes()).isEqualTo(held.bytes()).isEqualTo(salvaged.bytes());

        // and the heap's live data after each collection stayed a fraction of the range
        List<long[]> pauses = gcPauses(gcLog);
        assertThat(pauses).as("the tool collected garbage; its GC log").isNotEmpty();
        long peakBefore = pauses.stream().mapToLong(p -> p[0]).max().orElseThrow();
        long peakAfter = pauses.stream().mapToLong(p -> p[1]).max().orElseThrow();
        System.out.printf("salvaged %d bytes in a %d ms run; heap at most %d MiB before a collection, %d MiB after%n",
                copy.bytes(), toolMillis, peakBefore, peakAfter);
        assertThat(peakAfter).as("MiB live after a collection").isLessThan(64);
    }

    /** A log's segment files in offset order. */
    private static List<Path> segments(Path replicaDirectory) throws IOException {
        try (Stream<Path> files = Files.list(replicaDirectory)) {
            return files.filter(f -> f.getFileName().toString().endsWith(".log")).sorted().toList();
        }
    }

    /** Heap in MiB before and after each collection, from a {@code -Xlog:gc} file. */
    private static List<long[]> gcPauses(Path gcLog) throws IOException {
        List<long[]> pauses = new ArrayList<>();
        for (String line : Files.readAllLines(gcLog)) {
            Matcher m = GC_PAUSE.matcher(line);
            if (m.find()) {
                pauses.add(new long[] {Long.parseLong(m.group(1)), Long.parseLong(m.group(2))});
            }
        }
        return pauses;
    }

    /**
     * The batches of some segment files from the one holding an offset on, read a batch at a time.
     *
     * @param sha256  of the batches, all files joined
     * @param perFile SHA-256 of each file's batches
     */
    private record Batches(String sha256, List<String> perFile, long bytes, long records) {

        static Batches of(List<Path> segments, long from) throws Exception {
            MessageDigest joined = MessageDigest.getInstance("SHA-256");
            List<String> perFile = new ArrayList<>();
            long bytes = 0;
            long records = 0;
            ByteBuffer buffer = ByteBuffer.allocate(2 << 20);
            for (Path segment : segments) {
                MessageDigest file = MessageDigest.getInstance("SHA-256");
                try (FileRecords log = FileRecords.open(segment.toFile(), false, true, 0, false)) {
                    for (FileChannelRecordBatch batch : log.batches()) {
                        if (batch.lastOffset() < from) {
                            continue;
                        }
                        if (buffer.capacity() < batch.sizeInBytes()) {
                            buffer = ByteBuffer.allocate(batch.sizeInBytes());
                        }
                        buffer.clear();
                        batch.writeTo(buffer);
                        buffer.flip();
                        file.update(buffer.duplicate());
                        joined.update(buffer);
                        bytes += batch.sizeInBytes();
                        records += batch.countOrNull();
                    }
                }
                perFile.add(HexFormat.of().formatHex(file.digest()));
            }
            return new Batches(HexFormat.of().formatHex(joined.digest()), perFile, bytes, records);
        }
    }
}
