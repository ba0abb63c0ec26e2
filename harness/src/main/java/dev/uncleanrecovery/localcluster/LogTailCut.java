// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.localcluster;

/**
 * How much of the end of a replica's last log segment to cut, to simulate writes that never reached
 * the disk. The cut may fall in the middle of a record batch: on the next start without a
 * clean-shutdown marker Kafka's log recovery finds the torn batch and truncates to the last whole
 * one ("Corruption found in segment N, truncating to offset X").
 */
public sealed interface LogTailCut {

    /** Keep the first {@code bytes} bytes of the last segment. */
    static LogTailCut keepBytes(long bytes) {
        return new KeepBytes(bytes);
    }

    /** Remove the last {@code bytes} bytes of the last segment (at most the whole segment). */
    static LogTailCut dropBytes(long bytes) {
        return new DropBytes(bytes);
    }

    /** The new length of a segment that is {@code currentLength} bytes long. */
    long newLength(long currentLength);

    record KeepBytes(long bytes) implements LogTailCut {
        public KeepBytes {
            if (bytes < 0) {
                throw new IllegalArgumentException("cannot keep a negative number of bytes: " + bytes);
            }
        }

        @Override
        public long newLength(long currentLength) {
            return Math.min(bytes, currentLength);
        }
    }

    record DropBytes(long bytes) implements LogTailCut {
        public DropBytes {
            if (bytes < 0) {
                throw new IllegalArgumentException("cannot drop a negative number of bytes: " + bytes);
            }
        }

        @Override
        public long newLength(long currentLength) {
            return Math.max(0, currentLength - bytes);
        }
    }
}
