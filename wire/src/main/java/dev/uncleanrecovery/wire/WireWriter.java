// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.wire;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import org.apache.kafka.common.Uuid;

/**
 * Writes Kafka protocol primitives, big-endian, into a growing byte array. One pass and no size
 * pre-computation: our messages are small (a thousand partitions is about 25 KB), so growing is
 * cheaper to get right than Kafka's separate size and write passes.
 */
public final class WireWriter {

    private final String message;
    private byte[] bytes;
    private int size;

    /** @param message what is being written, for error messages ("ElectLeaders v2 request") */
    public WireWriter(String message) {
        this(message, 256);
    }

    /** @param expectedBytes how many bytes the message will likely take: growing the array costs copies */
    public WireWriter(String message, int expectedBytes) {
        this.message = message;
        this.bytes = new byte[Math.max(16, expectedBytes)];
    }

    public String message() {
        return message;
    }

    /** A read-to-end buffer of exactly the bytes written, over an array of exactly that length. */
    public ByteBuffer toByteBuffer() {
        return ByteBuffer.wrap(size == bytes.length ? bytes : Arrays.copyOf(bytes, size));
    }

    public void writeInt8(byte value) {
        ensure(1);
        bytes[size++] = value;
    }

    public void writeBoolean(boolean value) {
        writeInt8(value ? (byte) 1 : (byte) 0);
    }

    public void writeInt16(short value) {
        ensure(2);
        bytes[size++] = (byte) (value >>> 8);
        bytes[size++] = (byte) value;
    }

    public void writeInt32(int value) {
        ensure(4);
        for (int shift = 24; shift >= 0; shift -= 8) {
            bytes[size++] = (byte) (value >>> shift);
        }
    }

    public void writeInt64(long value) {
        ensure(8);
        for (int shift = 56; shift >= 0; shift -= 8) {
            bytes[size++] = (byte) (value >>> shift);
        }
    }

    public void writeUuid(Uuid value) {
        writeInt64(value.getMostSignificantBits());
        writeInt64(value.getLeastSignificantBits());
    }

    /** Unsigned varint of the low 32 bits of {@code value}: 7 bits a byte, least significant first. */
    public void writeUnsignedVarint(int value) {
        ensure(5);
        int rest = value;
        while ((rest & ~0x7f) != 0) {
            bytes[size++] = (byte) ((rest & 0x7f) | 0x80);
            rest >>>= 7;
        }
        bytes[size++] = (byte) rest;
    }

    public void writeCompactString(String field, String value) {
        if (value == null) {
            throw new ProtocolException(message + " cannot be written: " + field + " is null but may not be");
        }
        writeCompactNullableString(field, value);
    }

    /** Compact nullable string: unsigned varint (length + 1), 0 for null, then UTF-8 bytes. */
    public void writeCompactNullableString(String field, String value) {
        if (value == null) {
            writeUnsignedVarint(0);
            return;
        }
        byte[] utf8 = utf8(field, value);
        writeUnsignedVarint(utf8.length + 1);
        writeBytes(utf8);
    }

    /** Classic nullable string (request header client_id): int16 length, -1 for null, then UTF-8 bytes. */
    public void writeNullableString(String field, String value) {
        if (value == null) {
            writeInt16((short) -1);
            return;
        }
        byte[] utf8 = utf8(field, value);
        writeInt16((short) utf8.length);
        writeBytes(utf8);
    }

    /** Compact array count: unsigned varint (count + 1); 0 is reserved for null. */
    public void writeCompactArrayCount(int count) {
        writeUnsignedVarint(count + 1);
    }

    public void writeCompactNullArray() {
        writeUnsignedVarint(0);
    }

    public void writeCompactInt32Array(String field, List<Integer> values) {
        if (values == null) {
            throw new ProtocolException(message + " cannot be written: " + field + " is null but may not be");
        }
        writeCompactNullableInt32Array(values);
    }

    public void writeCompactNullableInt32Array(List<Integer> values) {
        if (values == null) {
            writeCompactNullArray();
            return;
        }
        writeCompactArrayCount(values.size());
        for (int value : values) {
            writeInt32(value);
        }
    }

    /** Tagged-field section: count, then tag, size and bytes of each field, in the given order. */
    public void writeTaggedFields(List<UnknownTaggedField> fields) {
        writeUnsignedVarint(fields.size());
        for (UnknownTaggedField field : fields) {
            writeUnsignedVarint(field.tag());
            writeUnsignedVarint(field.size());
            writeBytes(field.dataUnsafe());
        }
    }

    private byte[] utf8(String field, String value) {
        byte[] utf8 = value.getBytes(StandardCharsets.UTF_8);
        if (utf8.length > WireReader.MAX_STRING_BYTES) {
            throw new ProtocolException(String.format("%s cannot be written: %s is %d bytes long, more than the protocol's %d",
                    message, field, utf8.length, WireReader.MAX_STRING_BYTES));
        }
        return utf8;
    }

    private void writeBytes(byte[] value) {
        ensure(value.length);
        System.arraycopy(value, 0, bytes, size, value.length);
        size += value.length;
    }

    private void ensure(int more) {
        if (bytes.length - size < more) {
            bytes = Arrays.copyOf(bytes, Math.max(bytes.length * 2, size + more));
        }
    }
}
