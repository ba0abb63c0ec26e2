// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.salvage;

import dev.uncleanrecovery.UserInputException;
import dev.uncleanrecovery.formats.ResultFile;
import dev.uncleanrecovery.formats.SalvageManifest;
import dev.uncleanrecovery.salvage.SalvageDirectory.SalvagedRange;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalInt;
import org.apache.kafka.common.TopicPartition;

/**
 * A salvage directory checked against the result files of the runs that made it: result → manifest → segments. The
 * result file records each manifest's SHA-256 (version 5), the manifest each segment file's; {@link SalvageDirectory}
 * checks the segments against their manifest. So a salvage whose files were edited, swapped or put there since the
 * run — manifest and segments together — is refused before a record is produced, not only a segment that no longer
 * matches the manifest beside it.
 *
 * <p>One kind of range no result records is expected there: the copy {@code inspect --salvage-beyond} made off a
 * stopped broker's disk of a partition the run did not take it from (refused, or elected while that broker's loss was
 * unknown and copied after). Whether its records were cut is what the results say of its partition ({@link DiskCopy}).
 */
public final class SalvageChain {

    /**
     * @param resultFiles the result files the salvage was checked against; empty when it was not
     * @param warnings    what could not be checked, for the operator
     */
    public record Checked(List<Path> resultFiles, List<String> warnings, List<DiskCopy> diskCopies) {
        public Checked {
            resultFiles = List.copyOf(resultFiles);
            warnings = List.copyOf(warnings);
            diskCopies = List.copyOf(diskCopies);
        }

        /** The disk copies not to replay: their partition was not cut. */
        public List<SalvagedRange> left() {
            return diskCopies.stream().filter(c -> !c.replayed()).map(DiskCopy::range).toList();
        }
    }

    /**
     * A copy {@code inspect --salvage-beyond} read off a stopped broker's disk that no result file named records. It
     * is replayed, checked against its own manifest only, when a result records its partition led by another replica
     * (elected, or found led again: the broker cuts those records when it rejoins and follows that leader, KIP-101);
     * it is left in the directory when the results name the partition but none had it led so (refused while offline,
     * failed: the broker comes back as its last leader and keeps them).
     *
     * @param replayed true when replayed, false when left
     * @param why      the result and outcome it was judged by, for the operator
     */
    public record DiskCopy(SalvagedRange range, boolean replayed, String why) {
    }

    /** One range as a result file records it. */
    private record Recorded(Path resultFile, ResultFile result, ResultFile.Salvaged salvaged, String describe) {
    }

    private record Key(String topic, int partition, int broker) {
    }

    private SalvageChain() {
    }

    /**
     * Checks that every range of {@code salvage} is one the result files record, with the same manifest (its SHA-256,
     * or in a result file older than version 5 its offsets, record and batch counts and size), and that every range
     * they record is there.
     *
     * @param results the result files the operator named (several when runs of the same plan salvaged into the
     *                directory), in order
     * @throws UserInputException naming the file and the range when the chain does not hold
     */
    public static Checked check(SalvageDirectory salvage, Map<Path, ResultFile> results) {
        Map<Key, List<Recorded>> recorded = new LinkedHashMap<>();
        List<String> warnings = new ArrayList<>();
        results.forEach((file, result) -> {
            boolean hashed = true;
            for (ResultFile.Partition p : result.partitions()) {
                if (p.salvaged() == null) {
                    continue;
                }
                for (ResultFile.Salvaged s : p.salvaged()) {
                    recorded.computeIfAbsent(new Key(p.topic(), p.partition(), s.broker()), k -> new ArrayList<>())
                            .add(new Recorded(file, result, s, p.topic() + "-" + p.partition() + " broker " + s.broker()
                                    + " [" + s.fromOffset() + ", " + s.toOffset() + ")"));
                    hashed &= s.manifestSha256() != null;
                }
            }
            if (!hashed) {
                warnings.add(file + " is a version " + result.version() + " result file, which records no SHA-256 of"
                        + " the salvage manifests: each range was checked against the offsets, counts and size it"
                        + " records, and each segment file against its manifest's SHA-256");
            }
        });
        List<Key> found = new ArrayList<>();
        List<DiskCopy> diskCopies = new ArrayList<>();
        for (SalvagedRange range : salvage.ranges()) {
            Key key = new Key(range.range().partition().topic(), range.range().partition().partition(),
                    range.range().broker());
            found.add(key);
            List<Recorded> entries = recorded.get(key);
            if (entries == null) {
                diskCopies.add(diskCopy(range, results).orElseThrow(() -> new UserInputException(range.manifestFile()
                        + ": " + range.describe() + " is not in the salvage " + names(results) + " record"
                        + (results.size() == 1 ? "s" : "") + " (a copy another run made, or one put there since): not"
                        + " replaying. Name the result file of the run that made it too (--result-file), or move it out of "
                        + salvage.directory())));
                continue;
            }
            for (Recorded entry : entries) {
                String mismatch = mismatch(range, entry.salvaged());
                if (mismatch != null) {
                    throw new UserInputException(range.manifestFile() + ": " + mismatch + " than " + entry.resultFile()
                            + " records for " + entry.describe() + "; the salvage changed after the run that made it:"
                            + " not replaying");
                }
            }
        }
        recorded.forEach((key, entries) -> {
            if (!found.contains(key)) {
                Recorded entry = entries.get(0);
                throw new UserInputException(entry.resultFile() + " records the salvage of " + entry.describe() + " ("
                        + entry.salvaged().manifest() + "), which --salvage-dir " + salvage.directory() + " does not"
                        + " hold: name the directory that run salvaged into"
                        + (entry.result().salvageDir() == null ? "" : " (" + entry.result().salvageDir() + ")"));
            }
        });
        return new Checked(List.copyOf(results.keySet()), warnings, diskCopies);
    }

    /**
     * {@code range} judged as a disk copy by what {@code results} record of its partition; empty when it is no disk
     * copy (only {@code inspect --salvage-beyond} writes a manifest whose sole source is DISK) or no result of its
     * cluster names its partition: where it came from is then unknown.
     */
    private static Optional<DiskCopy> diskCopy(SalvagedRange range, Map<Path, ResultFile> results) {
        if (!range.sources().equals(List.of(SalvageSource.DISK))) {
            return Optional.empty();
        }
        TopicPartition tp = range.range().partition();
        int broker = range.range().broker();
        List<String> named = new ArrayList<>();
        for (Map.Entry<Path, ResultFile> result : results.entrySet()) {
            if (!Objects.equals(result.getValue().clusterId(), range.manifest().plan().clusterId())) {
                continue;
            }
            for (ResultFile.Partition p : result.getValue().partitions()) {
                if (!p.topic().equals(tp.topic()) || p.partition() != tp.partition()) {
                    continue;
                }
                OptionalInt leader = leaderAfter(p);
                if (leader.isPresent() && leader.getAsInt() != broker) {
                    return Optional.of(new DiskCopy(range, true, "copied off broker " + broker + "'s disk by 'inspect"
                            + " --salvage-beyond'; " + result.getKey() + " records " + tp + " " + p.outcome()
                            + " (leader " + leader.getAsInt() + "), so broker " + broker + " cuts these records when it"
                            + " rejoins: replayed, checked against its own manifest only"));
                }
                named.add(result.getKey() + " " + p.outcome());
            }
        }
        if (named.isEmpty()) {
            return Optional.empty();
        }
        return Optional.of(new DiskCopy(range, false, "not cut: no run named elected " + tp + " ("
                + String.join(", ", named) + "); its copy stays in the directory"));
    }

    /**
     * The replica leading the partition once the run was done, as its result records it: the state after, or for a
     * REFUSED partition, which the run left untouched, the state it found (another replica may have been elected
     * since the plan); without a recorded leader, the designated one when ELECTED or ALREADY_RECOVERED. Empty when
     * the partition was left leaderless (refused while offline, FAILED, a dry run's WOULD_ELECT).
     */
    private static OptionalInt leaderAfter(ResultFile.Partition p) {
        ResultFile.State left = p.after() != null ? p.after() : "REFUSED".equals(p.outcome()) ? p.before() : null;
        if (left != null && left.leader() >= 0) {
            return OptionalInt.of(left.leader());
        }
        return switch (p.outcome()) {
            case "ELECTED", "ALREADY_RECOVERED" -> OptionalInt.of(p.designatedLeader());
            default -> OptionalInt.empty();
        };
    }

    /** How the copy differs from what the result file recorded ("another SHA-256"), or null when it does not. */
    private static String mismatch(SalvagedRange range, ResultFile.Salvaged recorded) {
        if (recorded.manifestSha256() != null) {
            return recorded.manifestSha256().equals(range.manifestSha256()) ? null : "another SHA-256";
        }
        SalvageManifest manifest = range.manifest();
        long bytes = manifest.files().stream().mapToLong(SalvageManifest.SegmentFile::bytes).sum();
        if (recorded.fromOffset() != manifest.fromOffset() || recorded.toOffset() != manifest.toOffset()) {
            return "other offsets [" + manifest.fromOffset() + ", " + manifest.toOffset() + ")";
        }
        if (recorded.records() != manifest.records() || recorded.batches() != manifest.batches()
                || recorded.bytes() != bytes) {
            return "other counts (" + manifest.records() + " records, " + manifest.batches() + " batches, " + bytes
                    + " bytes)";
        }
        return null;
    }

    private static String names(Map<Path, ResultFile> results) {
        return results.keySet().stream().map(Objects::toString).reduce((a, b) -> a + " and " + b).orElse("");
    }
}
