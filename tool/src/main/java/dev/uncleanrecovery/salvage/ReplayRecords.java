// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.salvage;

import dev.uncleanrecovery.salvage.SalvageDirectory.SalvagedRange;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.HashMap;
import java.util.Map;
import org.apache.kafka.common.record.internal.ControlRecordType;
import org.apache.kafka.common.record.internal.Record;
import org.apache.kafka.common.record.internal.RecordBatch;

/**
 * The records of a salvaged range with what replay does with each. A producer has at most one open transaction per
 * partition, so a transactional batch belongs to the transaction that the next marker of its producer id ends; its
 * records are replayed when that marker is a COMMIT, skipped when it is an ABORT or when the salvage holds none.
 */
final class ReplayRecords {

    @FunctionalInterface
    interface Visitor {
        void visit(RecordBatch batch, Record record, RecordFate fate);
    }

    private ReplayRecords() {
    }

    /** Reads the range twice: once for the markers, once for the records. */
    static void forEach(SalvagedRange salvaged, Visitor visitor) {
        Map<Long, RecordFate> transactional = transactionOutcomes(salvaged);
        long fromOffset = salvaged.range().fromOffset();
        salvaged.forEachBatch(batch -> {
            RecordFate batchFate = batch.isControlBatch() ? RecordFate.CONTROL
                    : batch.isTransactional() ? transactional.get(batch.baseOffset())
                    : RecordFate.REPLAY;
            for (Record record : batch) {
                visitor.visit(batch, record, record.offset() < fromOffset ? RecordFate.BEFORE_RANGE : batchFate);
            }
        });
    }

    /** Per transactional data batch (by base offset): REPLAY if a COMMIT of its producer follows, ABORTED, NO_MARKER. */
    private static Map<Long, RecordFate> transactionOutcomes(SalvagedRange salvaged) {
        Map<Long, RecordFate> outcomes = new HashMap<>();
        Map<Long, Deque<Long>> open = new HashMap<>();
        salvaged.forEachBatch(batch -> {
            if (!batch.isTransactional()) {
                return;
            }
            if (!batch.isControlBatch()) {
                open.computeIfAbsent(batch.producerId(), p -> new ArrayDeque<>()).add(batch.baseOffset());
                outcomes.put(batch.baseOffset(), RecordFate.NO_MARKER);
                return;
            }
            for (Record marker : batch) {
                ControlRecordType type = ControlRecordType.parse(marker.key());
                if (type != ControlRecordType.COMMIT && type != ControlRecordType.ABORT) {
                    continue;
                }
                Deque<Long> batches = open.remove(batch.producerId());
                if (batches != null) {
                    RecordFate fate = type == ControlRecordType.COMMIT ? RecordFate.REPLAY : RecordFate.ABORTED;
                    batches.forEach(offset -> outcomes.put(offset, fate));
                }
            }
        });
        return outcomes;
    }
}
