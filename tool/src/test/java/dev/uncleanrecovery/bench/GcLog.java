// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What the tool's GC log ({@code -Xlog:gc,gc+heap+exit}, the launcher's parallel collector) says about its heap: each collection's "Pause Young
 * (Allocation Failure) 612M->87M(1024M)", and the generations' "used" sizes at exit.
 *
 * @param collections  how many collections ran
 * @param mostBeforeMib the most in use before a collection: what the run touched at most between two
 * @param mostAfterMib  the most in use after one: its live data at most
 * @param atExitMib     in use at exit (the generations' "used" added up)
 */
record GcLog(long collections, long mostBeforeMib, long mostAfterMib, long atExitMib) {

    private static final Pattern PAUSE = Pattern.compile("(\\d+)M->(\\d+)M\\((\\d+)M\\)");
    private static final Pattern USED = Pattern.compile("(?:PSYoungGen|ParOldGen) +total \\d+K, used (\\d+)K");

    static GcLog read(Path gcLog) throws IOException {
        long collections = 0;
        long before = 0;
        long after = 0;
        long atExitKib = 0;
        for (String line : Files.readAllLines(gcLog)) {
            Matcher pause = PAUSE.matcher(line);
            if (pause.find()) {
                collections++;
                before = Math.max(before, Long.parseLong(pause.group(1)));
                after = Math.max(after, Long.parseLong(pause.group(2)));
            }
            Matcher used = USED.matcher(line);
            if (used.find()) {
                atExitKib += Long.parseLong(used.group(1));
            }
        }
        return new GcLog(collections, before, after, atExitKib / 1024);
    }

    /** The heap the run had in use at most: the most before a collection, or at exit, whichever is larger. */
    long inUseMib() {
        return Math.max(mostBeforeMib, atExitMib);
    }

    @Override
    public String toString() {
        return collections + " collections, at most " + mostBeforeMib + " MiB before one and " + mostAfterMib
                + " MiB after";
    }
}
