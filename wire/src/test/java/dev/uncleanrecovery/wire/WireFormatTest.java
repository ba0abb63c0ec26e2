// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.wire;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The primitives every message is built from, against vectors worked out by hand. */
class WireFormatTest {

    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource({
            "0,          00",
            "127,        7f",          // the largest one-byte value: 7 bits
            "128,        8001",        // low 7 bits 0 with the continuation bit, then 1
            "300,        ac02",        // 300 = 2 * 128 + 44; 44 | 0x80 = 0xac
            "16383,      ff7f",
            "16384,      808001",
            "2147483647, ffffffff07",
            "-1,         ffffffff0f"   // 2^32 - 1: the largest unsigned 32-bit value, 5 bytes
    })
    void unsigned_varints_are_seven_bits_a_byte_least_significant_first(int value, String hex) {
        WireWriter out = new WireWriter("test");
        out.writeUnsignedVarint(value);

        assertThat(Hex.of(out.toByteBuffer())).isEqualTo(hex);
        assertThat(WireReader.of(ByteBuffer.wrap(Hex.bytes(hex)), "test").readUnsignedVarint("v"))
                .isEqualTo(Integer.toUnsignedLong(value));
    }

    @Test
    void compact_strings_carry_length_plus_one_and_zero_means_null() {
        WireWriter out = new WireWriter("test");
        out.writeCompactNullableString("s", null);
        out.writeCompactNullableString("s", "");
        out.writeCompactNullableString("s", "ab");
        out.writeNullableString("c", null);
        out.writeNullableString("c", "ab");

        assertThat(Hex.of(out.toByteBuffer())).isEqualTo("00" + "01" + "036162" + "ffff" + "00026162");

        WireReader in = WireReader.of(out.toByteBuffer(), "test");
        assertThat(in.readCompactNullableString("s")).isNull();
        assertThat(in.readCompactString("s")).isEmpty();
        assertThat(in.readCompactString("s")).isEqualTo("ab");
        assertThat(in.readNullableString("c")).isNull();
        assertThat(in.readNullableString("c")).isEqualTo("ab");
        in.expectEnd();
    }

    @Test
    void compact_int32_arrays_carry_count_plus_one_and_zero_means_null() {
        WireWriter out = new WireWriter("test");
        out.writeCompactNullableInt32Array(null);
        out.writeCompactNullableInt32Array(List.of());
        out.writeCompactNullableInt32Array(List.of(-1, 258));

        assertThat(Hex.of(out.toByteBuffer())).isEqualTo("00" + "01" + "03" + "ffffffff" + "00000102");

        WireReader in = WireReader.of(out.toByteBuffer(), "test");
        assertThat(in.readCompactNullableInt32Array("a")).isNull();
        assertThat(in.readCompactInt32Array("a")).isEmpty();
        assertThat(in.readCompactInt32Array("a")).containsExactly(-1, 258);
        in.expectEnd();
    }

    @Test
    void the_writer_grows_past_its_first_buffer() {
        WireWriter out = new WireWriter("test");
        for (int i = 0; i < 1_000; i++) {
            out.writeInt64(i);
        }
        ByteBuffer bytes = out.toByteBuffer();

        assertThat(bytes.remaining()).isEqualTo(8_000);
        assertThat(bytes.getLong(8 * 999)).isEqualTo(999L);
    }
}
