// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.formats;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonMappingException;
import org.apache.kafka.common.Uuid;
import org.junit.jupiter.api.Test;

class JsonTest {

    record WithTopicId(Uuid topicId) {
    }

    @Test
    void topic_ids_are_written_and_read_in_kafkas_base64_form() throws Exception {
        Uuid id = Uuid.fromString("MR6tzbBVRwqb9TEy9-Bv5A");

        String json = Json.mapper().writeValueAsString(new WithTopicId(id));

        assertThat(json.replaceAll("\\s", "")).isEqualTo("{\"topicId\":\"MR6tzbBVRwqb9TEy9-Bv5A\"}");
        assertThat(Json.mapper().readValue(json, WithTopicId.class).topicId()).isEqualTo(id);
    }

    @Test
    void a_topic_id_that_is_not_base64_is_refused() {
        assertThatThrownBy(() -> Json.mapper().readValue("{\"topicId\":\"not-an-id\"}", WithTopicId.class))
                .isInstanceOf(JsonMappingException.class).hasMessageContaining("not a Kafka topic id");
    }
}
