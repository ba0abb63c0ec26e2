// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.patch;

import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * The Kafka release lines whose server jars the agent's hook points were found in, and what differs between them.
 * Every hook point is the same class, method and descriptor on 4.1 to 4.4 but one: {@code KafkaApis.handle} takes
 * the request object of its line, which 4.4 moved from Scala's {@code kafka.network.RequestChannel$Request} to
 * Java's {@code org.apache.kafka.network.Request}. Any other version (3.x, 4.0, a newer line) has no entry here,
 * and the agent refuses it.
 */
public enum KafkaLine {

    KAFKA_4_1("4.1", RequestShape.REQUEST_CHANNEL),
    KAFKA_4_2("4.2", RequestShape.REQUEST_CHANNEL),
    KAFKA_4_3("4.3", RequestShape.REQUEST_CHANNEL),
    KAFKA_4_4("4.4", RequestShape.NETWORK_REQUEST);

    private final String line;
    private final RequestShape request;

    KafkaLine(String line, RequestShape request) {
        this.line = line;
        this.request = request;
    }

    /** The line of a Kafka version such as {@code 4.3.1}; empty for a version the agent has no hook points for. */
    public static Optional<KafkaLine> of(String version) {
        return Arrays.stream(values()).filter(l -> version != null && version.startsWith(l.line + ".")).findFirst();
    }

    /** {@code 4.1.x, 4.2.x, 4.3.x, 4.4.x}: for messages. */
    public static String supported() {
        return Arrays.stream(values()).map(KafkaLine::toString).collect(Collectors.joining(", "));
    }

    /** How this line's {@code KafkaApis.handle} receives a request. */
    public RequestShape request() {
        return request;
    }

    @Override
    public String toString() {
        return line + ".x";
    }

    /**
     * The request object {@code KafkaApis.handle} receives on a line, and the members of it (and of
     * {@code RequestHandlerHelper}, which takes it) that the broker's handler calls by name: the preflight checks
     * each of them in the class files before Kafka runs.
     *
     * @param className                    internal name of the request class
     * @param bodyDescriptor               {@code body}: Scala's takes an implicit ClassTag, Java's nothing
     * @param apiLocalCompleteTimeNanosSetter the setter of the time the handling finished (Scala's {@code _$eq})
     */
    public record RequestShape(String className, String bodyDescriptor, String apiLocalCompleteTimeNanosSetter) {

        static final String HELPER = "kafka/server/RequestHandlerHelper";
        private static final String ABSTRACT_REQUEST = "Lorg/apache/kafka/common/requests/AbstractRequest;";

        static final RequestShape REQUEST_CHANNEL = new RequestShape("kafka/network/RequestChannel$Request",
                "(Lscala/reflect/ClassTag;)" + ABSTRACT_REQUEST, "apiLocalCompleteTimeNanos_$eq");
        static final RequestShape NETWORK_REQUEST = new RequestShape("org/apache/kafka/network/Request",
                "()" + ABSTRACT_REQUEST, "apiLocalCompleteTimeNanos");

        /** {@code L<className>;} */
        public String descriptor() {
            return "L" + className + ";";
        }

        /** {@code sendMaybeThrottle(request, response)}: quotas, throttling and metrics as Kafka's own handlers. */
        public String sendMaybeThrottleDescriptor() {
            return "(" + descriptor() + "Lorg/apache/kafka/common/requests/AbstractResponse;)V";
        }

        /** {@code handleError(request, throwable)}: the error response Kafka sends for a handler that failed. */
        public String handleErrorDescriptor() {
            return "(" + descriptor() + "Ljava/lang/Throwable;)V";
        }

        /** The members the broker's handler calls through method handles, as hook points that insert nothing. */
        List<HookPoint> calledMembers() {
            return List.of(
                    HookPoint.called(className, "context", "()Lorg/apache/kafka/common/requests/RequestContext;",
                            "the hook in KafkaApis.handle hands the request's context (header, principal) on"),
                    HookPoint.called(className, "body", bodyDescriptor, "the parsed GetReplicaLogInfo request"),
                    HookPoint.called(className, "apiLocalCompleteTimeNanos", "()J",
                            "when the handling finished, for the request metrics"),
                    HookPoint.called(className, apiLocalCompleteTimeNanosSetter, "(J)V",
                            "records it, as the finally block of KafkaApis.handle the handler returns before would"),
                    HookPoint.called(HELPER, "sendMaybeThrottle", sendMaybeThrottleDescriptor(),
                            "sends the answer with Kafka's quotas and throttling"),
                    HookPoint.called(HELPER, "handleError", handleErrorDescriptor(),
                            "a failed answer becomes Kafka's own error response"));
        }
    }
}
