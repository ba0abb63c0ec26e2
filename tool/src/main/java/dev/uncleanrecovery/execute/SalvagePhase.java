// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.execute;

import dev.uncleanrecovery.cluster.ClusterSnapshot;
import dev.uncleanrecovery.salvage.DoomedRange;
import dev.uncleanrecovery.salvage.SalvagedFile;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import java.util.stream.Collectors;
import org.apache.kafka.common.TopicPartition;

/**
 * Before the first change to the cluster, every range the elections will truncate is copied out: an exact loss is
 * copied (a partition whose copy fails is refused); a loss only known as a lower bound refuses the partition (its
 * start is not known, so it cannot be copied whole). With --no-salvage nothing is copied and each partition says
 * what was not kept; a dry run copies nothing and says what it would copy, or why it would refuse.
 */
final class SalvagePhase {

    /** Where the copies go; null with --no-salvage, or when no salvage was asked for (nothing is done then). */
    private final Salvage salvage;
    private final boolean noSalvage;
    private final boolean dryRun;
    private final Consumer<String> progress;

    SalvagePhase(Salvage salvage, boolean noSalvage, boolean dryRun, Consumer<String> progress) {
        this.salvage = salvage;
        this.noSalvage = noSalvage;
        this.dryRun = dryRun;
        this.progress = progress;
    }

    /** What is said of one partition's ranges as they are sorted; its files once copied. */
    private static final class Copy {
        final List<DoomedRange> live = new ArrayList<>();
        final List<SalvagedFile> fromDisk = new ArrayList<>();
        final List<String> unreadable = new ArrayList<>();
        final List<String> notes = new ArrayList<>();
    }

    /** @param going measured partitions; each goes on (with its copies), or is refused */
    Map<TopicPartition, Verdict> keep(List<Candidate> going, ClusterSnapshot now) {
        Map<TopicPartition, Verdict> verdicts = new LinkedHashMap<>();
        going.forEach(c -> verdicts.put(c.topicPartition(), new Verdict.Proceed(c)));
        if (going.isEmpty() || (salvage == null && !noSalvage)) {
            return verdicts;
        }
        Map<TopicPartition, Candidate> doomed = new LinkedHashMap<>();
        for (Candidate c : going) {
            DoomedRanges d = c.doomed();
            if (!d.inexact().isEmpty() && !noSalvage) {
                verdicts.put(c.topicPartition(), new Verdict.Refused("the truncation start on broker(s) "
                        + d.inexact().stream().map(String::valueOf).collect(Collectors.joining(", ")) + " is not known"
                        + " exactly; cannot salvage it whole (plan again, or --no-salvage to elect without a copy)"));
            } else if (!d.ranges().isEmpty()) {
                doomed.put(c.topicPartition(), c);
            }
        }
        if (doomed.isEmpty()) {
            return verdicts;
        }
        if (noSalvage) {
            doomed.forEach((tp, c) -> verdicts.put(tp, new Verdict.Proceed(c,
                    List.of("--no-salvage: not kept " + ranges(c.doomed().ranges())))));
            return verdicts;
        }
        Map<TopicPartition, Copy> copies = new LinkedHashMap<>();
        doomed.forEach((tp, c) -> copies.put(tp, sort(tp, c.doomed(), now)));
        if (dryRun) {
            copies.forEach((tp, copy) -> {
                if (!copy.unreadable.isEmpty()) {
                    copy.notes.add("would refuse: salvage impossible: " + String.join("; ", copy.unreadable));
                } else if (!copy.live.isEmpty()) {
                    copy.notes.add("would salvage " + ranges(copy.live));
                }
                verdicts.put(tp, new Verdict.Proceed(doomed.get(tp), copy.notes));
            });
            return verdicts;
        }
        Map<TopicPartition, Copy> live = new LinkedHashMap<>();
        copies.forEach((tp, copy) -> {
            if (!copy.unreadable.isEmpty()) {
                verdicts.put(tp, new Verdict.Refused("salvage failed: " + String.join("; ", copy.unreadable)
                        + "; nothing elected", copy.notes));
            } else if (copy.live.isEmpty()) {
                verdicts.put(tp, new Verdict.Proceed(doomed.get(tp).salvaged(copy.fromDisk), copy.notes));
            } else {
                live.put(tp, copy);
            }
        });
        if (!live.isEmpty()) {
            copyLive(live, doomed, verdicts);
        }
        return verdicts;
    }

    /**
     * A broker that is down serves no Fetch, nor one whose log directory holding the replica failed: its doomed records
     * must already have been copied off its disk (inspect --salvage-beyond, into this salvage directory), or the
     * partition waits.
     */
    private Copy sort(TopicPartition tp, DoomedRanges d, ClusterSnapshot now) {
        Copy copy = new Copy();
        for (DoomedRange r : d.ranges()) {
            if (now.canServe(tp, r.broker())) {
                copy.live.add(r);
                continue;
            }
            var broker = now.brokersById().get(r.broker());
            boolean failedDir = now.isOnFailedLogDir(tp, r.broker());
            Salvage.EarlierCopy earlier = salvage.alreadyKept(r);
            SalvagedFile kept = earlier.file();
            if (kept != null) {
                copy.fromDisk.add(kept);
                copy.notes.add("broker " + r.broker() + (failedDir ? "'s log directory holding " + tp + " failed"
                        : " is down") + "; its doomed records " + ranges(List.of(r))
                        + " were copied off its disk before (" + kept.manifest() + ")");
            } else {
                copy.unreadable.add("broker " + r.broker() + " did not serve " + tp + " [" + r.fromOffset() + ".."
                        + r.toOffset() + "): " + (failedDir ? "the log directory holding it failed on that broker"
                        : "it is " + (broker == null ? "not registered" : "fenced")) + ", so nothing"
                        + " can be read from it online; " + earlier.notUsed().stream().map(why -> why + "; ")
                        .collect(Collectors.joining()) + "copy its records off its disk with 'inspect"
                        + " --salvage-beyond' on its host into " + salvage.directory() + ", then execute again (or"
                        + " --no-salvage)");
            }
        }
        return copy;
    }

    /** Copies the ranges of live replicas, all in one go; a partition not copied whole is refused. */
    private void copyLive(Map<TopicPartition, Copy> live, Map<TopicPartition, Candidate> doomed,
                          Map<TopicPartition, Verdict> verdicts) {
        List<DoomedRange> all = live.values().stream().flatMap(copy -> copy.live.stream()).toList();
        progress.accept("salvaging " + all.size() + " doomed range(s) of " + live.size() + " partition(s) ("
                + all.stream().mapToLong(DoomedRange::offsets).sum() + " offsets) into " + salvage.directory());
        Map<TopicPartition, List<Salvage.Kept>> kept = new HashMap<>();
        salvage.keep(all).forEach(k -> kept.computeIfAbsent(k.range().partition(), x -> new ArrayList<>()).add(k));
        live.forEach((tp, copy) -> {
            List<Salvage.Kept> answers = kept.getOrDefault(tp, List.of());
            List<String> failures = answers.stream().filter(k -> !k.isKept()).map(Salvage.Kept::failure).toList();
            if (!failures.isEmpty() || answers.size() < copy.live.size()) {
                String why = failures.isEmpty() ? "not every range was copied" : String.join("; ", failures);
                verdicts.put(tp, new Verdict.Refused("salvage failed: " + why + "; nothing elected", copy.notes));
            } else {
                List<SalvagedFile> files = new ArrayList<>(copy.fromDisk);
                answers.stream().map(Salvage.Kept::file).forEach(files::add);
                verdicts.put(tp, new Verdict.Proceed(doomed.get(tp).salvaged(files), copy.notes));
            }
        });
    }

    /** "broker 3 [10..30) (20 offsets)", for each range. */
    static String ranges(List<DoomedRange> ranges) {
        return ranges.stream().map(r -> "broker " + r.broker() + " [" + r.fromOffset() + ".." + r.toOffset() + ") ("
                + r.offsets() + " offsets)").collect(Collectors.joining(", "));
    }
}
