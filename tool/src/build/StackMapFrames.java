// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.zip.ZipEntry;
import java.util.zip.ZipInputStream;
import java.util.zip.ZipOutputStream;
import org.objectweb.asm.ClassReader;
import org.objectweb.asm.ClassVisitor;
import org.objectweb.asm.ClassWriter;
import org.objectweb.asm.Opcodes;

/**
 * Rewrites the classes under a package prefix of a jar that are older than Java 6 (class file version 50) as version
 * 50 with stack-map frames, computed by ASM; every other entry is copied as it is. Java 17's class-data sharing
 * never archives an older class (it is verified by the old type-inferencing verifier at each load): picocli is
 * compiled for Java 5, and its classes would be loaded and verified again at every start of the tool.
 *
 * <p>Run by the build after the shade plugin: {@code java -cp asm.jar:JAR StackMapFrames.java JAR picocli/}.
 */
public final class StackMapFrames {

    private static final int JAVA_6 = 50;

    public static void main(String[] args) throws IOException {
        Path jar = Path.of(args[0]);
        String prefix = args[1];
        Path rewritten = jar.resolveSibling(jar.getFileName() + ".frames.tmp");
        int count = 0;
        try (ZipInputStream in = new ZipInputStream(Files.newInputStream(jar));
             ZipOutputStream out = new ZipOutputStream(Files.newOutputStream(rewritten))) {
            for (ZipEntry entry = in.getNextEntry(); entry != null; entry = in.getNextEntry()) {
                byte[] bytes = in.readAllBytes();
                if (entry.getName().startsWith(prefix) && entry.getName().endsWith(".class") && version(bytes) < JAVA_6) {
                    bytes = withFrames(bytes);
                    count++;
                }
                ZipEntry copy = new ZipEntry(entry.getName());
                copy.setTime(entry.getTime());
                out.putNextEntry(copy);
                out.write(bytes);
                out.closeEntry();
            }
        }
        Files.move(rewritten, jar, StandardCopyOption.REPLACE_EXISTING);
        System.out.println("StackMapFrames: " + count + " class(es) under " + prefix + " in " + jar.getFileName()
                + " now carry stack-map frames (class file version " + JAVA_6 + ")");
    }

    /** The major version: bytes 6 and 7 of a class file. */
    private static int version(byte[] classFile) {
        return ((classFile[6] & 0xff) << 8) | (classFile[7] & 0xff);
    }

    private static byte[] withFrames(byte[] classFile) {
        ClassReader reader = new ClassReader(classFile);
        // COMPUTE_FRAMES asks for common superclasses by loading them: the jar itself is on this program's class path
        ClassWriter writer = new ClassWriter(ClassWriter.COMPUTE_FRAMES);
        reader.accept(new ClassVisitor(Opcodes.ASM9, writer) {
            @Override
            public void visit(int version, int access, String name, String signature, String superName,
                              String[] interfaces) {
                super.visit(Opcodes.V1_6, access, name, signature, superName, interfaces);
            }
        }, ClassReader.SKIP_FRAMES);
        return writer.toByteArray();
    }

    private StackMapFrames() {
    }
}
