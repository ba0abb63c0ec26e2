// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.localcluster;

import java.io.InputStream;
import java.util.Map;
import java.util.Optional;
import org.apache.kafka.server.log.remote.storage.LogSegmentData;
import org.apache.kafka.server.log.remote.storage.RemoteLogSegmentMetadata;
import org.apache.kafka.server.log.remote.storage.RemoteResourceNotFoundException;
import org.apache.kafka.server.log.remote.storage.RemoteStorageManager;

/**
 * A remote storage (KIP-405) that keeps nothing: enough for brokers to accept topics with
 * {@code remote.storage.enable=true}, which tests need to see flagged. The brokers load it from the harness's own
 * jar or classes ({@code remote.log.storage.manager.class.path}); tests write too little to roll a segment, so
 * nothing is ever copied.
 */
public final class DiscardingRemoteStorage implements RemoteStorageManager {

    @Override
    public void configure(Map<String, ?> configs) {
    }

    @Override
    public Optional<RemoteLogSegmentMetadata.CustomMetadata> copyLogSegmentData(RemoteLogSegmentMetadata metadata,
                                                                               LogSegmentData data) {
        return Optional.empty();
    }

    @Override
    public InputStream fetchLogSegment(RemoteLogSegmentMetadata metadata, int startPosition)
            throws RemoteResourceNotFoundException {
        throw new RemoteResourceNotFoundException("this remote storage keeps nothing: " + metadata);
    }

    @Override
    public InputStream fetchLogSegment(RemoteLogSegmentMetadata metadata, int startPosition, int endPosition)
            throws RemoteResourceNotFoundException {
        throw new RemoteResourceNotFoundException("this remote storage keeps nothing: " + metadata);
    }

    @Override
    public InputStream fetchIndex(RemoteLogSegmentMetadata metadata, IndexType indexType)
            throws RemoteResourceNotFoundException {
        throw new RemoteResourceNotFoundException("this remote storage keeps nothing: " + metadata);
    }

    @Override
    public void deleteLogSegmentData(RemoteLogSegmentMetadata metadata) {
    }

    @Override
    public void close() {
    }
}
