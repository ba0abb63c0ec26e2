// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.wire;

import java.util.Arrays;
import java.util.HexFormat;

/**
 * A tagged field this codec does not know, kept as raw bytes so that it is written back unchanged.
 *
 * <p>Flexible Kafka messages end every struct with a tagged-field section; a newer peer may add
 * tags there without a version bump, and a reader that dropped them would silently lose data when
 * it forwards or re-serializes the message. None of our messages defines a tag yet, so every tag
 * read lands here.
 *
 * @param tag  the field's tag number, 0 or more
 * @param data the field's value bytes as they were on the wire (copied in and out)
 */
public record UnknownTaggedField(int tag, byte[] data) {

    public UnknownTaggedField {
        if (tag < 0) {
            throw new IllegalArgumentException("tag must be 0 or more, got " + tag);
        }
        data = data.clone();
    }

    @Override
    public byte[] data() {
        return data.clone();
    }

    /** Number of value bytes, without copying them. */
    public int size() {
        return data.length;
    }

    /** The value bytes without a defensive copy, for the writer only. */
    byte[] dataUnsafe() {
        return data;
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof UnknownTaggedField that && tag == that.tag && Arrays.equals(data, that.data);
    }

    @Override
    public int hashCode() {
        return 31 * tag + Arrays.hashCode(data);
    }

    @Override
    public String toString() {
        return "UnknownTaggedField[tag=" + tag + ", data=" + HexFormat.of().formatHex(data) + "]";
    }
}
