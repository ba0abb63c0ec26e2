// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.patch;

import java.io.IOException;
import java.io.InputStream;
import java.lang.instrument.ClassFileTransformer;
import java.lang.instrument.Instrumentation;
import java.lang.reflect.InvocationTargetException;
import java.net.JarURLConnection;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Path;
import java.security.ProtectionDomain;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.jar.JarFile;
import org.objectweb.asm.ClassReader;
import org.objectweb.asm.ClassVisitor;
import org.objectweb.asm.FieldVisitor;
import org.objectweb.asm.Opcodes;

/**
 * {@code -javaagent} entry point for Kafka brokers and controllers ({@code kafka.Kafka}) of the lines in
 * {@link KafkaLine}: 4.1.x to 4.4.x.
 *
 * <p>Before Kafka runs, it checks everything it will need: the Kafka version and its line, the api key, that
 * this Kafka does not already have the APIs, and every hook point of that line (each target class is patched
 * once, in memory, from its class file). Any problem stops the JVM with one line and exit status
 * {@value FailFast#EXIT_STATUS}. Only then does it register the transformer that patches the
 * classes as Kafka loads them. Options ({@code -javaagent:jar=opt,opt}):
 * {@code simulateMissingHook=Class.method} treats that hook point as absent (for tests).
 */
public final class AgentMain {

    private static final String SERVER_MAIN_CLASS = "kafka.Kafka";

    /** GetReplicaLogInfo's api key in this JVM, settled in premain before any Kafka class loads. */
    private static volatile short apiKey = -1;

    /** The Kafka line this JVM runs, settled in premain before any Kafka class loads. */
    private static volatile KafkaLine kafkaLine;

    private AgentMain() {
    }

    /** The GetReplicaLogInfo api key this JVM was patched with. */
    public static short apiKey() {
        return apiKey;
    }

    /** The Kafka line this JVM was patched for. */
    public static KafkaLine kafkaLine() {
        return kafkaLine;
    }

    public static void premain(String options, Instrumentation instrumentation) {
        String simulatedMissing = option(options, "simulateMissingHook");
        String mainClass = mainClass();
        if (!SERVER_MAIN_CLASS.equals(mainClass)) {
            // KAFKA_OPTS also reaches kafka-topics.sh and friends: leave client tools stock.
            FailFast.info("not a Kafka server (main class " + mainClass + "): agent inactive");
            return;
        }
        String kafkaVersion = checkKafkaVersion();
        KafkaLine line = KafkaLine.of(kafkaVersion).orElseThrow();
        short key = resolveApiKey();
        Map<String, List<HookPoint>> hooks = KafkaHooks.forKafka(line, key);
        preflight(hooks, simulatedMissing, kafkaVersion, line);
        Map<String, List<HookPoint>> patched = new LinkedHashMap<>();
        hooks.forEach((owner, points) -> {
            if (points.stream().anyMatch(HookPoint::changesClass)) {
                patched.put(owner, points);
            }
        });
        for (Class<?> loaded : instrumentation.getAllLoadedClasses()) {
            if (patched.containsKey(loaded.getName().replace('.', '/'))) {
                FailFast.halt(loaded.getName() + " was loaded before the agent could patch it; load the agent with "
                        + "-javaagent on the kafka.Kafka command line (KAFKA_OPTS), not later");
            }
        }
        apiKey = key;
        kafkaLine = line;
        instrumentation.addTransformer(new Transformer(patched), false);
        FailFast.info("Kafka " + kafkaVersion + ": GetReplicaLogInfo on api key " + key
                + ", ElectLeaders v3 with DesignatedLeaders; the " + line + " hook points: " + count(hooks, true)
                + " in " + patched.size() + " classes, and " + count(hooks, false) + " members the agent calls");
    }

    /** {@code java -jar kafka-unclean-recovery-agent.jar}: what this jar is. */
    public static void main(String[] args) {
        System.out.println("kafka-unclean-recovery-agent: a -javaagent for Kafka " + KafkaLine.supported()
                + " brokers and controllers; start Kafka with KAFKA_OPTS=-javaagent:<this jar>");
    }

    private static long count(Map<String, List<HookPoint>> hooks, boolean changingTheClass) {
        return hooks.values().stream().flatMap(List::stream)
                .filter(hook -> hook.changesClass() == changingTheClass).count();
    }

    private static String mainClass() {
        String command = System.getProperty("sun.java.command", "").trim();
        int space = command.indexOf(' ');
        return space < 0 ? command : command.substring(0, space);
    }

    /** Kafka's own version (what AppInfoParser reports), once the server jar's is of the same supported line. */
    private static String checkKafkaVersion() {
        String clients;
        try (InputStream in = ClassLoader.getSystemResourceAsStream("kafka/kafka-version.properties")) {
            if (in == null) {
                FailFast.halt("no Kafka on the classpath (kafka/kafka-version.properties not found); the agent only runs in "
                        + "Kafka " + KafkaLine.supported() + " brokers and controllers");
                return null;
            }
            Properties properties = new Properties();
            properties.load(in);
            clients = properties.getProperty("version", "unknown");
        } catch (IOException e) {
            FailFast.halt("cannot read Kafka's version: " + e);
            return null;
        }
        String server = serverJarVersion();
        for (String version : new String[] {clients, server}) {
            if (KafkaLine.of(version).isEmpty()) {
                FailFast.halt("unsupported Kafka version " + version + " (kafka-clients " + clients + ", kafka server jar "
                        + server + "); this agent supports Kafka " + KafkaLine.supported() + " only: remove it from "
                        + "KAFKA_OPTS (without it the tool recovers this cluster with the stock RPCs)");
            }
        }
        if (KafkaLine.of(clients).orElseThrow() != KafkaLine.of(server).orElseThrow()) {
            FailFast.halt("kafka-clients " + clients + " and the kafka server jar " + server + " are of different "
                    + "Kafka lines; the agent patches both, so it needs one Kafka installation: fix the classpath");
        }
        return clients;
    }

    private static String serverJarVersion() {
        URL apis = ClassLoader.getSystemResource(KafkaHooks.KAFKA_APIS + ".class");
        if (apis == null) {
            FailFast.halt("kafka.server.KafkaApis is not on the classpath: the agent runs in Kafka brokers and controllers only");
            return null;
        }
        try {
            if (apis.openConnection() instanceof JarURLConnection jar) {
                try (JarFile file = new JarFile(Path.of(jar.getJarFileURL().toURI()).toFile())) {
                    return file.getManifest() == null ? null : file.getManifest().getMainAttributes().getValue("Version");
                }
            }
            return null;
        } catch (Exception e) {
            FailFast.halt("cannot read the Kafka server jar's version from " + apis + ": " + e);
            return null;
        }
    }

    /**
     * The tool's own {@code GetReplicaLogInfo.apiKey()} (the one place the key and its property
     * are read), run in a throwaway class loader: it consults stock {@code ApiKeys}, which in this
     * JVM must not load before the transformer is in place.
     */
    private static short resolveApiKey() {
        URL clients = ClassLoader.getSystemResource(KafkaHooks.API_KEYS + ".class");
        URL agent = AgentMain.class.getProtectionDomain().getCodeSource().getLocation();
        try {
            if (clients == null || !(clients.openConnection() instanceof JarURLConnection jar)) {
                FailFast.halt("kafka-clients is not on the classpath as a jar (" + clients + ")");
                return -1;
            }
            try (URLClassLoader loader = new URLClassLoader(new URL[] {agent, jar.getJarFileURL()}, ClassLoader.getPlatformClassLoader())) {
                Class<?> rpc = Class.forName("dev.uncleanrecovery.wire.GetReplicaLogInfo", true, loader);
                return (Short) rpc.getMethod("apiKey").invoke(null);
            }
        } catch (InvocationTargetException e) {
            FailFast.halt(String.valueOf(e.getCause().getMessage()));
        } catch (Exception | LinkageError e) {
            FailFast.halt("cannot settle the GetReplicaLogInfo api key: " + e);
        }
        return -1;
    }

    /** Patches every target class once, in memory, from its class file, without loading it. */
    private static void preflight(Map<String, List<HookPoint>> hooks, String simulatedMissing, String kafkaVersion,
                                  KafkaLine line) {
        checkElectLeadersIsStock();
        for (Map.Entry<String, List<HookPoint>> target : hooks.entrySet()) {
            String owner = target.getKey();
            List<HookPoint> points = target.getValue();
            if (simulatedMissing != null) {
                List<HookPoint> renamed = new ArrayList<>();
                for (HookPoint hook : points) {
                    renamed.add(hook.label().equals(simulatedMissing)
                            ? new HookPoint(hook.owner(), hook.method() + "$simulatedMissing", hook.descriptor(), hook.kind(),
                                    hook.why(), hook.condition(), hook.body(), hook.constant() + "$simulatedMissing")
                            : hook);
                }
                points = renamed;
            }
            byte[] original = classFile(owner);
            try {
                ClassPatcher.patch(original, owner, points);
            } catch (ClassPatcher.Mismatch e) {
                FailFast.halt(owner.replace('/', '.') + ": " + e.getMessage() + "; this Kafka " + kafkaVersion
                        + " is not the " + line + " the agent's hook points were found in, so it refuses to run "
                        + "half-patched");
            } catch (RuntimeException e) {
                FailFast.halt("cannot patch " + owner.replace('/', '.') + ": " + e);
            }
        }
    }

    /** ElectLeaders stops at v2 on 4.1 to 4.4; a Kafka with its own v3 must not get ours on top. */
    private static void checkElectLeadersIsStock() {
        Object[] highest = new Object[1];
        new ClassReader(classFile(KafkaHooks.ELECT_LEADERS_REQUEST_DATA)).accept(new ClassVisitor(Opcodes.ASM9) {
            @Override
            public FieldVisitor visitField(int access, String name, String descriptor, String signature, Object value) {
                if (name.equals("HIGHEST_SUPPORTED_VERSION")) {
                    highest[0] = value;
                }
                return null;
            }
        }, ClassReader.SKIP_CODE);
        if (!(highest[0] instanceof Integer version) || version != 2) {
            FailFast.halt("this Kafka's ElectLeaders goes up to v" + highest[0] + ", not v2: it already defines a v3 the agent "
                    + "would clash with; remove the agent from KAFKA_OPTS");
        }
    }

    static byte[] classFile(String owner) {
        try (InputStream in = ClassLoader.getSystemResourceAsStream(owner + ".class")) {
            if (in == null) {
                FailFast.halt("hook point class " + owner.replace('/', '.') + " is not on the classpath; the agent needs the stock "
                        + "Kafka server jars of one of " + KafkaLine.supported());
                return null;
            }
            return in.readAllBytes();
        } catch (IOException e) {
            FailFast.halt("cannot read " + owner + ".class: " + e);
            return null;
        }
    }

    private static String option(String options, String name) {
        if (options == null) {
            return null;
        }
        for (String option : options.split(",")) {
            int equals = option.indexOf('=');
            if (equals > 0 && option.substring(0, equals).trim().equals(name)) {
                return option.substring(equals + 1).trim();
            }
        }
        return null;
    }

    /** Patches the target classes as Kafka loads them; a failure here also halts. */
    private static final class Transformer implements ClassFileTransformer {

        private final Map<String, List<HookPoint>> hooks;

        Transformer(Map<String, List<HookPoint>> hooks) {
            this.hooks = hooks;
        }

        @Override
        public byte[] transform(ClassLoader loader, String className, Class<?> redefined, ProtectionDomain domain, byte[] bytes) {
            List<HookPoint> points = className == null ? null : hooks.get(className);
            if (points == null) {
                return null;
            }
            try {
                return ClassPatcher.patch(bytes, className, points);
            } catch (ClassPatcher.Mismatch | RuntimeException e) {
                // The JVM swallows exceptions thrown from here and loads the class unpatched.
                FailFast.halt("cannot patch " + className.replace('/', '.') + " as it loads: " + e.getMessage());
                return null;
            }
        }
    }
}
