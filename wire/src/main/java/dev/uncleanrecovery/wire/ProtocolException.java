// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.wire;

/**
 * The one exception this package throws for bytes it cannot decode (truncated buffers, bad
 * lengths or varints, trailing garbage, unsupported versions) and for messages it refuses to
 * encode (a field the chosen version cannot carry, a string too long for the wire).
 *
 * <p>The message always names the message, the field and, when decoding, the byte position, so a
 * caller can log it as is: the tool reports a broker that answered nonsense, the agent answers
 * INVALID_REQUEST.
 */
public final class ProtocolException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    public ProtocolException(String message) {
        super(message);
    }

    public ProtocolException(String message, Throwable cause) {
        super(message, cause);
    }

    /**
     * Refuses a version outside [{@code min}, {@code max}]: "Fetch response v11 is not supported: only v12–v18
     * (flexible, with LastFetchedEpoch)".
     *
     * @param what  the message, e.g. "Fetch response"
     * @param which what the supported versions are, for the reader of the error
     */
    public static void requireVersion(String what, short version, short min, short max, String which) {
        if (version < min || version > max) {
            throw new ProtocolException(what + " v" + version + " is not supported: only v" + min + "–v" + max
                    + " (" + which + ")");
        }
    }
}
