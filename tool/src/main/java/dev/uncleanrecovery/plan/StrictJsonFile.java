// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.plan;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonParseException;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.exc.InputCoercionException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.exc.MismatchedInputException;
import com.fasterxml.jackson.databind.exc.UnrecognizedPropertyException;
import com.fasterxml.jackson.databind.exc.ValueInstantiationException;
import dev.uncleanrecovery.UserInputException;
import dev.uncleanrecovery.support.BoundedFiles;
import dev.uncleanrecovery.support.DurableFiles;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Instant;
import java.util.Arrays;
import java.util.Collection;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * A JSON file that people review and may edit by hand (a plan, an evidence file), bound to a record type.
 * Written atomically, never silently over an existing file. Read strictly, and every problem reported in one
 * line: the file, the JSON path, what to fix — Jackson's own messages name Java types and stack frames.
 *
 * <p>The record types check their own invariants in their constructors, with messages that start with the
 * field's name relative to the record ("topic is missing"); the JSON path of the record goes in front.
 *
 * @param <T> the record type of the whole document; it must have an int {@code version} field
 */
final class StrictJsonFile<T> {

    /** Makes the caller's exception type: the message is "{source}: {jsonPath} {problem}". */
    @FunctionalInterface
    interface FormatError {
        UserInputException create(String source, String jsonPath, String problem, Throwable cause);
    }

    private static final Pattern END_OF_INPUT = Pattern.compile(
            "Unexpected end-of-input: expected close marker for (Array|Object) \\(start marker at \\[Source: [^\\]]*?; line: (\\d+), column: (\\d+)\\]\\)");
    private static final Pattern END_OF_INPUT_BETWEEN = Pattern.compile(
            "Unexpected end-of-input within/between (Array|Object) entries");
    private static final Pattern STARTING_AT = Pattern.compile(
            "\\(for (Array|Object) starting at \\[Source: [^\\]]*?; line: (\\d+), column: (\\d+)\\]\\)");
    private static final Pattern SOURCE_LOCATION = Pattern.compile("\\[Source: [^\\]]*?; line: (\\d+), column: (\\d+)\\]");
    private static final Pattern CHARACTER_CODE = Pattern.compile(" \\(code \\d+\\)");
    private static final Pattern MISSING_PROPERTY = Pattern.compile("Missing required creator property '([^']+)'");
    private static final Pattern DUPLICATE_FIELD = Pattern.compile("Duplicate field '([^']+)'");
    /**
     * The largest file read: a plan or evidence file of 300,000 partitions is about 200 MB. Anything larger (or a
     * device such as /dev/zero) is not one, and reading it whole would take the heap.
     */
    static final int MAX_BYTES = 512 * 1024 * 1024;

    private final Class<T> type;
    private final String kind;
    private final int oldestVersion;
    private final int version;
    private final String producedBy;
    private final FormatError formatError;

    /**
     * @param kind       what the file is, for messages: "plan"
     * @param version    the only format version this tool reads
     * @param producedBy the command that writes such files, for messages: "'kafka-unclean-recovery plan'"
     */
    StrictJsonFile(Class<T> type, String kind, int version, String producedBy, FormatError formatError) {
        this(type, kind, version, version, producedBy, formatError);
    }

    /** @param oldestVersion the oldest format version this tool still reads; {@code version} is the one it writes */
    StrictJsonFile(Class<T> type, String kind, int oldestVersion, int version, String producedBy,
                   FormatError formatError) {
        this.type = type;
        this.kind = kind;
        this.oldestVersion = oldestVersion;
        this.version = version;
        this.producedBy = producedBy;
        this.formatError = formatError;
    }

    /**
     * @throws BoundedFiles.NotRegularFileException when {@code file} is a device, FIFO or directory (an IOException,
     *                                              as any other file that cannot be read)
     * @throws BoundedFiles.TooLargeException       when it is larger than {@link #MAX_BYTES}
     */
    T read(Path file) throws IOException {
        byte[] content;
        try {
            content = BoundedFiles.readAll(file, MAX_BYTES);
        } catch (NoSuchFileException e) {
            throw new UserInputException(file + ": no such " + kind + "; write one with " + producedBy + " first", e);
        } catch (AccessDeniedException e) {
            throw new UserInputException(file + ": permission denied reading the " + kind, e);
        }
        return parse(file.toString(), content);
    }

    /** @param source how to name the document in messages, usually its path */
    T parse(String source, byte[] json) {
        JsonNode root = readTree(source, json);
        if (!root.isObject()) {
            throw fail(source, "", "not a " + kind + ": expected a JSON object, found " + describe(root), null);
        }
        // A newer format may have fields this tool does not know: say "version", not "unknown field".
        JsonNode versionNode = root.get("version");
        if (versionNode != null && versionNode.isInt()
                && (versionNode.intValue() < oldestVersion || versionNode.intValue() > version)) {
            throw fail(source, "version", "is " + versionNode.intValue() + ", but this tool reads version "
                    + (oldestVersion == version ? "" + version : oldestVersion + " to " + version) + " " + kind
                    + "s; use the tool version that wrote it", null);
        }
        try {
            return Json.mapper().readerFor(type)
                    // kafka-leader-election.sh takes only isInt() partitions: 3.0 is not a partition.
                    .without(DeserializationFeature.ACCEPT_FLOAT_AS_INT)
                    .readValue(root);
        } catch (JsonMappingException e) {
            throw translate(source, root, e);
        } catch (IOException e) {
            throw fail(source, "", "unreadable: " + firstLine(e.getMessage()), e);
        }
    }

    void write(Path file, T value, boolean replaceExisting) throws IOException {
        Path target = file.toAbsolutePath();
        Path directory = target.getParent();
        if (!Files.isDirectory(directory)) {
            throw new UserInputException(file + ": directory " + directory + " does not exist; create it or write the "
                    + kind + " elsewhere");
        }
        if (replaceExisting) {
            DurableFiles.replace(target, json(value));
            return;
        }
        if (Files.exists(target)) {
            throw alreadyExists(file, null);
        }
        try {
            DurableFiles.writeNew(target, json(value));
        } catch (FileAlreadyExistsException e) {
            throw alreadyExists(file, e);
        }
    }

    /**
     * {@code value} as the file's whole content (indented JSON and a newline). Streamed in Jackson's own 8 KB chunks:
     * a plan of thousands of partitions is megabytes, and as one byte[] it would be allocated, copied, and copied once
     * more by the file channel into a direct buffer of its size, all before the first election.
     */
    static DurableFiles.Content json(Object value) {
        return out -> {
            Json.mapper().writer().without(JsonGenerator.Feature.AUTO_CLOSE_TARGET).writeValue(out, value);
            out.write('\n');
        };
    }

    private JsonNode readTree(String source, byte[] json) {
        String empty = "empty file; expected a " + kind + " written by " + producedBy;
        if (new String(json, StandardCharsets.UTF_8).isBlank()) {
            throw fail(source, "", empty, null);
        }
        try {
            JsonNode root = Json.mapper().reader().with(DeserializationFeature.FAIL_ON_TRAILING_TOKENS).readTree(json);
            if (root == null || root.isMissingNode()) {
                throw fail(source, "", empty, null);
            }
            return root;
        } catch (JsonParseException e) {
            Matcher duplicate = DUPLICATE_FIELD.matcher(e.getOriginalMessage());
            if (duplicate.find()) {
                String path = pointerToPath(e.getProcessor().getParsingContext().pathAsPointer().toString());
                throw fail(source, path, "appears twice" + at(e.getLocation()) + "; keep one", e);
            }
            throw fail(source, "", "not valid JSON" + at(e.getLocation()) + ": " + inOurWords(firstLine(e.getOriginalMessage())), e);
        } catch (MismatchedInputException e) {
            // FAIL_ON_TRAILING_TOKENS: a second value after the first, e.g. two documents pasted into one file
            throw fail(source, "", "content after the " + kind + "'s closing brace" + at(e.getLocation())
                    + "; the file holds one JSON object", e);
        } catch (IOException e) {
            throw fail(source, "", "not valid JSON: " + inOurWords(firstLine(e.getMessage())), e);
        }
    }

    private UserInputException translate(String source, JsonNode root, JsonMappingException e) {
        String path = path(e.getPath());
        if (e instanceof UnrecognizedPropertyException unknown) {
            return fail(source, path, "is not a field of a " + kind + " here"
                    + suggestion(unknown.getPropertyName(), unknown.getKnownPropertyIds()) + "; fix the spelling or remove it", e);
        }
        if (e instanceof ValueInstantiationException && e.getCause() instanceof IllegalArgumentException invalid) {
            String message = invalid.getMessage();
            int space = message.indexOf(' ');
            String field = space < 0 ? message : message.substring(0, space);
            String problem = space < 0 ? "is invalid" : message.substring(space + 1);
            return fail(source, path.isEmpty() ? field : path + "." + field, problem, e);
        }
        Matcher missing = MISSING_PROPERTY.matcher(e.getOriginalMessage());
        if (e instanceof MismatchedInputException && missing.find()) {
            // Jackson reports a missing field before an unknown one: a typo shows up as "missing".
            String field = missing.group(1);
            List<JsonMappingException.Reference> refs = e.getPath();
            boolean endsWithField = !refs.isEmpty() && field.equals(refs.get(refs.size() - 1).getFieldName());
            String fieldPath = endsWithField ? path : (path.isEmpty() ? field : path + "." + field);
            JsonNode object = nodeAt(root, endsWithField ? refs.subList(0, refs.size() - 1) : refs);
            Object owner = endsWithField ? refs.get(refs.size() - 1).getFrom() : null;
            Class<?> type = owner instanceof Class<?> c ? c : ((MismatchedInputException) e).getTargetType();
            return fail(source, fieldPath, "is missing" + misspelling(field, object, type), e);
        }
        Class<?> target = e instanceof MismatchedInputException mismatch ? mismatch.getTargetType()
                : e.getCause() instanceof InputCoercionException outOfRange ? outOfRange.getTargetType()
                : null;
        if (target != null) {
            JsonNode found = nodeAt(root, e.getPath());
            return fail(source, path, "must be " + expectation(target, found) + ", found " + describe(found), e);
        }
        return fail(source, path, "cannot be read: " + firstLine(e.getOriginalMessage()), e);
    }

    private UserInputException fail(String source, String jsonPath, String problem, Throwable cause) {
        return formatError.create(source, jsonPath, problem, cause);
    }

    private UserInputException alreadyExists(Path file, Exception cause) {
        return new UserInputException(file + " already exists; not overwriting it — write to another path, or remove the old "
                + kind + " first", cause);
    }

    /**
     * {@code value}, flushed to the disk, under {@code file} or, when that name is taken, {@code <name>-2.json},
     * {@code -3}, ...: the first free one (a record of what was done is never replaced by the next run's).
     *
     * @return where it was written
     */
    static Path writeUnderFreeName(Path file, Object value) throws IOException {
        Path absolute = file.toAbsolutePath();
        return DurableFiles.writeUnderFreeName(n -> n == 1 ? absolute : numbered(absolute, n), json(value));
    }

    /** {@code plan-result.json} → {@code plan-result-2.json}. */
    static Path numbered(Path file, int n) {
        String name = file.getFileName().toString();
        int dot = name.endsWith(".json") ? name.length() - 5 : name.length();
        return file.resolveSibling(name.substring(0, dot) + "-" + n + name.substring(dot));
    }


    /** The object lacks {@code field}: is one of its fields a typo of it? */
    /** A field present beside the missing one and close to it, unless it is a field of the record in its own right. */
    private static String misspelling(String field, JsonNode object, Class<?> type) {
        if (object == null || !object.isObject()) {
            return "";
        }
        java.util.Set<String> own = type != null && type.isRecord()
                ? java.util.Arrays.stream(type.getRecordComponents()).map(java.lang.reflect.RecordComponent::getName)
                .collect(Collectors.toSet())
                : java.util.Set.of();
        for (var names = object.fieldNames(); names.hasNext(); ) {
            String name = names.next();
            if (!name.equals(field) && !own.contains(name) && editDistance(name.toLowerCase(Locale.ROOT), field.toLowerCase(Locale.ROOT)) <= 2) {
                return " (is \"" + name + "\" a misspelling of it?)";
            }
        }
        return "";
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
        return closest != null && best <= 2
                ? " (did you mean " + closest + "?)"
                : " (fields here: " + known.stream().map(Object::toString).sorted().collect(Collectors.joining(", ")) + ")";
    }

    private static String expectation(Class<?> target, JsonNode found) {
        boolean integral = found != null && found.isIntegralNumber();
        if (target == int.class || target == Integer.class) {
            return integral ? "an integer that fits in 32 bits" : "an integer";
        }
        if (target == long.class || target == Long.class) {
            return integral ? "an integer that fits in 64 bits" : "an integer";
        }
        if (target == boolean.class || target == Boolean.class) {
            return "true or false";
        }
        if (target == String.class) {
            return "a string";
        }
        if (target == Instant.class) {
            return "a UTC timestamp like \"2026-01-31T03:00:00Z\"";
        }
        if (target.isEnum()) {
            return "one of " + Arrays.stream(target.getEnumConstants()).map(StrictJsonFile::spelling)
                    .collect(Collectors.joining(", "));
        }
        if (Collection.class.isAssignableFrom(target)) {
            return "an array";
        }
        return "an object";
    }

    /** How the one mapper writes an enum constant (some are spelled in lower case). */
    private static String spelling(Object constant) {
        try {
            return Json.mapper().writeValueAsString(constant);
        } catch (JsonProcessingException e) {
            return "\"" + constant + "\"";
        }
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
    private static String path(List<JsonMappingException.Reference> references) {
        StringBuilder path = new StringBuilder();
        for (JsonMappingException.Reference ref : references) {
            if (ref.getFieldName() != null) {
                path.append(path.length() > 0 ? "." : "").append(ref.getFieldName());
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

    /**
     * Jackson's parser messages without its internals: the "[Source: REDACTED (...); line: L, column: C]" locations
     * become "line L, column C", character codes and Java-ish wording go.
     */
    static String inOurWords(String message) {
        String m = END_OF_INPUT.matcher(message).replaceAll(r -> "the file ends before the "
                + r.group(1).toLowerCase(Locale.ROOT) + " opened at line " + r.group(2) + ", column " + r.group(3)
                + " is closed (cut short, or a missing " + ("Array".equals(r.group(1)) ? "']'" : "'}'") + ")");
        m = END_OF_INPUT_BETWEEN.matcher(m).replaceAll(r -> "the file ends inside an "
                + r.group(1).toLowerCase(Locale.ROOT) + " (cut short, or a missing " + ("Array".equals(r.group(1)) ? "']'" : "'}'")
                + ")");
        m = STARTING_AT.matcher(m).replaceAll(r -> "(closing the " + r.group(1).toLowerCase(Locale.ROOT)
                + " opened at line " + r.group(2) + ", column " + r.group(3) + ")");
        m = SOURCE_LOCATION.matcher(m).replaceAll(r -> "line " + r.group(1) + ", column " + r.group(2));
        m = CHARACTER_CODE.matcher(m).replaceAll("");
        return m.replace("Unexpected", "unexpected").replace("was expecting", "expected");
    }

    private static String firstLine(String message) {
        if (message == null) {
            return "no detail";
        }
        int newline = message.indexOf('\n');
        return newline < 0 ? message : message.substring(0, newline);
    }
}
