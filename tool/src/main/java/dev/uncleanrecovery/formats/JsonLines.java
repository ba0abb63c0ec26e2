// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.formats;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.SerializationFeature;
import dev.uncleanrecovery.support.BoundedFiles;
import dev.uncleanrecovery.support.DurableFiles;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** The logs the tool only ever appends to (the audit log, the consumer offset resets): one JSON value a line. */
final class JsonLines {

    private JsonLines() {
    }

    /** {@code value} as compact JSON on one line (a newline in a text is escaped), and the newline. */
    static byte[] line(Object value) {
        try {
            byte[] json = Json.mapper().writer().without(SerializationFeature.INDENT_OUTPUT).writeValueAsBytes(value);
            byte[] line = new byte[json.length + 1];
            System.arraycopy(json, 0, line, 0, json.length);
            line[json.length] = '\n';
            return line;
        } catch (JsonProcessingException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Appends {@code value}'s line to {@code log}, flushed to the disk ({@link DurableFiles#appendLine}). */
    static void append(Path log, Object value) throws IOException {
        DurableFiles.appendLine(log, line(value));
    }

    /** Every line of {@code log}, each read by {@code format} and named "{@code log} line N" in its errors. */
    static <T> List<T> readAll(Path log, StrictJsonFile<T> format) throws IOException {
        String text = new String(BoundedFiles.readAll(log, StrictJsonFile.MAX_BYTES), StandardCharsets.UTF_8);
        List<T> lines = new ArrayList<>();
        int n = 0;
        for (String line : text.split("\n")) {
            n++;
            if (!line.isBlank()) {
                lines.add(format.parse(log + " line " + n, line.getBytes(StandardCharsets.UTF_8)));
            }
        }
        return lines;
    }
}
