// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.patch;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.uncleanrecovery.wire.GetReplicaLogInfo;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.FileSystem;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.objectweb.asm.ClassReader;
import org.objectweb.asm.ClassVisitor;
import org.objectweb.asm.FieldVisitor;
import org.objectweb.asm.MethodVisitor;
import org.objectweb.asm.Opcodes;
import org.objectweb.asm.Type;

/**
 * The hook points of each supported Kafka line, checked in the server jars of the version the cluster tests run
 * (the build resolves them, see kafka-servers/), without starting Kafka: every class patches as the preflight
 * patches it, and every Kafka member the agent's code and its injected code call is there. A call compiled against
 * 4.4 that 4.1 lacks would otherwise fail only when a request reaches it.
 */
class HookPointsOfEveryKafkaLineTest {

    /** What a Kafka installation brings: its jars, Scala, Jackson. The rest comes from the agent jar or the JDK. */
    private static final List<String> KAFKA_PACKAGES = List.of("kafka/", "org/apache/kafka/", "scala/",
            "com/fasterxml/jackson/");

    /** Code the agent's classes reach on a broker or controller: Kafka's and the agent's own. */
    private static final List<String> CHECKED_PACKAGES = Stream.concat(KAFKA_PACKAGES.stream(),
            Stream.of("dev/uncleanrecovery/")).toList();

    @ParameterizedTest
    @ValueSource(strings = {"4.1.2", "4.2.1", "4.3.1", "4.4.0"})
    void every_hook_point_of_the_line_patches_its_class_and_every_call_the_patch_adds_links(String version)
            throws Exception {
        KafkaLine line = KafkaLine.of(version).orElseThrow();
        try (ClassFiles kafka = ClassFiles.of(version)) {
            Map<String, Set<Member>> injected = new HashMap<>();
            Map<String, List<HookPoint>> hooks = KafkaHooks.forKafka(line, GetReplicaLogInfo.DEFAULT_API_KEY);
            for (Map.Entry<String, List<HookPoint>> target : hooks.entrySet()) {
                byte[] original = kafka.read(target.getKey())
                        .orElseThrow(() -> new AssertionError(target.getKey() + " not in " + version));

                byte[] patched = ClassPatcher.patch(original, target.getKey(), target.getValue());

                Set<Member> added = new LinkedHashSet<>(Member.referencedBy(patched));
                added.removeAll(Member.referencedBy(original));
                injected.put(target.getKey(), added);
                kafka.replace(target.getKey(), patched);
            }
            Set<String> unresolved = new TreeSet<>();
            injected.forEach((owner, members) -> members.stream().filter(m -> !kafka.resolves(m))
                    .forEach(m -> unresolved.add(m + " (injected into " + owner + ")")));
            assertThat(unresolved).as("calls the injected code makes that Kafka %s lacks", version).isEmpty();
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"4.1.2", "4.2.1", "4.3.1", "4.4.0"})
    void every_kafka_member_the_agent_and_its_codecs_call_is_in_the_line(String version) throws Exception {
        try (ClassFiles kafka = ClassFiles.of(version)) {
            Set<String> unresolved = new TreeSet<>();
            agentClassFiles().forEach((name, classFile) -> {
                for (Member member : Member.referencedBy(classFile)) {
                    if (!kafka.resolves(member)) {
                        unresolved.add(member + " (called by " + name + ")");
                    }
                }
            });
            assertThat(unresolved).as("members the agent calls that Kafka %s lacks", version).isEmpty();
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"3.7.2", "3.9.1", "4.0.2", "4.5.0", "4.10.1", "5.0.0"})
    void a_version_of_no_supported_line_has_no_hook_points(String version) {
        assertThat(KafkaLine.of(version)).isEmpty();
    }

    @Test
    void a_version_belongs_to_the_line_of_its_major_and_minor() {
        assertThat(KafkaLine.of("4.1.0")).hasValue(KafkaLine.KAFKA_4_1);
        assertThat(KafkaLine.of("4.3.1")).hasValue(KafkaLine.KAFKA_4_3);
        assertThat(KafkaLine.of("4.4.1-SNAPSHOT")).hasValue(KafkaLine.KAFKA_4_4);
        assertThat(KafkaLine.supported()).isEqualTo("4.1.x, 4.2.x, 4.3.x, 4.4.x");
    }

    @Test
    void the_hook_points_of_one_line_do_not_fit_another_and_the_mismatch_names_the_hook_point() throws Exception {
        try (ClassFiles kafka43 = ClassFiles.of("4.3.1")) {
            String apis = KafkaHooks.KAFKA_APIS;
            List<HookPoint> of44 = KafkaHooks.forKafka(KafkaLine.KAFKA_4_4, GetReplicaLogInfo.DEFAULT_API_KEY)
                    .get(apis);

            assertThatThrownBy(() -> ClassPatcher.patch(kafka43.read(apis).orElseThrow(), apis, of44))
                    .isInstanceOf(ClassPatcher.Mismatch.class)
                    .hasMessage("hook point not found: KafkaApis.handle "
                            + "(Lorg/apache/kafka/network/Request;Lorg/apache/kafka/server/common/RequestLocal;)V");
        }
    }

    /**
     * The agent's own classes and the codecs it bundles (the wire module), by file name, from where the test class
     * path has them: a directory of classes, or the wire module's jar once it is packaged.
     */
    private static Map<String, byte[]> agentClassFiles() throws Exception {
        Map<String, byte[]> files = new TreeMap<>();
        for (Class<?> anchor : List.of(AgentMain.class, GetReplicaLogInfo.class)) {
            Path location = Path.of(anchor.getProtectionDomain().getCodeSource().getLocation().toURI());
            String packagePath = anchor.getPackageName().replace('.', '/');
            if (Files.isDirectory(location)) {
                readClassFiles(location.resolve(packagePath), files);
            } else {
                try (FileSystem jar = FileSystems.newFileSystem(location)) {
                    readClassFiles(jar.getPath(packagePath), files);
                }
            }
        }
        assertThat(files).isNotEmpty();
        return files;
    }

    private static void readClassFiles(Path packageDirectory, Map<String, byte[]> into) throws IOException {
        try (Stream<Path> walk = Files.walk(packageDirectory)) {
            for (Path file : walk.filter(p -> p.toString().endsWith(".class")).toList()) {
                into.put(file.getFileName().toString(), Files.readAllBytes(file));
            }
        }
    }

    /** A method or field reference as the constant pool holds it: {@code owner.name descriptor}. */
    private record Member(String owner, String name, String descriptor, boolean field) {

        static Set<Member> referencedBy(byte[] classFile) {
            Set<Member> members = new LinkedHashSet<>();
            new ClassReader(classFile).accept(new ClassVisitor(Opcodes.ASM9) {
                @Override
                public MethodVisitor visitMethod(int access, String name, String descriptor, String signature,
                                                 String[] exceptions) {
                    return new MethodVisitor(Opcodes.ASM9) {
                        @Override
                        public void visitMethodInsn(int opcode, String owner, String method, String desc, boolean itf) {
                            add(owner, method, desc, false);
                        }

                        @Override
                        public void visitFieldInsn(int opcode, String owner, String fieldName, String desc) {
                            add(owner, fieldName, desc, true);
                        }

                        @Override
                        public void visitTypeInsn(int opcode, String type) {
                            add(type, null, null, false);
                        }

                        @Override
                        public void visitLdcInsn(Object value) {
                            if (value instanceof Type type && type.getSort() == Type.OBJECT) {
                                add(type.getInternalName(), null, null, false);
                            }
                        }
                    };
                }

                private void add(String owner, String name, String descriptor, boolean field) {
                    if (CHECKED_PACKAGES.stream().anyMatch(owner::startsWith)) {
                        members.add(new Member(owner, name, descriptor, field));
                    }
                }
            }, 0);
            return members;
        }

        @Override
        public String toString() {
            return owner.replace('/', '.') + (name == null ? "" : "." + name + " " + descriptor);
        }
    }

    /** The class files of one Kafka version's server class path, and the agent's and the JDK's (read, never loaded). */
    private static final class ClassFiles implements AutoCloseable {

        private final URLClassLoader kafka;
        private final Map<String, Optional<byte[]>> read = new HashMap<>();

        private ClassFiles(URLClassLoader kafka) {
            this.kafka = kafka;
        }

        static ClassFiles of(String version) throws IOException {
            Path classpath = Path.of(System.getProperty("kafka.server.classpath.file"))
                    .resolveSibling("kafka-server-" + version + ".classpath");
            List<URL> jars = new ArrayList<>();
            for (String jar : Files.readString(classpath).trim().split(java.io.File.pathSeparator)) {
                jars.add(Path.of(jar).toUri().toURL());
            }
            return new ClassFiles(new URLClassLoader(jars.toArray(URL[]::new), null));
        }

        /** From now on {@code internalName} is this class file (a patched one). */
        void replace(String internalName, byte[] classFile) {
            read.put(internalName, Optional.of(classFile));
        }

        Optional<byte[]> read(String internalName) {
            return read.computeIfAbsent(internalName, name -> {
                InputStream in = KAFKA_PACKAGES.stream().anyMatch(name::startsWith)
                        ? kafka.getResourceAsStream(name + ".class")
                        : HookPointsOfEveryKafkaLineTest.class.getClassLoader().getResourceAsStream(name + ".class");
                if (in == null) {
                    return Optional.empty();
                }
                try (in) {
                    return Optional.of(in.readAllBytes());
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            });
        }

        /** The class exists and it, a superclass or a superinterface declares the member (JVMS 5.4.3.3, 5.4.3.4). */
        boolean resolves(Member member) {
            return read(member.owner()).isPresent() && (member.name() == null || declares(member.owner(), member));
        }

        private boolean declares(String owner, Member member) {
            Optional<byte[]> classFile = read(owner);
            if (classFile.isEmpty()) {
                return false;
            }
            ClassReader reader = new ClassReader(classFile.get());
            boolean[] found = {false};
            reader.accept(new ClassVisitor(Opcodes.ASM9) {
                @Override
                public FieldVisitor visitField(int access, String name, String descriptor, String signature,
                                               Object value) {
                    found[0] |= member.field() && name.equals(member.name()) && descriptor.equals(member.descriptor());
                    return null;
                }

                @Override
                public MethodVisitor visitMethod(int access, String name, String descriptor, String signature,
                                                 String[] exceptions) {
                    found[0] |= !member.field() && name.equals(member.name()) && descriptor.equals(member.descriptor());
                    return null;
                }
            }, ClassReader.SKIP_CODE);
            if (found[0]) {
                return true;
            }
            List<String> supertypes = new ArrayList<>(List.of(reader.getInterfaces()));
            if (reader.getSuperName() != null) {
                supertypes.add(0, reader.getSuperName());
            }
            return supertypes.stream().anyMatch(supertype -> declares(supertype, member));
        }

        @Override
        public void close() throws IOException {
            kafka.close();
        }
    }
}
