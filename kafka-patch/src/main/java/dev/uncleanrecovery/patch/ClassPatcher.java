// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.patch;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import org.objectweb.asm.ClassReader;
import org.objectweb.asm.ClassVisitor;
import org.objectweb.asm.ClassWriter;
import org.objectweb.asm.FieldVisitor;
import org.objectweb.asm.Label;
import org.objectweb.asm.MethodVisitor;
import org.objectweb.asm.Opcodes;

/**
 * Applies the hook points of one class and says which it could not find. Guards and prologues go
 * at method entry, where the locals are exactly the arguments, so the one stack map frame a guard
 * needs is {@code F_SAME} and nothing has to be loaded to compute frames.
 */
final class ClassPatcher extends ClassVisitor implements Opcodes {

    /** The class cannot be patched as this agent expects: not this Kafka, or one that has the APIs. */
    static final class Mismatch extends Exception {

        private static final long serialVersionUID = 1L;

        Mismatch(String message) {
            super(message);
        }
    }

    private final String owner;
    private final List<HookPoint> hooks;
    private final Set<HookPoint> applied = new LinkedHashSet<>();
    private final List<String> conflicts = new ArrayList<>();

    private ClassPatcher(ClassVisitor next, String owner, List<HookPoint> hooks) {
        super(ASM9, next);
        this.owner = owner;
        this.hooks = hooks;
    }

    /** The patched class file. */
    static byte[] patch(byte[] original, String owner, List<HookPoint> hooks) throws Mismatch {
        ClassReader reader = new ClassReader(original);
        // COMPUTE_MAXS only: frames are written by hand, so ASM never loads a class to merge types.
        ClassWriter writer = new ClassWriter(reader, ClassWriter.COMPUTE_MAXS);
        ClassPatcher patcher = new ClassPatcher(writer, owner, hooks);
        reader.accept(patcher, 0);
        patcher.check();
        return writer.toByteArray();
    }

    private void check() throws Mismatch {
        if (!conflicts.isEmpty()) {
            throw new Mismatch(String.join("; ", conflicts));
        }
        List<String> missing = new ArrayList<>();
        for (HookPoint hook : hooks) {
            if (!applied.contains(hook)) {
                missing.add(hook.label() + (hook.kind() == HookPoint.Kind.ENUM_CONSTANT ? " (enum layout)" : " " + hook.descriptor()));
            }
        }
        if (!missing.isEmpty()) {
            throw new Mismatch("hook point" + (missing.size() > 1 ? "s" : "") + " not found: " + String.join(", ", missing));
        }
    }

    @Override
    public FieldVisitor visitField(int access, String name, String descriptor, String signature, Object value) {
        for (HookPoint hook : hooks) {
            if (hook.kind() == HookPoint.Kind.ENUM_CONSTANT && hook.constant().equals(name)) {
                conflicts.add(hook.label() + " already exists: this Kafka already defines the API the agent adds");
            }
        }
        return super.visitField(access, name, descriptor, signature, value);
    }

    @Override
    public void visitEnd() {
        for (HookPoint hook : hooks) {
            if (hook.kind() == HookPoint.Kind.ENUM_CONSTANT) {
                super.visitField(ACC_PUBLIC | ACC_STATIC | ACC_FINAL | ACC_ENUM, hook.constant(), "L" + owner + ";", null, null)
                        .visitEnd();
            }
        }
        super.visitEnd();
    }

    @Override
    public MethodVisitor visitMethod(int access, String name, String descriptor, String signature, String[] exceptions) {
        MethodVisitor mv = super.visitMethod(access, name, descriptor, signature, exceptions);
        List<HookPoint> entry = new ArrayList<>();
        for (HookPoint hook : hooks) {
            if (hook.kind() == HookPoint.Kind.ENUM_CONSTANT) {
                if (name.equals("<clinit>")) {
                    mv = new EnumConstantAppender(mv, hook);
                }
            } else if (hook.method().equals(name) && hook.descriptor().equals(descriptor)) {
                if (hook.changesClass()) {
                    entry.add(hook);
                } else {
                    applied.add(hook);
                }
            }
        }
        if (entry.isEmpty()) {
            return mv;
        }
        return new MethodVisitor(ASM9, mv) {
            @Override
            public void visitCode() {
                super.visitCode();
                for (HookPoint hook : entry) {
                    if (hook.kind() == HookPoint.Kind.ENTRY_PROLOGUE) {
                        hook.body().accept(mv);
                    } else {
                        Label original = new Label();
                        hook.condition().accept(mv);
                        mv.visitJumpInsn(IFEQ, original);
                        hook.body().accept(mv);
                        mv.visitLabel(original);
                        mv.visitFrame(F_SAME, 0, null, 0, null);
                    }
                    applied.add(hook);
                }
            }
        };
    }

    /**
     * Right after javac's {@code putstatic $VALUES} in {@code <clinit>}:
     * {@code NEW = new E(name, $VALUES.length, args...); $VALUES = copyOf($VALUES, n + 1); $VALUES[n] = NEW}.
     * Whatever {@code <clinit>} computes from {@code values()} afterwards (ApiKeys' id map and
     * listener sets) then includes the new constant.
     */
    private final class EnumConstantAppender extends MethodVisitor {

        private final HookPoint hook;
        private boolean done;

        EnumConstantAppender(MethodVisitor next, HookPoint hook) {
            super(ASM9, next);
            this.hook = hook;
        }

        @Override
        public void visitFieldInsn(int opcode, String fieldOwner, String name, String descriptor) {
            super.visitFieldInsn(opcode, fieldOwner, name, descriptor);
            String values = "[L" + owner + ";";
            if (done || opcode != PUTSTATIC || !fieldOwner.equals(owner) || !name.equals("$VALUES") || !descriptor.equals(values)) {
                return;
            }
            done = true;
            String self = "L" + owner + ";";
            mv.visitTypeInsn(NEW, owner);
            mv.visitInsn(DUP);
            mv.visitLdcInsn(hook.constant());
            mv.visitFieldInsn(GETSTATIC, owner, "$VALUES", values);
            mv.visitInsn(ARRAYLENGTH);
            hook.body().accept(mv);
            mv.visitMethodInsn(INVOKESPECIAL, owner, "<init>", hook.descriptor(), false);
            mv.visitFieldInsn(PUTSTATIC, owner, hook.constant(), self);

            mv.visitFieldInsn(GETSTATIC, owner, "$VALUES", values);
            mv.visitFieldInsn(GETSTATIC, owner, "$VALUES", values);
            mv.visitInsn(ARRAYLENGTH);
            mv.visitInsn(ICONST_1);
            mv.visitInsn(IADD);
            mv.visitMethodInsn(INVOKESTATIC, "java/util/Arrays", "copyOf", "([Ljava/lang/Object;I)[Ljava/lang/Object;", false);
            mv.visitTypeInsn(CHECKCAST, values);
            mv.visitInsn(DUP);
            mv.visitInsn(DUP);
            mv.visitInsn(ARRAYLENGTH);
            mv.visitInsn(ICONST_1);
            mv.visitInsn(ISUB);
            mv.visitFieldInsn(GETSTATIC, owner, hook.constant(), self);
            mv.visitInsn(AASTORE);
            mv.visitFieldInsn(PUTSTATIC, owner, "$VALUES", values);
            applied.add(hook);
        }
    }
}
