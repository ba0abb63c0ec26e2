// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.wire;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.CharBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.apache.kafka.common.Uuid;

/**
 * Reads Kafka protocol primitives from bytes that may come from anyone: every read checks the
 * bytes left first and fails with a {@link ProtocolException} naming the message, the field and
 * the position, and no collection is sized from a count before the count has been checked against
 * the bytes that are left.
 *
 * <p>Positions are counted from where the reader started, so a frame reader reports frame
 * offsets and a body reader body offsets.
 */
public final class WireReader {

    /** Kafka's strings carry at most Short.MAX_VALUE bytes, in compact and classic encodings alike. */
    public static final int MAX_STRING_BYTES = Short.MAX_VALUE;

    /** A tagged field is at least a one-byte tag and a one-byte size. */
    private static final int MIN_TAGGED_FIELD_BYTES = 2;

    private final ByteBuffer buffer;
    private final int start;
    private final String message;

    private WireReader(ByteBuffer buffer, int start, String message) {
        this.buffer = buffer;
        this.start = start;
        this.message = message;
    }

    /**
     * A reader over {@code source} from its position to its limit. The source's own position is
     * left alone; {@link #consumedTo(ByteBuffer)} moves it once the whole read succeeded.
     *
     * @param message what is being read, for error messages ("GetReplicaLogInfo response")
     */
    public static WireReader of(ByteBuffer source, String message) {
        ByteBuffer view = source.duplicate().order(ByteOrder.BIG_ENDIAN);
        return new WireReader(view, view.position(), message);
    }

    /** The same bytes and position, reporting errors under another message name (header, then body). */
    public WireReader describing(String otherMessage) {
        return new WireReader(buffer, start, otherMessage);
    }

    public String message() {
        return message;
    }

    public int position() {
        return buffer.position() - start;
    }

    public int remaining() {
        return buffer.remaining();
    }

    /** Moves {@code source}'s position to where this reader stopped. */
    public void consumedTo(ByteBuffer source) {
        source.position(buffer.position());
    }

    /** Rejects bytes after the end of a message: they mean the sender and we disagree on the layout. */
    public void expectEnd() {
        if (buffer.hasRemaining()) {
            throw new ProtocolException(String.format("%s has %d unexpected trailing bytes at position %d",
                    message, buffer.remaining(), position()));
        }
    }

    public byte readInt8(String field) {
        need(1, field);
        return buffer.get();
    }

    /** Kafka writes booleans as one byte 0 or 1 and reads any non-zero byte as true; so do we. */
    public boolean readBoolean(String field) {
        return readInt8(field) != 0;
    }

    public short readInt16(String field) {
        need(2, field);
        return buffer.getShort();
    }

    public int readInt32(String field) {
        need(4, field);
        return buffer.getInt();
    }

    public long readInt64(String field) {
        need(8, field);
        return buffer.getLong();
    }

    /** Skips {@code bytes} bytes of a field this reader does not look into (records, tags it does not know). */
    public void skip(long bytes, String field) {
        if (bytes < 0 || bytes > buffer.remaining()) {
            throw new ProtocolException(String.format("%s truncated: %s at position %d claims %d bytes, only %d left",
                    message, field, position(), bytes, buffer.remaining()));
        }
        buffer.position(buffer.position() + (int) bytes);
    }

    /** A UUID is its most significant 64 bits then its least significant 64 bits. */
    public Uuid readUuid(String field) {
        need(16, field);
        long mostSignificant = buffer.getLong();
        long leastSignificant = buffer.getLong();
        return new Uuid(mostSignificant, leastSignificant);
    }

    /**
     * An unsigned varint of at most 32 bits: 7 bits per byte, least significant group first, high
     * bit set on every byte but the last. Kafka never writes more than 5 bytes for one.
     *
     * @return the value, 0 to 2^32-1
     */
    public long readUnsignedVarint(String field) {
        int fieldStart = position();
        long value = 0;
        for (int shift = 0; ; shift += 7) {
            if (!buffer.hasRemaining()) {
                throw new ProtocolException(String.format(
                        "%s truncated: needed 1 more byte for %s (unsigned varint from position %d) at position %d, 0 left",
                        message, field, fieldStart, position()));
            }
            int b = buffer.get() & 0xff;
            value |= (long) (b & 0x7f) << shift;
            if ((b & 0x80) == 0) {
                break;
            }
            if (shift == 28) {
                throw new ProtocolException(String.format(
                        "%s malformed: unsigned varint for %s at position %d is longer than 5 bytes",
                        message, field, fieldStart));
            }
        }
        if (value > 0xffff_ffffL) {
            throw new ProtocolException(String.format(
                    "%s malformed: unsigned varint for %s at position %d does not fit in 32 bits",
                    message, field, fieldStart));
        }
        return value;
    }

    /** Compact string: unsigned varint (length + 1), then UTF-8 bytes. */
    public String readCompactString(String field) {
        return readCompactString(field, false);
    }

    /** Compact nullable string: a length varint of 0 means null. */
    public String readCompactNullableString(String field) {
        return readCompactString(field, true);
    }

    private String readCompactString(String field, boolean nullable) {
        int fieldStart = position();
        long lengthPlusOne = readUnsignedVarint(field);
        if (lengthPlusOne == 0) {
            if (!nullable) {
                throw nullNotAllowed(field, fieldStart);
            }
            return null;
        }
        return readUtf8(field, fieldStart, lengthPlusOne - 1);
    }

    /** Classic nullable string (request header client_id): int16 length, -1 means null. */
    public String readNullableString(String field) {
        int fieldStart = position();
        short length = readInt16(field);
        if (length == -1) {
            return null;
        }
        if (length < 0) {
            throw new ProtocolException(String.format("%s malformed: %s at position %d has negative length %d",
                    message, field, fieldStart, length));
        }
        return readUtf8(field, fieldStart, length);
    }

    private String readUtf8(String field, int fieldStart, long length) {
        if (length > MAX_STRING_BYTES) {
            throw new ProtocolException(String.format(
                    "%s malformed: %s at position %d is %d bytes long, more than the protocol's %d",
                    message, field, fieldStart, length, MAX_STRING_BYTES));
        }
        if (length > buffer.remaining()) {
            throw new ProtocolException(String.format(
                    "%s truncated: %s at position %d claims %d bytes, only %d left",
                    message, field, fieldStart, length, buffer.remaining()));
        }
        ByteBuffer bytes = buffer.slice();
        bytes.limit((int) length);
        buffer.position(buffer.position() + (int) length);
        try {
            CharBuffer chars = StandardCharsets.UTF_8.newDecoder()
                    .onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT)
                    .decode(bytes);
            return chars.toString();
        } catch (CharacterCodingException e) {
            throw new ProtocolException(String.format("%s malformed: %s at position %d is not valid UTF-8",
                    message, field, fieldStart), e);
        }
    }

    /**
     * Reads a compact array's element count (unsigned varint count + 1, 0 = null) and checks that
     * the bytes left can hold that many elements of at least {@code minElementBytes} each, so a
     * forged count fails here instead of sizing a collection.
     *
     * @return the element count, or -1 for a null array (only when {@code nullable})
     */
    public int readCompactArrayCount(String field, int minElementBytes, boolean nullable) {
        int fieldStart = position();
        long countPlusOne = readUnsignedVarint(field);
        if (countPlusOne == 0) {
            if (!nullable) {
                throw nullNotAllowed(field, fieldStart);
            }
            return -1;
        }
        long count = countPlusOne - 1;
        checkCountFits(field, fieldStart, count, minElementBytes);
        return (int) count;
    }

    /** Compact array of int32, never null. */
    public List<Integer> readCompactInt32Array(String field) {
        return readInt32Elements(readCompactArrayCount(field, 4, false));
    }

    /** Compact nullable array of int32; null when the wire says null. */
    public List<Integer> readCompactNullableInt32Array(String field) {
        int count = readCompactArrayCount(field, 4, true);
        return count < 0 ? null : readInt32Elements(count);
    }

    /** Only after {@link #readCompactArrayCount} with 4 bytes per element: that check covers every read here. */
    private List<Integer> readInt32Elements(int count) {
        List<Integer> values = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            values.add(buffer.getInt());
        }
        return Collections.unmodifiableList(values);
    }

    /**
     * A tagged-field section: unsigned varint count, then per field unsigned varint tag, unsigned
     * varint size and that many bytes. None of our structs knows a tag, so all are kept raw.
     *
     * @param struct the struct the section ends, for error messages
     */
    public List<UnknownTaggedField> readTaggedFields(String struct) {
        String field = "tagged fields of " + struct;
        int fieldStart = position();
        long count = readUnsignedVarint(field);
        if (count == 0) {
            return List.of();
        }
        checkCountFits(field, fieldStart, count, MIN_TAGGED_FIELD_BYTES);
        List<UnknownTaggedField> fields = new ArrayList<>((int) count);
        for (int i = 0; i < count; i++) {
            int tagStart = position();
            long tag = readUnsignedVarint("tag of " + field);
            if (tag > Integer.MAX_VALUE) {
                throw new ProtocolException(String.format("%s malformed: tag %d in %s at position %d is out of range",
                        message, tag, field, tagStart));
            }
            int sizeStart = position();
            long size = readUnsignedVarint("size of tag " + tag + " in " + field);
            if (size > buffer.remaining()) {
                throw new ProtocolException(String.format(
                        "%s truncated: tag %d in %s at position %d claims %d bytes, only %d left",
                        message, tag, field, sizeStart, size, buffer.remaining()));
            }
            byte[] data = new byte[(int) size];
            buffer.get(data);
            fields.add(new UnknownTaggedField((int) tag, data));
        }
        return Collections.unmodifiableList(fields);
    }

    /** A tagged-field section whose fields are all skipped: none of them is needed. */
    public void skipTaggedFields(String struct) {
        if (buffer.hasRemaining() && buffer.get(buffer.position()) == 0) {
            buffer.get(); // no tagged fields: the usual case, read without building the field names below
            return;
        }
        long count = readUnsignedVarint("tagged fields of " + struct);
        for (long i = 0; i < count; i++) {
            readUnsignedVarint("tag in " + struct);
            skip(readUnsignedVarint("tag size in " + struct), "tagged field of " + struct);
        }
    }

    private void checkCountFits(String field, int fieldStart, long count, int minElementBytes) {
        long minimumBytes = count * minElementBytes;
        if (minimumBytes > buffer.remaining()) {
            throw new ProtocolException(String.format(
                    "%s truncated or malformed: %s at position %d claims %d elements (at least %d bytes), only %d left",
                    message, field, fieldStart, count, minimumBytes, buffer.remaining()));
        }
    }

    private void need(int bytes, String field) {
        if (buffer.remaining() < bytes) {
            throw new ProtocolException(String.format("%s truncated: needed %d bytes for %s at position %d, %d left",
                    message, bytes, field, position(), buffer.remaining()));
        }
    }

    private ProtocolException nullNotAllowed(String field, int fieldStart) {
        return new ProtocolException(String.format("%s malformed: %s at position %d is null but may not be",
                message, field, fieldStart));
    }
}
