// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.patch.broker;

import dev.uncleanrecovery.patch.AgentMain;
import dev.uncleanrecovery.patch.KafkaLine;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import kafka.server.RequestHandlerHelper;
import org.apache.kafka.common.requests.AbstractRequest;
import org.apache.kafka.common.requests.AbstractResponse;

/**
 * What the handler calls on the request {@code KafkaApis.handle} received, which is another class on 4.1 to 4.3
 * (Scala's {@code RequestChannel$Request}) than on 4.4: method handles to the members its {@link KafkaLine} names.
 * The preflight has checked each of them in the class files, so resolving them here does not fail.
 */
final class KafkaRequestCalls {

    private final MethodHandle body;
    private final MethodHandle apiLocalCompleteTimeNanos;
    private final MethodHandle setApiLocalCompleteTimeNanos;
    private final MethodHandle sendMaybeThrottle;
    private final MethodHandle handleError;

    private KafkaRequestCalls(KafkaLine.RequestShape shape) throws ReflectiveOperationException {
        ClassLoader loader = RequestHandlerHelper.class.getClassLoader();
        Class<?> request = Class.forName(shape.className().replace('/', '.'), false, loader);
        MethodHandles.Lookup lookup = MethodHandles.publicLookup();
        MethodHandle bodyOf = lookup.findVirtual(request, "body",
                MethodType.fromMethodDescriptorString(shape.bodyDescriptor(), loader));
        if (bodyOf.type().parameterCount() == 2) {
            // Scala's body[T](implicit ClassTag[T]): the tag of what it checks the parsed body against
            bodyOf = MethodHandles.insertArguments(bodyOf, 1,
                    scala.reflect.ClassTag$.MODULE$.apply(AbstractRequest.class));
        }
        this.body = bodyOf;
        this.apiLocalCompleteTimeNanos = lookup.findVirtual(request, "apiLocalCompleteTimeNanos",
                MethodType.methodType(long.class));
        this.setApiLocalCompleteTimeNanos = lookup.findVirtual(request, shape.apiLocalCompleteTimeNanosSetter(),
                MethodType.methodType(void.class, long.class));
        this.sendMaybeThrottle = lookup.findVirtual(RequestHandlerHelper.class, "sendMaybeThrottle",
                MethodType.fromMethodDescriptorString(shape.sendMaybeThrottleDescriptor(), loader));
        this.handleError = lookup.findVirtual(RequestHandlerHelper.class, "handleError",
                MethodType.fromMethodDescriptorString(shape.handleErrorDescriptor(), loader));
    }

    /** The calls of the line this JVM runs; resolved when the first GetReplicaLogInfo request arrives. */
    static KafkaRequestCalls ofThisKafka() {
        return OfThisKafka.CALLS;
    }

    AbstractRequest body(Object request) throws Throwable {
        return (AbstractRequest) body.invoke(request);
    }

    void sendMaybeThrottle(RequestHandlerHelper helper, Object request, AbstractResponse response) throws Throwable {
        sendMaybeThrottle.invoke(helper, request, response);
    }

    void handleError(RequestHandlerHelper helper, Object request, Throwable error) throws Throwable {
        handleError.invoke(helper, request, error);
    }

    /** Records when the handling finished unless it is recorded already, as {@code KafkaApis.handle} finishes. */
    void markLocalComplete(Object request) throws Throwable {
        if ((long) apiLocalCompleteTimeNanos.invoke(request) < 0) {
            setApiLocalCompleteTimeNanos.invoke(request, System.nanoTime());
        }
    }

    private static final class OfThisKafka {

        static final KafkaRequestCalls CALLS;

        static {
            try {
                CALLS = new KafkaRequestCalls(AgentMain.kafkaLine().request());
            } catch (ReflectiveOperationException e) {
                throw new ExceptionInInitializerError(e);
            }
        }
    }
}
