// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.formats;

import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonStreamContext;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.exc.InputCoercionException;
import com.fasterxml.jackson.core.exc.StreamReadException;
import com.fasterxml.jackson.core.io.ContentReference;
import com.fasterxml.jackson.core.io.JsonEOFException;
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
import java.lang.reflect.RecordComponent;
import java.nio.charset.StandardCharsets;
import java.nio.file.AccessDeniedException;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.security.DigestOutputStream;
import java.security.MessageDigest;
import java.time.Instant;
import java.util.Arrays;
import java.util.Collection;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * A JSON file that people review and may edit by hand (a plan, an evidence file), bound to a record type. Read
 * strictly, and every problem reported in one line: the file, the JSON path, what to fix — Jackson's own messages
 * name Java types and stack frames. The messages are built from what Jackson's exceptions carry (the path, the
 * target type, the known fields, where the parser stopped) and from the document itself, never from the wording of
 * Jackson's messages, which changes between its versions.
 *
 * <p>The record types refuse impossible values in their constructors with a {@link Checks.InvalidField}: the field
 * relative to the record, whose JSON path goes in front.
 *
 * @param <T> the record type of the whole document; it must have an int {@code version} field
 */
final class StrictJsonFile<T> {

    /** Makes the caller's exception type: the message is "{source}: {jsonPath} {problem}". */
    @FunctionalInterface
    interface FormatError {
        UserInputException create(String source, String jsonPath, String problem, Throwable cause);
    }

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
     * @param producedBy the command that writes such files, for messages: "'kafka-unclean-recovery.sh plan'"
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

    /** "a plan", "an approval", "an audit line". */
    private String aKind() {
        return ("aeiou".indexOf(kind.charAt(0)) >= 0 ? "an " : "a ") + kind;
    }

    /**
     * @throws BoundedFiles.NotRegularFileException when {@code file} is a device, FIFO or directory (an IOException,
     *                                              as any other file that cannot be read)
     * @throws BoundedFiles.TooLargeException       when it is larger than {@link #MAX_BYTES}
     */
    T read(Path file) throws IOException {
        return parse(file.toString(), readBytes(file));
    }

    /** The file's bytes, as {@link #read} parses them: with the same bounds and the same messages. */
    byte[] readBytes(Path file) throws IOException {
        byte[] content;
        try {
            content = BoundedFiles.readAll(file, MAX_BYTES);
        } catch (NoSuchFileException e) {
            throw new UserInputException(file + ": no such " + kind + "; write one with " + producedBy + " first", e);
        } catch (AccessDeniedException e) {
            throw new UserInputException(file + ": permission denied reading the " + kind, e);
        }
        return content;
    }

    /** @param source how to name the document in messages, usually its path */
    T parse(String source, byte[] json) {
        JsonNode root = readTree(source, json);
        if (!root.isObject()) {
            throw fail(source, "", "not " + aKind() + ": expected a JSON object, found " + describe(root), null);
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

    /**
     * Writes {@code value} under {@code file} through {@link DurableFiles}: always a new file, never over one.
     *
     * @throws UserInputException when {@code file} exists (a symbolic link included) or its directory does not
     */
    void write(Path file, T value) throws IOException {
        DurableFiles.writeNew(file, Json.fileContent(value));
    }

    /**
     * {@link #write}, and the SHA-256 of the bytes written, hashed as they went to the disk (not read back).
     */
    String writeHashed(Path file, T value) throws IOException {
        MessageDigest digest = Sha256.digest();
        DurableFiles.Content content = Json.fileContent(value);
        DurableFiles.writeNew(file, out -> content.writeTo(new DigestOutputStream(out, digest)));
        return Sha256.hexOf(digest);
    }

    /** Writes {@code value} over the tool's own record at {@code file} in one rename ({@link DurableFiles#update}). */
    void update(Path file, T value) throws IOException {
        DurableFiles.update(file, Json.fileContent(value));
    }

    private JsonNode readTree(String source, byte[] json) {
        String empty = "empty file; expected " + aKind() + " written by " + producedBy;
        if (new String(json, StandardCharsets.UTF_8).isBlank()) {
            throw fail(source, "", empty, null);
        }
        try (JsonParser parser = Json.mapper().createParser(json)) {
            JsonNode root;
            try {
                root = Json.mapper().readTree(parser);
            } catch (MismatchedInputException e) {
                // the mapper's FAIL_ON_READING_DUP_TREE_KEY: the parser stands in the object, at the name seen twice
                throw duplicate(source, e);
            } catch (StreamReadException e) {
                throw notJson(source, json, e);
            }
            if (root == null || root.isMissingNode()) {
                throw fail(source, "", empty, null);
            }
            refuseContentAfter(source, parser);
            return root;
        } catch (IOException e) {
            throw fail(source, "", "not valid JSON: " + firstLine(e.getMessage()), e);
        }
    }

    /** A second value after the first, e.g. two documents pasted into one file. */
    private void refuseContentAfter(String source, JsonParser parser) throws IOException {
        JsonLocation next;
        try {
            if (parser.nextToken() == null) {
                return;
            }
            next = parser.currentTokenLocation();
        } catch (StreamReadException e) {
            next = e.getLocation(); // not even JSON
        }
        throw fail(source, "", "content after the " + kind + "'s closing brace" + at(next)
                + "; the file holds one JSON object", null);
    }

    private UserInputException duplicate(String source, MismatchedInputException e) {
        JsonStreamContext context = e.getProcessor() instanceof JsonParser p ? p.getParsingContext() : null;
        if (context != null && context.inObject() && context.getCurrentName() != null) {
            return fail(source, path(context), "appears twice" + at(e.getLocation()) + "; keep one", e);
        }
        return fail(source, "", "unreadable" + at(e.getLocation()) + ": " + firstLine(e.getOriginalMessage()), e);
    }

    /**
     * A file that is not JSON, said from where the parser stopped and what it was in: the file ending inside an array
     * or object, a closing bracket of the wrong kind, a comma before a closing bracket. Any other mistake (an
     * unquoted name, a missing comma) gets the parser's own sentence after the line and column.
     */
    private UserInputException notJson(String source, byte[] json, StreamReadException e) {
        JsonLocation location = e.getLocation();
        JsonStreamContext context = e.getProcessor() == null ? null : e.getProcessor().getParsingContext();
        int offset = location == null ? -1 : (int) Math.min(location.getByteOffset(), Integer.MAX_VALUE);
        String container = context == null ? null : context.inArray() ? "array" : context.inObject() ? "object" : null;
        char closer = context != null && context.inArray() ? ']' : '}';
        byte here = offset >= 0 && offset < json.length ? json[offset] : 0;
        String problem;
        if (e instanceof JsonEOFException eof && (eof.getTokenBeingDecoded() == JsonToken.VALUE_STRING
                || eof.getTokenBeingDecoded() == JsonToken.FIELD_NAME)) {
            problem = "the file ends inside a string (cut short, or a missing '\"')";
        } else if (container != null && (e instanceof JsonEOFException || onlySpaceFrom(json, offset))) {
            problem = "the file ends before the " + container + opened(context) + " is closed (cut short, or a missing '"
                    + closer + "')";
        } else if (container != null && (here == '}' || here == ']') && here != closer) {
            problem = "unexpected '" + (char) here + "': expected '" + closer + "' to close the " + container
                    + opened(context);
        } else if ((here == '}' || here == ']') && previousSignificant(json, offset) == ',') {
            problem = "a comma before this '" + (char) here + "': JSON allows none after the last entry; remove it";
        } else {
            problem = firstLine(e.getOriginalMessage());
        }
        return fail(source, "", "not valid JSON" + at(location) + ": " + problem, e);
    }

    private UserInputException translate(String source, JsonNode root, JsonMappingException e) {
        List<JsonMappingException.Reference> refs = e.getPath();
        String path = path(refs);
        if (e instanceof UnrecognizedPropertyException unknown) {
            return fail(source, path, "is not a field of " + aKind() + " here"
                    + suggestion(unknown.getPropertyName(), unknown.getKnownPropertyIds())
                    + "; fix the spelling or remove it", e);
        }
        if (e instanceof ValueInstantiationException) {
            // a record's constructor refused the values: its path is the record's
            if (e.getCause() instanceof Checks.InvalidField invalid) {
                return fail(source, join(path, invalid.field()), invalid.problem(), e);
            }
            Throwable cause = e.getCause() == null ? e : e.getCause();
            return fail(source, path, "is invalid: " + firstLine(cause.getMessage()), e);
        }
        JsonNode found = nodeAt(root, refs);
        JsonMappingException.Reference last = refs.isEmpty() ? null : refs.get(refs.size() - 1);
        if (e instanceof MismatchedInputException && found == null && last != null && last.getFieldName() != null) {
            // Jackson wants a value the document does not have: a required field, missing. Jackson reports a
            // missing field before an unknown one, so a typo shows up here, as "missing".
            JsonNode object = nodeAt(root, refs.subList(0, refs.size() - 1));
            Class<?> owner = last.getFrom() instanceof Class<?> c ? c : null;
            return fail(source, path, "is missing" + misspelling(last.getFieldName(), object, owner), e);
        }
        Class<?> target = e instanceof MismatchedInputException mismatch ? mismatch.getTargetType()
                : e.getCause() instanceof InputCoercionException outOfRange ? outOfRange.getTargetType()
                : null;
        if (target != null) {
            return fail(source, path, "must be " + expectation(target, found) + ", found " + describe(found), e);
        }
        return fail(source, path, "cannot be read: " + firstLine(e.getOriginalMessage()), e);
    }

    private UserInputException fail(String source, String jsonPath, String problem, Throwable cause) {
        return formatError.create(source, jsonPath, problem, cause);
    }

    /** A field present beside the missing one and close to it, unless it is a field of the record in its own right. */
    private static String misspelling(String field, JsonNode object, Class<?> type) {
        if (object == null || !object.isObject()) {
            return "";
        }
        Set<String> own = type != null && type.isRecord()
                ? Arrays.stream(type.getRecordComponents()).map(RecordComponent::getName).collect(Collectors.toSet())
                : Set.of();
        for (var names = object.fieldNames(); names.hasNext(); ) {
            String name = names.next();
            if (!name.equals(field) && !own.contains(name) && editDistance(name, field) <= 2) {
                return " (is \"" + name + "\" a misspelling of it?)";
            }
        }
        return "";
    }

    private static String suggestion(String unknown, Collection<Object> known) {
        String closest = null;
        int best = Integer.MAX_VALUE;
        for (Object candidate : known) {
            int distance = editDistance(unknown, candidate.toString());
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

    /** How the one mapper writes an enum constant (its {@code @JsonValue} where it has one). */
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
        String path = "";
        for (JsonMappingException.Reference ref : references) {
            if (ref.getFieldName() != null) {
                path = join(path, ref.getFieldName());
            } else if (ref.getIndex() >= 0) {
                path = join(path, "[" + ref.getIndex() + "]");
            }
        }
        return path;
    }

    /** Where the parser stands, from the document's root: "partitions[2].topic". */
    private static String path(JsonStreamContext context) {
        if (context == null || context.inRoot()) {
            return "";
        }
        String step = context.inArray() ? "[" + context.getCurrentIndex() + "]"
                : context.getCurrentName() == null ? "" : context.getCurrentName();
        return join(path(context.getParent()), step);
    }

    /** "partitions[0]" and "topic" → "partitions[0].topic"; an index or an empty part joins without a dot. */
    private static String join(String path, String field) {
        if (path.isEmpty() || field.isEmpty()) {
            return path + field;
        }
        return field.startsWith("[") ? path + field : path + "." + field;
    }

    /** Letters added, removed or changed between the two, ignoring case: the measure of a typo. */
    private static int editDistance(String typed, String known) {
        String a = typed.toLowerCase(Locale.ROOT);
        String b = known.toLowerCase(Locale.ROOT);
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

    /** " opened at line 3, column 18", where the parser knows where the array or object began. */
    private static String opened(JsonStreamContext context) {
        JsonLocation start = context.startLocation(ContentReference.unknown());
        return start == null || start.getLineNr() < 0 ? ""
                : " opened at line " + start.getLineNr() + ", column " + start.getColumnNr();
    }

    private static boolean onlySpaceFrom(byte[] json, int offset) {
        if (offset < 0) {
            return false;
        }
        for (int i = offset; i < json.length; i++) {
            if (!isSpace(json[i])) {
                return false;
            }
        }
        return true;
    }

    private static byte previousSignificant(byte[] json, int offset) {
        for (int i = Math.min(offset, json.length) - 1; i >= 0; i--) {
            if (!isSpace(json[i])) {
                return json[i];
            }
        }
        return 0;
    }

    /** JSON's white space (RFC 8259: space, tab, line feed, carriage return). */
    private static boolean isSpace(byte b) {
        return b == ' ' || b == '\t' || b == '\n' || b == '\r';
    }

    private static String firstLine(String message) {
        if (message == null) {
            return "no detail";
        }
        int newline = message.indexOf('\n');
        return newline < 0 ? message : message.substring(0, newline);
    }
}
