// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.patch;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.objectweb.asm.MethodVisitor;
import org.objectweb.asm.Opcodes;

/**
 * Every hook point of the agent, as data, for each Kafka line it supports ({@link KafkaLine} holds what differs):
 * the transformer applies them, the preflight checks all of them before Kafka starts, the README lists them.
 * Injected code only loads arguments (and a request's context) and calls a public static method of this agent; the
 * logic lives in plain Java.
 */
final class KafkaHooks implements Opcodes {

    static final String API_MESSAGE_TYPE = "org/apache/kafka/common/message/ApiMessageType";
    static final String LISTENER_TYPE = API_MESSAGE_TYPE + "$ListenerType";
    static final String API_KEYS = "org/apache/kafka/common/protocol/ApiKeys";
    static final String ABSTRACT_REQUEST = "org/apache/kafka/common/requests/AbstractRequest";
    static final String ABSTRACT_RESPONSE = "org/apache/kafka/common/requests/AbstractResponse";
    static final String REQUEST_TO_JSON = "org/apache/kafka/network/RequestConvertToJson";
    static final String KAFKA_APIS = "kafka/server/KafkaApis";
    static final String REPLICATION_CONTROL = "org/apache/kafka/controller/ReplicationControlManager";
    static final String PARTITION_CHANGE_BUILDER = "org/apache/kafka/controller/PartitionChangeBuilder";
    static final String ELECTION_RESULT = PARTITION_CHANGE_BUILDER + "$ElectionResult";

    /** Classes read (never changed) by the preflight: the ElectLeaders request schema. */
    static final String ELECT_LEADERS_REQUEST_DATA = "org/apache/kafka/common/message/ElectLeadersRequestData";

    /** The new constant in ApiMessageType and ApiKeys: a name upstream is unlikely to pick verbatim. */
    static final String CONSTANT = "UNCLEAN_RECOVERY_GET_REPLICA_LOG_INFO";

    private static final String WIRE_HOOKS = "dev/uncleanrecovery/patch/wire/ProtocolHooks";
    private static final String BROKER_HOOK = "dev/uncleanrecovery/patch/broker/ReplicaLogInfoHandler";
    private static final String CONTROLLER_HOOK = "dev/uncleanrecovery/patch/controller/DesignatedElection";

    private static final String READABLE = "Lorg/apache/kafka/common/protocol/Readable;";
    private static final String API_MESSAGE = "Lorg/apache/kafka/common/protocol/ApiMessage;";
    private static final String SCHEMAS = "[Lorg/apache/kafka/common/protocol/types/Schema;";
    private static final String JSON_NODE = "Lcom/fasterxml/jackson/databind/JsonNode;";
    private static final String UUID = "Lorg/apache/kafka/common/Uuid;";
    private static final String REQUEST_CONTEXT = "Lorg/apache/kafka/common/requests/RequestContext;";

    private KafkaHooks() {
    }

    /** The hook points of {@code line}, grouped by class, in application order. */
    static Map<String, List<HookPoint>> forKafka(KafkaLine line, short apiKey) {
        List<HookPoint> all = new ArrayList<>();

        // --- GetReplicaLogInfo: a new api key (clients jar, loaded by brokers and controllers) ---
        all.add(HookPoint.enumConstant(API_MESSAGE_TYPE, CONSTANT,
                "(Ljava/lang/String;ILjava/lang/String;S" + SCHEMAS + SCHEMAS + "SSSSLjava/util/EnumSet;Z)V",
                "the message type of GetReplicaLogInfo v0, BROKER listeners only",
                mv -> {
                    mv.visitLdcInsn("GetReplicaLogInfo");
                    mv.visitIntInsn(SIPUSH, apiKey);
                    mv.visitMethodInsn(INVOKESTATIC, WIRE_HOOKS, "requestSchemas", "()" + SCHEMAS, false);
                    mv.visitMethodInsn(INVOKESTATIC, WIRE_HOOKS, "responseSchemas", "()" + SCHEMAS, false);
                    mv.visitInsn(ICONST_0); // lowest supported version
                    mv.visitInsn(ICONST_0); // highest supported version
                    mv.visitInsn(ICONST_0); // lowest deprecated version
                    mv.visitInsn(ICONST_M1); // highest deprecated version: none
                    mv.visitFieldInsn(GETSTATIC, LISTENER_TYPE, "BROKER", "L" + LISTENER_TYPE + ";");
                    mv.visitMethodInsn(INVOKESTATIC, "java/util/EnumSet", "of", "(Ljava/lang/Enum;)Ljava/util/EnumSet;", false);
                    mv.visitInsn(ICONST_0); // latest version unstable: no
                }));
        all.add(keyGuard(API_MESSAGE_TYPE, "fromApiKey", "(S)L" + API_MESSAGE_TYPE + ";", apiKey,
                "api key lookup finds the new message type", mv -> mv.visitVarInsn(ILOAD, 0),
                mv -> {
                    mv.visitFieldInsn(GETSTATIC, API_MESSAGE_TYPE, CONSTANT, "L" + API_MESSAGE_TYPE + ";");
                    mv.visitInsn(ARETURN);
                }));
        all.add(keyGuard(API_MESSAGE_TYPE, "newRequest", "()" + API_MESSAGE, apiKey,
                "an empty GetReplicaLogInfo request", KafkaHooks::loadOwnApiKey,
                mv -> {
                    mv.visitMethodInsn(INVOKESTATIC, WIRE_HOOKS, "newRequestData", "()" + API_MESSAGE, false);
                    mv.visitInsn(ARETURN);
                }));
        all.add(keyGuard(API_MESSAGE_TYPE, "newResponse", "()" + API_MESSAGE, apiKey,
                "an empty GetReplicaLogInfo response", KafkaHooks::loadOwnApiKey,
                mv -> {
                    mv.visitMethodInsn(INVOKESTATIC, WIRE_HOOKS, "newResponseData", "()" + API_MESSAGE, false);
                    mv.visitInsn(ARETURN);
                }));
        all.add(keyGuard(API_MESSAGE_TYPE, "requestHeaderVersion", "(S)S", apiKey,
                "GetReplicaLogInfo is flexible: request header v2", KafkaHooks::loadOwnApiKey,
                mv -> {
                    mv.visitInsn(ICONST_2);
                    mv.visitInsn(IRETURN);
                }));
        all.add(keyGuard(API_MESSAGE_TYPE, "responseHeaderVersion", "(S)S", apiKey,
                "GetReplicaLogInfo is flexible: response header v1", KafkaHooks::loadOwnApiKey,
                mv -> {
                    mv.visitInsn(ICONST_1);
                    mv.visitInsn(IRETURN);
                }));
        all.add(HookPoint.enumConstant(API_KEYS, CONSTANT, "(Ljava/lang/String;IL" + API_MESSAGE_TYPE + ";)V",
                "the api key itself; ApiKeys' id map, listener sets and request metrics are built from values() after it",
                mv -> mv.visitFieldInsn(GETSTATIC, API_MESSAGE_TYPE, CONSTANT, "L" + API_MESSAGE_TYPE + ";")));

        // --- ElectLeaders v3 (P1): advertised and accepted, by brokers and controllers ---
        all.add(keyGuard(API_MESSAGE_TYPE, "highestSupportedVersion", "(Z)S", (short) 43,
                "ElectLeaders goes up to v3 (DesignatedLeaders); ApiVersions, request checks and version negotiation read this",
                KafkaHooks::loadOwnApiKey,
                mv -> {
                    mv.visitInsn(ICONST_3);
                    mv.visitInsn(IRETURN);
                }));

        // --- request and response bodies (P2, P3) ---
        all.add(HookPoint.guard(ABSTRACT_REQUEST, "doParseRequest",
                "(L" + API_KEYS + ";S" + READABLE + ")L" + ABSTRACT_REQUEST + ";",
                "parses GetReplicaLogInfo v0 and ElectLeaders v3 with the tool's codecs",
                mv -> {
                    mv.visitVarInsn(ALOAD, 0);
                    mv.visitVarInsn(ILOAD, 1);
                    mv.visitMethodInsn(INVOKESTATIC, WIRE_HOOKS, "ownsRequest", "(L" + API_KEYS + ";S)Z", false);
                },
                mv -> {
                    mv.visitVarInsn(ALOAD, 0);
                    mv.visitVarInsn(ILOAD, 1);
                    mv.visitVarInsn(ALOAD, 2);
                    mv.visitMethodInsn(INVOKESTATIC, WIRE_HOOKS, "parseRequest",
                            "(L" + API_KEYS + ";S" + READABLE + ")L" + ABSTRACT_REQUEST + ";", false);
                    mv.visitInsn(ARETURN);
                }));
        all.add(HookPoint.guard(ABSTRACT_RESPONSE, "parseResponse",
                "(L" + API_KEYS + ";" + READABLE + "S)L" + ABSTRACT_RESPONSE + ";",
                "parses GetReplicaLogInfo responses, and ElectLeaders v3 responses (forwarded by the controller) in the v2 layout",
                mv -> {
                    mv.visitVarInsn(ALOAD, 0);
                    mv.visitVarInsn(ILOAD, 2);
                    mv.visitMethodInsn(INVOKESTATIC, WIRE_HOOKS, "ownsResponse", "(L" + API_KEYS + ";S)Z", false);
                },
                mv -> {
                    mv.visitVarInsn(ALOAD, 0);
                    mv.visitVarInsn(ALOAD, 1);
                    mv.visitVarInsn(ILOAD, 2);
                    mv.visitMethodInsn(INVOKESTATIC, WIRE_HOOKS, "parseResponse",
                            "(L" + API_KEYS + ";" + READABLE + "S)L" + ABSTRACT_RESPONSE + ";", false);
                    mv.visitInsn(ARETURN);
                }));
        for (String method : List.of("toSend", "serializeWithHeader")) {
            String returned = method.equals("toSend") ? "Lorg/apache/kafka/common/network/Send;" : "Ljava/nio/ByteBuffer;";
            all.add(HookPoint.prologue(ABSTRACT_RESPONSE, method,
                    "(Lorg/apache/kafka/common/requests/ResponseHeader;S)" + returned,
                    "writes an ElectLeaders v3 response body in the v2 layout (v3 changed only the request)",
                    mv -> {
                        mv.visitVarInsn(ALOAD, 0);
                        mv.visitVarInsn(ILOAD, 2);
                        mv.visitMethodInsn(INVOKESTATIC, WIRE_HOOKS, "responseBodyVersion", "(L" + ABSTRACT_RESPONSE + ";S)S", false);
                        mv.visitVarInsn(ISTORE, 2);
                    }));
        }
        all.add(HookPoint.guard(REQUEST_TO_JSON, "request", "(L" + ABSTRACT_REQUEST + ";)" + JSON_NODE,
                "request log (kafka.request.logger at DEBUG): stock code throws for an unknown api",
                mv -> {
                    mv.visitVarInsn(ALOAD, 0);
                    mv.visitMethodInsn(INVOKESTATIC, WIRE_HOOKS, "isReplicaLogInfo", "(Ljava/lang/Object;)Z", false);
                },
                mv -> {
                    mv.visitVarInsn(ALOAD, 0);
                    mv.visitMethodInsn(INVOKESTATIC, WIRE_HOOKS, "requestJson", "(L" + ABSTRACT_REQUEST + ";)" + JSON_NODE, false);
                    mv.visitInsn(ARETURN);
                }));
        all.add(HookPoint.guard(REQUEST_TO_JSON, "response", "(L" + ABSTRACT_RESPONSE + ";S)" + JSON_NODE,
                "response log (kafka.request.logger at DEBUG)",
                mv -> {
                    mv.visitVarInsn(ALOAD, 0);
                    mv.visitMethodInsn(INVOKESTATIC, WIRE_HOOKS, "isReplicaLogInfo", "(Ljava/lang/Object;)Z", false);
                },
                mv -> {
                    mv.visitVarInsn(ALOAD, 0);
                    mv.visitMethodInsn(INVOKESTATIC, WIRE_HOOKS, "responseJson", "(L" + ABSTRACT_RESPONSE + ";)" + JSON_NODE, false);
                    mv.visitInsn(ARETURN);
                }));

        // --- broker: the GetReplicaLogInfo handler; the request class is the line's ---
        KafkaLine.RequestShape request = line.request();
        all.add(HookPoint.guard(KAFKA_APIS, "handle",
                "(" + request.descriptor() + "Lorg/apache/kafka/server/common/RequestLocal;)V",
                "broker request dispatch: GetReplicaLogInfo is answered from the ReplicaManager, everything else goes on as before",
                mv -> {
                    mv.visitVarInsn(ALOAD, 0);
                    mv.visitVarInsn(ALOAD, 1);
                    mv.visitVarInsn(ALOAD, 1);
                    mv.visitMethodInsn(INVOKEVIRTUAL, request.className(), "context", "()" + REQUEST_CONTEXT, false);
                    mv.visitMethodInsn(INVOKESTATIC, BROKER_HOOK, "handle",
                            "(Lkafka/server/KafkaApis;Ljava/lang/Object;" + REQUEST_CONTEXT + ")Z", false);
                },
                mv -> mv.visitInsn(RETURN)));
        all.addAll(request.calledMembers());

        // --- controller: designated elections (C1, C3, C2) ---
        all.add(HookPoint.guard(REPLICATION_CONTROL, "electLeaders",
                "(Lorg/apache/kafka/common/message/ElectLeadersRequestData;)Lorg/apache/kafka/controller/ControllerResult;",
                "an ElectLeaders v3 request with DesignatedLeaders runs with its designations in a ThreadLocal, removed in finally",
                mv -> {
                    mv.visitVarInsn(ALOAD, 1);
                    mv.visitMethodInsn(INVOKESTATIC, CONTROLLER_HOOK, "takesOver", "(Ljava/lang/Object;)Z", false);
                },
                mv -> {
                    mv.visitVarInsn(ALOAD, 0);
                    mv.visitVarInsn(ALOAD, 1);
                    mv.visitMethodInsn(INVOKESTATIC, CONTROLLER_HOOK, "electLeaders",
                            "(Ljava/lang/Object;Ljava/lang/Object;)Ljava/lang/Object;", false);
                    mv.visitTypeInsn(CHECKCAST, "org/apache/kafka/controller/ControllerResult");
                    mv.visitInsn(ARETURN);
                }));
        all.add(HookPoint.guard(REPLICATION_CONTROL, "electLeader",
                "(Ljava/lang/String;ILorg/apache/kafka/common/ElectionType;Ljava/util/List;)Lorg/apache/kafka/common/requests/ApiError;",
                "a designated partition is refused, with an error naming the failed condition, unless it is leaderless and "
                        + "the designated replica is in its replica set, unfenced, not shutting down, with its directory online",
                mv -> {
                    mv.visitVarInsn(ALOAD, 0);
                    mv.visitVarInsn(ALOAD, 1);
                    mv.visitVarInsn(ILOAD, 2);
                    mv.visitVarInsn(ALOAD, 3);
                    mv.visitMethodInsn(INVOKESTATIC, CONTROLLER_HOOK, "refuses",
                            "(Ljava/lang/Object;Ljava/lang/String;ILorg/apache/kafka/common/ElectionType;)Z", false);
                },
                mv -> {
                    mv.visitMethodInsn(INVOKESTATIC, CONTROLLER_HOOK, "refusal", "()Lorg/apache/kafka/common/requests/ApiError;", false);
                    mv.visitInsn(ARETURN);
                }));
        all.add(HookPoint.guard(PARTITION_CHANGE_BUILDER, "electLeader", "()L" + ELECTION_RESULT + ";",
                "the leader choice of a validated designated partition is the designated replica (unclean: ISR=[it], "
                        + "RECOVERING, epoch+1 by the stock code that follows), or nobody: never another replica",
                mv -> {
                    mv.visitVarInsn(ALOAD, 0);
                    mv.visitFieldInsn(GETFIELD, PARTITION_CHANGE_BUILDER, "topicId", UUID);
                    mv.visitVarInsn(ALOAD, 0);
                    mv.visitFieldInsn(GETFIELD, PARTITION_CHANGE_BUILDER, "partitionId", "I");
                    mv.visitMethodInsn(INVOKESTATIC, CONTROLLER_HOOK, "isDesignated", "(" + UUID + "I)Z", false);
                },
                mv -> {
                    // new ElectionResult(designatedLeader(...), true): the constructor is private to
                    // PartitionChangeBuilder's nest, so it is built here, inside the builder.
                    mv.visitTypeInsn(NEW, ELECTION_RESULT);
                    mv.visitInsn(DUP);
                    mv.visitVarInsn(ALOAD, 0);
                    mv.visitFieldInsn(GETFIELD, PARTITION_CHANGE_BUILDER, "topicId", UUID);
                    mv.visitVarInsn(ALOAD, 0);
                    mv.visitFieldInsn(GETFIELD, PARTITION_CHANGE_BUILDER, "partitionId", "I");
                    mv.visitVarInsn(ALOAD, 0);
                    mv.visitFieldInsn(GETFIELD, PARTITION_CHANGE_BUILDER, "targetReplicas", "Ljava/util/List;");
                    mv.visitVarInsn(ALOAD, 0);
                    mv.visitFieldInsn(GETFIELD, PARTITION_CHANGE_BUILDER, "isAcceptableLeader", "Ljava/util/function/IntPredicate;");
                    mv.visitMethodInsn(INVOKESTATIC, CONTROLLER_HOOK, "designatedLeader",
                            "(" + UUID + "ILjava/util/List;Ljava/util/function/IntPredicate;)I", false);
                    mv.visitInsn(ICONST_1);
                    mv.visitMethodInsn(INVOKESPECIAL, ELECTION_RESULT, "<init>", "(IZ)V", false);
                    mv.visitInsn(ARETURN);
                }));

        Map<String, List<HookPoint>> byClass = new LinkedHashMap<>();
        for (HookPoint hook : all) {
            byClass.computeIfAbsent(hook.owner(), owner -> new ArrayList<>()).add(hook);
        }
        return byClass;
    }

    /** A guard {@code if (<key> == expectedKey) { body }}. */
    private static HookPoint keyGuard(String owner, String method, String descriptor, short expectedKey, String why,
                                      java.util.function.Consumer<MethodVisitor> loadKey,
                                      java.util.function.Consumer<MethodVisitor> body) {
        return HookPoint.guard(owner, method, descriptor, why,
                mv -> {
                    // (key == expected) as 0/1, without a branch of our own
                    loadKey.accept(mv);
                    mv.visitIntInsn(SIPUSH, expectedKey);
                    mv.visitInsn(ISUB);
                    mv.visitMethodInsn(INVOKESTATIC, WIRE_HOOKS, "isZero", "(I)Z", false);
                },
                body);
    }

    private static void loadOwnApiKey(MethodVisitor mv) {
        mv.visitVarInsn(ALOAD, 0);
        mv.visitFieldInsn(GETFIELD, API_MESSAGE_TYPE, "apiKey", "S");
    }
}
