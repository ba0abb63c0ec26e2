// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.cluster;

import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.json.JsonMapper;
import dev.uncleanrecovery.UserInputException;
import dev.uncleanrecovery.support.BoundedFiles;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import org.apache.kafka.common.TopicPartition;

/**
 * Which partitions a command looks at: every partition of the cluster, one topic (optionally some of its
 * partitions), or the partitions of a kafka-leader-election {@code --path-to-json-file}.
 */
public sealed interface PartitionSelection {

    /** Every partition of every topic (internal topics included: __consumer_offsets goes offline too). */
    record AllTopics() implements PartitionSelection {
    }

    /** @param partitions empty means every partition of the topic */
    record OneTopic(String topic, List<Integer> partitions) implements PartitionSelection {
        public OneTopic {
            partitions = List.copyOf(partitions);
        }
    }

    record Explicit(Set<TopicPartition> partitions) implements PartitionSelection {
        public Explicit {
            partitions = Set.copyOf(partitions);
        }
    }

    /** Whether this selection covers the given partition of a described topic. */
    default boolean includes(String topic, int partition) {
        if (this instanceof OneTopic one) {
            return one.topic().equals(topic) && (one.partitions().isEmpty() || one.partitions().contains(partition));
        }
        if (this instanceof Explicit explicit) {
            return explicit.partitions().contains(new TopicPartition(topic, partition));
        }
        return true;
    }

    static PartitionSelection of(String topic, List<Integer> partitions, Path jsonFile) {
        if (jsonFile != null && topic != null) {
            throw new UserInputException("--topic and --path-to-json-file cannot be used together");
        }
        if (topic == null && partitions != null && !partitions.isEmpty()) {
            throw new UserInputException("--partition needs --topic");
        }
        if (jsonFile != null) {
            return new Explicit(readElectionFile(jsonFile));
        }
        if (topic != null) {
            List<Integer> chosen = partitions == null ? List.of() : partitions;
            for (int p : chosen) {
                if (p < 0) {
                    throw new UserInputException("--partition " + p + " is not a partition number (must be >= 0)");
                }
            }
            return new OneTopic(topic, chosen);
        }
        return new AllTopics();
    }

    /** Reads the format kafka-leader-election.sh accepts: {"partitions":[{"topic":"t","partition":0},...]}. */
    static Set<TopicPartition> readElectionFile(Path file) {
        int maxBytes = 256 * 1024 * 1024; // a list of a million partitions is about 50 MB
        JsonNode root;
        try {
            // a key given twice is an error, not the last one winning
            root = JsonMapper.builder().enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION).build()
                    .readTree(BoundedFiles.readAll(file, maxBytes));
        } catch (java.nio.file.NoSuchFileException e) {
            throw new UserInputException("--path-to-json-file " + file + " does not exist");
        } catch (BoundedFiles.NotRegularFileException | BoundedFiles.TooLargeException e) {
            throw new UserInputException("--path-to-json-file " + e.getMessage(), e);
        } catch (IOException e) {
            throw new UserInputException("--path-to-json-file " + file + " is not valid JSON: "
                    + e.getMessage().lines().findFirst().orElse(""), e);
        }
        JsonNode list = root == null ? null : root.get("partitions");
        if (list == null || !list.isArray()) {
            throw new UserInputException(file + ": expected {\"partitions\": [{\"topic\": \"t\", \"partition\": 0}, ...]}");
        }
        Set<TopicPartition> result = new LinkedHashSet<>();
        List<String> duplicates = new ArrayList<>();
        for (int i = 0; i < list.size(); i++) {
            JsonNode entry = list.get(i);
            JsonNode topic = entry.get("topic");
            JsonNode partition = entry.get("partition");
            if (topic == null || !topic.isTextual()) {
                throw new UserInputException(file + ": partitions[" + i + "].topic must be a string");
            }
            if (partition == null || !partition.isInt() || partition.intValue() < 0) {
                throw new UserInputException(file + ": partitions[" + i + "].partition must be an integer >= 0");
            }
            TopicPartition tp = new TopicPartition(topic.textValue(), partition.intValue());
            if (!result.add(tp)) {
                duplicates.add(tp.toString());
            }
        }
        if (!duplicates.isEmpty()) {
            throw new UserInputException(file + ": duplicate partitions " + duplicates);
        }
        return result;
    }
}
