// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.formats;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonSetter;
import com.fasterxml.jackson.annotation.Nulls;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.databind.DeserializationContext;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.MapperFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.SerializerProvider;
import com.fasterxml.jackson.databind.cfg.CoercionAction;
import com.fasterxml.jackson.databind.cfg.CoercionInputShape;
import com.fasterxml.jackson.databind.deser.std.StdDeserializer;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.module.SimpleModule;
import com.fasterxml.jackson.databind.ser.std.StdSerializer;
import com.fasterxml.jackson.databind.type.LogicalType;
import dev.uncleanrecovery.support.DurableFiles;
import dev.uncleanrecovery.support.OnItsOwnThread;
import java.io.IOException;
import org.apache.kafka.common.Uuid;

/** The one JSON mapper setup of the project: plans, results, evidence files and `--output json`. */
public final class Json {

    /**
     * The mapper, built when first used: in a class of its own so that {@link #prepareInBackground} starts its
     * building on the background thread, not on the caller's.
     */
    private static final class Built {
        static final ObjectMapper MAPPER = JsonMapper.builder()
                .enable(SerializationFeature.INDENT_OUTPUT)
                .disable(SerializationFeature.WRITE_DATES_AS_TIMESTAMPS)
                // Operators edit plans by hand; a field we do not know is a typo we must report.
                .enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
                .enable(DeserializationFeature.FAIL_ON_NULL_FOR_PRIMITIVES)
                // ... and so is a null inside an array: no list of a file holds one
                .defaultSetterInfo(JsonSetter.Value.forContentNulls(Nulls.FAIL))
                // ... and "3" where a number belongs is a mistake too: kafka-leader-election.sh rejects it (isInt()).
                .disable(MapperFeature.ALLOW_COERCION_OF_SCALARS)
                // ... and so is 7 where a topic name belongs (kafka-leader-election.sh wants isTextual()).
                .withCoercionConfig(LogicalType.Textual, textual -> textual
                        .setCoercion(CoercionInputShape.Integer, CoercionAction.Fail)
                        .setCoercion(CoercionInputShape.Float, CoercionAction.Fail)
                        .setCoercion(CoercionInputShape.Boolean, CoercionAction.Fail))
                // ... and 1 where a status belongs: Jackson would take it for the second constant
                .enable(DeserializationFeature.FAIL_ON_NUMBERS_FOR_ENUMS)
                // A key given twice is an error, not the last one winning. Files are read as a tree first (the
                // reader reports a duplicate with its path), so the tree's check is the one that counts.
                .enable(DeserializationFeature.FAIL_ON_READING_DUP_TREE_KEY)
                .addModule(new com.fasterxml.jackson.datatype.jsr310.JavaTimeModule())
                .addModule(topicIdsAsKafkaPrintsThem())
                .defaultPropertyInclusion(JsonInclude.Value.construct(JsonInclude.Include.NON_NULL,
                        JsonInclude.Include.USE_DEFAULTS))
                .build();
    }

    private Json() {
    }

    public static ObjectMapper mapper() {
        return Built.MAPPER;
    }

    /**
     * {@code value} as a file's whole content (indented JSON and a newline), for {@link DurableFiles}. Streamed in
     * Jackson's own chunks: as one byte[] a plan of thousands of partitions would be allocated, copied, and copied once
     * more by the file channel into a direct buffer of its size, all before the first election.
     */
    public static DurableFiles.Content fileContent(Object value) {
        return out -> {
            mapper().writer().without(JsonGenerator.Feature.AUTO_CLOSE_TARGET).writeValue(out, value);
            out.write('\n');
        };
    }

    /**
     * Builds the serializers of these types on a background thread, while the caller talks to the cluster: Jackson
     * introspects every record type on first use, and done here that work overlaps the cluster's round trips instead
     * of delaying the first file written.
     */
    public static void prepareInBackground(Class<?>... types) {
        OnItsOwnThread.run("json-serializers", () -> {
            for (Class<?> type : types) {
                Built.MAPPER.writerFor(type);
            }
            return null;
        });
    }

    /**
     * Topic ids as every Kafka tool prints them (kafka-topics.sh --describe, the metadata shell): the 22-character
     * URL-safe base64 of {@link Uuid#toString}, not the two halves of the UUID as numbers.
     */
    private static SimpleModule topicIdsAsKafkaPrintsThem() {
        SimpleModule module = new SimpleModule("kafka-uuids");
        module.addSerializer(Uuid.class, new StdSerializer<Uuid>(Uuid.class) {
            @Override
            public void serialize(Uuid value, JsonGenerator generator, SerializerProvider provider) throws IOException {
                generator.writeString(value.toString());
            }
        });
        module.addDeserializer(Uuid.class, new StdDeserializer<Uuid>(Uuid.class) {
            @Override
            public Uuid deserialize(JsonParser parser, DeserializationContext context) throws IOException {
                String text = parser.getValueAsString();
                try {
                    return Uuid.fromString(text);
                } catch (IllegalArgumentException e) {
                    throw context.weirdStringException(text, Uuid.class, "not a Kafka topic id (22 characters of base64)");
                }
            }
        });
        return module;
    }
}
