// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.patch;

import java.util.function.Consumer;
import org.objectweb.asm.MethodVisitor;

/**
 * One place in one Kafka class that the agent changes, and the bytecode it inserts there.
 *
 * @param owner      internal class name, e.g. {@code org/apache/kafka/common/protocol/ApiKeys}
 * @param method     method name; {@code <clinit>} for a new enum constant
 * @param descriptor JVM method descriptor; for an enum constant, that of the enum's constructor
 * @param kind       what is inserted, if anything
 * @param why        what the change is for (README, and the message when it cannot be applied)
 * @param condition  {@link Kind#ENTRY_GUARD}: pushes a boolean; null for the other kinds
 * @param body       guard: runs when the condition holds and ends in a return; prologue: runs and
 *                   falls through; enum constant: pushes the constructor arguments after name and ordinal;
 *                   null for {@link Kind#CALLED}
 * @param constant   {@link Kind#ENUM_CONSTANT}: the new constant's name; null otherwise
 */
record HookPoint(String owner, String method, String descriptor, Kind kind, String why,
                 Consumer<MethodVisitor> condition, Consumer<MethodVisitor> body, String constant) {

    enum Kind {
        /** {@code if (condition) { body }} at method entry, body ends in a return. */
        ENTRY_GUARD,
        /** {@code body} at method entry, falling through to the original code. */
        ENTRY_PROLOGUE,
        /** A new constant appended to a javac-compiled enum, right after {@code $VALUES} is assigned. */
        ENUM_CONSTANT,
        /** Nothing inserted: a method the agent's code or injected code calls, which must be there all the same. */
        CALLED
    }

    static HookPoint guard(String owner, String method, String descriptor, String why,
                           Consumer<MethodVisitor> condition, Consumer<MethodVisitor> body) {
        return new HookPoint(owner, method, descriptor, Kind.ENTRY_GUARD, why, condition, body, null);
    }

    static HookPoint prologue(String owner, String method, String descriptor, String why, Consumer<MethodVisitor> body) {
        return new HookPoint(owner, method, descriptor, Kind.ENTRY_PROLOGUE, why, null, body, null);
    }

    static HookPoint enumConstant(String owner, String constant, String constructorDescriptor, String why,
                                  Consumer<MethodVisitor> constructorArguments) {
        return new HookPoint(owner, "<clinit>", constructorDescriptor, Kind.ENUM_CONSTANT, why, null, constructorArguments, constant);
    }

    static HookPoint called(String owner, String method, String descriptor, String why) {
        return new HookPoint(owner, method, descriptor, Kind.CALLED, why, null, null, null);
    }

    /** True if applying it changes the class. */
    boolean changesClass() {
        return kind != Kind.CALLED;
    }

    /** {@code Class.method} (or {@code Class.CONSTANT}) for messages. */
    String label() {
        String simple = owner.substring(owner.lastIndexOf('/') + 1);
        return simple + "." + (kind == Kind.ENUM_CONSTANT ? constant : method);
    }
}
