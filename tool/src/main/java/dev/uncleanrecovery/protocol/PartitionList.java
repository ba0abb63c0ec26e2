// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.protocol;

import java.util.Arrays;
import org.apache.kafka.common.Uuid;

/**
 * The partitions of one request, in request order, read by position so that a request of a thousand partitions
 * is written without a thousand objects. Partitions of one topic must stand together: a topic entry of the request
 * starts wherever the topic differs from the one before.
 */
public interface PartitionList {

    int size();

    String topic(int position);

    /** The topic's id; {@link Uuid#ZERO_UUID} when unknown (then only versions that name topics can carry it). */
    Uuid topicId(int position);

    int partition(int position);

    /**
     * Where the request's topic entries start: a new entry wherever the topic differs from the one before. The
     * last element is {@link #size()}, so entry {@code t} holds positions {@code starts[t]} to
     * {@code starts[t + 1] - 1}, and there are {@code starts.length - 1} entries. An implementation may hand out
     * the same array every time: callers only read it.
     */
    default int[] topicStarts() {
        int[] starts = new int[size() + 1];
        int runs = 0;
        String before = null;
        for (int k = 0; k < size(); k++) {
            String topic = topic(k);
            if (k == 0 || topic != before && !topic.equals(before)) {
                starts[runs++] = k;
            }
            before = topic;
        }
        starts[runs] = size();
        return Arrays.copyOf(starts, runs + 1);
    }
}
