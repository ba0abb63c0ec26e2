// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.wire;

import java.nio.ByteBuffer;
import java.util.HexFormat;

/** Hand-written wire vectors: hex per field, spaces allowed, compared as hex so a diff shows the field. */
public final class Hex {

    private Hex() {
    }

    /** Concatenates hex fragments ("00 00 75 30", "0a") into bytes. */
    public static byte[] bytes(String... fragments) {
        return HexFormat.of().parseHex(String.join("", fragments).replace(" ", ""));
    }

    /** The remaining bytes of a buffer as lower-case hex, without moving it. */
    public static String of(ByteBuffer buffer) {
        ByteBuffer view = buffer.duplicate();
        byte[] bytes = new byte[view.remaining()];
        view.get(bytes);
        return HexFormat.of().formatHex(bytes);
    }

    public static String of(byte[] bytes) {
        return HexFormat.of().formatHex(bytes);
    }

    public static byte[] toArray(ByteBuffer buffer) {
        ByteBuffer view = buffer.duplicate();
        byte[] bytes = new byte[view.remaining()];
        view.get(bytes);
        return bytes;
    }
}
