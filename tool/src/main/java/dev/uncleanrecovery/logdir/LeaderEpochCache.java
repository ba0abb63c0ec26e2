// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.logdir;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.TreeMap;
import java.util.function.Predicate;

/**
 * A partition's leader epoch cache as Kafka 4.4's LeaderEpochFileCache holds it while it loads the log: loaded from
 * leader-epoch-checkpoint entry by entry, added to by log recovery, then cut to the recovered log. Kept by epoch; an
 * entry that breaks the order (an epoch or start offset not above the latest) first removes the later entries it
 * contradicts, as Kafka's assign does, so a checkpoint out of order loads to what Kafka would hold.
 */
final class LeaderEpochCache {

    private final TreeMap<Integer, EpochEntry> epochs = new TreeMap<>();

    /**
     * The cache built from a checkpoint's entries, in file order.
     *
     * @throws LogDirReadException when an entry is negative: Kafka's assign throws and the broker does not start
     */
    static LeaderEpochCache loaded(List<EpochEntry> entries, String source) {
        LeaderEpochCache cache = new LeaderEpochCache();
        for (EpochEntry entry : entries) {
            if (entry.epoch() < 0 || entry.startOffset() < 0) {
                throw new LogDirReadException(source + " holds the entry 'epoch " + entry.epoch() + " from "
                        + entry.startOffset() + "': Kafka refuses negative entries, its log loading fails and the"
                        + " broker does not start");
            }
            cache.assign(entry.epoch(), entry.startOffset());
        }
        return cache;
    }

    /** What log recovery does with each valid batch of format v2: a later epoch than the latest starts there. */
    void assignRecovered(int partitionLeaderEpoch, long baseOffset, String source) {
        OptionalInt latest = latestEpoch();
        if (partitionLeaderEpoch >= 0 && (latest.isEmpty() || partitionLeaderEpoch > latest.getAsInt())) {
            if (baseOffset < 0) {
                throw new LogDirReadException(source + " starts at offset " + baseOffset + " in epoch "
                        + partitionLeaderEpoch + ": Kafka's recovery refuses a negative epoch start, its log loading"
                        + " fails and the broker does not start");
            }
            assign(partitionLeaderEpoch, baseOffset);
        }
    }

    private void assign(int epoch, long startOffset) {
        Map.Entry<Integer, EpochEntry> latest = epochs.lastEntry();
        boolean needed = latest == null || epoch != latest.getKey() || startOffset < latest.getValue().startOffset();
        if (!needed) {
            return;
        }
        removeWhile(epochs.descendingMap().values().iterator(), e -> e.epoch() >= epoch || e.startOffset() >= startOffset);
        epochs.put(epoch, new EpochEntry(epoch, startOffset));
    }

    /** Kafka's truncateFromEnd: entries starting at or after the log end offset name no data and go. */
    List<EpochEntry> truncateFromEnd(long endOffset) {
        Map.Entry<Integer, EpochEntry> latest = epochs.lastEntry();
        if (endOffset >= 0 && latest != null && latest.getValue().startOffset() >= endOffset) {
            return removeWhile(epochs.descendingMap().values().iterator(), e -> e.startOffset() >= endOffset);
        }
        return List.of();
    }

    /** Kafka's truncateFromStart: entries at or before the log start offset collapse into one starting there. */
    void truncateFromStart(long startOffset) {
        List<EpochEntry> removed = removeWhile(epochs.values().iterator(), e -> e.startOffset() <= startOffset);
        if (!removed.isEmpty()) {
            EpochEntry last = removed.get(removed.size() - 1);
            epochs.put(last.epoch(), new EpochEntry(last.epoch(), startOffset));
        }
    }

    /** What Kafka does when it deletes every segment of a log that ends before its log start offset. */
    void clear() {
        epochs.clear();
    }

    OptionalInt latestEpoch() {
        return epochs.isEmpty() ? OptionalInt.empty() : OptionalInt.of(epochs.lastKey());
    }

    List<EpochEntry> entries() {
        return List.copyOf(epochs.values());
    }

    private static List<EpochEntry> removeWhile(Iterator<EpochEntry> entries, Predicate<EpochEntry> matches) {
        List<EpochEntry> removed = new ArrayList<>();
        while (entries.hasNext()) {
            EpochEntry entry = entries.next();
            if (!matches.test(entry)) {
                break;
            }
            removed.add(entry);
            entries.remove();
        }
        return removed;
    }
}
