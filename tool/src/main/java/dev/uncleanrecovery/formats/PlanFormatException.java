// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.formats;

import dev.uncleanrecovery.UserInputException;

/**
 * A plan file that cannot be used, in one line: the file, where in it, and what to fix —
 * {@code plan.json: partitions[2].partition must be an integer, found "3"}.
 */
public class PlanFormatException extends UserInputException {

    private final String source;
    private final String jsonPath;

    /**
     * @param source   the file as the user named it
     * @param jsonPath e.g. {@code partitions[2].partition}; empty for the whole document
     * @param problem  what is wrong and, where it helps, what to do
     */
    public PlanFormatException(String source, String jsonPath, String problem, Throwable cause) {
        super(source + ": " + (jsonPath.isEmpty() ? "" : jsonPath + " ") + problem, cause);
        this.source = source;
        this.jsonPath = jsonPath;
    }

    public String source() {
        return source;
    }

    public String jsonPath() {
        return jsonPath;
    }
}
