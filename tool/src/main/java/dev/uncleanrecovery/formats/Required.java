// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.formats;

import com.fasterxml.jackson.annotation.JacksonAnnotationsInside;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonSetter;
import com.fasterxml.jackson.annotation.Nulls;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;

/**
 * A field every file of its format has, and never as {@code null}: Jackson refuses the file when it lacks the field
 * ({@code required}) or holds null there ({@code Nulls.FAIL}), and says which field. The reader turns either into
 * "partitions[0].topic is missing" or "... must be a string, found null".
 *
 * <p>Per field, not {@code FAIL_ON_NULL_CREATOR_PROPERTIES}: that feature holds for a whole read, and every format
 * has optional fields that are absent (null) in older files.
 */
@Retention(RetentionPolicy.RUNTIME)
@JacksonAnnotationsInside
@JsonProperty(required = true)
@JsonSetter(nulls = Nulls.FAIL)
public @interface Required {
}
