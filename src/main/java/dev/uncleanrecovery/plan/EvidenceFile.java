// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.plan;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonParseException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.exc.MismatchedInputException;
import com.fasterxml.jackson.databind.exc.UnrecognizedPropertyException;
import com.fasterxml.jackson.databind.exc.ValueInstantiationException;
import dev.uncleanrecovery.UserInputException;
import dev.uncleanrecovery.logdir.LogDirReport;
import dev.uncleanrecovery.logdir.LogDirSummary;
import dev.uncleanrecovery.logdir.PartitionLogSummary;
import dev.uncleanrecovery.logdir.SkippedDirectory;
import dev.uncleanrecovery.probe.EvidenceSource;
import dev.uncleanrecovery.probe.EvidenceStatus;
import dev.uncleanrecovery.probe.ReplicaEvidence;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Instant;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;

/**
 * The evidence file {@code inspect} writes from a stopped broker's log dirs, for {@code plan --evidence} to use
 * as that broker's answer. One file per broker. Facts that are not known are left out rather than written as
 * -1, as in the plan; {@code lastWrittenLeaderEpoch: -1} is a fact (the epoch cache is empty).
 *
 * <pre>{@code
 * { "version": 1, "createdAt": "2026-11-29T16:00:00Z", "tool": "kafka-unclean-recovery 0.1.0",
 *   "brokerId": 2, "clusterId": "q1Sh-9_ISia_zwGINzRvyQ", "cleanShutdown": false,
 *   "logDirs": [ { "path": "/var/lib/kafka/data", "cleanShutdown": false, "notes": [ "no clean-shutdown marker ..." ] } ],
 *   "partitions": [ { "topic": "orders", "partition": 3, "topicId": "m0uMP1nXQ4mAkRTb3e6u1Q",
 *                     "logDir": "/var/lib/kafka/data", "logStartOffset": 0, "logEndOffset": 1042,
 *                     "lastWrittenLeaderEpoch": 6, "lastBatchLeaderEpoch": 6, "invalidTailBytes": 0, "notes": [] } ],
 *   "skipped": [ { "logDir": "/var/lib/kafka/data", "directory": "orders-1.9f...-delete", "reason": "marked for deletion ..." } ] }
 * }</pre>
 *
 * @param tool        the tool and version that wrote the file, for people
 * @param brokerId    node.id of the log dirs
 * @param clusterId   null when meta.properties had none
 * @param brokerEpoch the epoch of the clean shutdown; absent unless {@code cleanShutdown}
 */
public record EvidenceFile(
        @JsonProperty(required = true) int version,
        @JsonProperty(required = true) Instant createdAt,
        String tool,
        @JsonProperty(required = true) int brokerId,
        String clusterId,
        @JsonProperty(required = true) boolean cleanShutdown,
        Long brokerEpoch,
        @JsonProperty(required = true) List<LogDir> logDirs,
        @JsonProperty(required = true) List<Partition> partitions,
        List<Skipped> skipped) {

    public static final int VERSION = 1;

    private static final Pattern MISSING_FIELD = Pattern.compile("Missing required creator property '([^']+)'");

    public EvidenceFile {
        if (version != VERSION) {
            throw new IllegalArgumentException("version must be " + VERSION + ", found " + version);
        }
        required(createdAt, "createdAt");
        atLeast(brokerId, 0, "brokerId");
        if (cleanShutdown && (brokerEpoch == null || brokerEpoch < 0)) {
            throw new IllegalArgumentException("brokerEpoch must be >= 0 when cleanShutdown is true");
        }
        logDirs = list(logDirs, "logDirs");
        if (logDirs.isEmpty()) {
            throw new IllegalArgumentException("logDirs must name at least one log dir");
        }
        partitions = list(partitions, "partitions");
        skipped = skipped == null ? List.of() : list(skipped, "skipped");
    }

    /** One log dir: where it is and how its broker stopped. */
    public record LogDir(
            @JsonProperty(required = true) String path,
            String directoryId,
            @JsonProperty(required = true) boolean cleanShutdown,
            Long brokerEpoch,
            List<String> notes,
            String error) {

        public LogDir {
            text(path, "path");
            notes = notes == null ? List.of() : list(notes, "notes");
        }
    }

    /**
     * One replica's log. When {@code error} is absent, the offsets and the last written epoch are present.
     *
     * @param lastWrittenLeaderEpoch -1 when the epoch cache is empty
     * @param lastBatchLeaderEpoch   the last valid batch's epoch, when there is one
     * @param invalidTailBytes       bytes after the last valid batch, which log recovery removes
     */
    public record Partition(
            @JsonProperty(required = true) String topic,
            @JsonProperty(required = true) int partition,
            String topicId,
            @JsonProperty(required = true) String logDir,
            Long logStartOffset,
            Long logEndOffset,
            Integer lastWrittenLeaderEpoch,
            Integer lastBatchLeaderEpoch,
            long invalidTailBytes,
            List<String> notes,
            String error) {

        public Partition {
            text(topic, "topic");
            atLeast(partition, 0, "partition");
            text(logDir, "logDir");
            if (topicId != null) {
                try {
                    Uuid.fromString(topicId);
                } catch (IllegalArgumentException e) {
                    throw new IllegalArgumentException("topicId '" + topicId + "' is not a base64 topic id");
                }
            }
            if (error == null) {
                atLeast(required(logStartOffset, "logStartOffset"), 0, "logStartOffset");
                atLeast(required(logEndOffset, "logEndOffset"), logStartOffset, "logEndOffset");
                atLeast(required(lastWrittenLeaderEpoch, "lastWrittenLeaderEpoch"), -1, "lastWrittenLeaderEpoch");
            }
            atLeast(invalidTailBytes, 0, "invalidTailBytes");
            notes = notes == null ? List.of() : list(notes, "notes");
        }

        public TopicPartition topicPartition() {
            return new TopicPartition(topic, partition);
        }
    }

    /** A directory of a log dir that is not a partition's current log. */
    public record Skipped(
            @JsonProperty(required = true) String logDir,
            @JsonProperty(required = true) String directory,
            @JsonProperty(required = true) String reason) {
    }

    /**
     * The evidence file for what {@code inspect} read.
     *
     * @param tool e.g. "kafka-unclean-recovery 0.1.0"
     * @throws IllegalArgumentException when no log dir said which broker it belongs to
     */
    public static EvidenceFile from(LogDirReport report, String tool) {
        if (report.brokerId() < 0) {
            throw new IllegalArgumentException("no log dir has a readable meta.properties, so the broker is unknown");
        }
        return new EvidenceFile(VERSION, report.inspectedAt(), tool, report.brokerId(), report.clusterId(),
                report.cleanShutdown(), report.cleanShutdown() ? report.brokerEpoch() : null,
                report.logDirs().stream().map(EvidenceFile::logDir).toList(),
                report.partitions().stream().map(EvidenceFile::partition).toList(),
                report.skipped().stream().map(EvidenceFile::skipped).toList());
    }

    /**
     * This broker's replicas as probe evidence (source {@link EvidenceSource#DISK}): readable logs answer with
     * their log end offset and last written epoch, the others count as errors.
     */
    public List<ReplicaEvidence> toReplicaEvidence() {
        return partitions.stream().map(p -> p.error() == null
                // Broker epoch -1: the one in the clean-shutdown marker belongs to the stopped incarnation, and the
                // broker gets a new one when it starts again, before its replica can be elected.
                ? ReplicaEvidence.answered(p.topicPartition(), brokerId, EvidenceSource.DISK, p.logEndOffset(),
                        p.lastWrittenLeaderEpoch(), -1, -1L, createdAt)
                : ReplicaEvidence.failed(p.topicPartition(), brokerId, EvidenceSource.DISK, EvidenceStatus.ERROR,
                        "log dir " + p.logDir() + ": " + p.error(), createdAt)).toList();
    }

    public String toJson() {
        try {
            return Json.mapper().writeValueAsString(this) + "\n";
        } catch (IOException e) {
            throw new IllegalStateException("cannot write an evidence file as JSON", e);
        }
    }

    /** Writes the file; refuses to replace an existing one unless {@code replaceExisting}. */
    public void write(Path file, boolean replaceExisting) throws IOException {
        byte[] json = toJson().getBytes(StandardCharsets.UTF_8);
        try {
            if (replaceExisting) {
                Files.write(file, json);
            } else {
                Files.write(file, json, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE);
            }
        } catch (FileAlreadyExistsException e) {
            throw new UserInputException(file + " already exists; write the evidence elsewhere or remove it first", e);
        } catch (NoSuchFileException e) {
            throw new UserInputException(file + ": its directory does not exist; create it or write elsewhere", e);
        }
    }

    public static EvidenceFile read(Path file) throws IOException {
        try {
            return parse(file.toString(), Files.readAllBytes(file));
        } catch (NoSuchFileException e) {
            throw new UserInputException(file + ": no such evidence file; write one with 'inspect --log-dir ...'", e);
        } catch (AccessDeniedException e) {
            throw new UserInputException(file + ": permission denied reading the evidence file", e);
        }
    }

    /**
     * Reads an evidence file, checking everything: unknown fields, wrong types, missing or impossible values.
     *
     * @param source how to name the file in messages, usually its path
     * @throws InvalidEvidenceFileException with the file, the JSON path and what is wrong, in one line
     */
    public static EvidenceFile parse(String source, byte[] json) {
        JsonNode root;
        try {
            root = Json.mapper().reader().with(DeserializationFeature.FAIL_ON_TRAILING_TOKENS).readTree(json);
        } catch (JsonParseException e) {
            throw new InvalidEvidenceFileException(source, "", "is not valid JSON" + at(e.getLocation()) + ": "
                    + firstLine(e.getOriginalMessage()), e);
        } catch (IOException e) {
            throw new InvalidEvidenceFileException(source, "", "is not valid JSON: " + firstLine(e.getMessage()), e);
        }
        if (root == null || !root.isObject()) {
            throw new InvalidEvidenceFileException(source, "", "is not an evidence file: expected a JSON object"
                    + " written by 'kafka-unclean-recovery inspect'", null);
        }
        // A newer format may add fields: say "version", not "unknown field".
        JsonNode version = root.get("version");
        if (version != null && version.isInt() && version.intValue() != VERSION) {
            throw new InvalidEvidenceFileException(source, "version", "is " + version.intValue()
                    + ", but this tool reads version " + VERSION + " evidence files; use the tool version that wrote it", null);
        }
        try {
            return Json.mapper().treeToValue(root, EvidenceFile.class);
        } catch (UnrecognizedPropertyException e) {
            String known = e.getKnownPropertyIds().stream().map(Object::toString).sorted().collect(Collectors.joining(", "));
            throw new InvalidEvidenceFileException(source, path(e), "is not a field of an evidence file here (fields here: "
                    + known + ")", e);
        } catch (ValueInstantiationException e) {
            // The records check their own values; their messages start with the field name.
            Throwable cause = e.getCause() != null ? e.getCause() : e;
            String where = path(e);
            throw new InvalidEvidenceFileException(source, where.isEmpty() ? "" : where + ".", cause.getMessage(), e);
        } catch (MismatchedInputException e) {
            Matcher missing = MISSING_FIELD.matcher(e.getOriginalMessage());
            if (missing.find()) {
                String where = path(e);
                String field = where.endsWith(missing.group(1)) ? where
                        : (where.isEmpty() ? "" : where + ".") + missing.group(1);
                throw new InvalidEvidenceFileException(source, field, "is missing", e);
            }
            JsonNode found = nodeAt(root, e);
            String problem = e.getTargetType() == null || found == null ? firstLine(e.getOriginalMessage())
                    : "must be " + expectation(e.getTargetType()) + ", found " + (found.isContainerNode()
                            ? (found.isArray() ? "an array" : "an object") : found.toString());
            throw new InvalidEvidenceFileException(source, path(e), problem, e);
        } catch (JsonMappingException e) {
            throw new InvalidEvidenceFileException(source, path(e), firstLine(e.getOriginalMessage()), e);
        } catch (IOException e) {
            throw new InvalidEvidenceFileException(source, "", "cannot be read: " + firstLine(e.getMessage()), e);
        }
    }

    /**
     * An evidence file that cannot be used, in one line: {@code b2.json: partitions[3].logEndOffset must be >= 0, found -5}.
     */
    public static final class InvalidEvidenceFileException extends UserInputException {
        InvalidEvidenceFileException(String source, String jsonPath, String problem, Throwable cause) {
            super(source + ": " + (jsonPath.isEmpty() || jsonPath.endsWith(".") ? jsonPath : jsonPath + " ") + problem, cause);
        }
    }

    private static LogDir logDir(LogDirSummary d) {
        return new LogDir(d.path().toString(), d.directoryId(), d.cleanShutdown(),
                d.brokerEpoch() < 0 ? null : d.brokerEpoch(), d.notes(), d.error());
    }

    private static Partition partition(PartitionLogSummary p) {
        boolean known = p.error() == null;
        return new Partition(p.topic(), p.partition(), p.topicId() == null ? null : p.topicId().toString(),
                p.logDir().toString(),
                known ? p.logStartOffset() : null,
                known ? p.logEndOffset() : null,
                known ? p.lastWrittenLeaderEpoch() : null,
                p.lastBatchLeaderEpoch() < 0 ? null : p.lastBatchLeaderEpoch(),
                p.invalidTailBytes(), p.notes(), p.error());
    }

    private static Skipped skipped(SkippedDirectory s) {
        return new Skipped(s.logDir().toString(), s.directory(), s.reason());
    }

    private static <T> T required(T value, String field) {
        if (value == null) {
            throw new IllegalArgumentException(field + " is missing");
        }
        return value;
    }

    private static void text(String value, String field) {
        if (required(value, field).isBlank()) {
            throw new IllegalArgumentException(field + " must not be empty");
        }
    }

    private static long atLeast(long value, long min, String field) {
        if (value < min) {
            throw new IllegalArgumentException(field + " must be >= " + min + ", found " + value);
        }
        return value;
    }

    private static <T> List<T> list(List<T> values, String field) {
        required(values, field);
        for (int i = 0; i < values.size(); i++) {
            if (values.get(i) == null) {
                throw new IllegalArgumentException(field + "[" + i + "] is null");
            }
        }
        return List.copyOf(values);
    }

    /** What a person should write instead, for the Java type Jackson wanted. */
    private static String expectation(Class<?> type) {
        if (type == int.class || type == Integer.class || type == long.class || type == Long.class) {
            return "an integer";
        }
        if (type == boolean.class || type == Boolean.class) {
            return "true or false";
        }
        if (type == String.class) {
            return "a string";
        }
        if (type == Instant.class) {
            return "a UTC timestamp like \"2026-01-31T03:00:00Z\"";
        }
        if (List.class.isAssignableFrom(type)) {
            return "an array";
        }
        return "an object";
    }

    private static JsonNode nodeAt(JsonNode root, JsonMappingException e) {
        JsonNode node = root;
        for (JsonMappingException.Reference ref : e.getPath()) {
            if (node == null) {
                return null;
            }
            node = ref.getFieldName() != null ? node.get(ref.getFieldName()) : node.get(ref.getIndex());
        }
        return node;
    }

    /** [partitions, 2, logEndOffset] → "partitions[2].logEndOffset". */
    private static String path(JsonMappingException e) {
        StringBuilder path = new StringBuilder();
        for (JsonMappingException.Reference ref : e.getPath()) {
            if (ref.getFieldName() != null) {
                path.append(path.length() > 0 ? "." : "").append(ref.getFieldName());
            } else if (ref.getIndex() >= 0) {
                path.append('[').append(ref.getIndex()).append(']');
            }
        }
        return path.toString();
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
}
