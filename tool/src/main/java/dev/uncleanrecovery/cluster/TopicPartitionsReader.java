// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.cluster;

import dev.uncleanrecovery.connect.BrokerConnections;
import dev.uncleanrecovery.connect.BrokerRotation;
import dev.uncleanrecovery.connect.BrokerState;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.errors.UnsupportedVersionException;
import org.apache.kafka.common.message.DescribeTopicPartitionsRequestData;
import org.apache.kafka.common.message.DescribeTopicPartitionsResponseData;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.DescribeTopicPartitionsRequest;
import org.apache.kafka.common.requests.DescribeTopicPartitionsResponse;

/**
 * Reads partition metadata with DescribeTopicPartitions (3.8+), sent directly to a live broker: unlike
 * Admin's TopicPartitionInfo it carries the leader epoch and the OfflineReplicas the tool must compare
 * a plan against. Follows the response cursor so any number of partitions can be read.
 */
final class TopicPartitionsReader {

    /** The broker's own default page size; pages are cheap, one request per 2000 partitions. */
    private static final int PARTITIONS_PER_PAGE = 2000;

    private final BrokerConnections connections;
    private final BrokerRotation rotation;

    /**
     * The partitions of a topic a read needs, first to last; {@link #WHOLE_TOPIC} when not known. A range of more
     * than one page is read a page per 2,000 partitions, all pages at once (each starts at its own cursor); every
     * other topic is read whole, all of them together page after page along the broker's cursor (so a thousand
     * small topics still cost a request per 2,000 partitions, not one each).
     */
    record Range(int first, int last) {
        static final Range WHOLE_TOPIC = new Range(0, -1);

        static Range of(Collection<Integer> partitions) {
            return new Range(partitions.stream().mapToInt(Integer::intValue).min().orElse(0),
                    partitions.stream().mapToInt(Integer::intValue).max().orElse(-1));
        }

        /** True when the range is known and needs more than one page. */
        boolean spansPages() {
            return last - first + 1 > PARTITIONS_PER_PAGE;
        }
    }

    /**
     * What one read found: the partitions of the topics described, and the topics the broker answered with a
     * topic-level error instead (in the order met), which have no partitions here.
     */
    record Described(List<TopicPartitionState> partitions, Map<String, Errors> failed) {
        Described {
            partitions = List.copyOf(partitions);
            failed = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(failed));
        }
    }

    TopicPartitionsReader(BrokerConnections connections, BrokerRotation rotation) {
        this.connections = connections;
        this.rotation = rotation;
    }

    /**
     * @param brokers live brokers to ask; the next is tried when one does not answer
     * @throws UnsupportedVersionException when the brokers are older than 3.8
     */
    Described read(Map<String, Range> topics, List<BrokerState> brokers) {
        return rotation.ask(brokers, "describe topics", (broker, timeout) -> BrokerRotation.await(readFrom(broker.id(), topics, timeout)));
    }

    /** The topics' partitions as one broker's metadata shows them, each request within the request timeout. */
    CompletableFuture<Described> readOn(int broker, Map<String, Range> topics) {
        return readFrom(broker, topics, rotation.requestTimeout());
    }

    /**
     * The topics' partitions from one broker: ranges of more than one page a page each, all sent at once; the
     * other topics whole, page after page. Each request may take {@code timeout}.
     */
    private CompletableFuture<Described> readFrom(int broker, Map<String, Range> topics, Duration timeout) {
        List<Page> pages = new ArrayList<>();
        List<CompletableFuture<Void>> reads = new ArrayList<>();
        List<String> wholeTopics = new ArrayList<>();
        topics.forEach((topic, range) -> {
            if (!range.spansPages()) {
                wholeTopics.add(topic);
                return;
            }
            for (int start = range.first(); start <= range.last(); start += PARTITIONS_PER_PAGE) {
                Page page = new Page();
                pages.add(page);
                DescribeTopicPartitionsRequestData.Cursor cursor = new DescribeTopicPartitionsRequestData.Cursor()
                        .setTopicName(topic).setPartitionIndex(start);
                int limit = Math.min(PARTITIONS_PER_PAGE, range.last() - start + 1);
                reads.add(readPage(broker, List.of(topic), cursor, limit, timeout, page).thenApply(next -> null));
            }
        });
        if (!wholeTopics.isEmpty()) {
            Page page = new Page();
            pages.add(page);
            reads.add(readAllPages(broker, wholeTopics, null, timeout, page));
        }
        return CompletableFuture.allOf(reads.toArray(CompletableFuture[]::new)).thenApply(done -> {
            List<TopicPartitionState> partitions = new ArrayList<>();
            Map<String, Errors> failed = new LinkedHashMap<>();
            for (Page page : pages) {
                partitions.addAll(page.partitions);
                page.failed.forEach(failed::putIfAbsent);
            }
            return new Described(partitions, failed);
        });
    }

    /** What the requests of one page (or one run of pages along the cursor) gathered, in answer order. */
    private static final class Page {
        final List<TopicPartitionState> partitions = new ArrayList<>();
        final Map<String, Errors> failed = new LinkedHashMap<>();
    }

    private CompletableFuture<Void> readAllPages(int broker, List<String> topics, DescribeTopicPartitionsRequestData.Cursor cursor,
                                                 Duration timeout, Page into) {
        return readPage(broker, topics, cursor, PARTITIONS_PER_PAGE, timeout, into).thenCompose(next -> next == null
                ? CompletableFuture.<Void>completedFuture(null) : readAllPages(broker, topics, next, timeout, into));
    }

    /** One DescribeTopicPartitions request; completes with the cursor of the next page, or null after the last. */
    private CompletableFuture<DescribeTopicPartitionsRequestData.Cursor> readPage(int broker, List<String> topics,
            DescribeTopicPartitionsRequestData.Cursor cursor, int limit, Duration timeout, Page into) {
        DescribeTopicPartitionsRequestData request = new DescribeTopicPartitionsRequestData()
                .setResponsePartitionLimit(limit)
                .setCursor(cursor)
                .setTopics(topics.stream().map(t -> new DescribeTopicPartitionsRequestData.TopicRequest().setName(t)).toList());
        return connections.send(broker, new DescribeTopicPartitionsRequest.Builder(request), DescribeTopicPartitionsResponse.class, timeout)
                .thenApply(response -> {
                    for (DescribeTopicPartitionsResponseData.DescribeTopicPartitionsResponseTopic topic : response.data().topics()) {
                        Errors error = Errors.forCode(topic.errorCode());
                        if (error != Errors.NONE) {
                            // none of its partitions is known: the caller reports the topic, not a partial cluster
                            into.failed.putIfAbsent(topic.name(), error);
                            continue;
                        }
                        for (DescribeTopicPartitionsResponseData.DescribeTopicPartitionsResponsePartition p : topic.partitions()) {
                            into.partitions.add(toState(topic.name(), topic.topicId(), p));
                        }
                    }
                    DescribeTopicPartitionsResponseData.Cursor next = response.data().nextCursor();
                    return next == null ? null : new DescribeTopicPartitionsRequestData.Cursor()
                            .setTopicName(next.topicName()).setPartitionIndex(next.partitionIndex());
                });
    }

    private static TopicPartitionState toState(String topic, Uuid topicId,
                                               DescribeTopicPartitionsResponseData.DescribeTopicPartitionsResponsePartition p) {
        return new TopicPartitionState(topic, topicId, p.partitionIndex(), p.leaderId(), p.leaderEpoch(),
                p.replicaNodes(), p.isrNodes(), orEmpty(p.eligibleLeaderReplicas()), orEmpty(p.lastKnownElr()),
                p.offlineReplicas());
    }

    private static List<Integer> orEmpty(List<Integer> ids) {
        return ids == null ? List.of() : ids;
    }
}
