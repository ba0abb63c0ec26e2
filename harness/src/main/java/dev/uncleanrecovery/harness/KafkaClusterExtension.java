// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.harness;

import dev.uncleanrecovery.localcluster.ClusterBackend;
import dev.uncleanrecovery.localcluster.ClusterBuilder;
import dev.uncleanrecovery.localcluster.LocalKafkaCluster;
import dev.uncleanrecovery.localcluster.MetadataMode;
import dev.uncleanrecovery.localcluster.NodeNetwork;
import dev.uncleanrecovery.localcluster.NodeRole;
import java.nio.file.Path;
import java.util.Optional;
import org.junit.jupiter.api.extension.ConditionEvaluationResult;
import org.junit.jupiter.api.extension.ExecutionCondition;
import org.junit.jupiter.api.extension.ExtensionContext.Namespace;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.LifecycleMethodExecutionExceptionHandler;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolutionException;
import org.junit.jupiter.api.extension.ParameterResolver;
import org.junit.jupiter.api.extension.TestWatcher;
import org.junit.platform.commons.support.AnnotationSupport;

/**
 * Runs the real Kafka cluster a {@link KafkaClusterTest} class asks for: started on the first
 * {@code LocalKafkaCluster} parameter, kept in the class's store so the class's tests share it,
 * and closed (every node killed by PID) when the class is done.
 */
public final class KafkaClusterExtension
        implements ExecutionCondition, ParameterResolver, TestWatcher, LifecycleMethodExecutionExceptionHandler {

    static final String SKIP_PROPERTY = "skipClusterTests";
    static final String PATCH_AGENT_PROPERTY = "kafka.patch.agent.file";
    private static final Namespace NAMESPACE = Namespace.create(KafkaClusterExtension.class);

    @Override
    public ConditionEvaluationResult evaluateExecutionCondition(ExtensionContext context) {
        if (Boolean.getBoolean(SKIP_PROPERTY)) {
            return ConditionEvaluationResult.disabled(SKIP_PROPERTY + "=true: tests on a real Kafka cluster are skipped");
        }
        ClusterBackend backend = ClusterBackend.fromSystemProperty();
        Optional<String> unavailable = backend.unavailableReason();
        if (unavailable.isPresent()) {
            return ConditionEvaluationResult.disabled("-D" + ClusterBackend.PROPERTY + "=containers: " + unavailable.get());
        }
        Optional<KafkaClusterTest> wanted = context.getTestClass()
                .flatMap(type -> AnnotationSupport.findAnnotation(type, KafkaClusterTest.class));
        if (wanted.map(KafkaClusterTest::network).orElse(NodeNetwork.LOOPBACK) == NodeNetwork.HOSTS) {
            if (backend == ClusterBackend.CONTAINERS) {
                return ConditionEvaluationResult.disabled("its nodes are hosts in network namespaces, and -D"
                        + ClusterBackend.PROPERTY + "=containers runs them in containers on this machine's network");
            }
            Optional<String> noHosts = NodeNetwork.HOSTS.unavailableReason();
            if (noHosts.isPresent()) {
                return ConditionEvaluationResult.disabled("its nodes are hosts in network namespaces: "
                        + noHosts.get());
            }
        }
        if (wanted.map(KafkaClusterTest::metadataMode).orElse(MetadataMode.KRAFT) == MetadataMode.ZOOKEEPER
                && backend == ClusterBackend.CONTAINERS) {
            return ConditionEvaluationResult.disabled("its brokers run in ZooKeeper mode, as processes of this machine;"
                    + " -D" + ClusterBackend.PROPERTY + "=containers has no ZooKeeper server");
        }
        Optional<String> wantedVersion = wanted.map(KafkaClusterTest::kafkaVersion)
                .filter(version -> !version.isEmpty());
        Optional<String> imageVersion = backend.imageKafkaVersion();
        if (wantedVersion.isPresent() && imageVersion.isPresent() && !wantedVersion.equals(imageVersion)) {
            return ConditionEvaluationResult.disabled("runs Kafka " + wantedVersion.get() + ", and the image of -D"
                    + "kafka.test.image holds Kafka " + imageVersion.get());
        }
        return ConditionEvaluationResult.enabled("real Kafka cluster tests are on (" + backend.name().toLowerCase(java.util.Locale.ROOT) + ")");
    }

    @Override
    public boolean supportsParameter(ParameterContext parameter, ExtensionContext context) {
        return parameter.getParameter().getType() == LocalKafkaCluster.class;
    }

    @Override
    public Object resolveParameter(ParameterContext parameter, ExtensionContext context) {
        ExtensionContext classContext = classContext(context);
        return classContext.getStore(NAMESPACE)
                .getOrComputeIfAbsent(RunningCluster.class, key -> start(classContext), RunningCluster.class)
                .cluster();
    }

    @Override
    public void testFailed(ExtensionContext context, Throwable cause) {
        keepNodeLogs(context, context.getRequiredTestMethod().getName());
    }

    /** A class's set-up that fails (an outage that did not form) fails no test: its node logs are kept here. */
    @Override
    public void handleBeforeAllMethodExecutionException(ExtensionContext context, Throwable throwable) throws Throwable {
        keepNodeLogs(context, "before-all");
        throw throwable;
    }

    private static void keepNodeLogs(ExtensionContext context, String what) {
        runningCluster(context).ifPresent(running -> {
            Path kept = NodeLogArchive.keep(running.cluster(), NodeLogArchive.directoryFor(
                    context.getRequiredTestClass().getSimpleName(), what));
            System.err.println(context.getRequiredTestClass().getSimpleName() + " " + what + " failed; node logs kept in "
                    + kept + "\n" + NodeLogArchive.tails(running.cluster(), NodeLogArchive.TAIL_LINES));
        });
    }

    private static RunningCluster start(ExtensionContext classContext) {
        Class<?> testClass = classContext.getRequiredTestClass();
        KafkaClusterTest wanted = AnnotationSupport.findAnnotation(testClass, KafkaClusterTest.class)
                .orElseThrow(() -> new ParameterResolutionException(testClass.getName()
                        + " asks for a LocalKafkaCluster but is not annotated @KafkaClusterTest"));
        LocalKafkaCluster cluster = configure(wanted).build();
        try {
            long began = System.nanoTime();
            cluster.start();
            System.out.printf("local Kafka %s cluster (%s) for %s: controllers %s + brokers %s up in %d ms on %s (security %s)%n",
                    cluster.kafkaVersion(), cluster.nodes().backend().name().toLowerCase(java.util.Locale.ROOT),
                    testClass.getSimpleName(), cluster.controllers().ids(), cluster.brokerIds(),
                    (System.nanoTime() - began) / 1_000_000, cluster.bootstrapServers(), cluster.access().security());
            return new RunningCluster(cluster);
        } catch (RuntimeException startFailure) {
            Path kept = NodeLogArchive.keep(cluster, NodeLogArchive.directoryFor(testClass.getSimpleName(), "cluster-start"));
            cluster.close();
            throw new ParameterResolutionException("the Kafka cluster of " + testClass.getSimpleName()
                    + " did not start; node logs kept in " + kept + ": " + startFailure.getMessage(), startFailure);
        }
    }

    private static ClusterBuilder configure(KafkaClusterTest wanted) {
        ClusterBuilder builder = LocalKafkaCluster.builder().brokers(wanted.brokers())
                .controllers(wanted.controllers())
                .metadataMode(wanted.metadataMode())
                .security(wanted.security())
                .network(wanted.network())
                .startupTimeout(java.time.Duration.ofSeconds(wanted.startupTimeoutSeconds()))
                .jvmArgs(NodeRole.BROKER, wanted.brokerJvmArgs())
                .jvmArgs(NodeRole.CONTROLLER, wanted.controllerJvmArgs());
        String version = !wanted.kafkaVersion().isEmpty() ? wanted.kafkaVersion()
                : System.getProperty("kafka.test.version", "");
        if (!version.isBlank()) {
            builder.kafkaVersion(version);
        }
        for (String feature : wanted.formatFeatures()) {
            builder.formatFeature(feature);
        }
        for (String user : wanted.saslUsers()) {
            builder.saslUser(user);
        }
        if (wanted.tieredStorage()) {
            builder.tieredStorage();
        }
        for (int broker : wanted.failableLogDirOn()) {
            builder.failableLogDir(broker);
        }
        for (String property : wanted.brokerProperties()) {
            String[] keyValue = keyValue(property);
            builder.brokerProperty(keyValue[0], keyValue[1]);
        }
        for (String property : wanted.controllerProperties()) {
            String[] keyValue = keyValue(property);
            builder.controllerProperty(keyValue[0], keyValue[1]);
        }
        if (wanted.patchAgentOn().length > 0) {
            String agent = System.getProperty(PATCH_AGENT_PROPERTY);
            if (agent == null || agent.isBlank()) {
                throw new ParameterResolutionException("@KafkaClusterTest(patchAgentOn=...) needs system property "
                        + PATCH_AGENT_PROPERTY + " (the build sets it to kafka-patch/target/kafka-unclean-recovery-agent.jar)");
            }
            builder.javaAgent(Path.of(agent), wanted.patchAgentOptions(), wanted.patchAgentOn());
            builder.withoutJavaAgentsOn(wanted.brokersWithoutPatchAgent());
        }
        return builder;
    }

    private static String[] keyValue(String property) {
        int equals = property.indexOf('=');
        if (equals <= 0) {
            throw new ParameterResolutionException("@KafkaClusterTest property '" + property + "' is not key=value");
        }
        return new String[] {property.substring(0, equals).trim(), property.substring(equals + 1).trim()};
    }

    private static Optional<RunningCluster> runningCluster(ExtensionContext context) {
        return Optional.ofNullable(classContext(context).getStore(NAMESPACE).get(RunningCluster.class, RunningCluster.class));
    }

    // Method contexts hang below their class context (and a @Nested class below its outer class):
    // the cluster belongs to the nearest class-level context.
    private static ExtensionContext classContext(ExtensionContext context) {
        ExtensionContext current = context;
        while (current.getTestMethod().isPresent() && current.getParent().isPresent()) {
            current = current.getParent().get();
        }
        return current;
    }

    /** Closed by JUnit with the class's store: kills every node. */
    private record RunningCluster(LocalKafkaCluster cluster) implements AutoCloseable {
        @Override
        public void close() {
            cluster.close();
        }
    }
}
