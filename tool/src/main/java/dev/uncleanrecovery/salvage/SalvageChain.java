// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.salvage;

import dev.uncleanrecovery.UserInputException;
import dev.uncleanrecovery.plan.ResultFile;
import dev.uncleanrecovery.plan.SalvageManifest;
import dev.uncleanrecovery.salvage.SalvageDirectory.SalvagedRange;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * A salvage directory checked against the result files of the runs that made it: result → manifest → segments. The
 * result file records each manifest's SHA-256 (version 5), the manifest each segment file's; {@link SalvageDirectory}
 * checks the segments against their manifest. So a salvage whose files were edited, swapped or put there since the
 * run — manifest and segments together — is refused before a record is produced, not only a segment that no longer
 * matches the manifest beside it.
 */
public final class SalvageChain {

    /**
     * @param resultFiles the result files the salvage was checked against; empty when it was not
     * @param warnings    what could not be checked, for the operator
     */
    public record Checked(List<Path> resultFiles, List<String> warnings) {
        public Checked {
            resultFiles = List.copyOf(resultFiles);
            warnings = List.copyOf(warnings);
        }
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
        for (SalvagedRange range : salvage.ranges()) {
            Key key = new Key(range.range().partition().topic(), range.range().partition().partition(),
                    range.range().broker());
            found.add(key);
            List<Recorded> entries = recorded.get(key);
            if (entries == null) {
                throw new UserInputException(range.manifestFile() + ": " + range.describe() + " is not in the salvage "
                        + names(results) + " record" + (results.size() == 1 ? "s" : "") + " (a copy another run made,"
                        + " or one put there since): not replaying. Name the result file of the run that made it too"
                        + " (--result), or move it out of " + salvage.directory());
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
        return new Checked(List.copyOf(results.keySet()), warnings);
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
