// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.plan;

import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonParseException;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.exc.InputCoercionException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectReader;
import com.fasterxml.jackson.databind.exc.InvalidFormatException;
import com.fasterxml.jackson.databind.exc.MismatchedInputException;
import com.fasterxml.jackson.databind.exc.UnrecognizedPropertyException;
import com.fasterxml.jackson.databind.exc.ValueInstantiationException;
import dev.uncleanrecovery.UserInputException;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.AccessDeniedException;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * Reads and writes plan files. Writing is atomic (a temporary file in the same directory, then a rename) and
 * never replaces an existing plan unless asked: a plan under review must not change under the reviewer's eyes.
 * Reading checks everything a hand edit can break and reports it in one line with the JSON path.
 */
public final class PlanFile {

    private static final Pattern MISSING_PROPERTY = Pattern.compile("Missing required creator property '([^']+)'");

    private PlanFile() {
    }

    /** Writes a new plan file; refuses if {@code file} exists. */
    public static void write(Path file, Plan plan) throws IOException {
        write(file, plan, false);
    }

    /** Writes the plan file, atomically replacing an existing one. */
    public static void overwrite(Path file, Plan plan) throws IOException {
        write(file, plan, true);
    }

    public static Plan read(Path file) throws IOException {
        byte[] content;
        try {
            content = Files.readAllBytes(file);
        } catch (NoSuchFileException e) {
            throw new UserInputException(file + ": no such plan file; write one with 'plan' first", e);
        } catch (AccessDeniedException e) {
            throw new UserInputException(file + ": permission denied reading the plan file", e);
        }
        return parse(file.toString(), content);
    }

    /**
     * Parses a plan.
     *
     * @param source how to name the plan in messages, usually its path
     */
    public static Plan parse(String source, byte[] json) {
        if (new String(json, StandardCharsets.UTF_8).isBlank()) {
            throw new PlanFormatException(source, "", "empty file; expected a plan written by 'kafka-unclean-recovery plan'", null);
        }
        JsonNode root = readTree(source, json);
        if (!root.isObject()) {
            throw new PlanFormatException(source, "", "not a plan: expected a JSON object, found " + describe(root), null);
        }
        // A newer format may have fields this tool does not know: say "version", not "unknown field".
        JsonNode version = root.get("version");
        if (version != null && version.isInt() && version.intValue() != Plan.VERSION) {
            throw new PlanFormatException(source, "version", "is " + version.intValue() + ", but this tool reads version "
                    + Plan.VERSION + " plans; use the tool version that wrote it", null);
        }
        ObjectReader reader = Json.mapper().readerFor(Plan.class)
                // kafka-leader-election.sh takes only isInt() partitions: 3.0 is not a partition.
                .without(DeserializationFeature.ACCEPT_FLOAT_AS_INT);
        try {
            return reader.readValue(root);
        } catch (JsonMappingException e) {
            throw translate(source, root, e);
        } catch (IOException e) {
            throw new PlanFormatException(source, "", "unreadable: " + firstLine(e.getMessage()), e);
        }
    }

    private static JsonNode readTree(String source, byte[] json) {
        try {
            JsonNode root = Json.mapper().reader().with(DeserializationFeature.FAIL_ON_TRAILING_TOKENS).readTree(json);
            if (root == null || root.isMissingNode()) {
                throw new PlanFormatException(source, "", "empty file; expected a plan written by 'kafka-unclean-recovery plan'", null);
            }
            return root;
        } catch (JsonParseException e) {
            String message = e.getOriginalMessage();
            Matcher duplicate = Pattern.compile("Duplicate field '([^']+)'").matcher(message);
            if (duplicate.find()) {
                String path = pointerToPath(e.getProcessor().getParsingContext().pathAsPointer().toString());
                return failAt(source, path, "appears twice" + at(e.getLocation()) + "; keep one");
            }
            throw new PlanFormatException(source, "", "not valid JSON" + at(e.getLocation()) + ": " + firstLine(message), e);
        } catch (MismatchedInputException e) {
            // FAIL_ON_TRAILING_TOKENS: a second value after the plan, e.g. two plans pasted into one file
            throw new PlanFormatException(source, "", "content after the plan's closing brace"
                    + at(e.getLocation()) + "; a plan file holds one JSON object", e);
        } catch (IOException e) {
            throw new PlanFormatException(source, "", "not valid JSON: " + firstLine(e.getMessage()), e);
        }
    }

    private static JsonNode failAt(String source, String path, String problem) {
        throw new PlanFormatException(source, path, problem, null);
    }

    /** Jackson's exceptions name Java types and stack frames; people need the JSON path and what to write. */
    private static PlanFormatException translate(String source, JsonNode root, JsonMappingException e) {
        String path = path(e.getPath());
        if (e instanceof UnrecognizedPropertyException unknown) {
            return new PlanFormatException(source, path, "is not a field of a plan here" + suggestion(unknown.getPropertyName(),
                    unknown.getKnownPropertyIds()) + "; fix the spelling or remove it", e);
        }
        if (e instanceof ValueInstantiationException && e.getCause() instanceof IllegalArgumentException invalid) {
            // The records check their own invariants; their messages start with the field, relative to the record.
            String message = invalid.getMessage();
            int space = message.indexOf(' ');
            String field = space < 0 ? message : message.substring(0, space);
            String problem = space < 0 ? "is invalid" : message.substring(space + 1);
            return new PlanFormatException(source, path.isEmpty() ? field : path + "." + field, problem, e);
        }
        Matcher missing = MISSING_PROPERTY.matcher(e.getOriginalMessage());
        if (e instanceof MismatchedInputException && missing.find()) {
            String field = missing.group(1);
            String fieldPath = path.endsWith(field) ? path : (path.isEmpty() ? field : path + "." + field);
            return new PlanFormatException(source, fieldPath, "is missing", e);
        }
        if (e instanceof MismatchedInputException mismatch && mismatch.getTargetType() != null) {
            JsonNode found = nodeAt(root, e.getPath());
            return new PlanFormatException(source, path, "must be " + expectation(mismatch.getTargetType(), found)
                    + ", found " + describe(found), e);
        }
        return new PlanFormatException(source, path, "cannot be read: " + firstLine(e.getOriginalMessage()), e);
    }

    private static String expectation(Class<?> type, JsonNode found) {
        if (type == int.class || type == Integer.class) {
            return found != null && found.isIntegralNumber() ? "an integer that fits in 32 bits" : "an integer";
        }
        if (type == long.class || type == Long.class) {
            return found != null && found.isIntegralNumber() ? "an integer that fits in 64 bits" : "an integer";
        }
        if (type == String.class) {
            return "a string";
        }
        if (type == Instant.class) {
            return "a UTC timestamp like \"2026-01-31T03:00:00Z\"";
        }
        if (type.isEnum()) {
            return "one of " + java.util.Arrays.stream(type.getEnumConstants())
                    .map(c -> {
                        try {
                            return Json.mapper().writeValueAsString(c);
                        } catch (JsonProcessingException impossible) {
                            return String.valueOf(c);
                        }
                    })
                    .collect(Collectors.joining(", "));
        }
        if (Collection.class.isAssignableFrom(type)) {
            return "an array";
        }
        return "an object";
    }

    private static String describe(JsonNode node) {
        if (node == null || node.isMissingNode()) {
            return "nothing";
        }
        if (node.isObject()) {
            return "an object";
        }
        if (node.isArray()) {
            return "an array";
        }
        return node.toString();
    }

    private static JsonNode nodeAt(JsonNode root, List<JsonMappingException.Reference> path) {
        JsonNode node = root;
        for (JsonMappingException.Reference ref : path) {
            if (node == null) {
                return null;
            }
            node = ref.getFieldName() != null ? node.get(ref.getFieldName()) : node.get(ref.getIndex());
        }
        return node;
    }

    /** [partitions, 2, partition] → "partitions[2].partition". */
    static String path(List<JsonMappingException.Reference> references) {
        StringBuilder path = new StringBuilder();
        for (JsonMappingException.Reference ref : references) {
            if (ref.getFieldName() != null) {
                if (path.length() > 0) {
                    path.append('.');
                }
                path.append(ref.getFieldName());
            } else if (ref.getIndex() >= 0) {
                path.append('[').append(ref.getIndex()).append(']');
            }
        }
        return path.toString();
    }

    /** "/partitions/2/topic" → "partitions[2].topic". */
    private static String pointerToPath(String pointer) {
        StringBuilder path = new StringBuilder();
        for (String token : pointer.split("/")) {
            if (token.isEmpty()) {
                continue;
            }
            if (token.chars().allMatch(Character::isDigit)) {
                path.append('[').append(token).append(']');
            } else {
                path.append(path.length() > 0 ? "." : "").append(token.replace("~1", "/").replace("~0", "~"));
            }
        }
        return path.toString();
    }

    private static String suggestion(String unknown, Collection<Object> known) {
        String closest = null;
        int best = Integer.MAX_VALUE;
        for (Object candidate : known) {
            int distance = editDistance(unknown.toLowerCase(Locale.ROOT), candidate.toString().toLowerCase(Locale.ROOT));
            if (distance < best) {
                best = distance;
                closest = candidate.toString();
            }
        }
        String fields = known.stream().map(Object::toString).sorted().collect(Collectors.joining(", "));
        return closest != null && best <= 2
                ? " (did you mean " + closest + "?)"
                : " (fields here: " + fields + ")";
    }

    private static int editDistance(String a, String b) {
        int[] previous = new int[b.length() + 1];
        int[] current = new int[b.length() + 1];
        for (int j = 0; j <= b.length(); j++) {
            previous[j] = j;
        }
        for (int i = 1; i <= a.length(); i++) {
            current[0] = i;
            for (int j = 1; j <= b.length(); j++) {
                int substitution = previous[j - 1] + (a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1);
                current[j] = Math.min(substitution, Math.min(previous[j] + 1, current[j - 1] + 1));
            }
            int[] swap = previous;
            previous = current;
            current = swap;
        }
        return previous[b.length()];
    }

    private static String at(JsonLocation location) {
        return location == null || location.getLineNr() < 0 ? ""
                : " at line " + location.getLineNr() + ", column " + location.getColumnNr();
    }

    private static String firstLine(String message) {
        if (message == null) {
            return "unknown error";
        }
        int newline = message.indexOf('\n');
        return newline < 0 ? message : message.substring(0, newline);
    }

    private static void write(Path file, Plan plan, boolean replaceExisting) throws IOException {
        byte[] json = (Json.mapper().writeValueAsString(plan) + "\n").getBytes(StandardCharsets.UTF_8);
        Path target = file.toAbsolutePath();
        Path directory = target.getParent();
        if (!Files.isDirectory(directory)) {
            throw new UserInputException(file + ": directory " + directory + " does not exist; create it or write the plan elsewhere");
        }
        if (!replaceExisting && Files.exists(target)) {
            throw alreadyExists(file, null);
        }
        // Same directory, so that the rename below stays on one file system and is atomic.
        Path temporary = Files.createTempFile(directory, "." + target.getFileName() + ".", ".tmp");
        try {
            try (FileChannel channel = FileChannel.open(temporary, StandardOpenOption.WRITE, StandardOpenOption.TRUNCATE_EXISTING)) {
                channel.write(java.nio.ByteBuffer.wrap(json));
                channel.force(true);
            }
            if (replaceExisting) {
                moveReplacing(temporary, target);
            } else {
                publishWithoutReplacing(file, temporary, target);
            }
        } finally {
            Files.deleteIfExists(temporary);
        }
    }

    private static void moveReplacing(Path temporary, Path target) throws IOException {
        try {
            Files.move(temporary, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } catch (AtomicMoveNotSupportedException e) {
            Files.move(temporary, target, StandardCopyOption.REPLACE_EXISTING);
        }
    }

    /**
     * A hard link appears complete or not at all and fails if the name is taken, even by a file created a moment
     * ago by someone else; where hard links are not supported, a rename that refuses an existing target.
     */
    private static void publishWithoutReplacing(Path file, Path temporary, Path target) throws IOException {
        try {
            Files.createLink(target, temporary);
        } catch (FileAlreadyExistsException e) {
            throw alreadyExists(file, e);
        } catch (UnsupportedOperationException | FileSystemException e) {
            try {
                Files.move(temporary, target);
            } catch (FileAlreadyExistsException raced) {
                throw alreadyExists(file, raced);
            }
        }
    }

    private static UserInputException alreadyExists(Path file, Exception cause) {
        return new UserInputException(file + " already exists; not overwriting a plan that may be under review"
                + " — write to another path, or remove the old plan first", cause);
    }
}
